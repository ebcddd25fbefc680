"""Storage: migrations, idempotent upserts, source ranking, FTS, and refusing bad database files."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from classify.models import Classification, FileChange, Flag, PullRequest
from storage.db import StoreError, connect
from storage.prs import PRStore

T0 = datetime(2026, 5, 4, 12, tzinfo=UTC)


def make(
    number: int,
    *,
    title: str = "[Kernel] faster fused MoE",
    source: str = "import",
    days: int = 0,
    body: str = "Speeds up decode by 12%.",
) -> tuple[PullRequest, Classification]:
    pr = PullRequest(
        repo="o/r",
        number=number,
        title=title,
        body=body,
        author="alice",
        merged_at=T0 + timedelta(days=days),
        files=[FileChange(path="csrc/moe.cu", additions=40, deletions=2)],
        additions=40,
        deletions=2,
        labels=["performance"],
        source=source,
    )  # type: ignore[arg-type]
    cls = Classification(
        modules=["kernel", "moe"],
        flags=[Flag(kind="core-path", evidence=["csrc/moe.cu"])],
        score=3.5,
        gist="Speeds up decode.",
        profile="test",
        profile_version="1",
    )
    return pr, cls


@pytest.fixture
def store() -> PRStore:
    return PRStore(connect(":memory:"))


def test_importing_the_same_prs_twice_changes_nothing(store: PRStore) -> None:
    items = [make(n, days=n % 7) for n in range(1, 51)]
    first = store.upsert(items)
    snapshot = list(store.db.execute("SELECT * FROM prs ORDER BY number").fetchall())
    tags = list(store.db.execute("SELECT * FROM pr_tags ORDER BY number, tag").fetchall())
    second = store.upsert(items)
    assert (first.new, first.updated, first.unchanged) == (50, 0, 0)
    assert (second.new, second.updated, second.unchanged) == (0, 0, 50)
    assert list(store.db.execute("SELECT * FROM prs ORDER BY number").fetchall()) == snapshot
    assert list(store.db.execute("SELECT * FROM pr_tags ORDER BY number, tag").fetchall()) == tags


def test_an_update_replaces_tags_and_search_text(store: PRStore) -> None:
    store.upsert([make(7, title="Add tree attention backend")])
    pr, cls = make(7, title="Remove tree attention backend", body="drops it")
    cls = cls.model_copy(
        update={"flags": [Flag(kind="breaking", evidence=["remove"])], "modules": ["attention"]}
    )
    counts = store.upsert([(pr, cls)])
    assert counts.updated == 1
    assert store.tag_counts("o/r", "flag", T0 - timedelta(days=1), T0 + timedelta(days=1)) == {"breaking": 1}
    assert store.search("o/r", '"drops"*', None, None)[1] == 1
    assert store.search("o/r", '"speeds"*', None, None)[1] == 0
    got = store.get("o/r", 7)
    assert (
        got is not None
        and got.pr.title == "Remove tree attention backend"
        and got.cls.modules == ["attention"]
    )


def test_a_git_import_never_overwrites_richer_api_data(store: PRStore) -> None:
    store.upsert([make(9, title="API title", source="api")])
    counts = store.upsert([make(9, title="git subject", source="git")])
    assert counts.kept_richer == 1
    got = store.get("o/r", 9)
    assert got is not None and got.pr.title == "API title" and got.pr.source == "api"
    # ...while an API sync upgrades rows that came from git.
    store.upsert([make(10, title="git subject", source="git")])
    assert store.upsert([make(10, title="API title", source="api")]).updated == 1


def test_round_trip_keeps_every_field(store: PRStore) -> None:
    pr, cls = make(11)
    store.upsert([(pr, cls)])
    got = store.get("o/r", 11)
    assert got is not None
    assert got.pr.model_dump() == pr.model_dump()
    assert got.cls.model_dump() == cls.model_dump()


def test_range_queries_are_half_open_and_ordered(store: PRStore) -> None:
    store.upsert([make(n, days=n) for n in range(1, 11)])
    got = store.merged_between("o/r", T0 + timedelta(days=2), T0 + timedelta(days=5))
    assert [s.pr.number for s in got] == [2, 3, 4]
    scores = store.scores_between("o/r", T0 + timedelta(days=2), T0 + timedelta(days=5))
    assert sorted(n for n, _, _ in scores) == [2, 3, 4]
    titles = store.titles_between("o/r", T0 + timedelta(days=2), T0 + timedelta(days=5), modules=["moe"])
    assert len(titles) == 3
    assert store.titles_between("o/r", T0, T0 + timedelta(days=30), modules=["nope"]) == []
    flagged = store.flagged_between("o/r", T0, T0 + timedelta(days=30), "core-path")
    assert [s.pr.number for s in flagged] == list(range(10, 0, -1))  # equal scores: newest number first
    assert flagged[0].cls.flags[0].evidence == ["csrc/moe.cu"]
    assert store.flagged_between("o/r", T0, T0 + timedelta(days=30), "breaking") == []
    assert len(store.flagged_between("o/r", T0, T0 + timedelta(days=30))) == 10


def test_queries_use_indexes(store: PRStore) -> None:
    plan = store.db.execute(
        "EXPLAIN QUERY PLAN SELECT number FROM prs WHERE repo = 'o/r' AND merged_at >= 'a' AND merged_at < 'b'"
    ).fetchall()
    assert "idx_prs_repo_merged" in str(plan)
    plan = store.db.execute(
        "EXPLAIN QUERY PLAN SELECT number FROM pr_tags WHERE repo='o/r' AND tag_type='flag' AND tag='x' AND merged_at>='a'"
    ).fetchall()
    assert "idx_pr_tags_lookup" in str(plan)


def test_file_database_uses_wal_and_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    PRStore(connect(path, create=True)).upsert([make(1)])
    db = connect(path)
    assert db.journal_mode == "wal"
    assert PRStore(db).count() == 1


def test_missing_database_is_reported_not_created(tmp_path: Path) -> None:
    path = tmp_path / "nope.db"
    with pytest.raises(StoreError, match="does not exist"):
        connect(path)
    assert not path.exists()


def test_a_file_that_is_not_sqlite_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a SQLite file"):
        connect(path, create=True)
    assert path.read_bytes() == before


def test_a_corrupt_sqlite_file_is_reported_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    PRStore(connect(path, create=True)).upsert([make(1)])
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    raw = bytearray(path.read_bytes())
    raw[100:4096] = b"\xff" * (4096 - 100)
    path.write_bytes(bytes(raw))
    with pytest.raises(StoreError, match="left untouched"):
        connect(path)
    assert path.read_bytes() == bytes(raw)


def test_another_programs_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a prdigest cache"):
        connect(path)
    assert path.read_bytes() == before


def test_a_directory_is_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        connect(tmp_path)


def test_an_unreadable_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root reads every file, so the permission error is raised at the open() boundary."""
    path = tmp_path / "locked.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)

    def deny(self: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", deny)
    with pytest.raises(StoreError, match="not readable"):
        connect(path)
