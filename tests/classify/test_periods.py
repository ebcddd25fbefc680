"""The period parser: ISO-week edges, year boundaries, DST, and every kind of bad period."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from classify.errors import UsageError
from classify.periods import is_period, parse_period, week_of

NOW = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)  # a Monday


def z(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_week_is_the_last_seven_days_up_to_now() -> None:
    p = parse_period("week", NOW)
    assert (p.start, p.end) == (NOW - timedelta(days=7), NOW)
    assert parse_period(None, NOW) == p


def test_last_week_is_the_previous_full_iso_week_in_utc() -> None:
    p = parse_period("last-week", NOW)
    assert (p.start, p.end, p.label) == (z("2026-11-23T00:00:00Z"), z("2026-11-30T00:00:00Z"), "2026-W48")


def test_last_week_on_a_sunday_night_is_still_the_week_before() -> None:
    sunday = datetime(2026, 11, 29, 23, 59, tzinfo=UTC)
    assert parse_period("last-week", sunday).label == "2026-W47"


def test_last_week_uses_the_configured_time_zone() -> None:
    # 2026-11-29 23:30 UTC is already Monday 2026-11-30 in Tokyo: last week there is W48.
    late = datetime(2026, 11, 29, 23, 30, tzinfo=UTC)
    assert parse_period("last-week", late, "UTC").label == "2026-W47"
    p = parse_period("last-week", late, "Asia/Tokyo")
    assert p.label == "2026-W48"
    assert p.start == z("2026-11-22T15:00:00Z")  # Monday 00:00 JST


def test_iso_week_crossing_a_year_boundary() -> None:
    p = parse_period("2026-W01", NOW)
    assert p.start == z("2025-12-29T00:00:00Z") and p.end == z("2026-01-05T00:00:00Z")
    p53 = parse_period("2020-W53", NOW)
    assert p53.start == z("2020-12-28T00:00:00Z") and p53.end == z("2021-01-04T00:00:00Z")


def test_last_week_in_early_january_reaches_into_the_previous_year() -> None:
    jan = datetime(2027, 1, 6, 12, 0, tzinfo=UTC)  # Wednesday of 2027-W01
    assert parse_period("last-week", jan).label == "2026-W53"


def test_week_53_only_where_it_exists() -> None:
    with pytest.raises(UsageError, match="2021 has weeks 1–52"):
        parse_period("2021-W53", NOW)


def test_dst_spring_forward_week_is_167_hours_long_in_berlin() -> None:
    p = parse_period("2026-W13", NOW, "Europe/Berlin")  # clocks go forward on Sunday 2026-03-29
    assert p.start == z("2026-03-22T23:00:00Z")  # Monday 00:00 CET
    assert p.end == z("2026-03-29T22:00:00Z")  # Monday 00:00 CEST
    assert p.length == timedelta(hours=167)


def test_dst_fall_back_week_is_169_hours_long_in_new_york() -> None:
    p = parse_period("2026-W44", NOW, "America/New_York")  # clocks go back on Sunday 2026-11-01
    assert p.length == timedelta(hours=169)
    assert p.start == z("2026-10-26T04:00:00Z")


def test_date_range_is_inclusive_of_its_last_day() -> None:
    p = parse_period("2026-05-04..2026-05-10", NOW)
    assert (p.start, p.end) == (z("2026-05-04T00:00:00Z"), z("2026-05-11T00:00:00Z"))
    one_day = parse_period("2026-05-04..2026-05-04", NOW)
    assert one_day.length == timedelta(days=1)


def test_previous_windows_have_the_same_length() -> None:
    p = parse_period("2026-W19", NOW)
    prev = p.previous(4)
    assert [x.end for x in prev] == [p.start - timedelta(days=7 * k) for k in range(4)]
    assert all(x.length == p.length for x in prev)


def test_week_of_uses_local_time() -> None:
    moment = datetime(2026, 5, 10, 23, 30, tzinfo=UTC)  # Sunday night UTC = Monday in Berlin
    assert week_of(moment, __import__("zoneinfo").ZoneInfo("UTC")).label == "2026-W19"
    assert week_of(moment, __import__("zoneinfo").ZoneInfo("Europe/Berlin")).label == "2026-W20"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2026-W99", "not an ISO week"),
        ("2026-W00", "not an ISO week"),
        ("yesterday-ish", "unknown period"),
        ("2026-13-01..2026-13-02", "not a valid date range"),
        ("2026-05-10..2026-05-01", "ends before it starts"),
        ("1900-01-01..2026-01-01", "at most 20 years"),
        ("next week", "unknown period"),
    ],
)
def test_bad_periods_name_what_is_accepted(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_period(text, NOW)


def test_is_period_tells_periods_from_module_names() -> None:
    assert all(is_period(w) for w in ("week", "last-week", "2026-W19", "2026-w19", "2026-05-04..2026-05-10"))
    assert not any(is_period(w) for w in ("rocm", "core-path", "kernel", "42121"))
