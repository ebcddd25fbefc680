"""Is a cache the shape this prdigest's migrations make?

A cache written by a newer prdigest carries migrations this one does not know, and possibly
columns it has renamed; one edited by hand may have lost an index or gained a column. Writing to
either could corrupt it, and reading may fail half-way through a command. ``schema_status``
compares the live schema with the one our migrations produce (``expected``: built once, then
remembered) and says, in one line, whether the cache can be read and written.

Shapes are compared structurally — tables and their columns, indexes and their columns, the names
of triggers and views — not as SQL text, which differs between SQLite and sqlite-utils versions
for the same schema. FTS shadow tables and sqlite-utils' own migration table are left out.
Objects a user added beside ours (an index, a table) are tolerated: they cannot break a query.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from storage import migrations

UPGRADE = "made by a newer prdigest; upgrade"
Shape = tuple[Any, ...]
_HERE = Path(__file__).resolve().parent


class Executes(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> sqlite3.Cursor: ...


@dataclass(frozen=True)
class SchemaStatus:
    """How a cache's schema relates to this prdigest's migrations (for connect and /healthz)."""

    writable: bool  # every migration is known and applied, and the schema is exactly theirs
    readable: bool  # every table and column this prdigest reads is there as expected
    pending: tuple[str, ...] = ()  # known migrations not applied yet (an older cache)
    unknown: tuple[str, ...] = ()  # migrations applied by a newer prdigest
    differences: tuple[str, ...] = ()  # objects missing or changed, e.g. "table prs: no column title"
    problem: str | None = None  # why, as a predicate of "database FILE …", when not ``ok``

    @property
    def ok(self) -> bool:
        return self.writable and not self.pending


# -- shapes ------------------------------------------------------------------------------------------


def _skipped(name: str, virtual: set[str]) -> bool:
    if name.startswith(("sqlite_", "_sqlite_migrations", "idx__sqlite_migrations")):
        return True
    return any(name.startswith(f"{v}_") for v in virtual)  # FTS shadow tables


def describe(db: Executes) -> dict[str, Shape]:
    """Every schema object of ours, by name, as a structural shape (see the module docstring)."""
    rows = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    virtual = {
        name
        for kind, name, _, sql in rows
        if kind == "table" and (sql or "").upper().startswith("CREATE VIRTUAL")
    }
    shapes: dict[str, Shape] = {}
    for kind, name, table, _ in rows:
        if _skipped(name, virtual):
            continue
        if kind == "table":
            cols = db.execute(f"PRAGMA table_xinfo({_quote(name)})").fetchall()
            shapes[name] = ("table", tuple((c[1], str(c[2]).upper(), c[3], c[4], c[5]) for c in cols))
        elif kind == "index":
            cols = db.execute(f"PRAGMA index_info({_quote(name)})").fetchall()
            shapes[name] = ("index", table, tuple(c[2] for c in cols))
        else:  # trigger, view: their SQL text is not comparable across versions; their name and table are
            shapes[name] = (kind, table)
    return shapes


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _plain(shapes: dict[str, Shape]) -> dict[str, Any]:
    """Shapes as JSON gives them back (lists for tuples), so a remembered one compares equal."""
    loaded: dict[str, Any] = json.loads(json.dumps(shapes))
    return loaded


# -- what the migrations make -----------------------------------------------------------------------


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
    """Where the schema the migrations make is remembered, under a name made of everything it
    follows from: the migrations' and this module's source, SQLite's and sqlite-utils' versions."""
    digest = hashlib.blake2b(digest_size=16)
    for name in ("migrations.py", "schema.py"):
        digest.update((_HERE / name).read_bytes())
    digest.update(f"{sqlite3.sqlite_version}|{_version('sqlite-utils')}".encode())
    return _cache_dir() / f"schema-{digest.hexdigest()}.json"


def _remembered(file: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # never written, unreadable or corrupt: built again (and rewritten)
    return data if isinstance(data, dict) else None


def _remember(file: Path, shapes: dict[str, Any]) -> None:
    """Write the shape for the next process; a cache directory that cannot be written simply
    means it is built again next time."""
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # only when the shape is first remembered: ~3 ms of every start otherwise

        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".schema-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(shapes))
            os.replace(tmp, file)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    except OSError:
        return


def _built() -> dict[str, Shape]:
    """The schema our migrations make, built in a scratch in-memory database."""
    conn = sqlite3.connect(":memory:")
    try:
        migrations.apply(conn)
        return describe(conn)
    finally:
        conn.close()


@functools.cache
def expected() -> dict[str, Any]:
    """The schema our migrations make (see ``describe``), as plain JSON values.

    Building it means importing sqlite-utils and running every migration in a scratch database —
    more than a one-shot read's whole query — so the result is remembered in the user's cache
    directory under a key made of what it follows from (``shape_file``): a new prdigest, SQLite
    or sqlite-utils builds it again, and so does a missing or damaged file.
    """
    file = shape_file()
    found = _remembered(file)
    if found is not None:
        return found
    shapes = _plain(_built())
    _remember(file, shapes)
    return shapes


def known_migrations() -> tuple[str, ...]:
    return migrations.names()


def _difference(name: str, want: Any, have: Any) -> str:
    kind = want[0]
    if have is None:
        return f"{kind} {name} is missing"
    if kind == "table" and have[0] == "table":
        want_cols = {c[0]: c for c in want[1]}
        have_cols = {c[0]: c for c in have[1]}
        for col in want_cols:
            if col not in have_cols:
                return f"table {name} has no column {col}"
            if want_cols[col] != have_cols[col]:
                return f"column {name}.{col} has changed"
        extra = [c for c in have_cols if c not in want_cols]
        if extra:
            return f"table {name} has an unexpected column {extra[0]}"
    return f"{kind} {name} has changed"


def schema_status(db: Executes) -> SchemaStatus:
    """Compare ``db`` with this prdigest's migrations; cheap enough to call at every connect."""
    known = known_migrations()
    applied = migrations.applied(db)
    unknown = tuple(name for name in applied if name not in known)
    pending = tuple(name for name in known if name not in set(applied))
    if pending and not unknown:
        # An older cache: its schema is an earlier one until the migrations run.
        return SchemaStatus(
            writable=True,
            readable=False,
            pending=pending,
            problem=f"needs {len(pending)} migration(s) ({', '.join(pending)}), which opening it to write applies",
        )
    live = _plain(describe(db))
    want = expected()
    differences = tuple(
        _difference(name, shape, live.get(name)) for name, shape in want.items() if live.get(name) != shape
    )
    # Columns a newer prdigest added are harmless to read; missing or changed ones are not.
    unreadable = [d for d in differences if "unexpected column" not in d]
    if unknown:
        problem = f"was {UPGRADE} prdigest to use it (it has migration {unknown[0]}, unknown to this one)"
    elif differences:
        problem = (
            f"does not have the schema its migrations make ({differences[0]}): "
            f"edited by hand, or {UPGRADE} prdigest to use it"
        )
    else:
        problem = None
    return SchemaStatus(
        writable=problem is None,
        readable=not unreadable,
        pending=pending,
        unknown=unknown,
        differences=differences,
        problem=problem,
    )
