"""The sentence cache: what a language model wrote for a digest part, by the part's content.

Keys are hashes of a part's facts, the model and the prompt version
(``commands.prose.key.cache_key``), so an entry is right for as long as it exists: nothing
invalidates it, and a changed part simply has another key. Entries older than ``KEEP_DAYS`` are
dropped when new ones are stored. Like the stored storylines (``storage.storylines``) this is
derived data written during a read: a write never waits for another writer and never fails the
answer — a busy or read-only cache stores nothing, and the part is asked for again next time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from storage.write_now import connection, write_now

if TYPE_CHECKING:
    import sqlite3

    import sqlite_utils

KEEP_DAYS = 90


def load(db: sqlite_utils.Database | sqlite3.Connection, keys: Sequence[str]) -> dict[str, str]:
    """The stored answers of ``keys`` (those it has), by key."""
    if not keys:
        return {}
    conn = connection(db)
    marks = ", ".join("?" * len(keys))
    rows = conn.execute(f"SELECT key, answer FROM prose_sentences WHERE key IN ({marks})", tuple(keys))
    return {str(k): str(a) for k, a in rows}


def save(
    db: sqlite_utils.Database | sqlite3.Connection,
    answers: Mapping[str, str],
    model: str,
    now: datetime | None = None,
) -> bool:
    """Store ``answers`` (key → JSON) now if the cache's write lock is free, else nothing (False)."""
    if not answers:
        return False
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    stamp = moment.isoformat(timespec="seconds")
    old = (moment - timedelta(days=KEEP_DAYS)).isoformat(timespec="seconds")

    def store(conn: sqlite3.Connection) -> bool:
        conn.executemany(
            "INSERT OR REPLACE INTO prose_sentences (key, model, answer, created_at) VALUES (?, ?, ?, ?)",
            [(k, model, a, stamp) for k, a in answers.items()],
        )
        conn.execute("DELETE FROM prose_sentences WHERE created_at < ?", (old,))
        return True

    return write_now(db, store)


def count(db: sqlite_utils.Database | sqlite3.Connection) -> int:
    return int(connection(db).execute("SELECT count(*) FROM prose_sentences").fetchone()[0])
