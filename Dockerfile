# The platform image, for operators with access to a container registry.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY sdk ./sdk
COPY arena ./arena
COPY sample_bots ./sample_bots
RUN pip install --no-cache-dir ./sdk .
ENV ARENA_SAMPLE_BOTS=/app/sample_bots
CMD ["arena", "--help"]
