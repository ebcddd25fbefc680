"""Another writer, simulated: a thread that holds SQLite's write lock on a cache for a while."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _hold(path: Path, seconds: float, held: threading.Event) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(seconds)
        conn.execute("ROLLBACK")
    finally:
        conn.close()


@contextmanager
def write_lock_held(path: Path, seconds: float) -> Iterator[None]:
    """Hold the write lock of ``path`` for ``seconds`` from another connection (and thread); the
    block runs once the lock is taken, and the context waits for it to be released."""
    held = threading.Event()
    thread = threading.Thread(target=_hold, args=(path, seconds, held))
    thread.start()
    try:
        assert held.wait(10), "could not take the write lock"
        yield
    finally:
        thread.join()
