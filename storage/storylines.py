"""Closed periods' storylines kept in the cache, and the per-day stamps that keep them exact.

Finding a period's storylines (``commands.report.themes.find_themes``) is most of a past week's
digest (~28 of ~40 ms on the 200,000-PR benchmark), and a closed week's storylines cannot change
unless the rows they were found in do. So a digest of a closed period stores them (as JSON, in
``stored_storylines``, one entry per repository and period) and the next digest of that period,
in this process or any other, reads them back.

Exactness: storylines depend on the period's PRs (titles, authors, files, classifications) and
on the titles of the comparison windows before it. ``storyline_days`` holds, per repository and
UTC day, a counter bumped in the same transaction as every write of a PR row merged that day
(``PRStore`` does it where it recounts the write-time aggregates: upsert, import, sync,
reclassify). An entry keeps the counters of every day from its first comparison window's start
to its period's end (``stamps``) and is used only while they are the same: a write in another
process is seen at the next read. The profile's content hash and a hash of the storyline code
are part of the entry; another profile or another prdigest recomputes (and replaces) it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from storage.write_now import connection

if TYPE_CHECKING:  # imported by storage.prs, which `prdigest --help` loads: no SQLite at import
    import sqlite3

    import sqlite_utils

ALL_DAYS = "*"
"""the day a whole-repository rewrite bumps (read by every entry of the repository)"""


_BUMP = "INSERT INTO storyline_days (repo, day, n) VALUES (?, ?, 1) ON CONFLICT (repo, day) DO UPDATE SET n = n + 1"


def bump_days(db: sqlite_utils.Database | sqlite3.Connection, repo: str, days: Iterable[str]) -> None:
    """Mark ``days`` (``YYYY-MM-DD``, UTC) of ``repo`` as written, and the cache's write generation
    (``generation``) as moved; call inside the write's transaction."""
    conn = connection(db)
    conn.executemany(_BUMP, [(repo, d) for d in sorted(set(days))])
    conn.execute(_BUMP, ("", ""))


def generation(db: sqlite_utils.Database | sqlite3.Connection) -> int:
    """How many writes of PR rows the cache has seen (any repository, any process): what the
    server's in-memory digest cache checks. Writes of derived data (stored storylines) leave it."""
    row = connection(db).execute("SELECT n FROM storyline_days WHERE repo = '' AND day = ''").fetchone()
    return int(row[0]) if row else 0


def day_span(start: datetime, end: datetime) -> tuple[str, str]:
    """The first and last UTC day a range [start, end) touches."""
    first = start.astimezone(UTC)
    last = end.astimezone(UTC) - timedelta(microseconds=1)
    return first.strftime("%Y-%m-%d"), max(first, last).strftime("%Y-%m-%d")


def stamps(db: sqlite_utils.Database | sqlite3.Connection, repo: str, first: str, last: str) -> str:
    """The days' write counters as one string (days never written are absent: they count 0)."""
    rows = connection(db).execute(
        "SELECT day, n FROM storyline_days WHERE repo = ? AND (day = ? OR day BETWEEN ? AND ?) ORDER BY day",
        (repo, ALL_DAYS, first, last),
    )
    return ",".join(f"{d}={n}" for d, n in rows)


def _instant(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


def load(
    db: sqlite_utils.Database | sqlite3.Connection,
    repo: str,
    start: datetime,
    end: datetime,
    key: tuple[str, str],
    stamp: str,
) -> str | None:
    """The stored storylines (JSON) of [start, end) when made by ``key`` (profile hash, code hash)
    from the data ``stamp`` describes; else None."""
    row = (
        connection(db)
        .execute(
            "SELECT themes FROM stored_storylines WHERE repo = ? AND start = ? AND end = ? "
            "AND profile_hash = ? AND code_hash = ? AND stamps = ?",
            (repo, _instant(start), _instant(end), *key, stamp),
        )
        .fetchone()
    )
    return str(row[0]) if row else None


def save(
    db: sqlite_utils.Database | sqlite3.Connection,
    repo: str,
    start: datetime,
    end: datetime,
    key: tuple[str, str],
    stamp: str,
    days: tuple[str, str],
    read: str,
    themes: str,
) -> bool:
    """Store the storylines of [start, end) under ``stamp`` if the ``days`` they were read from
    are still as ``read`` (their ``stamps`` before the rows were read) says, checked inside the
    write lock: nothing committed since the read. Never waits for
    another writer and never fails a read: a busy or read-only cache stores nothing (False)."""
    from storage.write_now import write_now

    def store(conn: sqlite3.Connection) -> bool:
        if stamps(conn, repo, *days) != read:
            return False
        conn.execute(
            "INSERT OR REPLACE INTO stored_storylines (repo, start, end, profile_hash, code_hash, stamps, themes) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (repo, _instant(start), _instant(end), *key, stamp, themes),
        )
        return True

    return write_now(db, store)


def stored_periods(db: sqlite_utils.Database | sqlite3.Connection, repo: str) -> int:
    """How many periods of ``repo`` have stored storylines (any key, any stamp)."""
    return int(
        connection(db).execute("SELECT count(*) FROM stored_storylines WHERE repo = ?", (repo,)).fetchone()[0]
    )


def fold_into_file(db: sqlite_utils.Database | sqlite3.Connection) -> None:
    """After a one-shot command stored storylines: copy the write-ahead log into the ``.db`` file
    (so the ``.db`` alone is complete, as after every command), without waiting for readers (a
    running ``serve`` keeps the log, as it does for every writer, and SQLite folds it in later)."""
    import sqlite3

    conn = connection(db)
    if not conn.total_changes or conn.in_transaction:
        return
    timeout = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    try:
        conn.execute("PRAGMA busy_timeout = 0")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.Error:
        pass
    finally:
        conn.execute(f"PRAGMA busy_timeout = {timeout}")
