"""`prdigest subscribe | subscriptions | subscription | unsubscribe | deliveries | deliver` as a
user runs them: the real executable, the demo cache, the loopback fake Slack."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bot.cli.test_cli import EXE, assert_one_line_usage, cli
from tests.fakes.slack import BOT_TOKEN, FakeSlack

BEFORE = "2026-05-10T12:00:00Z"  # subscribed on the Sunday before the demo's last Monday
DUE = "2026-05-11T07:05:00Z"  # Monday 09:05 in Berlin


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


def env(slack: FakeSlack | None = None) -> dict[str, str]:
    out = {"PRDIGEST_TIMEZONE": "Europe/Berlin"}
    if slack is not None:
        out.update(SLACK_BOT_TOKEN=BOT_TOKEN, PRDIGEST_SLACK_API_URL=slack.api_url)
    return out


def listed(db: Path) -> list[dict[str, object]]:
    result = cli("subscriptions", "--format", "json", "--db", str(db))
    assert result.returncode == 0, result.stderr
    rows: list[dict[str, object]] = json.loads(result.stdout)
    return rows


def test_subscribe_list_change_and_remove(demo_db: Path) -> None:
    db = str(demo_db)
    result = cli(
        "subscribe", "slack:C0123456789", "--repo", "vllm-project/vllm", "--at", "mon 09:00",
        "--tz", "Europe/Berlin", "--lang", "zh", "--modules", "rocm", "--flags", "core-path",
        "--match", "any", "--no-check", "--db", db,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "subscribed: #1 slack:C0123456789 vllm-project/vllm · mon 09:00 Europe/Berlin"
    )
    assert "rocm + core-path" in result.stdout and "next digest: " in result.stdout
    [row] = listed(demo_db)
    assert (row["modules"], row["flags"], row["match"], row["lang"], row["timezone"]) == (
        ["rocm"], ["core-path"], "any", "zh", "Europe/Berlin",
    )  # fmt: skip
    text = cli("subscriptions", "--db", db)
    assert "#1 slack:C0123456789" in text.stdout and "no delivery yet" in text.stdout
    changed = cli(
        "subscription", "1", "--set", "at=fri 16:30", "--set", "layout=single", "--pause", "--db", db
    )
    assert changed.returncode == 0, changed.stderr
    assert "fri 16:30" in changed.stdout and "PAUSED" in changed.stdout
    assert "paused" in cli("subscriptions", "--db", db).stdout
    assert "PAUSED" not in cli("subscription", "1", "--resume", "--db", db).stdout
    assert cli("unsubscribe", "1", "--db", db).stdout.strip() == "unsubscribed #1"
    assert listed(demo_db) == []
    assert_one_line_usage(cli("unsubscribe", "1", "--db", db), "no subscription #1")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--tz", "Mars/Olympus"), "unknown time zone 'Mars/Olympus'"),
        (("--at", "25:00"), "'25:00' is not a weekday and time"),
        (("--at", "someday 09:00"), "is not a weekday and time"),
        (("--modules", "nosuchmodule"), "unknown module 'nosuchmodule'"),
        (("--match", "all"), "needs modules"),
        (("--flags", "scary"), "'scary'"),
        (("--every", "0"), "every '0'"),
        (("--layout", "poster"), "layout 'poster'"),
        (("--repo", "vllm"), "'vllm'"),
    ],
)
def test_bad_arguments_get_one_line_and_nothing_is_stored(
    demo_db: Path, args: tuple[str, ...], needle: str
) -> None:
    result = cli("subscribe", "slack:C0123456789", *args, "--no-check", "--db", str(demo_db))
    assert_one_line_usage(result, needle)
    assert listed(demo_db) == []


def test_a_bad_target_or_a_channel_the_bot_cannot_use_is_refused(demo_db: Path, slack: FakeSlack) -> None:
    assert_one_line_usage(cli("subscribe", "irc:#vllm", "--db", str(demo_db)), "use slack:CHANNEL_ID")
    slack.channel_errors["C0GONE"] = "channel_not_found"
    result = cli("subscribe", "slack:C0GONE", "--db", str(demo_db), env=env(slack))
    assert_one_line_usage(result, "cannot use slack:C0GONE")
    assert listed(demo_db) == []
    # a usable channel is joined (channels:join) so the bot can post and read back its posts
    ok = cli("subscribe", "slack:C0DIGEST", "--db", str(demo_db), env=env(slack))
    assert ok.returncode == 0, ok.stderr
    assert [c.params["channel"] for c in slack.calls_to("conversations.join")] == ["C0GONE", "C0DIGEST"]
    # without a token, the check cannot be done: say so (and how to skip it)
    result = cli("subscribe", "slack:C0OTHER", "--db", str(demo_db), env=env())
    assert_one_line_usage(result, "SLACK_BOT_TOKEN", "--no-check")


def test_deliver_dry_run_then_for_real_exactly_once(demo_db: Path, slack: FakeSlack) -> None:
    db = str(demo_db)
    sub = cli(
        "subscribe", "slack:C0DIGEST", "--layout", "single", "--now", BEFORE, "--db", db, env=env(slack)
    )
    assert sub.returncode == 0, sub.stderr
    early = cli("deliver", "--now", "2026-05-11T06:59:00Z", "--db", db, env=env(slack))
    assert early.returncode == 0 and early.stdout.strip() == "nothing due at 2026-05-11T06:59:00Z"
    dry = cli("deliver", "--dry-run", "--now", DUE, "--db", db, env=env(slack))
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith(
        "planned  slack:C0DIGEST #1 2026-05-04 — vllm-project/vllm weekly digest · 2026-W19"
    )
    assert slack.calls_to("chat.postMessage") == []
    real = cli("deliver", "--now", DUE, "--db", db, env=env(slack))
    assert real.returncode == 0, real.stderr
    assert real.stdout.startswith("posted   slack:C0DIGEST #1 2026-05-04")
    again = cli("deliver", "--now", DUE, "--db", db, env=env(slack))
    assert again.stdout.strip() == f"nothing due at {DUE.replace(':00Z', ':00Z')}"
    leads = [c for c in slack.calls_to("chat.postMessage") if not c.params.get("thread_ts")]
    assert len(leads) == 1
    ledger = cli("deliveries", "--db", db)
    header, row = ledger.stdout.strip().splitlines()
    assert header.split()[:5] == ["id", "sub", "week", "of", "state"] and row.split()[1:4] == [
        "#1",
        "2026-05-04",
        "posted",
    ]


def test_a_failed_delivery_is_shown_and_can_be_retried(demo_db: Path, slack: FakeSlack) -> None:
    db = str(demo_db)
    assert (
        cli(
            "subscribe", "slack:C0DIGEST", "--layout", "single", "--now", BEFORE, "--db", db, env=env(slack)
        ).returncode
        == 0
    )
    slack.channel_errors["C0DIGEST"] = "is_archived"
    failed = cli("deliver", "--now", DUE, "--db", db, env=env(slack))
    assert failed.returncode == 1
    assert failed.stdout.startswith("failed   slack:C0DIGEST #1 2026-05-04") and "archived" in failed.stdout
    assert "Traceback" not in failed.stdout + failed.stderr
    assert "last: 2026-05-04 failed (" in cli("subscriptions", "--db", db).stdout
    [row] = json.loads(cli("deliveries", "--format", "json", "--db", db).stdout)
    assert_one_line_usage(cli("deliveries", "--retry", "999", "--db", db), "no delivery 999")
    del slack.channel_errors["C0DIGEST"]
    assert cli("deliveries", "--retry", str(row["id"]), "--db", db).returncode == 0
    retried = cli("deliver", "--now", "2026-05-11T08:00:00Z", "--db", db, env=env(slack))
    assert retried.returncode == 0 and retried.stdout.startswith("posted")


def test_two_deliver_processes_at_once_post_once(demo_db: Path, slack: FakeSlack) -> None:
    db = str(demo_db)
    for i in range(4):
        r = cli(
            "subscribe",
            f"slack:C0TEAM{i}",
            "--layout",
            "single",
            "--now",
            BEFORE,
            "--no-check",
            "--db",
            db,
            env=env(),
        )
        assert r.returncode == 0, r.stderr
    slack.latency = 0.05
    import os

    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("PRDIGEST_", "GITHUB_", "SLACK_"))}
    full_env.update(env(slack))
    procs = [
        subprocess.Popen(
            [EXE, "deliver", "--now", DUE, "--db", db],
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    posted = [line for out, _ in outs for line in out.splitlines() if line.startswith("posted")]
    assert len(posted) == 4
    leads = [c.params["channel"] for c in slack.calls_to("chat.postMessage") if not c.params.get("thread_ts")]
    assert sorted(leads) == [f"C0TEAM{i}" for i in range(4)]
