"""Small helpers shared by the commands: PR references, tags, key-PR selection."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from commands.locale import flag_label, t
from commands.model import PRRef
from storage.prs import StoredPR


def pr_ref(item: StoredPR) -> PRRef:
    return PRRef(number=item.pr.number, title=item.pr.title, url=item.pr.url, author=item.pr.author)


def pr_tags(item: StoredPR, lang: str, *, key: bool, modules: bool = True) -> list[str]:
    """Short tags shown next to a PR: key marker, flags, modules (in that order)."""
    tags = [t(lang, "tag.key")] if key else []
    tags += [flag_label(lang, kind) for kind in item.cls.flag_kinds]
    if modules:
        tags += item.cls.modules[:3]
    return tags


def key_count(n_prs: int, share: float) -> int:
    """How many key PRs a period of ``n_prs`` has: ``share`` of them, at least one when any merged."""
    return max(1, math.ceil(n_prs * share - 1e-9)) if n_prs else 0


def key_numbers(scored: Iterable[tuple[int, float, int]], share: float, min_score: float = 0.0) -> list[int]:
    """Key PRs from (number, score, lines changed) triples, best first.

    The top ``share`` of a period's PRs by score, among those scoring ≥ ``min_score``; ties go to
    the larger change, then the lower number, so the selection is stable across runs.
    """
    rows = list(scored)
    n = key_count(len(rows), share)
    eligible = sorted((r for r in rows if r[1] >= min_score), key=lambda r: (-r[1], -r[2], r[0]))
    return [r[0] for r in eligible[:n]]


def select_key(items: Sequence[StoredPR], share: float, min_score: float = 0.0) -> set[int]:
    """The period's key PRs (see ``key_numbers``)."""
    triples = ((s.pr.number, s.cls.score, s.pr.additions + s.pr.deletions) for s in items)
    return set(key_numbers(triples, share, min_score))
