"""Reporting periods: ``week``, ``last-week``, ``YYYY-Www`` and ``YYYY-MM-DD..YYYY-MM-DD``.

Boundaries are local midnights in the configured time zone (``PRDIGEST_TIMEZONE``), converted
to UTC for the queries, so a Berlin team's "last week" starts at Monday 00:00 Berlin time even
across daylight-saving changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from classify.errors import UsageError

_ISO_WEEK = re.compile(r"^(\d{4})-?[Ww](\d{1,2})$")
_RANGE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$")
_MAX_RANGE_DAYS = 366 * 20
COMPARE_WEEKS = 4  # a period is compared with up to this many windows of its length before it
# A window counts as covered when it starts at most this long before the cache's first PR: the
# first PR of a fully synced week is rarely merged in its first minutes (or hours, in another zone).
COVERAGE_SLACK = timedelta(days=1)


@dataclass(frozen=True)
class Period:
    """A half-open interval [start, end) in UTC with a label people recognise."""

    start: datetime
    end: datetime
    label: str
    kind: str

    @property
    def length(self) -> timedelta:
        return self.end - self.start

    def previous(self, n: int) -> list[Period]:
        """The ``n`` windows of the same length right before this one, nearest first (fewer when
        they would start before year 1)."""
        out = []
        for k in range(1, n + 1):
            shift = self.length * k
            try:
                out.append(Period(self.start - shift, self.end - shift, f"-{k}", "previous"))
            except OverflowError:
                break
        return out

    def as_dict(self) -> dict[str, str]:
        return {"start": _z(self.start), "end": _z(self.end), "label": self.label}


def _z(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _local_midnight(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(0, 0), tzinfo=zone).astimezone(UTC)


def iso_week(year: int, week: int, zone: ZoneInfo) -> Period:
    try:
        monday = date.fromisocalendar(year, week, 1)
    except ValueError:
        weeks = date(year, 12, 28).isocalendar().week if 1 <= year <= 9999 else 52
        raise UsageError("error.iso_week", week=f"{year}-W{week:02d}", year=year, weeks=weeks) from None
    return Period(
        _local_midnight(monday, zone),
        _local_midnight(monday + timedelta(days=7), zone),
        f"{year:04d}-W{week:02d}",
        "iso-week",
    )


def week_of(moment: datetime, zone: ZoneInfo) -> Period:
    """The ISO week (local time) that contains ``moment``."""
    local = moment.astimezone(zone)
    year, week, _ = local.isocalendar()
    return iso_week(year, week, zone)


def is_period(word: str) -> bool:
    """Whether a word looks like a period (so commands can tell periods from modules)."""
    w = word.lower()
    return (
        w in ("week", "last-week", "this-week")
        or bool(_ISO_WEEK.match(w) or _RANGE.match(w))
        or bool(_PERIOD_SHAPED.match(w))
    )


# Digits, then a dash or a W, then a digit: any year's week or date — "99999-W01" and "2026-13-45"
# are periods the period parser refuses with its own words, never "unknown module".
_PERIOD_SHAPED = re.compile(r"^\d+(?:-[wW]?|[wW])\d")


def parse_period(text: str | None, now: datetime, timezone: str = "UTC") -> Period:
    """Parse a period word; raises UsageError naming what is accepted."""
    try:
        return _parse_period(text, now, timezone)
    except OverflowError:  # a week or range at the very edge of the calendar (9999-W52 ends in 10000)
        raise UsageError("error.calendar", word=repr((text or "")[:40])) from None


def _parse_period(text: str | None, now: datetime, timezone: str) -> Period:
    zone = ZoneInfo(timezone)
    word = (text or "week").strip().lower()
    if word == "week":
        end = now.astimezone(UTC)
        return Period(end - timedelta(days=7), end, "last 7 days", "rolling")
    if word in ("last-week", "this-week"):
        current = week_of(now, zone)
        if word == "this-week":
            return Period(current.start, current.end, current.label, "iso-week")
        monday = current.start.astimezone(zone).date() - timedelta(days=7)
        year, week, _ = monday.isocalendar()
        return iso_week(year, week, zone)
    m = _ISO_WEEK.match(word)
    if m:
        return iso_week(int(m.group(1)), int(m.group(2)), zone)
    m = _RANGE.match(word)
    if m:
        try:
            first, last = date.fromisoformat(m.group(1)), date.fromisoformat(m.group(2))
        except ValueError as exc:
            raise UsageError("error.range_invalid", word=repr(text), reason=str(exc)) from None
        if last < first:
            raise UsageError("error.range_order", word=repr(text))
        if (last - first).days > _MAX_RANGE_DAYS:
            raise UsageError("error.range_long", word=repr(text))
        return Period(
            _local_midnight(first, zone),
            _local_midnight(last + timedelta(days=1), zone),
            f"{first}..{last}",
            "range",
        )
    raise UsageError("error.period", word=repr(text))


def covered_windows(period: Period, cache_start: datetime | None) -> tuple[list[Period], bool]:
    """The (up to four) windows before ``period`` that the cache covers, and whether the cache's
    start left some out."""
    candidates = period.previous(COMPARE_WEEKS)
    if cache_start is None:
        return [], False
    kept = [p for p in candidates if p.start >= cache_start - COVERAGE_SLACK]
    return kept, len(kept) < COMPARE_WEEKS
