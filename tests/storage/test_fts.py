"""The full-text index of a first import is built once at its end, and never left stale (storage.fts).

``integrity-check`` with rank 1 compares the FTS5 index with the ``prs`` rows it indexes: it
fails ("malformed") when a row is missing from the index or indexed with other text.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.ingest.demo import demo_data_path
from bot.ingest.load import import_file
from classify.models import Classification, PullRequest
from classify.rules import Profile
from storage import fts
from storage.db import connect, write_transaction
from storage.prs import PRStore
from tests.fakes.github import ROOT

QUERIES = ("attention", "kernel", "fix", "quantization", "rocm", "cache", "spec decode", "moe")


def _index_ok(conn: sqlite3.Connection) -> bool:
    try:
        conn.execute("INSERT INTO prs_fts (prs_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError:
        return False
    finally:
        conn.rollback()  # the INSERT opened a transaction (it writes nothing): leave none open
    return True


def _matches(conn: sqlite3.Connection) -> dict[str, list[int]]:
    return {
        q: [
            r[0]
            for r in conn.execute(
                "SELECT p.number FROM prs_fts JOIN prs p ON p.rowid = prs_fts.rowid "
                "WHERE prs_fts MATCH ? ORDER BY p.number",
                (q,),
            )
        ]
        for q in QUERIES
    }


def _statements(store: PRStore) -> list[str]:
    seen: list[str] = []
    store.db.conn.set_trace_callback(seen.append)
    return seen


def _pr(n: int, title: str) -> tuple[PullRequest, Classification]:
    pr = PullRequest(repo="octo/repo", number=n, title=title, merged_at=datetime(2026, 5, 1, tzinfo=UTC))
    return pr, Classification()


def test_a_first_import_builds_the_same_index_once_at_its_end(
    tmp_path: Path, profile: Profile, monkeypatch: pytest.MonkeyPatch
) -> None:
    deferred = PRStore(connect(tmp_path / "deferred.db", create=True))
    statements = _statements(deferred)
    import_file(deferred, profile, demo_data_path(), batch=200)
    deferred.db.conn.set_trace_callback(None)
    assert sum(s == fts.REBUILD for s in statements) == 1
    assert not fts.deferred(deferred.db)
    assert _index_ok(deferred.db.conn)

    # the same import with the triggers indexing row by row (the code before) gives the same index
    monkeypatch.setattr(fts, "begin", lambda db: False)
    row_by_row = PRStore(connect(tmp_path / "row_by_row.db", create=True))
    import_file(row_by_row, profile, demo_data_path(), batch=200)
    found = _matches(deferred.db.conn)
    assert found == _matches(row_by_row.db.conn)
    assert sum(map(len, found.values())) > 100


def test_an_import_into_a_filled_cache_keeps_indexing_row_by_row(demo_db: Path, profile: Profile) -> None:
    store = PRStore(connect(demo_db))
    statements = _statements(store)
    assert not fts.begin(store.db)
    store.upsert([_pr(99_001, "Zyxwvut frobnicator for the scheduler")])
    store.db.conn.set_trace_callback(None)
    assert fts.REBUILD not in statements
    assert _matches(store.db.conn) and store.search("octo/repo", "zyxwvut", None, None, limit=5)[1] == 1
    assert _index_ok(store.db.conn)


def test_a_failed_import_still_builds_the_index_of_the_batches_it_stored(tmp_path: Path) -> None:
    store = PRStore(connect(tmp_path / "c.db", create=True))
    with pytest.raises(KeyboardInterrupt), fts.built_after_a_first_import(store.db) as started:
        assert started
        store.upsert([_pr(1, "Zyxwvut one"), _pr(2, "Zyxwvut two")])
        assert not _index_ok(store.db.conn), "deferred: not indexed yet"
        raise KeyboardInterrupt
    assert not fts.deferred(store.db) and _index_ok(store.db.conn)
    assert store.search("octo/repo", "zyxwvut", None, None, limit=5)[1] == 2


_KILLED_IMPORTER = """
import os, signal, sys
from datetime import UTC, datetime
from classify.models import Classification, PullRequest
from storage import fts
from storage.db import connect, write_transaction
from storage.prs import PRStore

store = PRStore(connect(sys.argv[1], create=True))
assert fts.begin(store.db)
for first in (1, 101):  # two committed batches
    store.upsert(
        (PullRequest(repo="octo/repo", number=n, title=f"Zyxwvut change {n}",
                     merged_at=datetime(2026, 5, 1, tzinfo=UTC)), Classification())
        for n in range(first, first + 100)
    )
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_an_importer_killed_half_way_leaves_an_index_the_next_open_rebuilds(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_KILLED_IMPORTER), str(path)],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    raw = sqlite3.connect(path)
    assert raw.execute("SELECT count(*) FROM prs").fetchone() == (200,)
    assert raw.execute("SELECT count(*) FROM fts_deferred").fetchone() == (1,)
    assert not _index_ok(raw), "left stale by the killed importer"
    raw.close()

    store = PRStore(connect(path))  # the next prdigest to open it: the importer is gone
    assert not fts.deferred(store.db)
    assert _index_ok(store.db.conn)
    assert store.search("octo/repo", "zyxwvut", None, None, limit=5)[1] == 200
    store.upsert([_pr(300, "Zyxwvut after")])  # and the triggers index again
    assert store.search("octo/repo", "zyxwvut", None, None, limit=5)[1] == 201 and _index_ok(store.db.conn)


def test_a_live_importers_deferral_is_left_to_it(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    importer = PRStore(connect(path, create=True))
    assert fts.begin(importer.db)
    importer.upsert([_pr(1, "Zyxwvut one")])
    other = PRStore(connect(path))  # this process is alive: its deferral stands
    assert fts.deferred(other.db) and not fts.begin(other.db)
    other.upsert([_pr(2, "Zyxwvut two")])  # another writer meanwhile: covered by the closing build
    fts.finish(importer.db)
    assert _index_ok(other.db.conn) and other.search("octo/repo", "zyxwvut", None, None, limit=5)[1] == 2


def test_a_row_naming_this_pid_without_an_import_running_is_repaired(tmp_path: Path) -> None:
    """In a container every run may be pid 1: a killed importer's row can name the pid of the
    process opening the cache next, which must not take it for its own."""
    import os
    import socket

    path = tmp_path / "c.db"
    store = PRStore(connect(path, create=True))
    store.upsert([_pr(1, "Zyxwvut one")])
    store.db.conn.close()
    raw = sqlite3.connect(path)
    with raw:
        raw.execute("INSERT INTO fts_deferred (pid, host) VALUES (?, ?)", (os.getpid(), socket.gethostname()))
        raw.execute("INSERT INTO prs_fts (prs_fts) VALUES ('delete-all')")  # what a deferral leaves
    raw.close()
    store = PRStore(connect(path))
    assert not fts.deferred(store.db) and _index_ok(store.db.conn)
    assert store.search("octo/repo", "zyxwvut", None, None, limit=5)[1] == 1


# -- kept merged after incremental writes -----------------------------------------------------------

_WORDS = ("fix", "attention", "kernel", "cache", "rocm", "moe", "quantization", "spec", "decode", "zyxwvut")


def _small_write(store: PRStore, n: int) -> None:
    """One write transaction of one new PR (what an on-demand fetch or a quiet sync page does)."""
    title = " ".join(_WORDS[(n + k) % len(_WORDS)] for k in range(3)) + f" part {n}"
    store.upsert([_pr(900_000 + n, title)])


def _answers(store: PRStore) -> dict[str, tuple[list[int], int]]:
    """Each query's page (numbers, best first) and count, the newest-pool way and over a period."""
    out: dict[str, tuple[list[int], int]] = {}
    for repo in store.repos():
        for q in (*QUERIES, "zyxwvut"):
            for period in (
                (None, None),
                (datetime(2020, 1, 1, tzinfo=UTC), datetime(2030, 1, 1, tzinfo=UTC)),
            ):
                page, total = store.search(repo, q, *period, limit=20)
                out[f"{repo} {q} {period[0]}"] = ([s.pr.number for s in page], total)
    return out


def test_small_writes_keep_the_index_to_a_few_segments_with_the_same_answers(demo_db: Path) -> None:
    store = PRStore(connect(demo_db))
    assert fts.segments(store.db) == 1, "a first import leaves one segment"
    before_merge: list[int] = []
    after_merge: list[int] = []
    for n in range(40):
        _small_write(store, n)
        before_merge.append(fts.segments(store.db))
        fts.keep_merged(store.db)
        after_merge.append(fts.segments(store.db))
    assert max(before_merge) > fts.MAX_SEGMENTS, "the writes alone fragment the index"
    assert max(after_merge) <= fts.MAX_SEGMENTS
    assert after_merge.count(1) >= 3, "each merge leaves one segment"
    assert _index_ok(store.db.conn)
    kept = _answers(store)
    assert sum(len(page) for page, _ in kept.values()) > 200
    assert kept["octo/repo zyxwvut None"][1] == 12  # three titles in ten name it
    with write_transaction(store.db):
        store.db.execute(fts.REBUILD)  # the index built from scratch: one segment, the same answers
    assert kept == _answers(store)


def test_a_merge_stopped_between_steps_leaves_a_valid_index_the_next_write_finishes(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = PRStore(connect(demo_db))
    for n in range(12):
        _small_write(store, n)
    fragmented = fts.segments(store.db)
    assert fragmented > fts.MAX_SEGMENTS
    answers = _answers(store)
    # one step of a few pages: what a process killed after its first merge transaction leaves
    monkeypatch.setattr(fts, "_MAX_MERGE_STEPS", 1)
    monkeypatch.setattr(fts, "MERGE_PAGES", 4)
    assert fts.keep_merged(store.db) == 1
    assert fts.segments(store.db) > 1, "the merge is still under way"
    assert _index_ok(store.db.conn)
    assert _answers(store) == answers
    monkeypatch.undo()
    assert fts.keep_merged(store.db, max_segments=0) > 1
    assert fts.segments(store.db) == 1
    assert _index_ok(store.db.conn)
    assert _answers(store) == answers


def test_an_import_into_a_filled_cache_ends_with_the_index_merged(demo_db: Path) -> None:
    store = PRStore(connect(demo_db))
    with fts.built_after_a_first_import(store.db) as deferred_now:
        assert not deferred_now
        for n in range(12):  # batches of one: a segment each
            _small_write(store, n)
        assert fts.segments(store.db) > fts.MAX_SEGMENTS
    assert fts.segments(store.db) <= fts.MAX_SEGMENTS
    assert _index_ok(store.db.conn)


def test_keep_merged_waits_for_the_writers_transaction_and_a_deferred_index(tmp_path: Path) -> None:
    store = PRStore(connect(tmp_path / "c.db", create=True))
    store.upsert([_pr(1, "Zyxwvut one")])
    for n in range(12):
        _small_write(store, n)
    assert fts.segments(store.db) > fts.MAX_SEGMENTS
    with write_transaction(store.db):  # a step could not commit inside a writer's transaction
        assert fts.keep_merged(store.db) == 0
    with write_transaction(store.db):
        store.db.execute("INSERT INTO fts_deferred (pid, host) VALUES (?, ?)", (1, "elsewhere"))
    assert fts.keep_merged(store.db) == 0, "a first import elsewhere rebuilds the index at its end"


def test_a_merge_that_cannot_take_the_lock_leaves_the_index_valid_and_raises_nothing(
    demo_db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = PRStore(connect(demo_db, lock_timeout=0.05))
    for n in range(12):
        _small_write(store, n)
    answers = _answers(store)
    other = sqlite3.connect(demo_db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer holds the lock past our timeout
    try:
        assert fts.keep_merged(store.db) == 0
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert "left unmerged" in caplog.text
    assert fts.segments(store.db) > fts.MAX_SEGMENTS and _index_ok(store.db.conn)
    assert fts.keep_merged(store.db) > 0 and fts.segments(store.db) == 1
    assert _answers(store) == answers


def test_a_first_import_whose_build_leaves_several_segments_ends_merged(
    tmp_path: Path, profile: Profile
) -> None:
    """``rebuild`` flushes its in-memory index whenever it outgrows FTS5's ``hashsize`` (1 MB by
    default: 6 segments for 200,000 PRs); a small one makes the demo's first import do the same."""
    store = PRStore(connect(tmp_path / "c.db", create=True))
    with write_transaction(store.db):
        store.db.execute("INSERT INTO prs_fts (prs_fts, rank) VALUES ('hashsize', 4096)")
    statements = _statements(store)
    import_file(store, profile, demo_data_path(), batch=200)
    store.db.conn.set_trace_callback(None)
    rebuilt_at = statements.index(fts.REBUILD)
    merges = [i for i, s in enumerate(statements) if "'merge'" in s]
    assert merges and merges[0] > rebuilt_at, "the build left more than MAX_SEGMENTS; merged after it"
    assert fts.segments(store.db) == 1
    assert _index_ok(store.db.conn)
