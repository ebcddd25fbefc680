"""What went wrong with the cache file, as one line a person can act on.

SQLite reports a failed read or write as a result code ("disk I/O error", "attempt to write a
readonly database", "database is locked"); on its own that names neither the file nor the fix.
``explain`` turns the code, plus what the operating system says about the file and its folder
(permissions, free space, the process's file-size limit), into a ``StoreError`` whose message
names the file, the cause and what to do.

Two kinds, because they call for different exit codes:

* ``StoreError`` — the setup is wrong (a read-only file or folder, a damaged or foreign file, a
  cache from a newer prdigest): fix it, then run again (exit 2);
* ``StoreUnavailable`` — the write could not be done now (disk full, an I/O error, another writer
  holding the lock too long). Every write is a transaction, so the cache is intact and keeps the
  batches written before the failure; the same command run again finishes the job (exit 1).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from storage.pragmas import on_read_only_filesystem

try:  # POSIX only: the file-size limit (ulimit -f) that makes the kernel refuse writes
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

# Primary SQLite result codes (https://sqlite.org/rescode.html) and the extended ones we name.
SQLITE_PERM = 3
SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_NOTADB = 26
SQLITE_READONLY_DIRECTORY = SQLITE_READONLY | (6 << 8)

_INTACT = "the cache is intact (batches already written are kept)"


# Codes whose cause ``explain`` can name (anything else is reported with SQLite's own words).
NAMED_CAUSES = frozenset(
    {SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR, SQLITE_CORRUPT}
    | {SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB}
)


def primary_code(exc: sqlite3.Error) -> int:
    """SQLite's primary result code of ``exc`` (0 when the driver did not record one)."""
    return (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF


class StoreError(Exception):
    """The database cannot be used as asked; the message says which file and why (exit 2)."""


class StoreUnavailable(StoreError):
    """A write failed for a reason outside prdigest (disk full, I/O, a long lock); exit 1.

    The failed transaction was rolled back, so the cache holds everything committed before it.
    """


class StoreLocked(StoreUnavailable):
    """Another writer held the write lock for longer than the lock timeout."""


def empty_sibling(target: Path, doing: str) -> Path:
    """A new empty file beside ``target`` under a temporary name, created as SQLite creates files
    (mode 0666 less the umask); ``doing`` ("create database X") starts the message if it fails."""
    import secrets  # only when a cache is created: random and base64 cost every start ~3 ms

    folder = target.parent
    tmp = folder / f".{target.name}.{secrets.token_hex(6)}.new"
    try:
        os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    except PermissionError:
        raise StoreError(
            f"cannot {doing}: folder {folder} is not writable for this user (permission denied)"
        ) from None
    except OSError as exc:
        raise StoreUnavailable(f"cannot {doing}: {exc.strerror}") from None
    return tmp


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"  # pragma: no cover - the loop always returns


def _file_size_limit() -> int | None:
    """The process's file-size limit (``ulimit -f``), if it has one.

    A write refused while such a limit is set almost always hit it (the file that did may be one
    of SQLite's unnamed temporary files), so it is named as the cause.
    """
    if resource is None:  # pragma: no cover - Windows
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def _free_space(folder: Path) -> int | None:
    import shutil  # only to explain a failed write: its bz2 and lzma cost every start ~3 ms

    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def _no_room(path: Path, sqlite_says: str) -> str:
    limit = _file_size_limit()
    if limit is not None:
        return f"the file-size limit of this process (ulimit -f: {_size(limit)}) was reached"
    free = _free_space(path.parent)
    if free is not None and free < 64 * 1024 * 1024:
        return f"the disk is full ({_size(free)} free in {path.parent})"
    return f"the write was refused (SQLite: {sqlite_says}; the disk may be full or failing)"


def _not_writable(path: Path) -> str | None:
    """Why the OS would refuse to let us write the cache, if it would."""
    folder = path.parent
    if on_read_only_filesystem(path):
        return (
            "its file system is mounted read-only; reading works, but to change it copy it somewhere "
            "writable (or remount the file system read-write)"
        )
    if path.exists() and not os.access(path, os.W_OK):
        return f"the file is read-only for this user (permission denied); make it writable (chmod u+w {path})"
    if not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"its folder {folder} is not writable for this user (permission denied); SQLite keeps "
            f"{path.name}-wal and {path.name}-shm beside the database, so the folder must be writable"
        )
    return None


def explain(
    exc: sqlite3.Error, path: Path | str | None, *, writing: bool = True, shown: str | None = None
) -> StoreError:
    """A ``StoreError`` (or ``StoreUnavailable``) naming the file and the cause of ``exc``.

    ``path`` is the file SQLite was using (its size and folder are inspected); ``shown`` is the name
    the user knows it by, when that differs (a backup written under a temporary name).
    """
    target = Path(path) if path not in (None, "", ":memory:") else None
    name = shown or (str(target) if target is not None else "the in-memory cache")
    says = str(exc)
    code = getattr(exc, "sqlite_errorcode", None) or 0
    primary = primary_code(exc)
    verb = "write to" if writing else "open"
    if primary in (SQLITE_BUSY, SQLITE_LOCKED):
        return StoreLocked(
            f"database {name} is locked by another writer; {_INTACT}: run the command again when it has finished"
        )
    if target is not None and primary in (SQLITE_FULL, SQLITE_IOERR):
        return StoreUnavailable(
            f"cannot {verb} {name}: {_no_room(target, says)}; {_INTACT}: make room and run the command again"
        )
    if primary in (SQLITE_FULL, SQLITE_IOERR):
        return StoreUnavailable(f"cannot {verb} {name}: {says}")
    if target is not None and primary in (SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM):
        why = _not_writable(target)
        if why is None and code == SQLITE_READONLY_DIRECTORY:
            why = f"its folder {target.parent} is not writable (SQLite: {says})"
        if why is not None:
            return StoreError(f"cannot {verb} {name}: {why}")
        return StoreError(f"cannot {verb} {name} (SQLite: {says})")
    if primary in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return StoreError(f"database {name} is damaged ({says}); it was left untouched")
    return StoreUnavailable(f"cannot {verb} {name} (SQLite: {says})")
