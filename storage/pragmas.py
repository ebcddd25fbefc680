"""How every connection to a cache is set up (writers' ``storage.db`` and one-shot readers'
``storage.reader`` alike), with the standard library alone."""

from __future__ import annotations

import sqlite3


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
