"""When a subscription's digests fall due: pure functions of the subscription and the clock.

The periods of a subscription are consecutive blocks of ``every_weeks`` ISO weeks in its time
zone, counted from its ``anchor`` (a local Monday). A period is due on the first configured
weekday at the configured local time *after it has ended* there: a Monday 09:00 subscription gets
last week's digest this Monday at 09:00; a Sunday 02:30 one gets the week that ended six days
before. Local times are resolved with the daylight-saving rules people expect from an alarm
clock: a time that does not exist that day (clocks jump forward over it) runs at the next valid
minute; a time that occurs twice (clocks go back) runs once, at the first occurrence.

Nothing here reads a clock: ``now`` is always an argument, so tests drive the schedule through any
Monday in any zone. A subscription is anything with a ``Schedule``'s fields (the stored one is
``storage.subscriptions.Subscription``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal, Protocol
from zoneinfo import ZoneInfo

from classify.errors import UsageError
from classify.periods import Period, iso_week, parse_period


class Schedule(Protocol):
    """When a subscription's digests fall due: what the functions here read of it."""

    @property
    def anchor(self) -> date: ...
    @property
    def since(self) -> datetime: ...
    @property
    def every_weeks(self) -> int: ...
    @property
    def weekday(self) -> int: ...
    @property
    def at(self) -> str: ...
    @property
    def timezone(self) -> str: ...
    @property
    def paused(self) -> bool: ...
    @property
    def zone(self) -> ZoneInfo: ...
    @property
    def hour_minute(self) -> tuple[int, int]: ...


AT = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
"""a time of day as subscriptions keep it: ``HH:MM``, 00:00 to 23:59"""
DEFAULT_CATCHUP = timedelta(hours=24)
MAX_LOOKBACK = 52  # periods a long outage reports as skipped at most (the rest are long gone)
_MINUTE = timedelta(minutes=1)

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_WEEKDAY_WORDS = {
    **{name: i for i, name in enumerate(WEEKDAYS)},
    **{
        name: i
        for i, name in enumerate(
            ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
        )
    },
    **{name: i for i, name in enumerate(("周一", "周二", "周三", "周四", "周五", "周六", "周日"))},
}


def local_moment(day: date, hour: int, minute: int, zone: ZoneInfo) -> datetime:
    """``day`` at ``hour:minute`` local time as a UTC instant, alarm-clock style (see above)."""
    wall = datetime(day.year, day.month, day.day, hour, minute)
    first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    if first.astimezone(zone).replace(tzinfo=None) == wall:
        return first  # exists; when it exists twice, fold=0 is the earlier of the two
    # In a gap: the answer lies between the two readings of the wall time (fold=0 and fold=1);
    # walk it minute by minute (gaps are an hour, at most a day) to the first local minute >= wall.
    other = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    moment, stop = min(first, other), max(first, other)
    while moment < stop:
        if moment.astimezone(zone).replace(tzinfo=None) >= wall:
            return moment
        moment += _MINUTE
    return stop


@dataclass(frozen=True)
class Due:
    """One period of a subscription: its local Monday bounds and when its digest is due (UTC)."""

    index: int
    start_date: date
    end_date: date
    due: datetime

    def period(self, timezone: str) -> Period:
        """The digest's period, built exactly as the ``digest`` command builds it from its label."""
        zone = ZoneInfo(timezone)
        if (self.end_date - self.start_date).days == 7:
            year, week, _ = self.start_date.isocalendar()
            return iso_week(year, week, zone)
        last = self.end_date - timedelta(days=1)
        start = datetime(self.start_date.year, self.start_date.month, self.start_date.day, tzinfo=UTC)
        return parse_period(f"{self.start_date}..{last}", start, timezone)

    @property
    def period_word(self) -> str:
        """What to type after ``digest`` for this period (``2026-W19`` or a date range)."""
        if (self.end_date - self.start_date).days == 7:
            year, week, _ = self.start_date.isocalendar()
            return f"{year}-W{week:02d}"
        return f"{self.start_date}..{self.end_date - timedelta(days=1)}"


def period_of(sub: Schedule, index: int) -> Due:
    span = timedelta(weeks=sub.every_weeks)
    start = sub.anchor + span * index
    end = start + span
    hour, minute = sub.hour_minute
    due = local_moment(end + timedelta(days=sub.weekday), hour, minute, sub.zone)
    return Due(index, start, end, due)


def last_due_index(sub: Schedule, now: datetime) -> int:
    """The index of the latest period due at or before ``now`` (-1 and below: none yet)."""
    local_day = now.astimezone(sub.zone).date()
    k = (local_day - sub.anchor).days // (7 * sub.every_weeks)
    while period_of(sub, k).due > now:
        k -= 1
    while period_of(sub, k + 1).due <= now:
        k += 1
    return k


def next_due(sub: Schedule, now: datetime) -> Due:
    """The first period due strictly after ``now`` and not before the subscription's ``since``."""
    k = last_due_index(sub, now) + 1
    while period_of(sub, k).due < sub.since:
        k += 1
    return period_of(sub, k)


Verdict = Literal["deliver", "skip"]


def owed(sub: Schedule, now: datetime, catchup: timedelta = DEFAULT_CATCHUP) -> list[tuple[Due, Verdict]]:
    """Every period due by ``now`` that the subscription is owed, oldest first: ``deliver`` when
    it fell due within the catch-up window, ``skip`` when that window has passed. Periods due
    before ``since`` are not owed; at most ``MAX_LOOKBACK`` are listed. The caller leaves out
    those already in the ledger."""
    if sub.paused:
        return []
    out: list[tuple[Due, Verdict]] = []
    k = last_due_index(sub, now)
    while len(out) < MAX_LOOKBACK:
        due = period_of(sub, k)
        if due.due < sub.since or k < 0:
            break
        out.append((due, "deliver" if now - due.due <= catchup else "skip"))
        k -= 1
    out.reverse()
    return out


def first_anchor(now: datetime, zone: ZoneInfo, every_weeks: int = 1) -> date:
    """The anchor of a new subscription: its first period is the ``every_weeks`` full weeks that
    end at the start of the current local week, so a subscription made on Monday at 08:00 for
    09:00 posts last week's digest an hour later."""
    today = now.astimezone(zone).date()
    monday = today - timedelta(days=today.weekday())
    return monday - timedelta(weeks=every_weeks)


def parse_at(text: str) -> tuple[int, str]:
    """``"mon 09:00"``, ``"sunday 2:30"``, ``"09:00"`` (Monday) → (weekday, "HH:MM");
    ``UsageError`` otherwise."""
    words = text.strip().lower().split()
    weekday = 0
    if len(words) == 2:
        day = _WEEKDAY_WORDS.get(words[0])
        if day is None:
            raise UsageError("error.at", word=repr(text[:30]))
        weekday, clock = day, words[1]
    elif len(words) == 1:
        clock = words[0]
    else:
        raise UsageError("error.at", word=repr(text[:30]))
    m = re.match(r"^(\d{1,2}):(\d{2})$", clock)
    if not m:
        raise UsageError("error.at", word=repr(text[:30]))
    at = f"{int(m.group(1)):02d}:{m.group(2)}"
    if not AT.match(at):
        raise UsageError("error.at", word=repr(text[:30]))
    return weekday, at


def describe_at(sub: Schedule) -> str:
    """``mon 09:00 Europe/Berlin`` (``every 2 weeks`` appended when not weekly)."""
    text = f"{WEEKDAYS[sub.weekday]} {sub.at} {sub.timezone}"
    return text if sub.every_weeks == 1 else f"{text}, every {sub.every_weeks} weeks"
