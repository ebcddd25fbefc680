"""The one way every writer writes to the cache, and how a writing command finishes.

Writing: every writer — import, demo, reclassify, both syncs, the on-demand ``pr`` fetch and the
migrations — goes through ``write_transaction``: ``BEGIN IMMEDIATE`` takes SQLite's single write
lock up front (a deferred transaction that reads first and writes later fails at once with
"database is locked" when another writer committed in between, which is how two imports used to
crash), waiting up to ``lock_timeout`` seconds for another writer's batch. A wait longer than a
second is announced through ``on_wait``; a lock held past the timeout, a full disk or a read-only
file become one-line ``StoreError``s (see ``storage.faults``), never tracebacks.

Finishing: ``close`` checkpoints the write-ahead log into the ``.db`` file, so after any command
the ``.db`` alone is complete and can be copied.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from storage.connection import Cache
from storage.faults import SQLITE_BUSY, SQLITE_LOCKED, StoreError, StoreLocked, explain, primary_code
from storage.pragmas import busy_ms

QUIET_WAIT = 1.0  # a wait shorter than this (another writer's batch) is not worth a line
CHECKPOINT_WAIT = 5.0  # seconds a closing writer waits for readers before leaving the WAL to them


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def _is_busy(exc: sqlite3.Error) -> bool:
    return primary_code(exc) in (SQLITE_BUSY, SQLITE_LOCKED)


def _begin_immediate(db: Cache) -> None:
    """Take the write lock, waiting for another writer up to the lock timeout (and saying so)."""
    conn = db.conn
    timeout = db.lock_timeout
    quiet = min(QUIET_WAIT, timeout)
    try:
        busy_ms(conn, quiet)
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.Error as exc:
            if not _is_busy(exc):
                raise explain(exc, db.path) from exc
        if db.on_wait is not None:
            db.on_wait(f"waiting for another writer to finish with {db.path} (up to {timeout:g} s)")
        busy_ms(conn, timeout - quiet)
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            if _is_busy(exc):
                raise StoreLocked(
                    f"database {db.path} stayed locked by another writer for more than {timeout:g} s "
                    "(PRDIGEST_LOCK_TIMEOUT); nothing more was written: run the command again when the "
                    "other one has finished"
                ) from exc
            raise explain(exc, db.path) from exc
    finally:
        busy_ms(conn, timeout)


def require_writable(db: Cache) -> None:
    """Raise the ``StoreError`` a write would meet when the schema forbids writing (a cache made by
    a newer prdigest, or edited by hand): for writers that may find they have nothing to write,
    whose "nothing to do" would otherwise hide it."""
    if db.write_refusal is not None:
        raise StoreError(db.write_refusal)


_SAVEPOINTS = itertools.count(1)  # names only need to differ among the savepoints open at once


@contextmanager
def _savepoint(conn: sqlite3.Connection) -> Iterator[None]:
    name = f"prdigest_{next(_SAVEPOINTS)}"
    conn.execute(f"SAVEPOINT {name}")
    try:
        yield
    except BaseException:
        if conn.in_transaction:  # an error may have ended the whole transaction already
            conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
            conn.execute(f"RELEASE SAVEPOINT {name}")
        raise
    conn.execute(f"RELEASE SAVEPOINT {name}")


@contextmanager
def write_transaction(db: Cache) -> Iterator[Cache]:
    """One write transaction, taken with ``BEGIN IMMEDIATE``; the only way prdigest writes.

    Nested inside another it becomes a savepoint, so PRs and their sync progress commit together
    or not at all. SQLite errors leave as ``StoreError``s naming the file and the cause, after the
    transaction is rolled back (the cache keeps everything committed before it).
    """
    conn = db.conn
    if conn.in_transaction:
        with _savepoint(conn):
            yield db
        return
    require_writable(db)
    _begin_immediate(db)
    try:
        yield db
    except sqlite3.Error as exc:
        _rollback(conn)
        raise explain(exc, db.path) from exc
    except BaseException:
        _rollback(conn)
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(conn)
        raise explain(exc, db.path) from exc


def checkpoint(db: Cache) -> None:
    """Copy the write-ahead log into the ``.db`` file and empty it, so the ``.db`` alone is complete.

    Waits up to ``CHECKPOINT_WAIT`` seconds for readers (a running ``serve``) to let go; if they
    do not, the log keeps the newest commits and SQLite folds them in later.
    """
    if db.path is None or db.conn.in_transaction:
        return
    conn = db.conn
    try:
        busy_ms(conn, CHECKPOINT_WAIT)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.Error as exc:
        raise explain(exc, db.path) from exc
    finally:
        with suppress(sqlite3.Error):
            busy_ms(conn, db.lock_timeout)


def close(db: Cache, *, quietly: bool = False) -> None:
    """End of a command that wrote: checkpoint (see ``checkpoint``), then close the connection.

    ``quietly`` swallows a failing checkpoint, for a command that is already failing for another
    reason (after a full disk the log still holds every commit; the next writer folds it in).
    """
    try:
        checkpoint(db)
    except StoreError:
        if not quietly:
            raise
    finally:
        db.close()
