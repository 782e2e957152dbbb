"""Pictures drawn on the server as SVG coordinates (the templates draw them): a rating
history with the ladder's rating and its interval, and the shared axis of the ladder's
interval bars. No chart library, no script."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.league.browse import RatingPoint
from arena.read_model import Standing

WIDTH = 600.0
HEIGHT = 180.0
PAD = 36.0


@dataclass(frozen=True)
class Axis:
    low: float
    high: float

    def x(self, value: float, width: float = 200.0) -> float:
        """Where ``value`` falls on a bar ``width`` wide."""
        span = self.high - self.low or 1.0
        return round((value - self.low) / span * width, 1)


@dataclass(frozen=True)
class Line:
    label: str  # "v2"
    points: str  # the SVG polyline's "x,y x,y ..."


@dataclass(frozen=True)
class Band:
    """The ladder's rating now, as a line, and its 95% interval, as a band across."""

    label: str  # "ladder rating 1812 (95%: 1750 to 1870)"
    y: float
    top: float
    bottom: float


@dataclass(frozen=True)
class Chart:
    lines: list[Line]
    low: float  # the y axis' range
    high: float
    matches: int  # points on the x axis
    band: Band | None = None
    width: float = WIDTH
    height: float = HEIGHT
    pad: float = PAD


def interval_axis(intervals: Sequence[tuple[float, float]]) -> Axis:
    """One axis for every entry's 95% interval, a little wider than all of them."""
    if not intervals:
        return Axis(1400.0, 1600.0)
    low = min(lo for lo, _ in intervals)
    high = max(hi for _, hi in intervals)
    margin = max(10.0, (high - low) * 0.05)
    return Axis(low - margin, high + margin)


def rating_chart(history: Sequence[RatingPoint], standing: Standing | None) -> Chart | None:
    """The ladder's rating (``standing``: the fit the ladder ranks by) as a line and its 95%
    interval as a band, behind the sequential Elo after each rated match, one line per
    version; None when unrated."""
    if not history:
        return None
    values = [p.elo for p in history] + [1500.0]
    if standing is not None:
        values += [standing.ci95[0], standing.ci95[1], standing.rating]
    low, high = min(values) - 10, max(values) + 10
    n = len(history)
    plot_w, plot_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD

    def y(value: float) -> float:
        return round(PAD + (high - value) / (high - low) * plot_h, 1)

    def xy(i: int, elo: float) -> str:
        x = PAD + (i / max(1, n - 1)) * plot_w
        return f"{x:.1f},{y(elo):.1f}"

    by_version: dict[int, list[str]] = {}
    for i, point in enumerate(history):
        by_version.setdefault(point.version, []).append(xy(i, point.elo))
    lines = [Line(f"v{v} sequential Elo", " ".join(pts)) for v, pts in sorted(by_version.items())]
    band = None
    if standing is not None:
        lo, hi = standing.ci95
        label = f"ladder rating {standing.rating:.0f} (95%: {lo:.0f} to {hi:.0f})"
        band = Band(label, y(standing.rating), y(hi), y(lo))
    return Chart(lines, round(low), round(high), n, band)
