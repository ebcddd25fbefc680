"""Closed weeks' storylines found and stored ahead of the digests that will read them.

``serve`` runs this in the background (``bot.host.storyline_fill``): a past week's digest then reads
its storylines (``commands.report.stored_themes``) instead of finding them. A week whose stored
storylines are current costs one indexed read to skip.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from classify.periods import COMPARE_WEEKS, Period, covered_windows, week_of
from classify.rules import Profile
from commands.report.stats import gather
from commands.report.stored_themes import StoredStorylines
from storage import storylines as stored
from storage.prs import PRStore


def closed_weeks(store: PRStore, repo: str, zone: ZoneInfo, now: datetime) -> list[Period]:
    """The ISO weeks (in ``zone``) of the cache's span that ended by ``now``, newest first."""
    span = store.merged_range(repo)
    if span is None:
        return []
    week = week_of(min(span[1], now), zone)
    first = week_of(span[0], zone).start
    out = []
    while week.start >= first:
        if week.end <= now:
            out.append(week)
        week = week_of(week.start - timedelta(seconds=1), zone)
    return out


def is_current(store: PRStore, profile: Profile, repo: str, period: Period) -> bool:
    """Whether ``period`` has stored storylines that a digest would read (one indexed read)."""
    kept = StoredStorylines(store, profile, repo, period, (period.previous(COMPARE_WEEKS) or [period])[-1])
    windows = len(covered_windows(period, store.first_merged(repo))[0])
    return (
        stored.load(store.db, repo, period.start, period.end, kept.key, kept.entry_stamp(windows)) is not None
    )


def fill(
    store: PRStore,
    profile: Profile,
    repo: str,
    weeks: Iterable[Period],
    now: datetime,
    *,
    limit: int | None = None,
) -> list[Period]:
    """Find and store the storylines of those of ``weeks`` that have none current, at most ``limit``
    of them; returns the weeks found (storing one that lost a race with a write stores nothing)."""
    done: list[Period] = []
    for week in weeks:
        if limit is not None and len(done) >= limit:
            break
        if not is_current(store, profile, repo, week):
            gather(store, profile, repo, week, closed_at=now)
            done.append(week)
    return done
