"""The ``arena`` command line, one module per command group: ``app`` (the shared app, its
helpers, and the play and replay commands), ``ladder``, ``compare``, ``server``, ``status``,
``tokens`` and ``web``; ``main`` imports them all and runs the app."""
