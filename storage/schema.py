"""Is a cache the shape this prdigest's migrations make?

A cache written by a newer prdigest carries migrations this one does not know, and possibly
columns it has renamed; one edited by hand may have lost an index or gained a column. Writing to
either could corrupt it, and reading may fail half-way through a command. ``schema_status``
compares the live schema with the one our migrations produce (built once per process in memory)
and says, in one line, whether the cache can be read and written.

Shapes are compared structurally — tables and their columns, indexes and their columns, the names
of triggers and views — not as SQL text, which differs between SQLite and sqlite-utils versions
for the same schema. FTS shadow tables and sqlite-utils' own migration table are left out.
Objects a user added beside ours (an index, a table) are tolerated: they cannot break a query.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import sqlite_utils

from storage.migrations import MIGRATIONS
from storage.shape import Shape, describe

UPGRADE = "made by a newer prdigest; upgrade"


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


@functools.cache
def expected() -> dict[str, Shape]:
    """The schema our migrations make, built in a scratch in-memory database (once per process)."""
    db = sqlite_utils.Database(memory=True, execute_plugins=False)
    try:
        MIGRATIONS.apply(db)
        return describe(db)
    finally:
        db.close()


@functools.cache
def known_migrations() -> tuple[str, ...]:
    db = sqlite_utils.Database(memory=True, execute_plugins=False)
    try:
        return tuple(m.name for m in MIGRATIONS.pending(db))
    finally:
        db.close()


def _difference(name: str, want: Shape, have: Shape | None) -> str:
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


def schema_status(db: sqlite_utils.Database) -> SchemaStatus:
    """Compare ``db`` with this prdigest's migrations; cheap enough to call at every connect."""
    known = known_migrations()
    applied = [m.name for m in MIGRATIONS.applied(db)]
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
    live = describe(db)
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
