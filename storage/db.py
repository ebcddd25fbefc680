"""Opening the cache safely: the one way every command, server thread and worker opens it.

A path that is missing, unreadable, empty, not SQLite, corrupt, some other program's database or a
cache from a newer prdigest is reported with ``StoreError`` and never written to, so a typo in
``--db`` cannot destroy anything. A new cache is built beside its final name and linked into place
complete, so no other process ever sees it half-made (or as an empty file). An older cache is
migrated; every cache's schema is compared with the one its migrations make (``storage.schema``).

Opening reads with the standard library alone: sqlite-utils is loaded only when a migration runs
(a new or older cache), and the expected schema is remembered between runs (``storage.schema``),
so a one-shot read pays for its own query, not for the machinery that built the cache.

Writing goes through ``storage.transaction`` (``write_transaction``, ``close``).
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import suppress
from pathlib import Path

from storage import fts, migrations
from storage.connection import (
    DEFAULT_LOCK_TIMEOUT,
    OPEN_FILES,
    OPEN_FILES_LOCK,
    Cache,
    WaitNotice,
    release,
)
from storage.faults import (
    NAMED_CAUSES,
    StoreError,
    StoreLocked,
    StoreUnavailable,
    empty_sibling,
    explain,
    primary_code,
)
from storage.pragmas import configure, sqlite_target
from storage.schema import SchemaStatus, schema_status
from storage.transaction import close, require_writable, write_transaction

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
    "require_writable",
    "schema_status",
    "write_transaction",
]

SQLITE_HEADER = b"SQLite format 3\x00"


def _file_key(path: Path) -> tuple[int, int]:
    st = path.stat()
    return (st.st_dev, st.st_ino)


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
            migrations.apply(conn)
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
        configure(conn, lock_timeout)
        db = Cache(conn, None, lock_timeout=lock_timeout, on_wait=on_wait)
        migrations.apply(db)
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
        release(key)
        raise explain(exc, path, writing=False) from exc
    try:
        configure(conn, lock_timeout)
        db = Cache(conn, path, lock_timeout=lock_timeout, on_wait=on_wait)
        db.file_key = key
        _open_checked(db, path)
    except sqlite3.Error as exc:
        conn.close()
        release(key)
        raise _opening_error(exc, path) from exc
    except BaseException:
        conn.close()
        release(key)
        raise
    return db


def open_reader(path: str | Path) -> sqlite3.Connection:
    """A bare read-only connection to an existing file, where ``connect``'s check and migrations
    must not run: a worker process of a writer that has already opened (and checked, and
    migrated) the cache — reclassify's classifiers read their own batches through one, opened in
    the worker itself, as a SQLite connection must never cross a ``fork`` — or a look into a file
    before anything may be written to it (the demo's check for PRs that are not its own)."""
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    configure(conn, DEFAULT_LOCK_TIMEOUT)
    conn.execute("PRAGMA query_only = ON")
    return conn


def _reserve(path: Path) -> tuple[int, int] | None:
    """Check the file (only when no connection of this process has it open: see
    ``storage.connection.OPEN_FILES``) and
    count the connection about to be opened."""
    with OPEN_FILES_LOCK:
        try:
            key = _file_key(path)
        except OSError:
            key = None
        if key is None or not OPEN_FILES[key]:
            _check_existing(path)
        if key is not None:
            OPEN_FILES[key] += 1
        return key


def _opening_error(exc: sqlite3.Error, path: Path) -> StoreError:
    if primary_code(exc) in NAMED_CAUSES:
        return explain(exc, path, writing=False)
    return StoreError(f"database {path} is not a usable SQLite file ({exc}); it was left untouched")


def _open_checked(db: Cache, path: Path) -> None:
    """Refuse foreign and newer caches, migrate older ones, switch to WAL."""
    tables = set(db.table_names())
    ours = "_sqlite_migrations" in tables and bool(migrations.applied(db))
    if tables and not ours:
        raise StoreError(
            f"database {path} is not a prdigest cache (it has other tables); it was left untouched"
        )
    status = schema_status(db)
    if status.pending and not status.unknown:
        if not os.access(path, os.W_OK):
            raise StoreError(f"database {path} needs an upgrade but is not writable")
        with write_transaction(db):
            if migrations.pending(db):  # another process may have migrated it while we waited
                migrations.apply(db)
        status = schema_status(db)
    if not status.readable:
        raise StoreError(f"database {path} {status.problem}")
    if not status.writable:
        db.write_refusal = f"database {path} {status.problem}; it was left untouched"
    elif db.journal_mode != "wal" and os.access(path, os.W_OK):
        db.execute("PRAGMA journal_mode = wal")
    if status.ok and os.access(path, os.W_OK):
        fts.repair(db)  # the index an importer killed half-way left unbuilt (see storage.fts)
