"""Due times of scheduled digests: several zones (UTC+14, UTC−10), both DST changes, every N
weeks, catch-up and skips — driven by an explicit clock."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from classify.errors import UsageError
from classify.periods import iso_week
from classify.schedule import (
    DEFAULT_CATCHUP,
    MAX_LOOKBACK,
    first_anchor,
    last_due_index,
    local_moment,
    next_due,
    owed,
    parse_at,
    period_of,
)
from storage.subscriptions import Subscription

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def sub(
    tz: str = "UTC",
    *,
    weekday: int = 0,
    at: str = "09:00",
    every: int = 1,
    anchor: date | None = None,
    since: datetime = EPOCH,
    paused: bool = False,
) -> Subscription:
    return Subscription(
        platform="slack",
        channel="C1",
        repo="o/r",
        anchor=anchor or date(2026, 1, 5),
        since=since,
        weekday=weekday,
        at=at,
        every_weeks=every,
        timezone=tz,
        paused=paused,
    )


def z(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.parametrize(
    ("tz", "due_utc"),
    [
        ("UTC", "2026-05-11T09:00Z"),
        ("Pacific/Kiritimati", "2026-05-10T19:00Z"),  # UTC+14: Monday 09:00 is Sunday 19:00 UTC
        ("Pacific/Honolulu", "2026-05-11T19:00Z"),  # UTC−10
        ("Europe/Berlin", "2026-05-11T07:00Z"),
        ("Asia/Kolkata", "2026-05-11T03:30Z"),
        ("America/Los_Angeles", "2026-05-11T16:00Z"),
    ],
)
def test_monday_nine_in_each_zone_delivers_the_previous_local_iso_week(tz: str, due_utc: str) -> None:
    s = sub(tz)
    due = z(due_utc)
    before, at = due - timedelta(minutes=1), due
    assert owed(s, before)[-1][0].start_date == date(2026, 4, 27)  # the week before is the latest due
    latest = owed(s, at)[-1][0]
    assert latest.due == due
    assert (latest.start_date, latest.end_date) == (date(2026, 5, 4), date(2026, 5, 11))
    period = latest.period(tz)
    assert period == iso_week(2026, 19, ZoneInfo(tz))  # the same bounds `digest 2026-W19` uses
    assert period.end <= latest.due  # computed only after the week ended there
    assert next_due(s, before).due == due and next_due(s, at).due == due + timedelta(days=7)


def test_utc_plus_14_week_ends_before_the_utc_week_does() -> None:
    s = sub("Pacific/Kiritimati", at="00:00")
    latest = owed(s, z("2026-05-10T10:00Z"))[-1][0]
    # Monday 00:00 in Kiritimati is Sunday 10:00 UTC: its week 19 has ended, UTC's has not
    assert latest.due == z("2026-05-10T10:00Z") and latest.start_date == date(2026, 5, 4)
    assert latest.period("Pacific/Kiritimati").end == latest.due


def test_berlin_monday_nine_follows_both_dst_changes() -> None:
    s = sub("Europe/Berlin")
    assert next_due(s, z("2026-03-23T00:00Z")).due == z("2026-03-23T08:00Z")  # CET
    assert next_due(s, z("2026-03-29T00:00Z")).due == z("2026-03-30T07:00Z")  # CEST
    assert next_due(s, z("2026-10-26T00:00Z")).due == z("2026-10-26T08:00Z")  # CET again
    # the week of the spring change is 167 hours long; its period is still that ISO week
    spring = next_due(s, z("2026-03-29T00:00Z"))
    period = spring.period("Europe/Berlin")
    assert period.end - period.start == timedelta(hours=167)


def test_a_time_that_does_not_exist_runs_at_the_next_valid_minute() -> None:
    # Sunday 2026-03-29, Berlin: 02:00 CET jumps to 03:00 CEST; 02:30 never happens
    s = sub("Europe/Berlin", weekday=6, at="02:30")
    due = next_due(s, z("2026-03-28T00:00Z"))
    assert due.due == z("2026-03-29T01:00Z")  # 03:00 CEST, the first valid minute after 02:30
    assert due.due.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %H:%M %Z") == "Sun 03:00 CEST"
    assert (due.start_date, due.end_date) == (date(2026, 3, 16), date(2026, 3, 23))
    assert next_due(s, due.due).due == z("2026-04-05T00:30Z")  # a normal Sunday again


def test_a_time_that_occurs_twice_runs_once_at_the_first() -> None:
    # Sunday 2026-10-25, Berlin: 03:00 CEST goes back to 02:00 CET; 02:30 happens twice
    s = sub("Europe/Berlin", weekday=6, at="02:30")
    first = next_due(s, z("2026-10-24T00:00Z"))
    assert first.due == z("2026-10-25T00:30Z")  # 02:30 CEST, the first one
    second_occurrence = z("2026-10-25T01:30Z")  # 02:30 CET
    assert next_due(s, first.due).due == z("2026-11-01T01:30Z")  # next week, not an hour later
    due_now = owed(s, second_occurrence)
    assert [d.due for d, _ in due_now].count(first.due) == 1
    assert all(d.due != second_occurrence for d, _ in due_now)


def test_local_moment_in_a_skipped_day() -> None:
    # Samoa skipped 30 December 2011 entirely; anything that day runs at the first minute after
    apia = ZoneInfo("Pacific/Apia")
    moment = local_moment(date(2011, 12, 30), 9, 0, apia)
    assert moment.astimezone(apia).replace(tzinfo=None) == datetime(2011, 12, 31, 0, 0)


def test_every_two_weeks_covers_the_two_weeks_since_the_last_delivery() -> None:
    s = sub("Europe/Berlin", every=2, anchor=date(2026, 4, 20))
    dues = [period_of(s, k) for k in range(3)]
    assert [(d.start_date, d.end_date) for d in dues] == [
        (date(2026, 4, 20), date(2026, 5, 4)),
        (date(2026, 5, 4), date(2026, 5, 18)),
        (date(2026, 5, 18), date(2026, 6, 1)),
    ]
    assert [d.due for d in dues] == [z("2026-05-04T07:00Z"), z("2026-05-18T07:00Z"), z("2026-06-01T07:00Z")]
    assert dues[1].period_word == "2026-05-04..2026-05-17"
    period = dues[1].period("Europe/Berlin")
    assert (period.start, period.end) == (z("2026-05-03T22:00Z"), z("2026-05-17T22:00Z"))
    assert next_due(s, z("2026-05-05T00:00Z")).due == z("2026-05-18T07:00Z")  # no delivery in week 2


def test_catch_up_within_the_window_and_skip_after_it() -> None:
    s = sub("Europe/Berlin")
    due = z("2026-05-11T07:00Z")
    assert owed(s, due + DEFAULT_CATCHUP)[-1] == (period_of(s, last_due_index(s, due)), "deliver")
    assert owed(s, due + DEFAULT_CATCHUP + timedelta(minutes=1))[-1][1] == "skip"
    short = owed(s, due + timedelta(hours=2), timedelta(hours=1))
    assert short[-1][1] == "skip"
    # down since before the 20 April delivery: three missed weeks skipped, the latest delivered
    s3 = sub("Europe/Berlin", since=z("2026-04-20T00:00Z"))
    verdicts = [(d.start_date, v) for d, v in owed(s3, z("2026-05-11T08:00Z"))]
    assert verdicts == [
        (date(2026, 4, 13), "skip"),
        (date(2026, 4, 20), "skip"),
        (date(2026, 4, 27), "skip"),
        (date(2026, 5, 4), "deliver"),
    ]


def test_nothing_is_owed_before_since_or_while_paused() -> None:
    created = z("2026-05-11T07:30Z")  # half an hour after this Monday's 09:00 Berlin
    s = sub("Europe/Berlin", anchor=first_anchor(created, ZoneInfo("Europe/Berlin")), since=created)
    assert owed(s, created + timedelta(hours=1)) == []
    assert next_due(s, created).due == z("2026-05-18T07:00Z")
    assert owed(sub("Europe/Berlin", paused=True), z("2026-05-11T08:00Z")) == []
    long_ago = sub("UTC", since=z("2020-01-06T00:00Z"), anchor=date(2020, 1, 6))
    assert len(owed(long_ago, z("2026-05-11T10:00Z"))) == MAX_LOOKBACK


def test_a_subscription_made_before_nine_on_monday_posts_that_morning() -> None:
    created = z("2026-05-11T06:00Z")  # 08:00 in Berlin
    zone = ZoneInfo("Europe/Berlin")
    assert first_anchor(created, zone) == date(2026, 5, 4)
    assert first_anchor(created, zone, 2) == date(2026, 4, 27)
    s = sub("Europe/Berlin", anchor=first_anchor(created, zone), since=created)
    due = next_due(s, created)
    assert (due.due, due.start_date) == (z("2026-05-11T07:00Z"), date(2026, 5, 4))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mon 09:00", (0, "09:00")),
        ("Sunday 2:30", (6, "02:30")),
        ("07:05", (0, "07:05")),
        ("周五 18:00", (4, "18:00")),
    ],
)
def test_parse_at_accepts(text: str, expected: tuple[int, str]) -> None:
    assert parse_at(text) == expected


@pytest.mark.parametrize(
    "text", ["25:00", "mon 24:00", "someday 09:00", "mon 9", "mon 09:00 extra", "", "09:60"]
)
def test_parse_at_refuses(text: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_at(text)
    assert info.value.key == "error.at"


ZONES = [
    "UTC",
    "Pacific/Kiritimati",
    "Pacific/Honolulu",
    "Europe/Berlin",
    "America/Santiago",
    "Australia/Lord_Howe",
    "Asia/Kathmandu",
    "America/St_Johns",
    "Africa/Casablanca",
]


@given(
    tz=st.sampled_from(ZONES),
    weekday=st.integers(0, 6),
    hour=st.integers(0, 23),
    minute=st.sampled_from([0, 1, 15, 30, 59]),
    every=st.integers(1, 4),
    offset_days=st.integers(0, 3 * 365),
)
def test_due_times_are_well_formed_everywhere(
    tz: str, weekday: int, hour: int, minute: int, every: int, offset_days: int
) -> None:
    s = sub(tz, weekday=weekday, at=f"{hour:02d}:{minute:02d}", every=every)
    now = EPOCH + timedelta(days=offset_days, hours=offset_days % 24)
    due = next_due(s, now)
    zone = ZoneInfo(tz)
    local = due.due.astimezone(zone)
    assert due.due > now
    assert due.due >= due.period(tz).end  # never before the period ended locally
    assert (due.end_date - due.start_date).days == 7 * every
    wall = datetime(local.year, local.month, local.day, hour, minute)
    # the configured local time, or (it did not exist that day) the first minute after it
    assert local.replace(tzinfo=None) >= wall
    assert local.replace(tzinfo=None) == wall or local_moment(local.date(), hour, minute, zone) == due.due
    assert (local.date() - due.end_date).days in (weekday, weekday + 1)
    # each period is due once: the next one is a full cycle (± a DST hour) later
    after = next_due(s, due.due)
    assert after.index == due.index + 1
    assert abs((after.due - due.due) - timedelta(weeks=every)) <= timedelta(hours=25)
