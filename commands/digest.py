"""``digest [PERIOD] [MODULE…]``: the weekly report, computed from the cache."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from commands.locale import t
from commands.model import Block, Invocation, Paragraph, Reply, UsageError
from commands.period import is_period, parse_period, week_of
from commands.registry import Context, command
from commands.report.compose import compose
from commands.report.stats import gather


@command(
    "digest",
    usage="digest [PERIOD] [MODULE…]",
    summary={"en": "cmd.digest", "zh": "cmd.digest"},
    examples=("digest", "digest last-week", "digest 2026-W19 rocm", "digest 2026-05-04..2026-05-10"),
)
def run(inv: Invocation, ctx: Context) -> Reply:
    period_word: str | None = None
    modules: list[str] = []
    for word in inv.args:
        if period_word is None and is_period(word):
            period_word = word
            continue
        module = ctx.profile.resolve_module(word)
        if module is None:
            if is_period(word):
                raise UsageError(f"give one period, not {word[:40]!r} as well")
            known = ", ".join(list(ctx.profile.modules)[:12])
            raise UsageError(
                f"unknown module {word[:40]!r}; modules include {known} (`help digest` lists them all)"
            )
        if module not in modules:
            modules.append(module)
    period = parse_period(period_word, inv.now, inv.timezone)
    repo = ctx.resolve_repo(inv)
    stats = gather(ctx.store, ctx.profile, repo, period, tuple(modules))
    reply = compose(stats, ctx.profile, inv.lang)
    if not stats.prs:
        notes: list[Block] = [Paragraph(text=t(inv.lang, "digest.empty", period=period.label))]
        span = ctx.store.merged_range(repo)
        if span is not None:
            hint = week_of(span[1], ZoneInfo(inv.timezone)).label
            notes.append(
                Paragraph(
                    text=t(
                        inv.lang, "digest.empty_range", first=span[0].date(), last=span[1].date(), hint=hint
                    )
                )
            )
        reply.blocks = notes
        reply.sections = []
    return reply
