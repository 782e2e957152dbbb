"""A bot as its author hands it in, below every layer that runs it: its manifest (``bot.toml``),
its submission (a directory or archive, checked and unpacked) and the limits it is held to.
The standard library only."""
