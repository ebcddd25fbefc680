"""The scheduler component in the serve host: catch-up at start, sleeping until the next due time
with a controllable clock, two hosts on one database posting once, a clean stop."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.chat.slack.post import web_client
from bot.chat.slack.steps import SlackSteps
from bot.chat.steps import LivePosters, StepPoster
from bot.config.settings import Settings
from bot.delivery.clock import JOB_ID, RECHECK, SYNC_JOB_ID, WATCH, DeliveryScheduler, next_wake
from bot.host.runner import CommandRunner
from bot.host.serve import Host, context_factory
from commands.registry import Context
from storage.db import connect
from storage.deliveries import DeliveryStore
from storage.prs import PRStore, iso
from tests.bot.cli.test_cli import cli
from tests.bot.delivery.test_deliverer import CREATED, DUE, subscribe
from tests.fakes.slack import BOT_TOKEN, FakeSlack


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


class Clock:
    """Reads ``start`` when created and moves on with real time, ``rate`` times as fast (the
    scheduler sleeps a clock distance divided by the rate: ``bot.delivery.clock.clock_rate``)."""

    def __init__(self, start: datetime, rate: float = 1.0) -> None:
        self.start, self.t0, self.rate = start, time.monotonic(), rate

    def __call__(self) -> datetime:
        return self.start + timedelta(seconds=(time.monotonic() - self.t0) * self.rate)


class Served:
    """A host with only the scheduler component, in a background thread (posting unpaced, or as
    ``serve``'s clock does where ``live`` lends no poster for the platform)."""

    def __init__(
        self,
        db: Path,
        slack: FakeSlack,
        clock: Clock,
        *,
        sync_every: timedelta | None = None,
        recheck: timedelta = RECHECK,
        watch: timedelta | None = WATCH,
        live: LivePosters | None = None,
        **extra: object,
    ) -> None:
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None, slack_bot_token=BOT_TOKEN, prdigest_slack_api_url=slack.api_url, **extra
        )

        def posters(platform: str) -> StepPoster:
            return SlackSteps(web_client(settings), pace=0)

        self.scheduler = DeliveryScheduler(  # with ``live``: the posters a served host's clock has
            settings,
            posters=None if live else posters,
            live=live,
            clock=clock,
            sync_every=sync_every,
            recheck=recheck,
            watch=watch,
        )
        runner = CommandRunner(context_factory(settings, db), workers=1)
        self.host = Host(settings, runner, [self.scheduler], host="127.0.0.1", port=0)
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._main, daemon=True)

    def _main(self) -> None:
        async def go() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            await self.host.run(stop=self._stop, on_ready=self._on_ready)

        asyncio.run(go())

    def _on_ready(self, port: int) -> None:
        self.port = port
        self._ready.set()

    def __enter__(self) -> Served:
        self._thread.start()
        assert self._ready.wait(15)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(15)
        assert not self._thread.is_alive()

    def wait_runs(self, n: int, timeout: float = 90.0) -> None:  # builds take seconds on a loaded machine
        deadline = time.monotonic() + timeout
        while self.scheduler.runs < n and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.scheduler.runs >= n, f"{self.scheduler.runs} runs"


def leads(slack: FakeSlack) -> list[str]:
    return [
        str(c.params["channel"]) for c in slack.calls_to("chat.postMessage") if not c.params.get("thread_ts")
    ]


def test_a_restarted_serve_catches_up_at_start(demo_db: Path, slack: FakeSlack) -> None:
    subscribe(demo_db, layout="single")
    with Served(demo_db, slack, Clock(DUE + timedelta(hours=3))) as served:
        served.wait_runs(1)
        assert [o.state for o in served.scheduler.last_outcomes] == ["posted"]
        health = served.scheduler.health()
    assert leads(slack) == ["C0DIGEST"]
    assert health["last"] == {"posted": 1} and health["runs"] >= 1


def test_it_sleeps_until_monday_nine_then_posts_once(demo_db: Path, slack: FakeSlack) -> None:
    subscribe(demo_db, layout="single")
    with Served(demo_db, slack, Clock(DUE - timedelta(seconds=1.5))) as served:
        served.wait_runs(1)
        assert served.scheduler.last_outcomes == [] and leads(slack) == []
        # armed for 09:00 Berlin, not for the five-minute recheck
        assert served.scheduler.next_run is not None
        assert abs((served.scheduler.next_run - DUE).total_seconds()) < 1
        served.wait_runs(2)
        assert [o.state for o in served.scheduler.last_outcomes] == ["posted"]
        # once: the run that posted armed the next one minutes away, so nothing runs before the stop
        assert served.scheduler.next_run is not None and served.scheduler.last_run is not None
        assert served.scheduler.next_run - served.scheduler.last_run >= timedelta(minutes=1)
    assert served.scheduler.runs == 2
    assert leads(slack) == ["C0DIGEST"]
    [row] = DeliveryStore(connect(demo_db)).for_subscription(1)
    assert (row.state, row.attempts) == ("posted", 1)


def test_two_serve_hosts_on_one_database_post_once(demo_db: Path, slack: FakeSlack) -> None:
    for i in range(3):
        subscribe(demo_db, channel=f"C0TEAM{i}", layout="single")
    slack.latency = 0.05
    clock = Clock(DUE + timedelta(minutes=1))
    with Served(demo_db, slack, clock) as a, Served(demo_db, slack, clock) as b:
        a.wait_runs(1)
        b.wait_runs(1)
    assert sorted(leads(slack)) == ["C0TEAM0", "C0TEAM1", "C0TEAM2"]
    rows = connect(demo_db).execute("SELECT state, COUNT(*) FROM deliveries GROUP BY state").fetchall()
    assert rows == [("posted", 3)]


def test_next_wake_is_the_earliest_due_time_or_the_recheck(demo_db: Path) -> None:
    from classify.rules import load_profile

    ctx = Context(store=PRStore(connect(demo_db)), profile=load_profile())
    now = CREATED
    assert next_wake(ctx, now) == now + timedelta(minutes=5)  # nothing subscribed
    subscribe(demo_db)
    assert next_wake(ctx, now, timedelta(days=30)) == DUE
    assert next_wake(ctx, DUE - timedelta(minutes=2)) == DUE
    assert next_wake(ctx, DUE) == DUE + timedelta(minutes=5)
    assert datetime(2026, 1, 1, tzinfo=UTC) < DUE


def test_serve_syncs_each_repository_periodically(tmp_path: Path, slack: FakeSlack) -> None:
    from tests.fakes.github import TOKEN, FakeClock, FakeGitHub, fake_schema, make_prs

    db = tmp_path / "cache.db"
    connect(db, create=True).conn.close()
    end = datetime.now(UTC).replace(microsecond=0)
    with FakeGitHub(fake_schema(), clock=FakeClock(start=time.time())) as github:
        github.add_prs("octo/repo", make_prs(5, end - timedelta(days=3), end))
        served = Served(
            db,
            slack,
            Clock(end),
            sync_every=timedelta(seconds=0.3),
            github_token=TOKEN,
            prdigest_github_api_url=github.url,
            prdigest_repo="octo/repo",
        )
        with served:
            deadline = time.monotonic() + 20
            while served.scheduler.syncs < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            health = served.scheduler.health()
    assert served.scheduler.syncs >= 2
    assert health["last_sync"] == {"octo/repo": "ok"}
    assert PRStore(connect(db)).count("octo/repo") == 5


def scheduled_jobs(served: Served) -> set[str]:
    """The ids of the jobs the scheduler's APScheduler holds now."""
    assert served.scheduler._scheduler is not None
    return {job.id for job in served.scheduler._scheduler.get_jobs()}


def test_no_periodic_sync_without_a_token(demo_db: Path, slack: FakeSlack) -> None:
    """No token, no sync job: the absence is the scheduler's state, not a wait that saw nothing."""
    with Served(demo_db, slack, Clock(CREATED), sync_every=timedelta(seconds=0.1)) as served:
        served.wait_runs(1)
        jobs = scheduled_jobs(served)
        assert JOB_ID in jobs and SYNC_JOB_ID not in jobs  # the next delivery run is armed; no sync is
        assert served.scheduler.syncs == 0


def wait_for(what: str, check: Callable[[], object], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_a_subscription_from_another_process_is_noticed_by_the_watch_and_posted_on_time(
    demo_db: Path, slack: FakeSlack
) -> None:
    """``prdigest subscribe`` in another process, for a due time eight minutes (of a clock running
    30 times as fast) after the host started: the watch sees SQLite's data_version move and moves
    the timer earlier; without it the host would sleep through to its six-hour recheck."""
    start = DUE - timedelta(minutes=8)
    clock = Clock(start, rate=30)  # 16 s of real time for the CLI to start and write
    with Served(demo_db, slack, clock, recheck=timedelta(hours=6), watch=timedelta(seconds=0.3)) as served:
        served.wait_runs(1)  # the catch-up at start: nothing subscribed yet
        assert served.scheduler.next_run is not None and served.scheduler.next_run > DUE + timedelta(hours=5)
        made = cli(
            "subscribe", "slack:C0DIGEST", "--at", "mon 07:00", "--tz", "UTC", "--layout", "single",
            "--no-check", "--now", iso(start), "--db", str(demo_db),
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        assert clock() < DUE, "the subscription was made too late to tell"
        wait_for("the run that posted", lambda: served.scheduler.last_outcomes)
        outcomes = list(served.scheduler.last_outcomes)
        health = served.scheduler.health()
        watched, rearms = served.scheduler.watched_changes, served.scheduler.rearms
    assert [o.state for o in outcomes] == ["posted"] and leads(slack) == ["C0DIGEST"]
    [row] = DeliveryStore(connect(demo_db)).for_subscription(1)
    assert DUE <= row.created_at <= DUE + timedelta(seconds=60), row.created_at  # claimed on time
    assert watched >= 1 and rearms == 0 and health["last"] == {"posted": 1}


def test_rearm_from_any_thread_runs_at_once_on_the_hosts_loop(demo_db: Path, slack: FakeSlack) -> None:
    with Served(demo_db, slack, Clock(CREATED), recheck=timedelta(hours=6), watch=None) as served:
        served.wait_runs(1)
        threads = [threading.Thread(target=served.scheduler.rearm) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wait_for("the three requests on the loop", lambda: served.scheduler.rearms == 3, timeout=10)
        served.wait_runs(2, timeout=10)
        scheduler = served.scheduler
        # settled: no run in progress and the next one six hours away, so the count is final
        wait_for(
            "the runs the requests asked for",
            lambda: (
                not scheduler._lock.locked()
                and scheduler.next_run is not None
                and scheduler.next_run - scheduler.clock() > timedelta(hours=1)
            ),
            timeout=30,
        )
        assert 2 <= scheduler.runs <= 4  # three requests coalesce into at most one run each
    assert leads(slack) == []  # nothing was due


def test_a_change_during_a_run_is_run_once_more_when_the_run_ends(demo_db: Path, slack: FakeSlack) -> None:
    """A subscription changed while a run posts (``rearm`` with the run's lock held) gets one
    more run right after it, and the clock is then armed for its recheck — not left with no run
    armed, as when the follow-up was submitted while the finishing run still counted."""
    subscribe(demo_db, layout="single")
    slack.latency = 0.5  # the catch-up run at start posts, slowly
    with Served(
        demo_db, slack, Clock(DUE + timedelta(minutes=1)), recheck=timedelta(hours=6), watch=None
    ) as served:
        scheduler = served.scheduler
        wait_for("the run to be posting", lambda: scheduler._lock.locked() or scheduler.runs >= 1)
        assert scheduler.runs == 0, "the run ended before the change could come during it"
        scheduler.rearm()
        wait_for("the change on the loop", lambda: scheduler.rearms == 1)
        wait_for(
            "the run after the change, and the recheck armed",
            lambda: (
                scheduler.runs == 2
                and not scheduler._lock.locked()
                and scheduler.next_run is not None
                and scheduler.next_run - scheduler.clock() > timedelta(hours=1)
            ),
        )
        assert scheduler.last_outcomes == []  # the first run posted the digest; nothing else was due
    assert leads(slack) == ["C0DIGEST"]


def test_the_runner_announces_only_subscription_changes_that_happened(demo_db: Path) -> None:
    """``subscriptions_changed`` fires after a successful /subscribe or /unsubscribe, never for a
    refused one (not an admin, a bad value) or a command that only reads."""
    from commands.model import Invocation
    from commands.registry import load_all

    load_all()
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    runner = CommandRunner(context_factory(settings, demo_db), workers=1)
    heard: list[str] = []
    runner.subscriptions_changed.append(lambda: heard.append(threading.current_thread().name))

    def chat(command: str, *args: str, admin: bool = True) -> str:
        inv = Invocation(
            command=command, args=args, platform="slack", channel="C0DIGEST", user="U1", is_admin=admin
        )
        return asyncio.run(runner.dispatch(inv)).status

    try:
        assert chat("subscribe", "layout=single") == "ok"
        assert chat("subscribe", "tz=Mars/Olympus") != "ok"
        assert chat("subscribe", admin=False) != "ok"
        assert chat("subscriptions") == "ok"
        assert chat("unsubscribe", "1") == "ok"
        assert chat("unsubscribe", "1") != "ok"  # already gone
    finally:
        runner.close()
    assert heard == ["MainThread", "MainThread"]  # on the loop's thread, once per change
