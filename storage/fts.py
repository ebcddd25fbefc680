"""The full-text index during a first import: built once at the end instead of row by row.

``prs_fts`` indexes each PR's title and cleaned body through three triggers on ``prs``. Filling an
empty cache through them costs an index update per row; FTS5 builds the same index from the
finished table in one ``rebuild`` for a fraction of that. So a first import (``import``, ``demo``,
``sync --git`` into an empty cache) writes a row into ``fts_deferred`` — the triggers do nothing
while it is there (their ``WHEN`` clause, migration 0009) — and at its end rebuilds the index and
deletes the row, in one transaction. The schema never changes on the way (readers keep working;
a search during the import just does not see the new PRs yet).

Crash safety: the row names the process that wrote it (pid and host). If that process dies
(``kill -9``, a power cut) the row stays, and the next ``connect`` that may write the cache finds
its owner gone and rebuilds the index then (``repair``). An interrupted import therefore never
leaves the index missing or stale for longer than that; while the importer lives, other writers'
rows are left to its closing rebuild, which covers every row whoever wrote it.

Kept merged afterwards: every later write transaction (a sync's page, an import's batch, an
on-demand fetch) adds its rows as a new *segment* of the index, and a search reads every segment
for each of its words. FTS5's own ``automerge`` folds segments of similar size together, so their
number grows only with the logarithm of the writes (the benchmark's cache, written in 200 batches,
had 10) — but never back to one. So a sync and an import end with ``keep_merged`` (the on-demand
fetch of one PR, which someone waits for, leaves it to the next sync): when the index holds more
than ``MAX_SEGMENTS`` segments, FTS5's incremental ``'merge'`` with a negative page count (all
segments into one, ``'optimize'`` done in steps) runs in transactions of ``MERGE_PAGES`` pages
until one segment is left. Each step commits on its own, so another writer waits one step at most
and readers (WAL) not at all; a process killed between or during steps leaves a valid index —
FTS5 records a merge in progress in the index itself, and the next ``keep_merged`` goes on from
there. A step that cannot run (another writer holding the lock too long, a full disk) stops the
merge with a warning, never the sync or import whose rows are already committed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from storage.connection import Cache
from storage.faults import StoreError
from storage.transaction import write_transaction

REBUILD = "INSERT INTO prs_fts (prs_fts) VALUES ('rebuild')"
# Merging every segment into one rewrites the whole index (0.4-0.9 s for 200,000 PRs), while a
# search over a few segments costs little more than over one (2-4 % for ten): merge only past this
# many. Measured with FTS5's automerge: one merge per ~4 small writes (12 in 48 single-PR writes).
MAX_SEGMENTS = 4
# Index pages written per merge transaction (~30 ms at 200,000 PRs): how long a writer waits for us.
MERGE_PAGES = 500
# A bound on the steps of one ``keep_merged`` (a 200,000-PR index is ~8,000 pages: ~16 steps).
_MAX_MERGE_STEPS = 10_000
# deferrals begun by this process and not finished yet: a row naming our own pid is only ours if
# one is open (in a container every run may be pid 1, so a dead importer's pid can be ours)
_OPEN = 0


def _host() -> str:
    import socket  # only when an import begins or a row is found: not on every open

    return socket.gethostname()


def _owner_alive(pid: int, host: str) -> bool:
    """Whether the process that deferred the index may still be running (on another host: assume so)."""
    if host != _host():
        return True
    if pid == os.getpid():
        return _OPEN > 0
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def begin(db: Cache) -> bool:
    """Defer the index if the cache holds no PR yet (a first import); returns whether it did.

    Call inside no transaction: it takes the write lock itself, so two importers starting on one
    empty cache cannot both see it empty.
    """
    with write_transaction(db):
        if db.execute("SELECT 1 FROM prs LIMIT 1").fetchone() is not None:
            return False
        if db.execute("SELECT 1 FROM fts_deferred LIMIT 1").fetchone() is not None:
            return False  # another importer is filling it (or died: ``repair`` sees to that)
        db.execute("INSERT INTO fts_deferred (pid, host) VALUES (?, ?)", (os.getpid(), _host()))
    global _OPEN
    _OPEN += 1
    return True


def finish(db: Cache) -> None:
    """Build the index from every row and let the triggers keep it again (one transaction). Should
    that fail, the row stays and is no longer this process's: the next ``repair`` builds it."""
    global _OPEN
    try:
        with write_transaction(db):
            db.execute(REBUILD)
            db.execute("DELETE FROM fts_deferred")
    finally:
        _OPEN = max(0, _OPEN - 1)


def deferred(db: Cache) -> bool:
    return db.execute("SELECT 1 FROM fts_deferred LIMIT 1").fetchone() is not None


def repair(db: Cache) -> bool:
    """Rebuild the index left behind by an importer that died while it was deferred; returns
    whether it did (a live importer's deferral is left alone)."""
    rows = db.execute("SELECT pid, host FROM fts_deferred").fetchall()
    if not rows or any(_owner_alive(pid, host) for pid, host in rows):
        return False
    with write_transaction(db):
        rows_now = db.execute("SELECT pid, host FROM fts_deferred").fetchall()
        if not rows_now or any(_owner_alive(pid, host) for pid, host in rows_now):
            return False  # finished, or taken over, while we waited for the lock
        db.execute(REBUILD)
        db.execute("DELETE FROM fts_deferred")
    return True


@contextmanager
def built_after_a_first_import(db: Cache) -> Iterator[bool]:
    """Around an import: defer the index if the cache is empty (yields whether it did), and build
    it at the end — also when the import fails or is interrupted (Ctrl-C), for the batches it
    stored. Should that closing build fail too, the row stays and the next ``connect`` repairs.
    Every import ends by keeping the index merged (``keep_merged``)."""
    started = begin(db)
    try:
        yield started
    except BaseException:
        if started:
            with suppress(Exception):
                finish(db)
        raise
    if started:
        finish(db)
    # also after a first import: ``rebuild`` flushes its in-memory index every megabyte or so, and
    # automerge leaves several segments of a large one (6 for 200,000 PRs)
    keep_merged(db)


def segments(db: Cache) -> int:
    """How many segments the full-text index has: one ``prs_fts_idx`` row or more each (the
    b-tree over its leaf pages), a few thousand rows for 200,000 PRs (~10 µs to count)."""
    return int(db.execute("SELECT count(DISTINCT segid) FROM prs_fts_idx").fetchone()[0])


def keep_merged(db: Cache, *, max_segments: int | None = None) -> int:
    """Merge the full-text index into one segment when it has more than ``max_segments`` (default
    ``MAX_SEGMENTS``); returns the merge transactions run (0: nothing to do).

    Called at the end of a write operation, outside its transaction (inside one it does nothing:
    a step must commit to let other writers in). Not while a first import defers the index: its
    closing ``rebuild`` leaves one segment. A step that fails is rolled back and ends the merge
    with a warning (the index stays valid; the next call goes on): the write before it committed.
    """
    limit = MAX_SEGMENTS if max_segments is None else max_segments
    if db.conn.in_transaction or segments(db) <= limit or deferred(db):
        return 0

    steps = 0
    while steps < _MAX_MERGE_STEPS:
        try:
            with write_transaction(db):
                before = db.conn.total_changes
                db.execute("INSERT INTO prs_fts (prs_fts, rank) VALUES ('merge', ?)", (-MERGE_PAGES,))
                wrote = db.conn.total_changes - before
        except StoreError as exc:
            logging.getLogger(__name__).warning("full-text index left unmerged for now: %s", exc)
            return steps
        steps += 1
        if wrote < 2:  # FTS5's documented sign that no merge work was left
            break
    return steps
