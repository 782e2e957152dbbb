"""The test bots are programs the check runs, not modules to import (doctest collection)."""

collect_ignore = ["bots"]
