"""Concurrent writers through the real executable.

Two ``prdigest import`` at once, or an import beside ``reclassify`` or ``sync --git``, used to kill
one of them with "database is locked" and a traceback: the upsert read first and asked for the
write lock afterwards, which SQLite refuses without waiting when another writer committed in
between. Every writer now takes the lock with BEGIN IMMEDIATE and waits its turn.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from pathlib import Path

import pytest
import sqlite_utils

from tests.bot.cli.procs import clean_env, error_line, prdigest, start, table_rows, write_prs
from tests.bot.ingest.gitrepo import linear_history
from tests.bot.ingest.helpers import assert_same_rows
from tests.storage.locks import write_lock_held

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX processes")


def _assert_same_rows(got: Path, want: Path) -> None:
    with closing(sqlite_utils.Database(got)) as a, closing(sqlite_utils.Database(want)) as b:
        assert_same_rows(a, b)


def _finished(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=180)
    return proc.returncode, out, err


def test_two_imports_at_once_both_finish_with_every_row(tmp_path: Path) -> None:
    a = write_prs(tmp_path / "a.jsonl", 2500, repo="octo/a", seed=1)
    b = write_prs(tmp_path / "b.jsonl", 2500, repo="octo/b", seed=2)
    db = tmp_path / "cache.db"
    first, second = start("import", str(a), "--db", str(db)), start("import", str(b), "--db", str(db))
    for proc in (first, second):
        code, out, err = _finished(proc)
        assert code == 0, err
        assert "Traceback" not in err and out.startswith("imported 2500 PRs: 2500 new")

    alone = tmp_path / "alone.db"
    for f in (a, b):
        assert prdigest("import", str(f), "--db", str(alone)).returncode == 0
    _assert_same_rows(db, alone)


def test_import_beside_reclassify_both_finish(demo_db: Path, tmp_path: Path) -> None:
    extra = write_prs(tmp_path / "extra.jsonl", 2500, repo="octo/a")
    env = clean_env(PRDIGEST_PROFILE="generic")
    reclass = start("reclassify", "--db", str(demo_db), "--workers", "1", env=env)
    imp = start("import", str(extra), "--db", str(demo_db))
    code, out, err = _finished(reclass)
    assert code == 0 and "Traceback" not in err, err
    code, out, err = _finished(imp)
    assert code == 0 and "2500 new" in out, err
    profiles = table_rows(demo_db, "SELECT DISTINCT profile FROM prs WHERE repo = 'vllm-project/vllm'")
    assert profiles == [("generic",)]
    assert table_rows(demo_db, "SELECT count(*) FROM prs WHERE repo = 'octo/a'") == [(2500,)]


def test_import_beside_sync_git_both_finish(tmp_path: Path) -> None:
    clone = linear_history(tmp_path / "clone", 2000)
    extra = write_prs(tmp_path / "extra.jsonl", 2500, repo="octo/a")
    db = tmp_path / "cache.db"
    sync = start("sync", "--git", str(clone), "--repo", "octo/git", "--db", str(db))
    imp = start("import", str(extra), "--db", str(db))
    code, out, err = _finished(sync)
    assert code == 0 and "fetched 2000, new 2000" in out, err
    code, out, err = _finished(imp)
    assert code == 0 and "2500 new" in out, err
    counts = dict(table_rows(db, "SELECT repo, count(*) FROM prs GROUP BY repo"))  # type: ignore[arg-type]
    assert counts == {"octo/a": 2500, "octo/git": 2000}


def test_a_writer_that_waits_says_so_then_finishes(demo_db: Path, tmp_path: Path) -> None:
    extra = write_prs(tmp_path / "extra.jsonl", 200, repo="octo/a")
    with write_lock_held(demo_db, 3.0):
        result = prdigest("import", str(extra), "--db", str(demo_db))
    assert result.returncode == 0, result.stderr
    assert f"prdigest: waiting for another writer to finish with {demo_db} (up to 60 s)" in result.stderr
    assert result.stdout.startswith("imported 200 PRs: 200 new")


def test_a_lock_held_past_the_timeout_is_one_line_and_exit_1(demo_db: Path, tmp_path: Path) -> None:
    extra = write_prs(tmp_path / "extra.jsonl", 200, repo="octo/a")
    with write_lock_held(demo_db, 5.0):
        result = prdigest(
            "import", str(extra), "--db", str(demo_db), env=clean_env(PRDIGEST_LOCK_TIMEOUT="2")
        )
    line = [x for x in result.stderr.splitlines() if "waiting for another writer" not in x]
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert line == [
        f"prdigest: database {demo_db} stayed locked by another writer for more than 2 s "
        "(PRDIGEST_LOCK_TIMEOUT); nothing more was written: run the command again when the other one has finished"
    ]
    assert table_rows(demo_db, "SELECT count(*) FROM prs WHERE repo = 'octo/a'") == [(0,)]


def test_an_interrupted_import_leaves_whole_batches_that_a_rerun_completes(tmp_path: Path) -> None:
    records = write_prs(tmp_path / "prs.jsonl", 4000, repo="octo/a")
    db = tmp_path / "cache.db"
    proc = start("import", str(records), "--db", str(db))
    stored = 0
    deadline = time.monotonic() + 60
    while stored == 0 and time.monotonic() < deadline:
        time.sleep(0.005)
        if db.exists():
            try:
                stored = table_rows(db, "SELECT count(*) FROM prs")[0][0]  # type: ignore[assignment]
            except sqlite3.OperationalError:
                continue
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    stored = table_rows(db, "SELECT count(*) FROM prs")[0][0]  # type: ignore[assignment]
    assert 0 < stored < 4000 and stored % 500 == 0  # whole batches of 500 only
    assert table_rows(db, "PRAGMA integrity_check") == [("ok",)]

    again = prdigest("import", str(records), "--db", str(db))
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"imported 4000 PRs: {4000 - stored} new, 0 updated, {stored} unchanged")
    clean = tmp_path / "clean.db"
    assert prdigest("import", str(records), "--db", str(clean)).returncode == 0
    _assert_same_rows(db, clean)


def test_lock_timeout_setting_is_validated(tmp_path: Path) -> None:
    result = prdigest("digest", "--db", str(tmp_path / "x.db"), env=clean_env(PRDIGEST_LOCK_TIMEOUT="-1"))
    assert "PRDIGEST_LOCK_TIMEOUT" in error_line(result, 2)
