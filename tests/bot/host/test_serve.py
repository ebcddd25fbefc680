"""The host (``bot/host/serve.py``, ``bot/host/runner.py``) on its own: start-up failures as one line,
/healthz, a graceful stop that closes every worker's connection, lanes that do not block each
other."""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from bot.config.errors import UserError
from bot.host.runner import CommandRunner, Lane
from bot.host.serve import bind
from commands.model import Invocation
from tests.bot.chat.slack.conftest import slack_settings
from tests.bot.cli.test_cli import cli
from tests.fakes.slack import BOT_TOKEN, SIGNING_SECRET, FakeSlack, RunningApp


def serve(*args: str, env: dict[str, str] | None = None) -> tuple[int, list[str]]:
    result = cli("serve", *args, env=env)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stderr.strip().splitlines()


def test_serve_with_nothing_configured_names_the_variables(tmp_path: Path) -> None:
    code, lines = serve("--db", str(tmp_path / "x.db"))
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith(
        "prdigest serve: nothing to serve: set SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET"
    )


def test_a_port_in_use_is_one_line(demo_db: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET}
        code, lines = serve("--db", str(demo_db), "--host", "127.0.0.1", "--port", str(port), env=env)
    assert code == 2 and len(lines) == 1
    assert lines[0] == (
        f"prdigest serve: port {port} on 127.0.0.1 is already in use: stop the other server or choose "
        "another port with PRDIGEST_PORT or --port"
    )


def test_an_address_that_is_not_this_machines_is_one_line(demo_db: Path) -> None:
    env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET}
    code, lines = serve("--db", str(demo_db), "--host", "192.0.2.1", "--port", "0", env=env)  # TEST-NET-1
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith("prdigest serve: cannot listen on 192.0.2.1:0 (")


def test_a_host_name_that_does_not_resolve_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_such_name(*args: object, **kw: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_name)  # no DNS query leaves the test
    with pytest.raises(UserError) as err:
        bind("no-such-host.invalid", 3000)
    assert str(err.value.format_message()) == (
        "--host 'no-such-host.invalid' is not an address this machine can listen on (Name or service not known)"
    )
    assert err.value.exit_code == 2


def test_the_old_port_variable_still_works(demo_db: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {
            "SLACK_BOT_TOKEN": BOT_TOKEN,
            "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "PRDIGEST_SLACK_PORT": str(port),
        }
        code, lines = serve("--db", str(demo_db), "--host", "127.0.0.1", env=env)
    assert code == 2 and f"port {port} on 127.0.0.1 is already in use" in lines[0]


def test_healthz_reports_the_cache_and_each_component(demo_db: Path) -> None:
    with FakeSlack() as slack, RunningApp(slack_settings(slack, prdigest_repo=None), demo_db) as app:
        state = httpx.get(f"{app.base}/healthz", timeout=10).json()
    assert state["ok"] is True and state["prs"] > 1000
    assert state["components"]["slack"] == {"mode": "http", "refused": 0, "refused_by_reason": {}}
    # scheduled digests run beside Slack; closed weeks' storylines are stored in the background
    assert set(state["components"]) == {"slack", "scheduler", "storyline_fill"}
    assert state["components"]["storyline_fill"]["stopped"] is None
    assert state["http"]["connections"] >= 1 and state["http"]["connection_cap"] > 0


def test_healthz_reports_a_cache_made_by_a_newer_prdigest(demo_db: Path) -> None:
    """Such a cache is served read-only, and /healthz says why it is not ok."""
    with closing(sqlite3.connect(demo_db)) as conn:
        with conn:
            conn.execute(
                "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
                "VALUES ('prdigest', '0042_from_the_future', '2030-01-01')"
            )
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with FakeSlack() as slack, RunningApp(slack_settings(slack, prdigest_repo=None), demo_db) as app:
        resp = httpx.get(f"{app.base}/healthz", timeout=10)
    state = resp.json()
    assert resp.status_code == 503 and state["ok"] is False and state["schema_ok"] is False
    assert "made by a newer prdigest; upgrade" in state["schema_problem"]
    assert state["unknown_migrations"] == ["0042_from_the_future"] and state["prs"] > 1000


def test_a_stop_closes_every_workers_connection_in_its_own_thread() -> None:
    closed: list[tuple[str, str]] = []
    made: list[str] = []

    class DB:
        def __init__(self) -> None:
            self.owner = threading.current_thread().name

        def close(self) -> None:
            closed.append((self.owner, threading.current_thread().name))

    def factory() -> SimpleNamespace:
        made.append(threading.current_thread().name)
        return SimpleNamespace(store=SimpleNamespace(db=DB()))

    lane = Lane("probe", factory, workers=3)  # type: ignore[arg-type]
    started = threading.Barrier(3)

    async def go() -> list[str]:
        def job(ctx: object) -> str:
            started.wait(10)  # three jobs at once: every worker builds its context
            return threading.current_thread().name

        return list(await asyncio.gather(*(lane.call(job) for _ in range(3))))

    names = asyncio.run(go())
    lane.close()
    assert sorted(names) == sorted(made) == [f"prdigest-probe-{i}" for i in range(3)]
    assert sorted(closed) == sorted((n, n) for n in made)  # closed by the thread that opened it
    assert not any(t.name.startswith("prdigest-probe") for t in threading.enumerate())


def test_a_hung_fetch_does_not_hold_the_commands(demo_db: Path) -> None:
    """The fetch lane is separate: with its only worker stuck, commands are still answered."""
    from bot.host.serve import context_factory
    from tests.bot.chat.slack.conftest import slack_settings as settings_for

    with FakeSlack() as slack:
        settings = settings_for(slack, prdigest_repo=None)
    runner = CommandRunner(context_factory(settings, demo_db), workers=1, fetch_workers=1)
    release = threading.Event()

    async def go() -> str:
        stuck = asyncio.ensure_future(runner.fetches.call(lambda ctx: release.wait(15)))
        reply = await runner.dispatch(Invocation(command="risks", args=("core-path", "2026-W19")))
        assert not stuck.done()  # answered while the fetch is still hanging
        release.set()
        await stuck
        return reply.status

    try:
        assert asyncio.run(go()) == "ok"
    finally:
        release.set()
        runner.close()


def test_an_unreachable_slack_is_one_line_without_the_sdks_retry_chatter(demo_db: Path) -> None:
    """slack_sdk logs each retry at INFO ("A retry handler found…"); serve shows only its own line."""
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    env = {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "PRDIGEST_SLACK_API_URL": f"http://127.0.0.1:{closed}/api/",
    }
    code, lines = serve("--db", str(demo_db), "--host", "127.0.0.1", "--port", "0", env=env)
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith("prdigest serve: cannot reach the Slack API (")


def test_serve_logging_keeps_its_own_lines_and_drops_the_schedulers_routine_ones() -> None:
    """APScheduler's executor logs two INFO lines per run of a job (the 15-second watch: ~11,500
    lines a day); they are dropped, its warnings and prdigest's own INFO lines are kept."""
    import io
    import logging

    from apscheduler.schedulers.asyncio import AsyncIOScheduler
    from apscheduler.triggers.interval import IntervalTrigger

    from bot.host import logs

    stream = io.StringIO()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        logs.configure(stream=stream)
        runs: list[int] = []

        async def main() -> None:
            scheduler = AsyncIOScheduler()
            scheduler.add_job(lambda: runs.append(1), IntervalTrigger(seconds=0.05))
            scheduler.start()
            while len(runs) < 2:
                await asyncio.sleep(0.02)
            scheduler.shutdown(wait=False)

        asyncio.run(asyncio.wait_for(main(), timeout=10))
        logging.getLogger("bot.delivery.clock").info("delivery: posted")
        logging.getLogger("apscheduler.executors.default").warning("Run time of job was missed")
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        for name in logs.QUIET_LOGGERS:
            logging.getLogger(name).setLevel(logging.NOTSET)
    text = stream.getvalue()
    assert "Running job" not in text and "executed successfully" not in text
    assert "Added job" not in text and "Scheduler started" not in text  # at every start and re-arm
    assert "INFO bot.delivery.clock: delivery: posted" in text
    assert "WARNING apscheduler.executors.default: Run time of job was missed" in text
