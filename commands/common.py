"""Small helpers shared by the commands: PR references, tags, the stale-profile note."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from classify.models import ListedPR, StoredPR
from commands.locale import flag_label, t
from commands.model import Paragraph, PRRef

if TYPE_CHECKING:
    from commands.context import Context


def pr_ref(item: ListedPR | StoredPR) -> PRRef:
    return PRRef(number=item.pr.number, title=item.pr.title, url=item.pr.url, author=item.pr.author)


def pr_tags(
    item: ListedPR | StoredPR,
    lang: str,
    *,
    key: bool,
    modules: bool = True,
    label: Callable[[str], str] | None = None,
) -> list[str]:
    """Short tags shown next to a PR: key marker, flags, modules (in that order; modules by their
    label in ``lang`` when ``label`` is given)."""
    tags = [t(lang, "tag.key")] if key else []
    tags += [flag_label(lang, kind) for kind in item.cls.flag_kinds]
    if modules:
        tags += [label(m) if label else m for m in item.cls.modules[:3]]
    return tags


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
