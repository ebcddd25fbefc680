"""`deliver` and `deliveries` output: every table has its headers, a run of missed weeks is one line,
nothing is said twice (bot/cli/ledger_view.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from bot.cli.ledger_view import DELIVERY_COLUMNS, delivery_table, folded
from bot.delivery.deliverer import Outcome
from storage.deliveries import Delivery
from tests.bot.cli.test_cli import cli

MONDAY = date(2026, 1, 5)


def missed(sub: int, week: int) -> Outcome:
    start = MONDAY + timedelta(weeks=week)
    due = datetime.combine(start + timedelta(days=7), datetime.min.time(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    reason = f"missed: due {due}, and no prdigest ran within the catch-up window (24 h, PRDIGEST_CATCHUP)"
    return Outcome(sub, f"slack:C{sub}", start, "skipped", reason)


def test_a_run_of_missed_weeks_is_one_line_per_subscription() -> None:
    posted = Outcome(1, "slack:C1", MONDAY + timedelta(weeks=60), "planned")
    outcomes = [*(missed(1, w) for w in range(60)), posted, *(missed(2, w) for w in range(3)), missed(2, 9)]
    lines = folded(outcomes)
    assert lines[0] == (
        "skipped  slack:C1 #1 2026-01-05 … 2027-02-22 (60 weeks): missed: no prdigest ran within the "
        "catch-up window (24 h, PRDIGEST_CATCHUP)"
    )
    assert lines[1] == posted.line()
    assert lines[2].startswith(
        "skipped  slack:C2 #2 2026-01-05 … 2026-03-09 (4 weeks)"
    )  # one reason, one line
    assert len(lines) == 3
    assert folded([missed(3, 0)]) == [missed(3, 0).line()]  # one week keeps its own line, as it was


def _delivery(i: int, reason: str) -> Delivery:
    due = datetime(2026, 5, 11, 9, tzinfo=UTC)
    return Delivery(
        i, 1, date(2026, 5, 4), date(2026, 5, 11), due, "skipped", 0, None, None, reason, (), None, due, due
    )


def test_the_deliveries_table_has_its_headers_and_names_the_due_time_once() -> None:
    reason = "missed: due 2026-05-11T09:00:00Z, and no prdigest ran within the catch-up window (24 h, PRDIGEST_CATCHUP)"
    header, row = delivery_table([_delivery(7, reason)])
    assert header.split() == ["id", "sub", "week", "of", "state", "due", "reason"]
    assert [header.index(c) for c in DELIVERY_COLUMNS] == sorted(header.index(c) for c in DELIVERY_COLUMNS)
    assert row.split()[:5] == ["7", "#1", "2026-05-04", "skipped", "2026-05-11T09:00:00Z"]
    assert row.count("2026-05-11T09:00:00Z") == 1 and row.endswith("(24 h, PRDIGEST_CATCHUP)")
    assert row.index("2026-05-11T09:00:00Z") == header.index("due")  # the columns line up


def test_a_dry_run_without_now_lists_no_wall_of_skipped_weeks(demo_db: Path) -> None:
    made = cli(
        "subscribe", "slack:C0123", "--no-check", "--now", "2025-01-06T12:00:00Z", "--db", str(demo_db)
    )
    assert made.returncode == 0, made.stderr
    dry = cli("deliver", "--dry-run", "--db", str(demo_db))
    assert dry.returncode == 0, dry.stderr
    lines = dry.stdout.strip().splitlines()
    assert len(lines) <= 2 and "weeks)" in lines[0], dry.stdout  # the missed weeks, then at most the due one
    ledger = cli("deliveries", "--db", str(demo_db))
    assert ledger.stdout.startswith("no deliveries yet")  # a dry run records nothing
