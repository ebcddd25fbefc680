"""Import and reclassify paths: parallel reclassification writes what the in-process path writes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.ingest import reclassify
from classify.rules import Profile, load_profile
from storage.db import connect
from storage.prs import PRStore

SNAPSHOT = "SELECT number, modules, kind, flags, score, breakdown, highlights, gist, profile FROM prs ORDER BY number"


def _snapshot(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(SNAPSHOT).fetchall()
        tags = conn.execute(
            "SELECT number, tag_type, tag FROM pr_tags ORDER BY number, tag_type, tag"
        ).fetchall()
    finally:
        conn.close()
    return [*rows, *tags]


def test_parallel_reclassify_equals_the_in_process_one(
    demo_db: Path, tmp_path: Path, profile: Profile
) -> None:
    other = tmp_path / "other.db"
    other.write_bytes(demo_db.read_bytes())
    generic = load_profile("generic")

    for path, workers in ((demo_db, 1), (other, 2)):
        store = PRStore(connect(path))
        switched = reclassify(store, generic, workers=workers, batch=200)
        assert switched.total == store.count() and switched.changed == store.count()
        assert switched.workers == workers
        back = reclassify(store, profile, workers=workers, batch=200)
        assert back.changed == store.count()
        again = reclassify(store, profile, workers=workers, batch=200)
        assert again.changed == 0, "an unchanged profile rewrites nothing"
        store.db.conn.close()
    assert _snapshot(demo_db) == _snapshot(other)


def test_reclassify_after_an_import_reaches_the_same_rows(demo_db: Path, profile: Profile) -> None:
    before = _snapshot(demo_db)
    store = PRStore(connect(demo_db))
    assert reclassify(store, profile, workers=1).changed == 0
    store.db.conn.close()
    assert _snapshot(demo_db) == before
