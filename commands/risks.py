"""``risks [KIND] [PERIOD]``: PRs carrying a risk flag, each with the evidence that raised it."""

from __future__ import annotations

from classify.models import FLAG_KINDS, ListedPR
from classify.periods import Period
from commands import params as P
from commands.cache_range import cache_range
from commands.common import pr_ref, pr_tags, profile_note
from commands.context import Context
from commands.locale import flag_label, t
from commands.locale.evidence import evidence_text
from commands.locale.words import period_text
from commands.model import Block, Heading, Invocation, Paragraph, PRItem, Reply
from commands.spec import command, program, typed

MAX_LISTED = 100  # PRs shown for one kind (the JSON data always has every one)
OVERVIEW_LISTED = 20  # PRs shown per kind by `risks all`, an overview that points to the full lists


def _evidence(item: ListedPR, kind: str) -> list[str]:
    """The stored evidence (JSON: stable, as the classifier wrote it)."""
    if kind == "all":
        return [f"{f.kind}: {'; '.join(f.evidence)}" for f in item.cls.flags]
    flag = item.cls.flag(kind)  # type: ignore[arg-type]
    return list(flag.evidence) if flag else []


def _shown(item: ListedPR, kind: str, lang: str) -> list[str]:
    """The evidence as a reader sees it: translated, nothing that only repeats the title."""
    flag = item.cls.flag(kind)  # type: ignore[arg-type]
    if flag is None:
        return []
    text = evidence_text(kind, flag.evidence, lang, item.pr.title)
    return [text] if text else []


@command(
    "risks",
    params=(P.risk_kind(), P.period(), P.repo()),
    summary="cmd.risks",
    examples=("risks core-path", "risks breaking last-week", "risks all 2026-W19"),
)
def run(inv: Invocation, ctx: Context, *, kind: str, period: Period) -> Reply:
    repo = ctx.resolve_repo(inv)
    lang = inv.lang
    # the period as a word for the "… N more: `risks KIND PERIOD`" pointers (the default needs none)
    period_word = None if period.kind == "rolling" else period.label

    items = ctx.store.flagged_between(repo, period.start, period.end, None if kind == "all" else kind)

    kind_text = t(lang, "risks.all") if kind == "all" else flag_label(lang, kind)

    def label(module: str) -> str:
        return ctx.profile.module_label(module, lang)

    blocks: list[Block] = []
    if not items:
        none = "risks.none_all" if kind == "all" else "risks.none"  # not "PRs with all flags at once"
        blocks.append(Paragraph(text=t(lang, none, kind=kind_text, period=period_text(period, lang))))
        outside = cache_range(ctx, inv, repo, period, kind)  # nothing merged then: where the cache's PRs are
        if outside is not None:
            blocks.append(outside)
    else:
        groups: dict[str, list[ListedPR]] = {kind: items} if kind != "all" else {}
        if kind == "all":
            for s in items:  # one pass; items are already in score order
                for f in s.cls.flags:
                    groups.setdefault(f.kind, []).append(s)
            blocks.append(Paragraph(text=t(lang, "risks.count", n=len(items))))
        limit = OVERVIEW_LISTED if kind == "all" else MAX_LISTED
        for group in (k for k in FLAG_KINDS if k in groups):
            members = groups[group]
            blocks.append(
                Heading(text=t(lang, "risks.group", kind=flag_label(lang, group), n=len(members)), level=3)
            )
            blocks.extend(
                PRItem(
                    pr=pr_ref(s), tags=pr_tags(s, lang, key=False, label=label), lines=_shown(s, group, lang)
                )
                for s in members[:limit]
            )
            hidden = len(members) - limit
            if hidden > 0 and kind == "all":
                full = typed(inv, "risks", group, *([period_word] if period_word else []))
                blocks.append(Paragraph(text=t(lang, "risks.more", n=hidden, command=full)))
            elif hidden > 0:
                blocks.append(Paragraph(text=t(lang, "risks.more_data", n=hidden)))
    data = {
        "repo": repo,
        "kind": kind,
        "period": period.as_dict(),
        "total": len(items),
        "prs": [
            {
                "number": s.pr.number,
                "title": s.pr.title,
                "url": s.pr.url,
                "flags": s.cls.flag_kinds,
                "evidence": _evidence(s, kind),
            }
            for s in items
        ],
    }
    note = profile_note(ctx, repo, period.start, period.end, lang, program(inv))
    if note is not None:
        blocks.insert(0, note)
        data["profile_note"] = note.text
    title = t(lang, "risks.title", kind=kind_text, repo=repo, period=period_text(period, lang))
    return Reply(command="risks", title=title, blocks=blocks, data=data)
