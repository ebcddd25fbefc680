"""Opening the cache for a one-shot read (``prdigest pr N``, ``risks``, ``search``) with the
standard library alone.

``storage.db.connect`` checks a cache against the schema its migrations make, and builds that
schema in a scratch database through sqlite-utils — whose import, plugin scan and migrations cost
a one-shot command more than its query (issue 14, point 1). A reader needs the same certainty, not
the same machinery: ``open_current`` accepts a cache only when it carries exactly the migrations
this prdigest knows and its structural shape (``storage.shape``) is the one they make, as
remembered from an earlier full check in ``$XDG_CACHE_HOME/prdigest/schema-KEY.json`` (KEY: the
migrations' source, SQLite's and sqlite-utils' versions). Anything else — no remembered shape yet,
an older cache to migrate, a newer or hand-edited one, a file that is not a cache — returns None,
and the caller opens it with ``storage.db.connect``, which migrates or reports it exactly as
before (and remembers the expected shape for the next run).

The connection is read-only in spirit: a command that turns out to need a write (``pr`` fetching a
PR on demand) reopens the cache through ``storage.db``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from storage.pragmas import configure, sqlite_target
from storage.shape import Shape, describe

SQLITE_HEADER = b"SQLite format 3\x00"
MIGRATION_SET = "prdigest"
_HERE = Path(__file__).resolve().parent


class ReadCache:
    """What ``PRStore`` reads through (``execute``, ``conn``), over a plain sqlite3 connection."""

    write_refusal: str | None = None

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, parameters)

    def close(self) -> None:
        self.conn.close()


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "prdigest"


def _version(dist: str) -> str:
    """An installed distribution's version from its metadata folder's name, without importing it
    or ``importlib.metadata`` (a scan of every installed distribution's metadata)."""
    import sys

    for entry in sys.path:
        folder = Path(entry or ".")
        with contextlib.suppress(OSError):
            for child in folder.glob(f"{dist.replace('-', '_')}-*.dist-info"):
                return child.name.split("-")[1]
    return "?"


def shape_file() -> Path:
    """Where the expected shape of this prdigest's schema is remembered."""
    digest = hashlib.blake2b(digest_size=16)
    for name in ("migrations.py", "schema.py", "shape.py"):
        digest.update((_HERE / name).read_bytes())
    digest.update(f"{sqlite3.sqlite_version}|{_version('sqlite-utils')}".encode())
    return _cache_dir() / f"schema-{digest.hexdigest()}.json"


def _normal(shapes: dict[str, Shape]) -> Any:
    return json.loads(json.dumps(shapes, sort_keys=True))


def remember_shape(migrations: tuple[str, ...], shapes: dict[str, Shape]) -> None:
    """Write the expected schema (after a full check made it); a cache directory that cannot be
    written simply means no fast path."""
    try:
        file = shape_file()
        if _remembered() is not None:
            return  # written before (and readable)
        blob = json.dumps({"migrations": list(migrations), "shapes": _normal(shapes)}, sort_keys=True)
        file.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # only when the shape is first remembered: ~3 ms of every read's start

        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".schema-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(blob)
            os.replace(tmp, file)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    except OSError:
        return


def _remembered() -> tuple[list[str], Any] | None:
    try:
        data = json.loads(shape_file().read_text(encoding="utf-8"))
        migrations, shapes = data["migrations"], data["shapes"]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # never written, unreadable or corrupt: the full check runs (and rewrites it)
    if not isinstance(migrations, list) or not isinstance(shapes, dict):
        return None
    return migrations, shapes


def open_current(path: str | Path, *, lock_timeout: float = 60.0) -> ReadCache | None:
    """The cache at ``path`` opened for reading when it is exactly this prdigest's schema, else
    None (see the module docstring)."""
    path = Path(path)
    remembered = _remembered()
    if remembered is None:
        return None
    migrations, shapes = remembered
    try:
        with path.open("rb") as fh:
            if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                return None
    except OSError:
        return None
    try:
        conn = sqlite3.connect(*sqlite_target(path))
    except sqlite3.Error:
        return None
    try:
        configure(conn, lock_timeout)
        applied = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY rowid", (MIGRATION_SET,)
            )
        ]
        if sorted(applied) != sorted(migrations) or _normal(describe(conn)) != shapes:
            conn.close()
            return None
    except sqlite3.Error:
        conn.close()
        return None
    except BaseException:
        conn.close()
        raise
    return ReadCache(conn, path)
