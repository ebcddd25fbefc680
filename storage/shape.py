"""The structural shape of a cache's schema, read with the standard library alone.

``storage.schema`` compares it with what the migrations make; ``storage.reader`` compares it with
that expectation as remembered from an earlier run, without importing sqlite-utils.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Protocol

Shape = tuple[Any, ...]


class _Executes(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> sqlite3.Cursor: ...


def _skipped(name: str, virtual: set[str]) -> bool:
    if name.startswith(("sqlite_", "_sqlite_migrations", "idx__sqlite_migrations")):
        return True
    return any(name.startswith(f"{v}_") for v in virtual)  # FTS shadow tables


def describe(db: _Executes) -> dict[str, Shape]:
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
