"""The ``arena`` console script, and ``python -m arena``.

The CLI's modules import only what parsing needs; each command imports the rest (the store,
the sandbox, gRPC) as it runs. Those make some 100,000 objects that live as long as the
process, which the cyclic garbage collector would walk once more as the interpreter exits:
so the objects are frozen (``gc.freeze``) then, after every other exit handler, and no
final collection walks them. The CLI's own imports load with the collector off, and frozen.
"""

import atexit
import gc
import os


def main() -> None:
    # gRPC's core would log a failed TLS handshake on stderr, beside the one ``error:`` line
    # the client prints for it; it reads this as it is imported.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    # Its older client stack costs the referee about a third less CPU per decision than the
    # EventEngine client (bench/README.md, "The SDK's cheaper calls and cards"); also read
    # as it is imported. Only this process's clients: a bot's environment is its sandbox's.
    os.environ.setdefault("GRPC_EXPERIMENTS", "-event_engine_client")
    atexit.register(gc.freeze)  # the first registered: it runs last
    gc.disable()
    try:
        from .cli.main import main as cli_main
    finally:
        gc.freeze()
        gc.enable()
    cli_main()


if __name__ == "__main__":
    main()
