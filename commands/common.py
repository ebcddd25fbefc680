"""Small helpers shared by the commands: PR references, tags, key-PR selection, argument checks."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from classify.models import FLAG_KINDS
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


def select_key(items: Sequence[StoredPR], share: float, min_score: float = 0.0) -> set[int]:
    """The period's key PRs: the top ``share`` of PRs by score, among those scoring ≥ ``min_score``.

    Ties are broken by size then number, so the selection is stable across runs.
    """
    n = key_count(len(items), share)
    eligible = [s for s in items if s.cls.score >= min_score]
    ranked = sorted(eligible, key=lambda s: (-s.cls.score, -(s.pr.additions + s.pr.deletions), s.pr.number))
    return {s.pr.number for s in ranked[:n]}


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
