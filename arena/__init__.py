"""Back Alley Arena: a tournament platform for Back Alley bots."""

__version__ = "0.1.0"
