"""The write path in-process: the lock, failures as StoreErrors, schema checks, atomic creation."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest

from classify.models import Classification, PullRequest
from storage.backup import backup
from storage.db import (
    StoreError,
    StoreLocked,
    StoreUnavailable,
    close,
    connect,
    schema_status,
    write_transaction,
)
from storage.prs import PRStore
from tests.storage.locks import write_lock_held


def _pr(n: int, repo: str = "octo/repo") -> tuple[PullRequest, Classification]:
    pr = PullRequest(repo=repo, number=n, title=f"Change {n}", merged_at=datetime(2026, 5, 1, tzinfo=UTC))
    return pr, Classification()


def test_a_writer_waits_for_the_lock_and_says_so_once(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    said: list[str] = []
    store = PRStore(connect(path, create=True, lock_timeout=30, on_wait=said.append))
    with write_lock_held(path, 1.5):
        store.upsert([_pr(1)])
    assert said == [f"waiting for another writer to finish with {path} (up to 30 s)"]
    assert store.count() == 1
    store.upsert([_pr(2)])  # no wait, nothing said
    assert len(said) == 1


def test_a_short_wait_is_not_announced(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    said: list[str] = []
    store = PRStore(connect(path, create=True, on_wait=said.append))
    with write_lock_held(path, 0.3):
        store.upsert([_pr(1)])
    assert said == [] and store.count() == 1


def test_a_lock_held_past_the_timeout_raises_store_locked(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    store = PRStore(connect(path, create=True, lock_timeout=1.2))
    with write_lock_held(path, 3):
        started = time.monotonic()
        with pytest.raises(StoreLocked, match=r"stayed locked by another writer for more than 1\.2 s"):
            store.upsert([_pr(1)])
        # it waited for the timeout (a lower bound holds on any machine); raising at all shows it gave
        # up before the 3 s lock was released (it would have written then)
        assert time.monotonic() - started >= 1.0
    assert store.count() == 0
    store.upsert([_pr(1)])
    assert store.count() == 1


def test_a_full_database_rolls_back_and_raises_store_unavailable(tmp_path: Path) -> None:
    """``max_page_count`` makes SQLite answer SQLITE_FULL, the code a full disk (ENOSPC) gives."""
    path = tmp_path / "c.db"
    store = PRStore(connect(path, create=True))
    store.upsert([_pr(1)])
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages + 2}")
    big = [(replace(pr, body="x" * 50_000), cls) for pr, cls in (_pr(n) for n in range(2, 40))]
    with pytest.raises(StoreUnavailable, match=r"database or disk is full.*the cache is intact"):
        store.upsert(big, batch=100)
    assert not store.db.conn.in_transaction
    assert store.count() == 1
    assert store.db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_nested_transactions_commit_together(tmp_path: Path) -> None:
    store = PRStore(connect(tmp_path / "c.db", create=True))
    with pytest.raises(RuntimeError), write_transaction(store.db):
        store.upsert([_pr(1)])
        raise RuntimeError("the outer unit fails")
    assert store.count() == 0


def test_close_leaves_the_db_file_complete(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    store = PRStore(connect(path, create=True))
    store.upsert([_pr(n) for n in range(1, 200)])
    assert Path(f"{path}-wal").exists()
    close(store.db)
    assert not Path(f"{path}-wal").exists()
    copy = tmp_path / "copy.db"
    shutil.copy(path, copy)
    assert PRStore(connect(copy)).count() == 199


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    with pytest.raises(StoreError, match=r"empty file \(0 bytes\).*left untouched"):
        connect(path, create=True)
    assert path.stat().st_size == 0


def test_creating_the_same_cache_from_many_threads_at_once(tmp_path: Path) -> None:
    path = tmp_path / "new.db"

    def open_and_write(n: int) -> int:
        store = PRStore(connect(path, create=True))
        store.upsert([_pr(n)])
        store.db.close()
        return n

    with ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(open_and_write, range(1, 9))) == list(range(1, 9))
    assert PRStore(connect(path)).count() == 8
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("new.db")) == []


def test_new_caches_get_the_usual_file_mode(tmp_path: Path) -> None:
    import os

    old = os.umask(0o022)
    try:
        connect(tmp_path / "c.db", create=True).close()
    finally:
        os.umask(old)
    assert (tmp_path / "c.db").stat().st_mode & 0o777 == 0o644


# -- schema ---------------------------------------------------------------------------------------


def _cache(tmp_path: Path, *sql: str) -> Path:
    path = tmp_path / "c.db"
    store = PRStore(connect(path, create=True))
    store.upsert([_pr(1)])
    for statement in sql:
        store.db.execute(statement)
    close(store.db)
    return path


def test_a_fresh_cache_is_ok() -> None:
    status = schema_status(connect(":memory:"))
    assert status.ok and status.writable and status.readable and status.problem is None


def test_unknown_migrations_refuse_writes_but_not_reads(tmp_path: Path) -> None:
    path = _cache(
        tmp_path,
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('prdigest', '0099_next', 'x')",
    )
    db = connect(path)
    status = schema_status(db)
    assert not status.ok and status.readable and status.unknown == ("0099_next",)
    assert status.problem is not None and "made by a newer prdigest; upgrade" in status.problem
    store = PRStore(db)
    assert store.count() == 1
    with pytest.raises(StoreError, match="made by a newer prdigest; upgrade prdigest to use it"):
        store.upsert([_pr(2)])
    with pytest.raises(StoreError, match="made by a newer prdigest"):
        store.store_classifications([])
    copy = backup(db, tmp_path / "b.db")  # reading (and so backing up) is fine
    assert copy.prs == 1


@pytest.mark.parametrize(
    ("sql", "difference"),
    [
        ("ALTER TABLE prs RENAME COLUMN title TO headline", "table prs has no column title"),
        ("DROP INDEX idx_prs_window", "index idx_prs_window is missing"),
        ("DROP TRIGGER prs_ai", "trigger prs_ai is missing"),
    ],
)
def test_a_changed_schema_is_refused(tmp_path: Path, sql: str, difference: str) -> None:
    path = _cache(tmp_path, sql)
    with pytest.raises(StoreError, match=f"does not have the schema its migrations make \\({difference}\\)"):
        connect(path)


def test_an_added_column_can_be_read_but_not_written(tmp_path: Path) -> None:
    path = _cache(tmp_path, "ALTER TABLE prs ADD COLUMN reviewed INTEGER")
    db = connect(path)
    status = schema_status(db)
    assert status.readable and not status.writable
    assert status.differences == ("table prs has an unexpected column reviewed",)
    with pytest.raises(StoreError, match="unexpected column reviewed"):
        PRStore(db).upsert([_pr(2)])


def test_objects_a_user_added_beside_ours_are_tolerated(tmp_path: Path) -> None:
    path = _cache(tmp_path, "CREATE INDEX my_author_index ON prs (author)", "CREATE TABLE my_notes (x)")
    status = schema_status(connect(path))
    assert status.ok, status


def test_an_older_cache_is_migrated_then_ok(tmp_path: Path) -> None:
    from storage import migrations

    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    migrations.apply(old, stop_before="0005_covering_index_for_comparison_windows")
    old.close()
    assert schema_status(sqlite3.connect(path)).pending == (
        "0005_covering_index_for_comparison_windows",
        "0006_profile_hash",
        "0007_subscriptions_and_deliveries",
        "0008_aggregates",
        "0009_fts_built_after_a_first_import",
        "0010_classifier_codes",
        "0013_stored_storylines",
        "0014_delivery_steps",
        "0015_learned_profiles",
        "0016_prose",
        "0017_posted_payloads_dropped",
    )
    assert schema_status(connect(path)).ok


def test_opening_a_current_cache_loads_no_sqlite_utils(tmp_path: Path) -> None:
    """sqlite-utils (and the numpy its import drags in) runs the migrations only: opening a cache
    that has them all, once the expected schema is remembered, uses the standard library alone."""
    path = tmp_path / "current.db"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    code = (
        "import sys\n"
        "from storage.db import connect\n"
        f"connect({str(path)!r}, create=True).close()\n"
        "print('sqlite_utils' in sys.modules, 'numpy' in sys.modules)\n"
    )
    run = partial(subprocess.run, capture_output=True, text=True, timeout=60, check=True, env=env)
    assert run([sys.executable, "-c", code]).stdout.split() == ["True", "True"]  # built: migrations ran
    assert run([sys.executable, "-c", code]).stdout.split() == ["False", "False"]
