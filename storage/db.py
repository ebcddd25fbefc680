"""Opening the cache safely, and the one way every writer writes to it.

Opening: a path that is missing, unreadable, empty, not SQLite, corrupt, some other program's
database or a cache from a newer prdigest is reported with ``StoreError`` and never written to, so
a typo in ``--db`` cannot destroy anything. A new cache is built beside its final name and linked
into place complete, so no other process ever sees it half-made (or as an empty file).

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

import os
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import sqlite_utils

from storage.faults import (
    NAMED_CAUSES,
    SQLITE_BUSY,
    SQLITE_LOCKED,
    StoreError,
    StoreLocked,
    StoreUnavailable,
    empty_sibling,
    explain,
    primary_code,
)
from storage.migrations import MIGRATIONS
from storage.pragmas import busy_ms as _busy_ms
from storage.pragmas import configure as _configure
from storage.pragmas import sqlite_target
from storage.reader import remember_shape
from storage.schema import SchemaStatus, expected, known_migrations, schema_status

__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "Cache",
    "SchemaStatus",
    "StoreError",
    "StoreLocked",
    "StoreUnavailable",
    "close",
    "connect",
    "open_reader",
    "schema_status",
    "write_transaction",
]

SQLITE_HEADER = b"SQLite format 3\x00"
DEFAULT_LOCK_TIMEOUT = 60.0  # seconds: far longer than any writer's batch (≤ ~1 s), short enough to notice
QUIET_WAIT = 1.0  # a wait shorter than this (another writer's batch) is not worth a line
CHECKPOINT_WAIT = 5.0  # seconds a closing writer waits for readers before leaving the WAL to them

WaitNotice = Callable[[str], None]


# POSIX releases every lock a process holds on a file as soon as the process closes *any*
# descriptor of that file. Reading a cache's header with open()/close() while another connection of
# this process (another thread of `serve`) has the file open would silently drop that connection's
# locks; a writer in another process that then closes believes it is the last user, deletes the WAL
# and resets the shared index under our readers, which fail with "database disk image is
# malformed". So the header is read only while this process has no connection to the file.
_OPEN: Counter[tuple[int, int]] = Counter()
_OPEN_LOCK = threading.Lock()


def _file_key(path: Path) -> tuple[int, int]:
    st = path.stat()
    return (st.st_dev, st.st_ino)


def _release(key: tuple[int, int] | None) -> None:
    if key is not None:
        with _OPEN_LOCK:
            _OPEN[key] -= 1
            if _OPEN[key] <= 0:
                del _OPEN[key]


class Cache(sqlite_utils.Database):
    """A prdigest cache: sqlite-utils' Database plus its file and how its writers wait for the lock."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path | None,
        *,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        on_wait: WaitNotice | None = None,
    ) -> None:
        super().__init__(conn)
        self.path = path
        self.lock_timeout = lock_timeout
        self.on_wait = on_wait
        self.write_refusal: str | None = None  # set when the schema forbids writing (a newer prdigest)
        self.file_key: tuple[int, int] | None = None  # counted in _OPEN while open

    def close(self) -> None:
        key, self.file_key = self.file_key, None
        try:
            super().close()
        finally:
            _release(key)


def _check_existing(path: Path) -> None:
    if path.is_dir():
        raise StoreError(f"database {path} is a directory, not a SQLite file")
    try:
        with path.open("rb") as fh:
            header = fh.read(len(SQLITE_HEADER))
    except PermissionError as exc:
        raise StoreError(f"database {path} is not readable ({exc.strerror})") from exc
    except OSError as exc:
        raise StoreError(f"database {path} cannot be opened ({exc.strerror})") from exc
    if not header:
        raise StoreError(
            f"database {path} is an empty file (0 bytes), not a prdigest cache; it was left untouched "
            "(delete it, or choose another --db)"
        )
    if header != SQLITE_HEADER:
        raise StoreError(f"database {path} is not a SQLite file; it was left untouched")


def _create(path: Path) -> None:
    """Build a new, fully migrated cache beside ``path`` and link it into place.

    ``os.link`` never replaces a file: if another prdigest created the cache meanwhile, theirs is
    kept and used. Until the link, ``path`` does not exist, so no reader or writer can find an empty
    or half-migrated file under that name.
    """
    folder = path.parent
    if not folder.exists():
        raise StoreError(f"cannot create database {path}: directory {folder} does not exist")
    tmp = empty_sibling(path, f"create database {path}")
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            db = sqlite_utils.Database(conn, execute_plugins=False)
            MIGRATIONS.apply(db)
            conn.execute("PRAGMA journal_mode = wal")
        finally:
            conn.close()
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another prdigest created it first: use theirs
        except OSError:  # a filesystem without hard links
            if not path.exists():
                os.replace(tmp, path)
    except sqlite3.Error as exc:
        raise explain(exc, path) from exc
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with suppress(OSError):
                os.unlink(f"{tmp}{suffix}")


def connect(
    path: str | Path,
    *,
    create: bool = False,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    on_wait: WaitNotice | None = None,
) -> Cache:
    """Open (and migrate) the prdigest cache at ``path``; ``:memory:`` gives a fresh one.

    With ``create=False`` a missing file is an error, so read-only commands never leave empty
    databases behind a mistyped path. ``lock_timeout`` bounds how long a write waits for another
    writer; ``on_wait`` is told (one line) when a write has to wait longer than a second.
    """
    if str(path) == ":memory:":
        conn = sqlite3.connect(":memory:")
        _configure(conn, lock_timeout)
        db = Cache(conn, None, lock_timeout=lock_timeout, on_wait=on_wait)
        MIGRATIONS.apply(db)
        return db
    path = Path(path)
    if not path.exists() and not create:
        raise StoreError(
            f"database {path} does not exist; run `prdigest demo`, `prdigest import` or `prdigest sync` first"
        )
    if not path.exists():
        _create(path)
    key = _reserve(path)
    try:
        conn = sqlite3.connect(*sqlite_target(path))
    except sqlite3.Error as exc:
        _release(key)
        raise explain(exc, path, writing=False) from exc
    try:
        _configure(conn, lock_timeout)
        db = Cache(conn, path, lock_timeout=lock_timeout, on_wait=on_wait)
        db.file_key = key
        _open_checked(db, path)
    except sqlite3.Error as exc:
        conn.close()
        _release(key)
        raise _opening_error(exc, path) from exc
    except BaseException:
        conn.close()
        _release(key)
        raise
    return db


def open_reader(path: str | Path) -> sqlite3.Connection:
    """A bare read-only connection to an existing cache, for a worker process of a writer that has
    already opened (and checked, and migrated) it with ``connect`` — reclassify's classifiers read
    their own batches through one. It is opened in the worker itself: a SQLite connection must
    never cross a ``fork``."""
    conn = sqlite3.connect(str(path))
    _configure(conn, DEFAULT_LOCK_TIMEOUT)
    conn.execute("PRAGMA query_only = ON")
    return conn


def _reserve(path: Path) -> tuple[int, int] | None:
    """Check the file (only when no connection of this process has it open: see ``_OPEN``) and
    count the connection about to be opened."""
    with _OPEN_LOCK:
        try:
            key = _file_key(path)
        except OSError:
            key = None
        if key is None or not _OPEN[key]:
            _check_existing(path)
        if key is not None:
            _OPEN[key] += 1
        return key


def _opening_error(exc: sqlite3.Error, path: Path) -> StoreError:
    if primary_code(exc) in NAMED_CAUSES:
        return explain(exc, path, writing=False)
    return StoreError(f"database {path} is not a usable SQLite file ({exc}); it was left untouched")


def _open_checked(db: Cache, path: Path) -> None:
    """Refuse foreign and newer caches, migrate older ones, switch to WAL."""
    tables = set(db.table_names())
    ours = "_sqlite_migrations" in tables and any(m.name for m in MIGRATIONS.applied(db))
    if tables and not ours:
        raise StoreError(
            f"database {path} is not a prdigest cache (it has other tables); it was left untouched"
        )
    status = schema_status(db)
    if status.pending and not status.unknown:
        if not os.access(path, os.W_OK):
            raise StoreError(f"database {path} needs an upgrade but is not writable")
        with write_transaction(db):
            if MIGRATIONS.pending(db):  # another process may have migrated it while we waited
                MIGRATIONS.apply(db)
        status = schema_status(db)
    if not status.readable:
        raise StoreError(f"database {path} {status.problem}")
    if not status.writable:
        db.write_refusal = f"database {path} {status.problem}; it was left untouched"
    elif db.journal_mode != "wal" and os.access(path, os.W_OK):
        db.enable_wal()
    if status.ok and os.access(path, os.W_OK):
        from storage import fts

        fts.repair(db)  # the index an importer killed half-way left unbuilt (see storage.fts)
    if status.ok:  # one-shot readers may now check this schema without sqlite-utils
        remember_shape(known_migrations(), expected())


def _path_of(db: sqlite_utils.Database) -> Path | None:
    return db.path if isinstance(db, Cache) else None


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def _is_busy(exc: sqlite3.Error) -> bool:
    return primary_code(exc) in (SQLITE_BUSY, SQLITE_LOCKED)


def _begin_immediate(db: sqlite_utils.Database) -> None:
    """Take the write lock, waiting for another writer up to the lock timeout (and saying so)."""
    conn = db.conn
    timeout = db.lock_timeout if isinstance(db, Cache) else DEFAULT_LOCK_TIMEOUT
    path = _path_of(db)
    quiet = min(QUIET_WAIT, timeout)
    try:
        _busy_ms(conn, quiet)
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.Error as exc:
            if not _is_busy(exc):
                raise explain(exc, path) from exc
        if isinstance(db, Cache) and db.on_wait is not None:
            db.on_wait(f"waiting for another writer to finish with {path} (up to {timeout:g} s)")
        _busy_ms(conn, timeout - quiet)
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            if _is_busy(exc):
                raise StoreLocked(
                    f"database {path} stayed locked by another writer for more than {timeout:g} s "
                    "(PRDIGEST_LOCK_TIMEOUT); nothing more was written: run the command again when the "
                    "other one has finished"
                ) from exc
            raise explain(exc, path) from exc
    finally:
        _busy_ms(conn, timeout)


def require_writable(db: sqlite_utils.Database) -> None:
    """Raise the ``StoreError`` a write would meet when the schema forbids writing (a cache made by
    a newer prdigest, or edited by hand): for writers that may find they have nothing to write,
    whose "nothing to do" would otherwise hide it."""
    refusal = db.write_refusal if isinstance(db, Cache) else None
    if refusal is not None:
        raise StoreError(refusal)


@contextmanager
def write_transaction(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """One write transaction, taken with ``BEGIN IMMEDIATE``; the only way prdigest writes.

    Nested inside another it becomes a savepoint, so PRs and their sync progress commit together
    or not at all. SQLite errors leave as ``StoreError``s naming the file and the cause, after the
    transaction is rolled back (the cache keeps everything committed before it).
    """
    conn = db.conn
    if conn.in_transaction:
        with db.atomic():
            yield db
        return
    require_writable(db)
    _begin_immediate(db)
    try:
        yield db
    except sqlite3.Error as exc:
        _rollback(conn)
        raise explain(exc, _path_of(db)) from exc
    except BaseException:
        _rollback(conn)
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(conn)
        raise explain(exc, _path_of(db)) from exc


def checkpoint(db: sqlite_utils.Database) -> None:
    """Copy the write-ahead log into the ``.db`` file and empty it, so the ``.db`` alone is complete.

    Waits up to ``CHECKPOINT_WAIT`` seconds for readers (a running ``serve``) to let go; if they
    do not, the log keeps the newest commits and SQLite folds them in later.
    """
    path = _path_of(db)
    if path is None or db.conn.in_transaction:
        return
    conn = db.conn
    try:
        _busy_ms(conn, CHECKPOINT_WAIT)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.Error as exc:
        raise explain(exc, path) from exc
    finally:
        with suppress(sqlite3.Error):
            _busy_ms(conn, db.lock_timeout if isinstance(db, Cache) else DEFAULT_LOCK_TIMEOUT)


def close(db: sqlite_utils.Database, *, quietly: bool = False) -> None:
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
