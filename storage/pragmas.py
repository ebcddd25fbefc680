"""How every connection to a cache is set up, with the standard library alone."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path


def busy_ms(conn: sqlite3.Connection, seconds: float) -> None:
    conn.execute(f"PRAGMA busy_timeout = {max(0, int(seconds * 1000))}")


def configure(conn: sqlite3.Connection, lock_timeout: float) -> None:
    busy_ms(conn, lock_timeout)
    conn.execute("PRAGMA foreign_keys = ON")
    # Chat commands jump between random weeks of a cache that can reach ~1 GB: a 64 MiB page cache
    # and memory-mapped reads keep first touches of a week cheap (p99 of `pr` 25 → ~10 ms).
    conn.execute("PRAGMA cache_size = -65536")
    conn.execute("PRAGMA mmap_size = 1073741824")
    # WAL makes NORMAL durable against application crashes; a power cut may lose the last commit only.
    conn.execute("PRAGMA synchronous = NORMAL")
    # a REPLACE that deletes a row fires its delete trigger (the full-text index stays in step)
    conn.execute("PRAGMA recursive_triggers = ON")


def on_read_only_filesystem(path: Path) -> bool:
    """Whether the cache lies on a file system mounted read-only (a read-only volume or bind
    mount): nobody can write it there, and SQLite cannot create the ``-shm`` file a WAL database
    needs even for reading, so it is opened as immutable (``sqlite_target``)."""
    st_rdonly = getattr(os, "ST_RDONLY", 0)
    if not st_rdonly or not hasattr(os, "statvfs"):  # pragma: no cover - Windows
        return False
    try:
        return bool(os.statvfs(path if path.exists() else path.parent).f_flag & st_rdonly)
    except OSError:
        return False


def sqlite_target(path: Path) -> tuple[str, bool]:
    """What to hand ``sqlite3.connect`` (database, uri) for the cache at ``path``: the file itself,
    or — on a read-only file system, where SQLite could not create the ``-shm`` file a WAL database
    is read through — a read-only URI telling SQLite the file cannot change (``immutable=1``), so
    reading works without it. Writes through that connection fail as read-only, and
    ``storage.faults`` names the file system as the cause."""
    if on_read_only_filesystem(path):
        return f"{path.resolve().as_uri()}?mode=ro&immutable=1", True
    return str(path), False
