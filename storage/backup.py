"""``prdigest backup FILE``: a consistent copy of a cache that may be in use.

Copying ``prdigest.db`` with ``cp`` while a sync writes can catch a half-written page, and misses
whatever still sits in ``prdigest.db-wal``. ``VACUUM INTO`` reads one snapshot of the database
(log included) inside a read transaction — writers carry on meanwhile — and writes it compacted
into a single self-contained file in rollback-journal mode (no ``-wal`` beside it).

The copy is written under a temporary name in the target folder, checked with SQLite's
``quick_check``, and only then linked to its final name, which is never an existing file: a full
disk or an interruption leaves no half-written backup under the name asked for.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing, suppress
from dataclasses import dataclass
from pathlib import Path

from storage.connection import Cache
from storage.faults import StoreError, empty_sibling, explain


@dataclass(frozen=True)
class BackupResult:
    path: Path
    prs: int
    size: int  # bytes


def backup(db: Cache, target: str | Path) -> BackupResult:
    """Write a consistent, checked copy of ``db`` to ``target`` (which must not exist)."""
    target = Path(target)
    if target.exists() or target.is_symlink():
        raise StoreError(f"{target} already exists; a backup never overwrites a file, so choose a new name")
    folder = target.parent
    if not folder.is_dir():
        raise StoreError(f"cannot write backup {target}: directory {folder} does not exist")
    tmp = empty_sibling(target, f"write backup {target}")  # VACUUM INTO fills an empty file
    try:
        try:
            db.execute("VACUUM INTO ?", [str(tmp)])
        except sqlite3.Error as exc:
            raise explain(exc, tmp, shown=str(target)) from exc
        prs = _checked_count(tmp, target)
        try:
            os.link(tmp, target)
        except FileExistsError:
            raise StoreError(
                f"{target} appeared while the backup was written; it was left untouched"
            ) from None
        except OSError:  # a filesystem without hard links
            if target.exists():
                raise StoreError(
                    f"{target} appeared while the backup was written; it was left untouched"
                ) from None
            os.replace(tmp, target)
        return BackupResult(target, prs, target.stat().st_size)
    finally:
        with suppress(OSError):
            tmp.unlink()


def _checked_count(copy: Path, target: Path) -> int:
    """SQLite's quick_check of the fresh copy, and how many PRs it holds."""
    try:
        with closing(sqlite3.connect(f"file:{copy}?mode=ro", uri=True)) as conn:
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":
                raise StoreError(
                    f"the backup written to {target} failed SQLite's check ({verdict}); it was discarded"
                )
            return int(conn.execute("SELECT count(*) FROM prs").fetchone()[0])
    except sqlite3.Error as exc:
        raise explain(exc, copy, shown=str(target), writing=False) from exc
