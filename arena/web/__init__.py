"""The arena on the web: the ladder, bots, matches and a replay viewer (``arena web``).

``create_app(ladder)`` makes the ASGI app over a ``LocalLadder``; ``serve`` runs it. The pages
and their stable ``data-testid``s are described in docs/web.md.
"""

from .app import create_app
from .server import bound_socket, serve

__all__ = ["bound_socket", "create_app", "serve"]
