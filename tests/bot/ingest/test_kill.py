"""kill -9 in the middle of ``prdigest sync``: the next run completes with exactly the clean rows.

The sync runs as a real subprocess (``python -m bot.cli.sync``) against the fake GitHub; the fake
kills it with SIGKILL when a chosen request arrives, i.e. while pages are being fetched and stored.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storage.db import connect
from tests.fakes.github import ROOT, TOKEN, FakeClock, FakeGitHub, fake_schema, make_prs

from .helpers import assert_same_rows

REPO = "vllm-project/vllm"
UNTIL = datetime(2026, 5, 11, tzinfo=UTC)
SINCE = UNTIL - timedelta(days=7)
ARGS = ["--repo", REPO, "--since", SINCE.isoformat(), "--until", UNTIL.isoformat()]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


def _env(fake: FakeGitHub, tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRDIGEST_", "GITHUB_"))}
    env.update(
        {
            "GITHUB_TOKEN": TOKEN,
            "PRDIGEST_GITHUB_API_URL": fake.url,
            "PYTHONPATH": str(ROOT),
            "PRDIGEST_PROFILE": "vllm",
        }
    )
    return env


def _start(db: Path, env: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "bot.cli.sync", *ARGS, "--db", str(db)],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _run_killed_at(fake: FakeGitHub, db: Path, env: dict[str, str], cwd: Path, request: int) -> None:
    """Start a sync and SIGKILL it when its ``request``-th request reaches the fake."""
    first = fake.requests
    proc = _start(db, env, cwd)
    killed = threading.Event()

    def hook(count: int) -> None:
        if count - first == request and not killed.is_set():
            proc.send_signal(signal.SIGKILL)
            killed.set()

    fake.on_request = hook
    try:
        proc.communicate(timeout=60)
    finally:
        fake.on_request = None
    assert killed.is_set(), "the sync finished before it could be killed"
    assert proc.returncode == -signal.SIGKILL


def test_kill_9_mid_sync_then_rerun_matches_a_clean_run(tmp_path: Path) -> None:
    schema = fake_schema()
    prs = make_prs(640, SINCE, UNTIL, big={10: 160, 333: 260, 600: 120}, unmerged=4)
    with FakeGitHub(schema, clock=FakeClock(start=time.time()), delay=0.05) as fake:
        fake.add_prs(REPO, prs)
        env = _env(fake, tmp_path)

        clean_db = tmp_path / "clean.db"
        clean = subprocess.run(
            [sys.executable, "-m", "bot.cli.sync", *ARGS, "--db", str(clean_db)],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            timeout=120,
        )
        assert clean.returncode == 0, clean.stderr.decode()
        clean_requests = fake.requests
        assert clean_requests >= 8

        db = tmp_path / "killed.db"
        _run_killed_at(fake, db, env, tmp_path, request=4)
        partial = connect(db)
        stored = partial.execute("SELECT count(*) FROM prs").fetchone()[0]
        assert 0 < stored < 640
        assert partial.execute("SELECT cursor FROM sync_state").fetchone()[0] is not None
        partial.close()

        _run_killed_at(fake, db, env, tmp_path, request=3)  # killed again while resuming

        before = fake.requests
        final = subprocess.run(
            [sys.executable, "-m", "bot.cli.sync", *ARGS, "--db", str(db)],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            timeout=120,
        )
        assert final.returncode == 0, final.stderr.decode()
        assert fake.requests - before < clean_requests  # resumed, not restarted
        assert "fetched" in final.stdout.decode()

    assert_same_rows(connect(db), connect(clean_db))
