"""Module trends: this period against the average of its comparison windows."""

from __future__ import annotations

from dataclasses import dataclass

from commands.locale import t
from commands.locale.words import shown_avg, signed_pct
from commands.report.stats import DigestStats

MAX_ROWS = 10
CHART_MODULES = 12
"""modules a chart shows as rows of their own (13 rows in all still read in a chat preview)"""


@dataclass(frozen=True)
class Trend:
    module: str
    now: int
    avg: float

    @property
    def ratio(self) -> float:
        return (self.now + 1) / (self.avg + 1)

    def change(self, lang: str = "en") -> str:
        """ "+56%" against the average, "new" (新增) for a module with no PR before, "—" for neither."""
        if self.avg == 0:
            return t(lang, "trend.new") if self.now else "—"
        return signed_pct(self.now, self.avg)


def module_trends(stats: DigestStats) -> list[Trend]:
    now = stats.module_counts()
    avg = stats.previous_module_avg()
    # the average as the table shows it (one decimal, half up): its change is computed from it
    trends = [Trend(m, now.get(m, 0), shown_avg(avg.get(m, 0.0))) for m in set(now) | set(avg)]
    trends.sort(key=lambda tr: (-tr.now, -tr.avg, tr.module))
    return trends


def others(stats: DigestStats, trends: list[Trend]) -> dict[str, object] | None:
    """The chart's last row when there are more modules than it shows: how many other modules,
    the period's PRs carrying none of the shown ones, and the same count's average over the
    comparison windows (None when the period is not compared)."""
    if len(trends) <= CHART_MODULES:
        return None
    shown = [tr.module for tr in trends[:CHART_MODULES]]
    top = set(shown)
    count = sum(1 for s in stats.prs if not top.intersection(s.cls.modules))
    before = stats.outside_before(shown) if stats.previous else []
    avg = shown_avg(sum(before) / len(before)) if before else None
    return {"modules": len(trends) - CHART_MODULES, "count": count, "avg_4w": avg}


def movers(trends: list[Trend]) -> tuple[list[Trend], list[Trend]]:
    """Modules clearly above (≥1.5× and +3) or below (≤0.6× and −3) their average."""
    rising = [tr for tr in trends if tr.ratio >= 1.5 and tr.now - tr.avg >= 3]
    falling = [tr for tr in trends if tr.ratio <= 0.6 and tr.avg - tr.now >= 3]
    rising.sort(key=lambda tr: -(tr.now - tr.avg))
    falling.sort(key=lambda tr: -(tr.avg - tr.now))
    return rising[:5], falling[:5]
