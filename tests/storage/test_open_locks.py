"""Opening a second connection must not release the locks of the first (POSIX fcntl semantics).

`serve` opens one connection per worker thread. Reading the header of a file that this process
already has open through SQLite, then closing that descriptor, drops every lock the process holds
on it; a writer in another process then believed it was the cache's last user when it closed,
deleted the write-ahead log and reset the shared index under `serve`'s readers, whose next queries
failed with "database disk image is malformed" (found by tests/bot/chat/slack/test_soak.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from storage.db import connect

WRITER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
conn.execute("PRAGMA journal_mode=wal")
conn.execute("CREATE TABLE IF NOT EXISTS probe (n INTEGER)")
conn.execute("INSERT INTO probe VALUES (1)")
conn.commit()
conn.close()  # the last user of the file would checkpoint and delete the -wal here
"""


def test_a_second_connection_keeps_the_first_ones_locks(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    first = connect(path, create=True)
    second = connect(path)  # used to read the header with open()/close()
    try:
        first.execute("SELECT count(*) FROM prs").fetchall()
        subprocess.run([sys.executable, "-c", WRITER, str(path)], check=True, timeout=60)
        assert Path(f"{path}-wal").exists(), "another process thought it was the last user"
        subprocess.run([sys.executable, "-c", WRITER, str(path)], check=True, timeout=60)
        assert first.execute("SELECT count(*) FROM probe").fetchone()[0] == 2
        assert second.execute("SELECT count(*) FROM probe").fetchone()[0] == 2
    finally:
        second.close()
        first.close()


def test_the_header_is_checked_again_once_every_connection_closed(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    connect(path, create=True).close()
    path.write_text("not a database any more\n")
    try:
        connect(path)
    except Exception as exc:
        assert "not a SQLite file" in str(exc)
    else:
        raise AssertionError("a file replaced by text was opened")
