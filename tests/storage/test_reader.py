"""One-shot reads without sqlite-utils (storage.reader): only a cache exactly of this prdigest's
schema, as a full check remembered it, is opened; everything else goes through storage.db."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from storage.db import connect
from storage.prs import PRStore
from storage.reader import open_current, shape_file


@pytest.fixture(autouse=True)
def own_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))


def test_a_current_cache_is_read_alike_once_a_full_check_remembered_its_shape(
    demo_db: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy.db"
    shutil.copy(demo_db, copy)
    assert open_current(copy) is None  # nothing remembered yet
    full = connect(copy)
    assert shape_file().is_file()
    fast = open_current(copy)
    assert fast is not None
    a, b = PRStore(full), PRStore(fast)  # type: ignore[arg-type]
    assert b.get("vllm-project/vllm", 42121) == a.get("vllm-project/vllm", 42121)
    assert b.search("vllm-project/vllm", "fp8", None, None) == a.search(
        "vllm-project/vllm", "fp8", None, None
    )
    fast.close()
    full.close()


@pytest.mark.parametrize(
    "edit",
    [
        "DROP INDEX idx_prs_window",
        "ALTER TABLE prs ADD COLUMN mine TEXT",
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('prdigest', '9999_newer', 'x')",
        "DELETE FROM _sqlite_migrations WHERE name = '0008_aggregates'",
    ],
)
def test_anything_but_exactly_this_schema_takes_the_full_check(
    demo_db: Path, tmp_path: Path, edit: str
) -> None:
    connect(demo_db).close()  # remembers the expected shape
    conn = sqlite3.connect(demo_db)
    conn.execute(edit)
    conn.commit()
    conn.close()
    assert open_current(demo_db) is None


@pytest.mark.parametrize("content", [b"", b"not sqlite at all", b"SQLite format 3\x00" + b"\x00" * 100])
def test_files_that_are_no_cache_take_the_full_check(tmp_path: Path, content: bytes) -> None:
    connect(tmp_path / "made.db", create=True).close()
    path = tmp_path / "x.db"
    path.write_bytes(content)
    assert open_current(path) is None
    assert open_current(tmp_path / "missing.db") is None


def test_a_corrupt_remembered_shape_is_no_error(demo_db: Path) -> None:
    connect(demo_db).close()
    shape_file().write_text("{not json", encoding="utf-8")
    assert open_current(demo_db) is None
    connect(demo_db).close()  # the next full check writes it again
    cache = open_current(demo_db)
    assert cache is not None
    cache.close()
