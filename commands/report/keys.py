"""One PR as its week sees it: its period score, whether it is a key PR, its rank.

A PR's stored score is what the classifier concluded about it alone. A week can add to it: with a
profile that scores storyline membership (``[score] theme``, e.g. the generic profile), the PRs of
the week's themes earn points only the week can tell. ``pr NUMBER`` must then see the week as the
digest does, so it computes the week's storylines too (tens of milliseconds); with a profile that
does not (the vllm profile), the stored scores decide and one indexed read is enough.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from classify.key_prs import key_numbers, with_period_parts
from classify.models import StoredPR
from classify.periods import Period
from classify.rules import Profile
from storage.prs import PRStore


@dataclass(frozen=True)
class PeriodView:
    item: StoredPR
    """the PR with the period's score parts added to its score and breakdown"""
    key: bool
    rank: int
    """1 + how many PRs of the period score higher"""
    total: int
    theme_names: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """each theme's names by language, by its English name (how score parts name it)"""


def week_view(store: PRStore, profile: Profile, repo: str, period: Period, item: StoredPR) -> PeriodView:
    number = item.pr.number
    if not profile.theme_points:
        peers = store.scores_between(repo, period.start, period.end)
        key = number in key_numbers(peers, profile.key_share, profile.key_min_score)
        rank = 1 + sum(1 for _, score, _ in peers if score > item.cls.score)
        return PeriodView(item, key, rank, len(peers))
    from commands.report.stats import gather  # the week's themes: only for profiles that score them

    stats = gather(store, profile, repo, period)
    mine = next((s for s in stats.prs if s.pr.number == number), None)
    parts = [p for p in mine.cls.breakdown if p.rule == "theme"] if mine is not None else []
    full = with_period_parts(item, parts)
    rank = 1 + sum(1 for s in stats.prs if s.cls.score > full.cls.score)
    names = {th.title: dict(th.name) for th in stats.themes}
    return PeriodView(full, number in stats.key, rank, len(stats.prs), names)
