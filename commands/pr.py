"""``pr NUMBER``: everything the cache knows about one PR."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from classify.models import StoredPR
from classify.periods import week_of
from classify.rules import Profile
from commands import params as P
from commands.common import pr_ref, pr_tags, profile_line, stale_profile_note
from commands.context import Context
from commands.locale import flag_label, t
from commands.locale.effects import effect_text
from commands.locale.evidence import evidence_text
from commands.locale.reasons import score_reason
from commands.model import (
    Block,
    Bullet,
    BulletList,
    Facts,
    Heading,
    Invocation,
    NotCached,
    Paragraph,
    PRItem,
    Reply,
)
from commands.report.keys import PeriodView, week_view
from commands.spec import command, program


@command(
    "pr",
    params=(P.pr_number(), P.repo()),
    summary="cmd.pr",
    examples=("pr 42121", "pr https://github.com/vllm-project/vllm/pull/42121"),
)
def run(inv: Invocation, ctx: Context, *, number: P.PRTarget) -> Reply:
    repo = ctx.resolve_repo(inv, number.repo, cached=False)
    ctx, lang = ctx.for_repo(repo), inv.lang
    item = ctx.store.get(repo, number.number)
    if item is None:
        return Reply(
            command="pr",
            status="not_found",
            title=t(lang, "pr.not_cached", number=number.number, repo=repo, prog=program(inv)),
            data={"error": "not cached", "number": number.number, "repo": repo},
            not_cached=NotCached(repo=repo, number=number.number),
        )
    zone = ZoneInfo(inv.timezone)
    week = week_of(item.pr.merged_at, zone)
    view = week_view(ctx.store, ctx.profile, repo, week, item)
    blocks = [
        _header(view.item, view.key, zone, lang),
        *_facts(view, ctx.profile, week.label, lang),
        *_flags(view.item, lang),
        *_explained(view, ctx, repo, lang, program(inv)),
    ]
    pr = view.item.pr
    return Reply(
        command="pr",
        title=t(lang, "pr.title", number=pr.number, title=pr.title),
        blocks=blocks,
        data=_data(repo, view.item, view.key, week.label),
    )


def _header(item: StoredPR, key: bool, zone: ZoneInfo, lang: str) -> PRItem:
    pr = item.pr
    merged_local = pr.merged_at.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")
    return PRItem(
        pr=pr_ref(item),
        tags=pr_tags(item, lang, key=key, modules=False),
        lines=[
            t(lang, "pr.merged", merged=merged_local, author=pr.author or "?", base=pr.base_branch),
            t(
                lang,
                "pr.size.one" if pr.changed_files == 1 else "pr.size",
                additions=pr.additions,
                deletions=pr.deletions,
                files=pr.changed_files,
            ),
            pr.url,
        ],
    )


def _facts(view: PeriodView, profile: Profile, week: str, lang: str) -> list[Block]:
    """The gist, then modules, labels and where the score ranks the PR in its week."""
    pr, cls = view.item.pr, view.item.cls
    blocks: list[Block] = [Paragraph(text=cls.gist)] if cls.gist else []
    joiner = "、" if lang == "zh" else ", "
    facts = [(t(lang, "pr.modules"), joiner.join(profile.module_label(m, lang) for m in cls.modules) or "—")]
    if pr.labels:
        facts.append((t(lang, "pr.labels"), joiner.join(pr.labels)))
    facts.append(
        (
            t(lang, "pr.score", score=f"{cls.score:g}", rank=f"#{view.rank}/{view.total}"),
            t(lang, "pr.key_yes" if view.key else "pr.key_no", week=week),
        )
    )
    blocks.append(Facts(items=facts))
    return blocks


def _flags(item: StoredPR, lang: str) -> list[Block]:
    blocks: list[Block] = [Heading(text=t(lang, "pr.flags"), level=3)]
    if not item.cls.flags:
        return [*blocks, Paragraph(text=t(lang, "pr.no_flags"))]
    items = []
    sep = "：" if lang == "zh" else ": "
    for f in item.cls.flags:
        shown = evidence_text(f.kind, f.evidence, lang, item.pr.title)
        items.append(Bullet(text=flag_label(lang, f.kind) + (sep + shown if shown else "")))
    return [*blocks, BulletList(items=items)]


def _explained(view: PeriodView, ctx: Context, repo: str, lang: str, prog: str) -> list[Block]:
    """The score's breakdown, the highlights, and which profile classified the PR (and whether
    the one in force now is another)."""
    cls = view.item.cls
    blocks: list[Block] = []
    if cls.breakdown:
        reasons = [score_reason(lang, p, ctx.profile, view.theme_names) for p in cls.breakdown]
        blocks.append(Heading(text=t(lang, "pr.breakdown"), level=3))
        blocks.append(
            BulletList(
                items=[
                    Bullet(text=f"{p.points:+g}  {r}") for p, r in zip(cls.breakdown, reasons, strict=True)
                ]
            )
        )
    if cls.highlights:
        blocks.append(Heading(text=t(lang, "pr.highlights"), level=3))
        blocks.append(BulletList(items=[Bullet(text=effect_text(h, lang)) for h in cls.highlights]))
    blocks.append(Paragraph(text=profile_line(ctx, cls.profile, cls.profile_version, repo, lang)))
    active = (ctx.profile.name, ctx.profile.version)
    note = stale_profile_note({(cls.profile, cls.profile_version): 1}, active, lang, prog)
    if note is not None:
        blocks.append(Paragraph(text=t(lang, "pr.stale_profile", new=f"{active[0]} {active[1]}", prog=prog)))
    return blocks


def _data(repo: str, item: StoredPR, key: bool, week: str) -> dict[str, object]:
    pr, cls = item.pr, item.cls
    return {
        "repo": repo,
        "number": pr.number,
        "title": pr.title,
        "url": pr.url,
        "author": pr.author,
        "merged_at": pr.merged_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "base_branch": pr.base_branch,
        "labels": pr.labels,
        "additions": pr.additions,
        "deletions": pr.deletions,
        "changed_files": pr.changed_files,
        "modules": cls.modules,
        "kind": cls.kind,
        "flags": {f.kind: f.evidence for f in cls.flags},
        "score": cls.score,
        "score_breakdown": [
            {"reason": p.reason, "points": p.points, "rule": p.rule, "detail": p.detail}
            for p in cls.breakdown
        ],
        "key": key,
        "week": week,
        "highlights": cls.highlights,
        "gist": cls.gist,
        "profile": {"name": cls.profile, "version": cls.profile_version},
    }
