"""Where the cache's PRs are, for an answer about a period that has none."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from classify.periods import Period, week_of
from commands.context import Context
from commands.locale import t
from commands.model import Invocation, Paragraph
from commands.spec import typed


def cache_range(
    ctx: Context, inv: Invocation, repo: str, period: Period, *words: str, always: bool = False
) -> Paragraph | None:
    """ "The cache holds PRs merged from 2026-03-30 to 2026-05-12; try `digest 2026-W19`." — for
    a period outside the cache's dates (``always``: for any period), with the command that was
    asked (with ``words``) pointed at the cache's last week, as typed where it was asked. None for an empty cache,
    or (without ``always``) a period within the cache's dates."""
    span = ctx.store.merged_range(repo)
    if span is None or (not always and period.start <= span[1] and span[0] < period.end):
        return None
    # the dates and the week in the reader's zone: a PR merged late on Sunday in UTC is
    # Monday's in Berlin, and its week is the next one there
    zone = ZoneInfo(inv.timezone)
    hint = typed(inv, inv.command, *words, week_of(span[1], zone).label)
    first, last = span[0].astimezone(zone).date(), span[1].astimezone(zone).date()
    return Paragraph(text=t(inv.lang, "digest.empty_range", first=first, last=last, hint=hint))
