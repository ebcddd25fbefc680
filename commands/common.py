"""Small helpers shared by the commands: PR references, tags, key-PR selection."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from classify.models import ScorePart
from commands.locale import flag_label, t
from commands.model import Paragraph, PRRef
from storage.prs import StoredPR

if TYPE_CHECKING:
    from commands.registry import Context


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
    cls = replace(item.cls, score=round(item.cls.score + points, 2), breakdown=[*item.cls.breakdown, *parts])
    return StoredPR(pr=item.pr, cls=cls)


def stale_profile_note(
    classified: dict[tuple[str, str], int], active: tuple[str, str], lang: str, prog: str = "prdigest"
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
            prog=prog,
        )
    )


def profile_note(
    ctx: Context, repo: str, start: datetime, end: datetime, lang: str, prog: str = "prdigest"
) -> Paragraph | None:
    """Says so when the period's PRs were classified by another profile than the active one,
    and how to fix it (``prdigest reclassify``): flags and scores would otherwise mislead."""
    classified = ctx.store.profiles_between(repo, start, end)
    return stale_profile_note(classified, (ctx.profile.name, ctx.profile.version), lang, prog)


def profile_line(ctx: Context, name: str, version: str, repo: str, lang: str, *, digest: bool = False) -> str:
    """Which profile classified a PR (``pr``) or answered a digest (``digest=True``), in words:
    a learned one by where it came from, the generic one standing in for too little history by
    how much more is needed; otherwise by name and version (``pr``) or nothing (``digest``)."""
    chosen = ctx.chosen
    same = (name, version) == (ctx.profile.name, ctx.profile.version)
    learned = ctx.profile.learned
    prefix = "digest.profile_" if digest else "profile."
    if same and learned is not None:
        return t(lang, prefix + "learned", prs=f"{learned.prs:,}", repo=learned.repo, on=learned.on)
    if same and chosen is not None and chosen.how == "too-few":
        return t(lang, prefix + "too_few", repo=repo, prs=f"{chosen.prs:,}", needed=chosen.needed)
    return "" if digest else t(lang, "pr.profile", profile=name, version=version)
