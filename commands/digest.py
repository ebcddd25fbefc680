"""``digest [PERIOD] [MODULE…] [FLAG…] [any|all|only]``: the weekly report, computed from the cache."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from commands import params as P
from commands.locale import t
from commands.model import Block, Invocation, Paragraph, Reply, UsageError
from commands.period import Period, week_of
from commands.registry import Context, command
from commands.report.compose import compose
from commands.report.stats import gather
from storage.prs import TagFilter


@command(
    "digest",
    params=(P.period(), P.modules(claims=P.not_a_filter_word), P.flag_filter(), P.match(), P.repo()),
    summary="cmd.digest",
    examples=(
        "digest",
        "digest last-week",
        "digest 2026-W19 rocm",
        "digest 2026-05-04..2026-05-10",
        "digest last-week rocm core-path",
        "digest last-week rocm kernel all",
    ),
)
def run(
    inv: Invocation, ctx: Context, *, period: Period, match: str, flags: list[str], modules: list[str]
) -> Reply:
    """The digest of ``period``; ``modules`` (with ``match``) and ``flags`` narrow it to the PRs a
    filtered subscription gets: those passing the module filter or carrying one of the flags."""
    repo = ctx.resolve_repo(inv)
    if match != "any" and not modules:
        raise UsageError("error.match_needs_modules", mode=match)
    flt = TagFilter(tuple(modules), match, tuple(flags))
    stats = gather(ctx.store, ctx.profile, repo, period, flt)
    reply = compose(stats, ctx.profile, inv.lang)
    if stats.prs:
        return reply
    notes: list[Block] = [Paragraph(text=t(inv.lang, "digest.empty", period=period.label))]
    span = ctx.store.merged_range(repo)
    if span is not None:
        hint = week_of(span[1], ZoneInfo(inv.timezone)).label
        notes.append(
            Paragraph(
                text=t(inv.lang, "digest.empty_range", first=span[0].date(), last=span[1].date(), hint=hint)
            )
        )
    return reply.model_copy(update={"blocks": notes, "sections": []})
