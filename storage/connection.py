"""An open cache: one SQLite connection, the file it belongs to and how its writers wait for the lock.

Every reader and writer holds a ``Cache`` (``storage.db.connect`` makes them). It is a thin layer
over ``sqlite3``: reading a cache needs nothing more, and sqlite-utils — whose import and plugin
scan cost a one-shot command more than its query — is loaded only by the migrations that build or
upgrade a cache (``storage.migrations``).
"""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

WaitNotice = Callable[[str], None]
DEFAULT_LOCK_TIMEOUT = 60.0  # seconds: far longer than any writer's batch (≤ ~1 s), short enough to notice

_TRANSACTION_CONTROL = frozenset({"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"})


# POSIX releases every lock a process holds on a file as soon as the process closes *any*
# descriptor of that file. Reading a cache's header with open()/close() while another connection of
# this process (another thread of `serve`) has the file open would silently drop that connection's
# locks; a writer in another process that then closes believes it is the last user, deletes the WAL
# and resets the shared index under our readers, which fail with "database disk image is
# malformed". So the header is read only while this process has no connection to the file, and
# every open connection is counted here by the file's (device, inode).
OPEN_FILES: Counter[tuple[int, int]] = Counter()
OPEN_FILES_LOCK = threading.Lock()


def release(key: tuple[int, int] | None) -> None:
    """Uncount a connection to the file ``key`` (see ``OPEN_FILES``)."""
    if key is not None:
        with OPEN_FILES_LOCK:
            OPEN_FILES[key] -= 1
            if OPEN_FILES[key] <= 0:
                del OPEN_FILES[key]


def _first_keyword(sql: str) -> str:
    words = sql.lstrip(" \t\r\n;").split(None, 1)
    return words[0].upper() if words else ""


class Cache:
    """A prdigest cache: its connection, its file (None in memory) and its writers' lock rules."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path | None,
        *,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        on_wait: WaitNotice | None = None,
    ) -> None:
        self.conn = conn
        self.path = path
        self.lock_timeout = lock_timeout
        self.on_wait = on_wait
        self.write_refusal: str | None = None  # set when the schema forbids writing (a newer prdigest)
        self.file_key: tuple[int, int] | None = None  # counted in OPEN_FILES while open

    def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        """Run one statement. A write outside any transaction is committed at once (Python's
        sqlite3 would otherwise leave an implicit transaction open that captures every later
        write); inside a transaction it becomes part of it."""
        was_in_transaction = self.conn.in_transaction
        try:
            cursor = self.conn.execute(sql, parameters)
        except Exception:
            if not was_in_transaction and self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        if (
            not was_in_transaction
            and self.conn.in_transaction
            and cursor.description is None
            and _first_keyword(sql) not in _TRANSACTION_CONTROL
        ):
            self.conn.execute("COMMIT")
        return cursor

    def table_names(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]

    @property
    def journal_mode(self) -> str:
        return str(self.conn.execute("PRAGMA journal_mode").fetchone()[0])

    def close(self) -> None:
        key, self.file_key = self.file_key, None
        try:
            self.conn.close()
        finally:
            release(key)
