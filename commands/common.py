"""Small helpers shared by the commands: PR references, tags, key-PR selection, argument checks."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from classify.models import FLAG_KINDS
from commands.locale import flag_label, t
from commands.model import Paragraph, PRRef, UsageError
from storage.prs import StoredPR

if TYPE_CHECKING:
    from commands.registry import Context

MAX_PR_NUMBER = 10_000_000
_PR_URL = re.compile(r"^(?:https?://[^/\s]+/)?([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/pulls?/(\d+)(?:[/#?].*)?$")


def pr_ref(item: StoredPR) -> PRRef:
    return PRRef(number=item.pr.number, title=item.pr.title, url=item.pr.url, author=item.pr.author)


def pr_tags(
    item: StoredPR, lang: str, *, key: bool, modules: bool = True, label: Callable[[str], str] | None = None
) -> list[str]:
    """Short tags shown next to a PR: key marker, flags, modules (in that order; modules by their
    label in ``lang`` when ``label`` is given)."""
    tags = [t(lang, "tag.key")] if key else []
    tags += [flag_label(lang, kind) for kind in item.cls.flag_kinds]
    if modules:
        tags += [label(m) if label else m for m in item.cls.modules[:3]]
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


def stale_profile_note(
    classified: dict[tuple[str, str], int], active: tuple[str, str], lang: str
) -> Paragraph | None:
    """A note when PRs were classified by another profile (or version) than the active one."""
    other = {k: n for k, n in classified.items() if k != active}
    if not other:
        return None
    (name, version), n = max(other.items(), key=lambda kv: kv[1])
    return Paragraph(
        text=t(
            lang,
            "note.stale_profile",
            n=n,
            old=f"{name or '?'} {version or '?'}",
            new=f"{active[0]} {active[1]}",
        )
    )


def profile_note(ctx: Context, repo: str, start: datetime, end: datetime, lang: str) -> Paragraph | None:
    """Says so when the period's PRs were classified by another profile than the active one,
    and how to fix it (``prdigest reclassify``): flags and scores would otherwise mislead."""
    classified = ctx.store.profiles_between(repo, start, end)
    return stale_profile_note(classified, (ctx.profile.name, ctx.profile.version), lang)
