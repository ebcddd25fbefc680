"""``pr NUMBER``: everything the cache knows about one PR."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from commands import params as P
from commands.common import pr_ref, pr_tags, profile_line, stale_profile_note
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
from commands.period import week_of
from commands.registry import Context, command, program
from commands.report.keys import week_view


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
    pr, cls = item.pr, item.cls
    zone = ZoneInfo(inv.timezone)
    week = week_of(pr.merged_at, zone)
    view = week_view(ctx.store, ctx.profile, repo, week, item)
    item, key, rank, peers = view.item, view.key, view.rank, view.total
    cls = item.cls
    merged_local = pr.merged_at.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")

    blocks: list[Block] = [
        PRItem(
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
        ),
    ]
    if cls.gist:
        blocks.append(Paragraph(text=cls.gist))
    facts = [
        (
            t(lang, "pr.modules"),
            ("、" if lang == "zh" else ", ").join(ctx.profile.module_label(m, lang) for m in cls.modules)
            or "—",
        )
    ]
    if pr.labels:
        facts.append((t(lang, "pr.labels"), ("、" if lang == "zh" else ", ").join(pr.labels)))
    facts.append(
        (
            t(lang, "pr.score", score=f"{cls.score:g}", rank=f"#{rank}/{peers}"),
            t(lang, "pr.key_yes" if key else "pr.key_no", week=week.label),
        )
    )
    blocks.append(Facts(items=facts))
    blocks.append(Heading(text=t(lang, "pr.flags"), level=3))
    if cls.flags:
        items = []
        for f in cls.flags:
            shown = evidence_text(f.kind, f.evidence, lang, pr.title)
            sep = "：" if lang == "zh" else ": "
            items.append(Bullet(text=flag_label(lang, f.kind) + (sep + shown if shown else "")))
        blocks.append(BulletList(items=items))
    else:
        blocks.append(Paragraph(text=t(lang, "pr.no_flags")))
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
    note = stale_profile_note({(cls.profile, cls.profile_version): 1}, active, lang, program(inv))
    if note is not None:
        blocks.append(
            Paragraph(text=t(lang, "pr.stale_profile", new=f"{active[0]} {active[1]}", prog=program(inv)))
        )

    data = {
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
        "week": week.label,
        "highlights": cls.highlights,
        "gist": cls.gist,
        "profile": {"name": cls.profile, "version": cls.profile_version},
    }
    return Reply(
        command="pr", title=t(lang, "pr.title", number=pr.number, title=pr.title), blocks=blocks, data=data
    )
