"""The ``arena`` console script, and ``python -m arena``.

The CLI's imports (SQLAlchemy and SQLModel, gRPC, the Docker SDK) make some 100,000
objects that live as long as the process. The cyclic garbage collector would walk them
again and again while they load (about 0.2 of the 1.5 CPU s they take) and once more as the
interpreter exits (0.2-0.3 s). So the collector is off while they load, and then they are
frozen (``gc.freeze``): no later collection walks them.
"""

import gc
import os


def main() -> None:
    # gRPC's core would log a failed TLS handshake on stderr, beside the one ``error:`` line
    # the client prints for it; it reads this as it is imported.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    gc.disable()
    try:
        from .cli.main import main as cli_main
    finally:
        gc.freeze()
        gc.enable()
    cli_main()


if __name__ == "__main__":
    main()
