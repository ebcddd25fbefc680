"""A write of derived data that never waits: now, if the cache's write lock is free, or not at all.

Stored storylines and model-written sentences are written while a digest is being read. Such a
write must never make the reader wait for another writer (a sync holding the lock) and never fail
the answer: it takes the write lock without waiting (``BEGIN IMMEDIATE`` with no busy timeout),
and a busy, read-only or failing cache simply stores nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

    import sqlite_utils


def connection(db: sqlite_utils.Database | sqlite3.Connection) -> sqlite3.Connection:
    """The sqlite3 connection under a sqlite-utils database (or the connection itself)."""
    conn: sqlite3.Connection | None = getattr(db, "conn", None)
    return conn if conn is not None else db  # type: ignore[return-value]


def write_now(
    db: sqlite_utils.Database | sqlite3.Connection, work: Callable[[sqlite3.Connection], bool]
) -> bool:
    """Run ``work(conn)`` in a write transaction taken without waiting, and commit it when it
    returns True (False: roll back). False when the lock is busy, the cache refuses writes
    (``write_refusal``), a transaction is already open, or SQLite fails."""
    import sqlite3

    if getattr(db, "write_refusal", None) is not None:
        return False
    conn = connection(db)
    if conn.in_transaction:
        return False
    timeout = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    try:
        conn.execute("PRAGMA busy_timeout = 0")
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error:
        return False
    finally:
        conn.execute(f"PRAGMA busy_timeout = {timeout}")
    try:
        if not work(conn):
            conn.execute("ROLLBACK")
            return False
        conn.execute("COMMIT")
    except sqlite3.Error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return False
    return True
