"""The code in the SDK guide (docs/sdk.md), read from the guide itself."""

from __future__ import annotations

import re
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "sdk.md"


def python_blocks() -> list[str]:
    """Every ```python block of the guide, in order."""
    return re.findall(r"^```python\n(.*?)^```$", GUIDE.read_text(), flags=re.S | re.M)


def first_bot() -> str:
    return python_blocks()[0]


def smarter_bot() -> str:
    return python_blocks()[1]


def unit_test_example() -> str:
    return python_blocks()[2]
