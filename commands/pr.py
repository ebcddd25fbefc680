"""``pr NUMBER``: everything the cache knows about one PR."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from commands.common import parse_pr_number, pr_ref, pr_tags
from commands.locale import flag_label, t
from commands.locale.reasons import score_reason
from commands.model import (
    Block,
    Bullet,
    BulletList,
    Facts,
    Heading,
    Invocation,
    Paragraph,
    PRItem,
    Reply,
    UsageError,
)
from commands.period import week_of
from commands.registry import Context, command
from commands.report.keys import week_view


@command(
    "pr",
    usage="pr NUMBER (or a PR URL)",
    summary={"en": "cmd.pr", "zh": "cmd.pr"},
    examples=("pr 42121", "pr https://github.com/vllm-project/vllm/pull/42121"),
)
def run(inv: Invocation, ctx: Context) -> Reply:
    if len(inv.args) != 1:
        raise UsageError("give exactly one PR number" if inv.args else "which PR? give its number")
    number, url_repo = parse_pr_number(inv.args[0])
    repo = url_repo or ctx.resolve_repo(inv)
    lang = inv.lang
    item = ctx.store.get(repo, number)
    if item is None:
        return Reply.not_found("pr", t(lang, "pr.not_cached", number=number, repo=repo)).model_copy(
            update={"data": {"error": "not cached", "number": number, "repo": repo}}
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
                t(lang, "pr.size", additions=pr.additions, deletions=pr.deletions, files=pr.changed_files),
                pr.url,
            ],
        ),
    ]
    if cls.gist:
        blocks.append(Paragraph(text=cls.gist))
    facts = [
        (t(lang, "pr.modules"), ", ".join(ctx.profile.module_label(m, lang) for m in cls.modules) or "—")
    ]
    if pr.labels:
        facts.append((t(lang, "pr.labels"), ", ".join(pr.labels)))
    facts.append(
        (
            t(lang, "pr.score", score=f"{cls.score:g}", rank=f"#{rank}/{peers}"),
            t(lang, "pr.key_yes" if key else "pr.key_no", week=week.label),
        )
    )
    blocks.append(Facts(items=facts))
    blocks.append(Heading(text=t(lang, "pr.flags"), level=3))
    if cls.flags:
        blocks.append(
            BulletList(
                items=[Bullet(text=f"{flag_label(lang, f.kind)}: {'; '.join(f.evidence)}") for f in cls.flags]
            )
        )
    else:
        blocks.append(Paragraph(text=t(lang, "pr.no_flags")))
    if cls.breakdown:
        blocks.append(
            BulletList(
                items=[
                    Bullet(text=f"{p.points:+g}  {score_reason(lang, p, ctx.profile, view.theme_names)}")
                    for p in cls.breakdown
                ]
            )
        )
    if cls.highlights:
        blocks.append(Heading(text=t(lang, "pr.highlights"), level=3))
        blocks.append(BulletList(items=[Bullet(text=h) for h in cls.highlights]))
    blocks.append(Paragraph(text=t(lang, "pr.profile", profile=cls.profile, version=cls.profile_version)))

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
