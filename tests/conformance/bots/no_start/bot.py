"""Breaks `hello`: dies before it serves."""

raise SystemExit("cannot start: a missing data file")
