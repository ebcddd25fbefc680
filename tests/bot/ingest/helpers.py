"""Row-by-row snapshots of a cache, to compare an interrupted-then-resumed sync with a clean one."""

from __future__ import annotations

from typing import Any

import sqlite_utils


def snapshot(db: sqlite_utils.Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the PR tables and the sync progress (minus its wall-clock stamp), ordered."""
    return {
        "prs": db.execute("SELECT * FROM prs ORDER BY repo, number").fetchall(),
        "pr_tags": db.execute("SELECT * FROM pr_tags ORDER BY repo, number, tag_type, tag").fetchall(),
        "fts": db.execute("SELECT rowid, title, search_body FROM prs_fts ORDER BY rowid").fetchall(),
        "sync_state": db.execute(
            "SELECT repo, source, watermark, cursor, window_start, window_end FROM sync_state "
            "ORDER BY repo, source"
        ).fetchall(),
    }


def assert_same_rows(got: sqlite_utils.Database, want: sqlite_utils.Database) -> None:
    a, b = snapshot(got), snapshot(want)
    for table in ("prs", "pr_tags", "sync_state"):
        assert len(a[table]) == len(b[table]), table
        for row_a, row_b in zip(a[table], b[table], strict=True):
            assert row_a == row_b, table
    # FTS rowids may differ after a resumed run; its content must not.
    assert sorted(r[1:] for r in a["fts"]) == sorted(r[1:] for r in b["fts"])
