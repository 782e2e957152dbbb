# The platform image, for operators with access to a container registry.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY arena ./arena
RUN pip install --no-cache-dir .
CMD ["arena", "--help"]
