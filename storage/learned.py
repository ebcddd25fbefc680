"""Learned rule profiles kept in the cache, one per repository (migration 0015).

A repository with no profile configured gets one learned from its own history at its first
sync or import (``bot.ingest.learn``); it is kept here as the TOML text a user would get from
``prdigest profile learn``, with the number of PRs it was learned from and when. Storing one
moves the repository's whole-history stamp (``storage.storylines.ALL_DAYS``) and the cache's
write generation in the same transaction: digests and storylines found with the profile before
are then out of date everywhere, and the classifications are redone by the reclassify that follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from storage.storylines import ALL_DAYS, bump_days

if TYPE_CHECKING:
    import sqlite3

    import sqlite_utils


@dataclass(frozen=True)
class LearnedRow:
    repo: str
    toml: str
    prs: int
    learned_at: datetime


def _conn(db: sqlite_utils.Database | sqlite3.Connection) -> sqlite3.Connection:
    conn: sqlite3.Connection | None = getattr(db, "conn", None)
    return conn if conn is not None else db  # type: ignore[return-value]


def read_learned(db: sqlite_utils.Database | sqlite3.Connection, repo: str) -> LearnedRow | None:
    """The profile learned for ``repo``, or None (none yet, or a cache from before migration 0015)."""
    import sqlite3

    try:
        row = (
            _conn(db)
            .execute("SELECT repo, toml, prs, learned_at FROM learned_profiles WHERE repo = ?", (repo,))
            .fetchone()
        )
    except sqlite3.OperationalError:  # opened read-only before its migration
        return None
    if row is None:
        return None
    return LearnedRow(row[0], row[1], int(row[2]), datetime.fromisoformat(row[3]))


def write_learned(db: sqlite_utils.Database, repo: str, toml: str, prs: int, at: datetime) -> None:
    """Keep ``toml`` as ``repo``'s learned profile (replacing the one before) and mark everything
    derived from the repository's classifications out of date; call inside a write transaction."""
    _conn(db).execute(
        "INSERT INTO learned_profiles (repo, toml, prs, learned_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (repo) DO UPDATE SET toml = excluded.toml, prs = excluded.prs, learned_at = excluded.learned_at",
        (repo, toml, prs, at.astimezone(UTC).isoformat()),
    )
    bump_days(db, repo, [ALL_DAYS])
