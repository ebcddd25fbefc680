"""Sync progress per (repository, source) in the ``sync_state`` table.

The row is written in the same transaction as the PRs it describes, so after a crash (Ctrl-C,
kill -9, power loss) the cache and the recorded progress always agree: the next run resumes from
exactly the last stored page.

Columns: ``watermark`` — everything merged before it is cached (API) or the newest merge time
imported (git); ``window_start``/``window_end`` — the range of the run in progress (NULL when
idle); ``cursor`` — where that run stands (opaque text owned by the sync, e.g. JSON).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from storage.connection import Cache
from storage.prs import iso, parse_iso


@dataclass(frozen=True)
class SyncState:
    repo: str
    source: str
    watermark: datetime | None = None
    cursor: str | None = None
    window_start: datetime | None = None
    window_end: datetime | None = None
    updated_at: datetime | None = None

    @property
    def in_progress(self) -> bool:
        return self.cursor is not None and self.window_start is not None and self.window_end is not None


def get(db: Cache, repo: str, source: str) -> SyncState | None:
    row = db.execute(
        "SELECT watermark, cursor, window_start, window_end, updated_at FROM sync_state "
        "WHERE repo = ? AND source = ?",
        (repo, source),
    ).fetchone()
    if row is None:
        return None
    return SyncState(
        repo=repo,
        source=source,
        watermark=parse_iso(row[0]),
        cursor=row[1],
        window_start=parse_iso(row[2]),
        window_end=parse_iso(row[3]),
        updated_at=parse_iso(row[4]),
    )


def save(db: Cache, state: SyncState, *, now: datetime | None = None) -> None:
    """Insert or replace the row; call inside ``transaction`` together with the data it describes."""
    stamp = iso(now or datetime.now(UTC))
    db.execute(
        "INSERT INTO sync_state (repo, source, watermark, cursor, window_start, window_end, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (repo, source) DO UPDATE SET "
        "watermark = excluded.watermark, cursor = excluded.cursor, window_start = excluded.window_start, "
        "window_end = excluded.window_end, updated_at = excluded.updated_at",
        (
            state.repo,
            state.source,
            iso(state.watermark) if state.watermark else None,
            state.cursor,
            iso(state.window_start) if state.window_start else None,
            iso(state.window_end) if state.window_end else None,
            stamp,
        ),
    )
