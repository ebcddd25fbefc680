"""Storage: migrations, idempotent upserts, source ranking, FTS, and refusing bad database files."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import asdict, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from classify.models import Classification, FileChange, Flag, ListedPR, PullRequest
from storage.db import StoreError, connect
from storage.prs import PRStore, read_prs

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
        profile_hash="h1",
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
    cls = replace(cls, flags=[Flag(kind="breaking", evidence=["remove"])], modules=["attention"])
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
    assert got.pr == pr
    assert got.cls == cls


def test_range_queries_are_half_open_and_ordered(store: PRStore) -> None:
    store.upsert([make(n, days=n) for n in range(1, 11)])
    got = store.merged_between("o/r", T0 + timedelta(days=2), T0 + timedelta(days=5))
    assert [s.pr.number for s in got] == [2, 3, 4]
    scores = store.scores_between("o/r", T0 + timedelta(days=2), T0 + timedelta(days=5))
    assert sorted(n for n, _, _ in scores) == [2, 3, 4]
    rows = store.window_rows("o/r", [(T0 + timedelta(days=2), T0 + timedelta(days=5))], modules=["moe"])
    assert sorted(r[0] for r in rows[0]) == [2, 3, 4]
    assert store.window_rows("o/r", [(T0, T0 + timedelta(days=30))], modules=["nope"]) == [[]]
    flagged = store.flagged_between("o/r", T0, T0 + timedelta(days=30), "core-path")
    assert [s.pr.number for s in flagged] == list(range(10, 0, -1))  # equal scores: newest number first
    assert flagged[0].cls.flags[0].evidence == ["csrc/moe.cu"]
    assert store.flagged_between("o/r", T0, T0 + timedelta(days=30), "breaking") == []
    assert len(store.flagged_between("o/r", T0, T0 + timedelta(days=30))) == 10


def _plans(store: PRStore, call: Callable[[], object]) -> list[str]:
    """The query plans of the statements ``call`` runs (as SQLite expands them)."""
    seen: list[str] = []
    store.db.conn.set_trace_callback(seen.append)
    try:
        call()
    finally:
        store.db.conn.set_trace_callback(None)
    selects = [q for q in seen if q.lstrip().upper().startswith("SELECT")]
    assert selects, "the call ran no query"
    return [str(store.db.execute(f"EXPLAIN QUERY PLAN {q}").fetchall()) for q in selects]


def test_queries_use_indexes(store: PRStore) -> None:
    store.upsert([make(n, days=n) for n in range(1, 6)])
    lo, hi = T0, T0 + timedelta(days=7)
    windows = [(lo, hi), (hi, hi + timedelta(days=7))]
    for plan in _plans(store, lambda: store.window_rows("o/r", windows)):
        assert "COVERING INDEX idx_prs_window" in plan
    for plan in _plans(store, lambda: store.window_rows("o/r", windows, ["moe"])):
        assert "idx_prs_window" in plan and "idx_pr_tags_lookup" in plan
    for call in (
        lambda: store.merged_between("o/r", lo, hi),
        lambda: store.flagged_between("o/r", lo, hi),
        lambda: store.flagged_between("o/r", lo, hi, "core-path"),
        lambda: store.tag_counts("o/r", "flag", lo, hi),
        lambda: store.scores_between("o/r", lo, hi),
    ):
        for plan in _plans(store, call):
            assert "USING" in plan and "SCAN prs " not in plan and "SCAN pr_tags" not in plan, plan


def test_rows_of_another_profile_content_are_found_from_the_index(store: PRStore) -> None:
    store.upsert([make(n, days=n) for n in range(1, 6)])
    for call in (
        lambda: store.count_other_profile(None, "h2"),
        lambda: store.count_other_profile("o/r", "h2"),
        lambda: store.rowids_to_classify("o/r", other_than="h2"),
    ):
        plans = _plans(store, call)
        assert "COVERING INDEX idx_prs_profile_hash" in plans[0], plans
    assert store.count_other_profile(None, "h1") == 0
    assert store.count_other_profile("o/r", "h2") == 5
    rowids = store.rowids_to_classify(other_than="h2")
    assert [pr.number for pr in read_prs(store.db.conn, rowids)] == [1, 2, 3, 4, 5]
    assert store.rowids_to_classify(other_than="h1") == []


def test_the_same_result_from_edited_profile_content_updates_only_its_hash(store: PRStore) -> None:
    pr, cls = make(12)
    store.upsert([(pr, cls)])
    counts = store.upsert([(pr, replace(cls, profile_hash="h2"))])
    assert (counts.unchanged, counts.updated) == (1, 0)
    got = store.get("o/r", 12)
    assert got is not None and got.cls.profile_hash == "h2"
    assert store.count_other_profile(None, "h2") == 0


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


@pytest.mark.parametrize("modules", [(), ("moe",), ("nope",)])
def test_windows_read_at_once_equal_windows_read_one_by_one(store: PRStore, modules: tuple[str, ...]) -> None:
    items = [make(n, days=n) for n in range(1, 21)]
    items[4] = (items[4][0], replace(items[4][1], flags=[], modules=["attention"]))
    store.upsert(items)
    # Three 4-day windows, nearest first like Period.previous, plus an empty one far away.
    spans = [(T0 + timedelta(days=d), T0 + timedelta(days=d + 4)) for d in (9, 5, 1)]
    spans.append((T0 + timedelta(days=300), T0 + timedelta(days=304)))
    rows = store.window_rows("o/r", spans, modules)
    assert len(rows) == 4 and rows[3] == []
    for (start, end), got in zip(spans, rows, strict=True):
        assert sorted(r[:3] for r in got) == sorted(store.scores_between("o/r", start, end, modules))
        assert {r[3] for r in got} <= {"[Kernel] faster fused MoE"}
    if not modules:
        assert sorted(r[0] for r in rows[1]) == [5, 6, 7, 8]
    elif modules == ("moe",):
        assert sorted(r[0] for r in rows[1]) == [6, 7, 8]  # PR 5 moved to attention


def _reference_search(store: PRStore, repo: str, match: str) -> list[int]:
    """The ranking spelled out in SQL: every match of ``repo``, best bm25 first, later rowid first on ties."""
    rows = store.db.execute(
        "SELECT p.number FROM prs_fts JOIN prs p ON p.rowid = prs_fts.rowid WHERE prs_fts MATCH ? "
        "AND p.repo = ? ORDER BY bm25(prs_fts, 3.0, 1.0), p.rowid DESC",
        (match, repo),
    ).fetchall()
    return [int(r[0]) for r in rows]


def test_search_ranks_and_counts_in_one_pass(store: PRStore) -> None:
    # Bodies repeat the word a different number of times, so bm25 orders them; equal bodies tie.
    store.upsert(
        [make(n, days=n, body="moe " * (n % 4) + "other words") for n in range(1, 16)]
        + [make(n, days=n, title="Unrelated change", body="nothing here") for n in range(16, 20)]
    )
    page, total = store.search("o/r", '"moe"*', None, None, limit=6)
    assert total == 15
    assert [s.pr.number for s in page] == _reference_search(store, "o/r", '"moe"*')[:6]
    assert page[0].cls.modules == ["kernel", "moe"] and page[0].pr.title  # light rows decoded in full


@pytest.mark.parametrize("pool", [4, 7, 1000])
def test_search_pages_the_best_of_the_newest_matches_as_the_ranking_says(store: PRStore, pool: int) -> None:
    """The page is the reference ranking (bm25, then later rowid) of the newest ``pool`` matches:
    picked in SQL for a cache of one repository, in Python for a shared one — the same PRs either way."""
    bodies = ["moe " * (n % 3) + "words " * (n % 5) for n in range(30)]  # ties and distinct ranks
    store.upsert([make(n, days=n % 11, body=bodies[n]) for n in range(1, 30)])
    store.SEARCH_POOL = pool
    newest = store.db.execute(
        "SELECT rowid FROM prs_fts WHERE prs_fts MATCH ? ORDER BY rowid DESC LIMIT ?", ('"moe"', pool)
    ).fetchall()
    ranked = [
        n for n in _reference_search(store, "o/r", '"moe"') if _rowid(store, n) in {r[0] for r in newest}
    ]
    page, total = store.search("o/r", '"moe"', None, None, limit=5)
    assert [s.pr.number for s in page] == ranked[:5]
    assert total == len(newest)
    # the same cache shared with another repository whose PRs match nothing: same page, same count
    other, other_cls = make(1, days=1, title="Unrelated", body="nothing")
    store.upsert([(replace(other, repo="x/y"), other_cls)])
    assert store.repos() == ["o/r", "x/y"]
    shared_page, shared_total = store.search("o/r", '"moe"', None, None, limit=5)
    assert [s.pr.number for s in shared_page] == ranked[:5] and shared_total == total
    assert [asdict(s) for s in shared_page] == [asdict(s) for s in page]


def _rowid(store: PRStore, number: int) -> int:
    return int(
        store.db.execute("SELECT rowid FROM prs WHERE repo = 'o/r' AND number = ?", (number,)).fetchone()[0]
    )


def test_search_counts_a_shared_cache_per_repository(store: PRStore) -> None:
    items = []
    for n in range(1, 13):  # two repositories, interleaved in time and rowid
        for repo in ("o/r", "x/y"):
            pr, cls = make(n, days=n)
            items.append((replace(pr, repo=repo), cls))
    store.upsert(items)
    store.SEARCH_POOL, store.COUNT_CAP = 5, 8  # a small pool that other repositories' PRs fill
    page, total = store.search("o/r", '"moe"*', None, None, limit=3)
    assert total == 8  # counted by the fallback query, up to the cap
    # The page ranks this repository's share of the newest five matches (rowids 20–24: two of them).
    assert [(s.pr.repo, s.pr.number) for s in page] == [("o/r", 12), ("o/r", 11)]
    store.COUNT_CAP = 100
    assert store.search("x/y", '"moe"*', None, None)[1] == 12


def test_list_reads_decode_every_listed_column_in_place(store: PRStore) -> None:
    """merged_between, flagged_between and search decode rows by position into one ``ListedPR``;
    they must agree with get() on every field they carry (a reordered column list would swap
    values silently), and carry nothing a list does not read."""
    pr, cls = make(21, title="[Core] Faster scheduler", body="Cuts scheduling overhead by 30%.")
    pr = replace(pr, created_at=T0 - timedelta(days=2), base_branch="release", labels=["x"])
    cls = replace(cls, highlights=["30% less overhead"], kind="perf", gist="Faster scheduling.")
    store.upsert([(pr, cls)])
    full = store.get("o/r", 21)
    assert full is not None and full.pr.labels == ["x"] and full.cls.profile and full.pr.body
    head = {f: getattr(full.pr, f) for f in ("repo", "number", "title", "author", "url", "merged_at")}
    head |= {"additions": full.pr.additions, "deletions": full.pr.deletions}
    unread_cls = {"breakdown": [], "profile": "", "profile_version": "", "profile_hash": ""}
    day = (T0 - timedelta(days=1), T0 + timedelta(days=1))
    listed = [
        store.search("o/r", '"scheduler"', None, None)[0][0],
        store.search("o/r", '"scheduler"', *day)[0][0],
        store.merged_between("o/r", *day)[0],
        store.flagged_between("o/r", *day)[0],
    ]
    for item in listed:
        assert isinstance(item, ListedPR)
        assert asdict(item.pr) == head
        assert asdict(item.cls) == {**asdict(full.cls), **unread_cls}
        assert not hasattr(item.pr, "body") and not hasattr(item.pr, "files")  # not read: not there
