"""What an operator sees: /healthz not ok (with the reason) when deliveries cannot be recorded,
`deliver` waiting for the lock only as long as PRDIGEST_LOCK_TIMEOUT says (and saying so), a
partial delivery in `deliveries` and `subscriptions`, and `subscribe` saying when the first
digest comes when this week's time has passed."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import httpx
import pytest

from storage.db import connect
from storage.deliveries import DeliveryStore
from tests.bot.cli.test_cli import cli
from tests.bot.delivery.test_clock import Clock, Served
from tests.bot.delivery.test_deliverer import DUE, subscribe
from tests.fakes.slack import BOT_TOKEN, FakeSlack
from tests.storage.locks import write_lock_held


@pytest.fixture
def slack() -> FakeSlack:
    with FakeSlack() as fake:
        yield fake  # type: ignore[misc]


def env(slack: FakeSlack, **extra: str) -> dict[str, str]:
    return {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "PRDIGEST_SLACK_API_URL": slack.api_url,
        "PRDIGEST_TIMEZONE": "Europe/Berlin",
        **extra,
    }


def test_healthz_is_not_ok_for_delivery_on_a_cache_that_can_only_be_read(
    demo_db: Path, slack: FakeSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache opened the way prdigest opens one on a read-only file system (SQLite's
    ``mode=ro&immutable=1``): reading works, no delivery can be recorded."""
    import storage.pragmas

    subscribe(demo_db)
    monkeypatch.setattr(storage.pragmas, "on_read_only_filesystem", lambda path: True)
    with Served(demo_db, slack, Clock(DUE)) as served:
        served.wait_runs(1)
        answer = httpx.get(f"http://127.0.0.1:{served.port}/healthz", timeout=10)
    body = answer.json()
    assert answer.status_code == 503 and body["ok"] is False
    scheduler = body["components"]["scheduler"]
    assert scheduler["ok"] is False and "readonly database" in scheduler["reason"], scheduler
    assert body["problems"] == [f"scheduler: {scheduler['reason']}"]
    assert body["prs"] > 0  # the cache itself still answers
    assert slack.calls_to("chat.postMessage") == []


def test_healthz_stays_ok_when_the_cache_can_be_written(demo_db: Path, slack: FakeSlack) -> None:
    with Served(demo_db, slack, Clock(DUE - timedelta(days=1))) as served:
        served.wait_runs(1)
        answer = httpx.get(f"http://127.0.0.1:{served.port}/healthz", timeout=10)
    assert answer.status_code == 200 and answer.json()["components"]["scheduler"]["ok"] is True


def test_deliver_waits_for_the_lock_only_as_long_as_the_setting_says(demo_db: Path, slack: FakeSlack) -> None:
    subscribe(demo_db)
    with write_lock_held(demo_db, 20.0):  # longer than the CLI takes to start here
        result = cli(
            "deliver",
            "--now",
            "2026-05-11T07:05:00Z",
            "--db",
            str(demo_db),
            env=env(slack, PRDIGEST_LOCK_TIMEOUT="2"),
        )
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"prdigest: waiting for another writer to finish with {demo_db} (up to 2 s)" in result.stderr
    assert "stayed locked by another writer for more than 2 s (PRDIGEST_LOCK_TIMEOUT)" in result.stdout
    assert slack.calls_to("chat.postMessage") == []


def test_a_partial_delivery_is_shown_with_what_is_missing(demo_db: Path, slack: FakeSlack) -> None:
    sub = subscribe(demo_db)
    assert sub.id is not None
    ledger = DeliveryStore(connect(demo_db))
    claim = ledger.claim(sub.id, date(2026, 5, 4), date(2026, 5, 11), DUE, owner="x", now=DUE)
    assert claim is not None
    reason = "posted 1 of 6 messages (missing: risks): the bot needs Send Messages in Threads"
    assert ledger.finish(claim, "partial", now=DUE, reason=reason, message_ids=("1",))
    listed = cli("deliveries", "--db", str(demo_db), env=env(slack))
    assert "partial" in listed.stdout and reason in listed.stdout
    subs = cli("subscriptions", "--db", str(demo_db), env=env(slack))
    assert f"last: 2026-05-04 partial ({reason})" in subs.stdout
    retried = cli("deliveries", "--retry", "1", "--db", str(demo_db), env=env(slack))
    assert retried.returncode == 0 and "will be retried" in retried.stdout
    row = json.loads(cli("deliveries", "--format", "json", "--db", str(demo_db), env=env(slack)).stdout)[0]
    assert row["state"] == "claimed" and row["reason"].startswith("retry requested")


def test_subscribe_after_this_weeks_time_says_the_first_digest_is_next_weeks(
    demo_db: Path, slack: FakeSlack
) -> None:
    made = cli(
        "subscribe",
        "slack:C0LATE",
        "--at",
        "mon 09:00",
        "--no-check",
        "--now",
        "2026-05-11T07:05:00Z",
        "--db",
        str(demo_db),
        env=env(slack),
    )
    assert made.returncode == 0, made.stderr
    assert (
        "next digest: 2026-05-18T07:00:00Z (this week's mon 09:00 Europe/Berlin passed at "
        "2026-05-11T07:00:00Z: the first digest is the next one)"
    ) in made.stdout
    early = cli(
        "subscribe",
        "slack:C0EARLY",
        "--at",
        "mon 09:00",
        "--no-check",
        "--now",
        "2026-05-11T06:55:00Z",
        "--db",
        str(demo_db),
        env=env(slack),
    )
    assert "next digest: 2026-05-11T07:00:00Z\n" in early.stdout
