"""Which PRs of a period are key: the top share by score, the period's own points included.

A period's key PRs are the top ``key_share`` of its PRs by score plus the points only the period
can give (being part of one of its storylines: ``classify.storylines.theme_parts``), among those
whose own score reaches ``key_min_score``. How many are key never depends on the storylines, only
which; ties go to the larger change, then the lower number, so the selection is stable.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import overload

from classify.models import ListedPR, ScorePart, StoredPR


def key_count(n_prs: int, share: float) -> int:
    """How many key PRs a period of ``n_prs`` has: ``share`` of them, at least one when any merged."""
    return max(1, math.ceil(n_prs * share - 1e-9)) if n_prs else 0


def key_numbers(
    scored: Iterable[tuple[int, float, int]],
    share: float,
    min_score: float = 0.0,
    bonus: Mapping[int, float] | None = None,
) -> list[int]:
    """Key PRs from (number, score, lines changed) triples, best first (see the module docstring;
    ``bonus`` holds the period's own points by PR number)."""
    rows = list(scored)
    n = key_count(len(rows), share)
    extra = bonus or {}
    eligible = sorted(
        (r for r in rows if r[1] >= min_score), key=lambda r: (-(r[1] + extra.get(r[0], 0.0)), -r[2], r[0])
    )
    return [r[0] for r in eligible[:n]]


def _triples(items: Iterable[ListedPR]) -> list[tuple[int, float, int]]:
    return [(s.pr.number, s.cls.score, s.pr.additions + s.pr.deletions) for s in items]


def select_key(
    items: Sequence[ListedPR], share: float, min_score: float = 0.0, bonus: Mapping[int, float] | None = None
) -> set[int]:
    """The period's key PRs (see ``key_numbers``)."""
    return set(key_numbers(_triples(items), share, min_score, bonus))


def ranked_numbers(items: Iterable[ListedPR]) -> list[int]:
    """Every PR of a period in the order key PRs are picked: score, then size, then number."""
    return [r[0] for r in sorted(_triples(items), key=lambda r: (-r[1], -r[2], r[0]))]


@overload
def with_period_parts(item: ListedPR, parts: Sequence[ScorePart]) -> ListedPR: ...
@overload
def with_period_parts(item: StoredPR, parts: Sequence[ScorePart]) -> StoredPR: ...
def with_period_parts(item: ListedPR | StoredPR, parts: Sequence[ScorePart]) -> ListedPR | StoredPR:
    """The PR as its period sees it: score parts that only the period can tell (e.g. being part
    of one of its storylines) added to the score and its breakdown."""
    if not parts:
        return item
    points = sum(p.points for p in parts)
    cls = replace(item.cls, score=round(item.cls.score + points, 2), breakdown=[*item.cls.breakdown, *parts])
    return replace(item, cls=cls)
