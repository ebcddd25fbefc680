"""Small helpers shared by the commands: PR references, tags, key-PR selection, argument checks."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

from classify.models import FLAG_KINDS, ScorePart
from commands.locale import flag_label, t
from commands.model import PRRef, UsageError
from storage.prs import StoredPR

MAX_PR_NUMBER = 10_000_000
_PR_URL = re.compile(r"^(?:https?://[^/\s]+/)?([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/pulls?/(\d+)(?:[/#?].*)?$")


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


def key_numbers(
    scored: Iterable[tuple[int, float, int]],
    share: float,
    min_score: float = 0.0,
    bonus: Mapping[int, float] | None = None,
) -> list[int]:
    """Key PRs from (number, score, lines changed) triples, best first.

    The top ``share`` of a period's PRs by score plus the period's ``bonus`` (theme points), among
    those whose own score is ≥ ``min_score`` — so how many PRs are key never depends on the
    period's storylines, only which; ties go to the larger change, then the lower number, so the
    selection is stable across runs.
    """
    rows = list(scored)
    n = key_count(len(rows), share)
    extra = bonus or {}
    eligible = sorted(
        (r for r in rows if r[1] >= min_score), key=lambda r: (-(r[1] + extra.get(r[0], 0.0)), -r[2], r[0])
    )
    return [r[0] for r in eligible[:n]]


def _triples(items: Iterable[StoredPR]) -> list[tuple[int, float, int]]:
    return [(s.pr.number, s.cls.score, s.pr.additions + s.pr.deletions) for s in items]


def select_key(
    items: Sequence[StoredPR], share: float, min_score: float = 0.0, bonus: Mapping[int, float] | None = None
) -> set[int]:
    """The period's key PRs (see ``key_numbers``)."""
    return set(key_numbers(_triples(items), share, min_score, bonus))


def ranked_numbers(items: Iterable[StoredPR]) -> list[int]:
    """Every PR of a period in the order key PRs are picked: score, then size, then number."""
    return [r[0] for r in sorted(_triples(items), key=lambda r: (-r[1], -r[2], r[0]))]


def with_period_parts(item: StoredPR, parts: Sequence[ScorePart]) -> StoredPR:
    """The PR as its period sees it: score parts that only the period can tell (e.g. being part
    of one of its storylines) added to the score and its breakdown."""
    if not parts:
        return item
    points = sum(p.points for p in parts)
    cls = item.cls.model_copy(
        update={"score": round(item.cls.score + points, 2), "breakdown": [*item.cls.breakdown, *parts]}
    )
    return StoredPR(pr=item.pr, cls=cls)


def parse_pr_number(word: str) -> tuple[int, str | None]:
    """A PR number (``42121``, ``#42121``) or URL; returns (number, repo named by the URL)."""
    text = word.strip()
    repo: str | None = None
    m = _PR_URL.match(text)
    if m:
        repo, text = m.group(1), m.group(2)
    text = text.removeprefix("#")
    if not text.isdigit():
        raise UsageError(
            f"{word[:40]!r} is not a PR number; give a positive integer such as 42121 or a PR URL"
        )
    number = int(text)
    if number <= 0 or number > MAX_PR_NUMBER:
        raise UsageError(f"PR number {text[:20]} is out of range (1–{MAX_PR_NUMBER:,})")
    return number, repo


def parse_flag_kind(word: str) -> str:
    kind = word.lower()
    if kind == "all" or kind in FLAG_KINDS:
        return kind
    raise UsageError(f"unknown risk kind {word[:40]!r}; use one of {', '.join(FLAG_KINDS)} or all")


def human_list(items: Iterable[str], lang: str, limit: int = 3) -> str:
    values = list(items)
    sep = "、" if lang == "zh" else ", "
    return sep.join(values[:limit]) if values else "—"
