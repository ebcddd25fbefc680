"""Subscriptions and the delivery ledger: validation, the claim protocol, leases, skips, retries,
and two processes claiming the same period on one database file."""

from __future__ import annotations

import multiprocessing
import sqlite3
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from storage.db import connect
from storage.deliveries import DeliveryStore, delivery_key
from storage.delivery_steps import StepStore
from storage.subscriptions import Subscription, SubscriptionError, SubscriptionStore

NOW = datetime(2026, 5, 11, 7, 0, tzinfo=UTC)
MONDAY = date(2026, 5, 4)


def sub(**changes: object) -> Subscription:
    values: dict[str, object] = {
        "platform": "slack",
        "channel": "C0123456789",
        "repo": "vllm-project/vllm",
        "anchor": MONDAY,
        "since": NOW,
    }
    values.update(changes)
    return Subscription(**values)  # type: ignore[arg-type]


@pytest.fixture
def stores() -> tuple[SubscriptionStore, DeliveryStore]:
    db = connect(":memory:")
    return SubscriptionStore(db), DeliveryStore(db)


def test_a_subscription_round_trips_every_field(stores: tuple[SubscriptionStore, DeliveryStore]) -> None:
    subs, _ = stores
    wanted = sub(
        modules=("rocm", "kernel"),
        match="only",
        flags=("core-path",),
        weekday=6,
        at="02:30",
        every_weeks=2,
        timezone="Europe/Berlin",
        lang="zh",
        layout="single",
        quiet="silent",
        paused=True,
        created_by="U1",
    )
    stored = subs.add(wanted, now=NOW)
    assert stored.id is not None
    assert stored == Subscription(**{**wanted.__dict__, "id": stored.id})
    assert stored.created_at == NOW
    assert subs.all() == [stored]
    assert subs.active() == []
    assert stored.as_dict()["anchor"] == "2026-05-04"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"timezone": "Mars/Olympus"}, "unknown time zone"),
        ({"at": "25:00"}, "not HH:MM"),
        ({"at": "9:00"}, "not HH:MM"),
        ({"match": "some"}, "match"),
        ({"layout": "poster"}, "layout"),
        ({"quiet": "loud"}, "quiet"),
        ({"lang": "fr"}, "language"),
        ({"every_weeks": 0}, "every 0 weeks"),
        ({"weekday": 7}, "weekday"),
        ({"anchor": date(2026, 5, 5)}, "not a Monday"),
        ({"repo": "vllm"}, "OWNER/NAME"),
        ({"channel": "<!channel>"}, "channel"),
    ],
)
def test_bad_values_are_refused_and_nothing_is_stored(
    stores: tuple[SubscriptionStore, DeliveryStore], changes: dict[str, object], message: str
) -> None:
    subs, _ = stores
    with pytest.raises(SubscriptionError, match=message):
        subs.add(sub(**changes))
    assert subs.all() == []


def test_update_changes_fields_and_resume_moves_since(
    stores: tuple[SubscriptionStore, DeliveryStore],
) -> None:
    subs, _ = stores
    s = subs.add(sub(paused=True), now=NOW)
    assert s.id is not None
    later = NOW + timedelta(days=20)
    resumed = subs.update(s.id, paused=False, now=later)
    assert not resumed.paused
    assert resumed.since == later  # weeks that fell due while paused are not owed
    moved = subs.update(s.id, at="10:15", timezone="Asia/Tokyo", now=later)
    assert (moved.at, moved.timezone, moved.since) == ("10:15", "Asia/Tokyo", later)
    with pytest.raises(SubscriptionError):
        subs.update(s.id, at="24:00")
    assert subs.get(s.id) == moved
    with pytest.raises(SubscriptionError, match="cannot change"):
        subs.update(s.id, channel="C999")
    with pytest.raises(KeyError):
        subs.update(999, paused=True)
    assert subs.remove(s.id) and not subs.remove(s.id)


def test_claim_once_then_finish(stores: tuple[SubscriptionStore, DeliveryStore]) -> None:
    _, ledger = stores
    due = NOW
    first = ledger.claim(1, MONDAY, MONDAY + timedelta(days=7), due, owner="a", now=NOW)
    assert first is not None and not first.takeover and first.delivery.state == "claimed"
    assert first.delivery.key == delivery_key(1, MONDAY) == "prdigest-d-1-2026-05-04"
    # a second claimant — another process, a retried job — gets nothing while the lease runs
    assert ledger.claim(1, MONDAY, MONDAY + timedelta(days=7), due, owner="b", now=NOW) is None
    assert ledger.finish(first, "posted", now=NOW, message_ids=("1.2", "1.3"), permalink="https://x")
    done = ledger.find(1, MONDAY)
    assert done is not None
    assert (done.state, done.message_ids, done.lease_owner) == ("posted", ("1.2", "1.3"), None)
    # posted is final: even after any lease would have expired, nobody claims it again
    assert (
        ledger.claim(1, MONDAY, MONDAY + timedelta(days=7), due, owner="b", now=NOW + timedelta(days=9))
        is None
    )
    assert not ledger.finish(first, "failed", now=NOW)  # no longer a claim: nothing written
    assert ledger.find(1, MONDAY) == done


def test_an_expired_lease_is_taken_over_and_the_old_owner_cannot_record(
    stores: tuple[SubscriptionStore, DeliveryStore],
) -> None:
    _, ledger = stores
    end = MONDAY + timedelta(days=7)
    old = ledger.claim(1, MONDAY, end, NOW, owner="crashed", now=NOW, lease=timedelta(minutes=5))
    assert old is not None
    assert ledger.claim(1, MONDAY, end, NOW, owner="b", now=NOW + timedelta(minutes=4)) is None
    new = ledger.claim(1, MONDAY, end, NOW, owner="b", now=NOW + timedelta(minutes=5))
    assert new is not None and new.takeover and new.delivery.attempts == 2
    assert ledger.expired_claims(NOW + timedelta(minutes=5)) == []
    assert not ledger.finish(old, "posted", now=NOW)
    assert ledger.finish(new, "unknown", now=NOW, reason="cannot tell whether attempt 1 posted")
    row = ledger.find(1, MONDAY)
    assert row is not None and (row.state, row.reason) == ("unknown", "cannot tell whether attempt 1 posted")


def test_renew_keeps_a_long_claim(stores: tuple[SubscriptionStore, DeliveryStore]) -> None:
    _, ledger = stores
    end = MONDAY + timedelta(days=7)
    c = ledger.claim(1, MONDAY, end, NOW, owner="a", now=NOW, lease=timedelta(minutes=5))
    assert c is not None
    assert ledger.renew(c, now=NOW + timedelta(minutes=4), lease=timedelta(minutes=5))
    assert ledger.claim(1, MONDAY, end, NOW, owner="b", now=NOW + timedelta(minutes=8)) is None
    assert ledger.expired_claims(NOW + timedelta(minutes=9)) != []


def test_skip_records_the_reason_once_and_never_overwrites(
    stores: tuple[SubscriptionStore, DeliveryStore],
) -> None:
    _, ledger = stores
    end = MONDAY + timedelta(days=7)
    assert ledger.skip(1, MONDAY, end, NOW, reason="missed: due 07:00Z, catch-up 24 h", now=NOW)
    assert not ledger.skip(1, MONDAY, end, NOW, reason="again", now=NOW)
    row = ledger.find(1, MONDAY)
    assert row is not None and (row.state, row.reason) == ("skipped", "missed: due 07:00Z, catch-up 24 h")
    assert ledger.claim(1, MONDAY, end, NOW, owner="a", now=NOW) is None
    c = ledger.claim(1, MONDAY + timedelta(days=7), end + timedelta(days=7), NOW, owner="a", now=NOW)
    assert c is not None
    assert not ledger.skip(1, MONDAY + timedelta(days=7), end, NOW, reason="x", now=NOW)


def test_retry_turns_failed_and_unknown_into_a_takeover(
    stores: tuple[SubscriptionStore, DeliveryStore],
) -> None:
    _, ledger = stores
    end = MONDAY + timedelta(days=7)
    c = ledger.claim(1, MONDAY, end, NOW, owner="a", now=NOW)
    assert c is not None
    with pytest.raises(ValueError, match="claimed"):
        ledger.retry(c.delivery.id)
    assert ledger.finish(c, "failed", now=NOW, reason="not_in_channel")
    ledger.retry(c.delivery.id, now=NOW)
    assert [d.id for d in ledger.expired_claims(NOW)] == [c.delivery.id]
    again = ledger.claim(1, MONDAY, end, NOW, owner="b", now=NOW)
    assert again is not None and again.takeover and again.delivery.attempts == 2
    with pytest.raises(KeyError):
        ledger.retry(12345)


def test_a_posted_delivery_keeps_its_steps_keys_and_ids_but_not_their_payloads(
    stores: tuple[SubscriptionStore, DeliveryStore],
) -> None:
    """A posted delivery is never resumed, so its payloads (the lead's carries the chart) are
    dropped; a partial one keeps every payload, to post the rest of the same digest later."""
    _, ledger = stores
    steps = StepStore(ledger.db)
    lead = {"text": "digest", "chart": "x" * 1000}
    for sub_id, outcome in ((1, "posted"), (2, "partial")):
        claim = ledger.claim(sub_id, MONDAY, MONDAY + timedelta(days=7), NOW, owner="a", now=NOW)
        assert claim is not None
        assert steps.store(claim, [("lead", lead, {"text": "small"}), ("risks", {"text": "r"}, None)])
        assert steps.posted(claim, "lead", "1.2", now=NOW)
        if outcome == "posted":
            assert steps.posted(claim, "risks", "1.3", now=NOW)
        assert ledger.finish(claim, outcome, now=NOW)
    posted = steps.for_delivery(ledger.find(1, MONDAY).id)  # type: ignore[union-attr]
    assert [(s.key, s.state, s.message_id, s.body, s.fallback) for s in posted] == [
        ("lead", "posted", "1.2", {}, None),
        ("risks", "posted", "1.3", {}, None),
    ]
    partial = steps.for_delivery(ledger.find(2, MONDAY).id)  # type: ignore[union-attr]
    assert [(s.key, s.state, s.body) for s in partial] == [
        ("lead", "posted", lead),
        ("risks", "pending", {"text": "r"}),
    ]
    assert partial[0].fallback == {"text": "small"}


def test_the_migration_drops_payloads_of_deliveries_posted_before(tmp_path: Path) -> None:
    from storage import migrations

    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    migrations.apply(old, stop_before="0017_posted_payloads_dropped")
    for i, state in ((1, "posted"), (2, "partial")):
        old.execute(
            "INSERT INTO deliveries (id, subscription_id, period_start, period_end, due_at, state, "
            "created_at, updated_at) VALUES (?, ?, '2026-05-04', '2026-05-11', ?, ?, ?, ?)",
            (i, i, NOW.isoformat(), state, NOW.isoformat(), NOW.isoformat()),
        )
        old.execute(
            "INSERT INTO delivery_steps (delivery_id, seq, key, body, state) VALUES (?, 0, 'lead', ?, ?)",
            (i, '{"text": "a chart"}', "posted"),
        )
    old.commit()
    old.close()
    bodies = dict(connect(path).execute("SELECT delivery_id, body FROM delivery_steps").fetchall())
    assert bodies == {1: "{}", 2: '{"text": "a chart"}'}


def test_finish_refuses_claimed_as_an_outcome(stores: tuple[SubscriptionStore, DeliveryStore]) -> None:
    _, ledger = stores
    c = ledger.claim(1, MONDAY, MONDAY + timedelta(days=7), NOW, owner="a", now=NOW)
    assert c is not None
    with pytest.raises(ValueError):
        ledger.finish(c, "claimed", now=NOW)


def test_release_hands_the_claim_to_a_later_run(stores: tuple[SubscriptionStore, DeliveryStore]) -> None:
    _, ledger = stores
    end = MONDAY + timedelta(days=7)
    c = ledger.claim(1, MONDAY, end, NOW, owner="a", now=NOW)
    assert c is not None
    later = NOW + timedelta(minutes=15)
    assert ledger.release(c, now=NOW, until=later, reason="retrying: HTTP 503")
    assert ledger.claim(1, MONDAY, end, NOW, owner="b", now=NOW + timedelta(minutes=14)) is None
    again = ledger.claim(1, MONDAY, end, NOW, owner="b", now=later)
    assert again is not None and again.takeover and again.delivery.reason == "retrying: HTTP 503"
    assert not ledger.release(c, now=NOW, until=later, reason="x")  # no longer a's


def test_the_schema_refuses_invalid_rows_even_past_the_store(
    stores: tuple[SubscriptionStore, DeliveryStore],
) -> None:
    subs, _ = stores
    with pytest.raises(sqlite3.IntegrityError):
        subs.db.execute(
            "INSERT INTO deliveries (subscription_id, period_start, period_end, due_at, state, created_at, "
            "updated_at) VALUES (1, '2026-05-04', '2026-05-11', 'x', 'maybe', 'x', 'x')"
        )


def _claim_in_process(
    path: str, owner: str, start: multiprocessing.synchronize.Event, out: multiprocessing.Queue
) -> None:  # type: ignore[type-arg]
    ledger = DeliveryStore(connect(path))
    start.wait(10)
    won = 0
    for week in range(20):
        monday = MONDAY + timedelta(weeks=week)
        if ledger.claim(1, monday, monday + timedelta(days=7), NOW, owner=owner, now=NOW) is not None:
            won += 1
    out.put((owner, won))


def test_two_processes_claiming_the_same_periods_win_each_exactly_once(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    connect(path, create=True).conn.close()
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_claim_in_process, args=(str(path), f"p{i}", start, out)) for i in range(2)]
    for p in procs:
        p.start()
    start.set()
    results = dict(out.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(30)
    assert sum(results.values()) == 20
    rows = connect(path).execute("SELECT COUNT(*), COUNT(DISTINCT lease_owner) FROM deliveries").fetchone()
    assert rows[0] == 20
