"""Which cache a one-shot read opens when none was named: the default, or the demo's.

The Quick start loads the demo into ``prdigest-demo.db`` (kept apart, so that it never mixes its
fictional PRs into a real cache) and then a reader copies ``.env.example`` and types
``prdigest digest 2026-W19``: the default cache ``prdigest.db`` does not exist yet. Rather than
"database prdigest.db does not exist", such a read answers from the demo's cache — saying so in one
line on stderr — until a real cache exists. Only reads: every writer (sync, import, a ``pr`` fetch)
still goes to the configured cache.
"""

from __future__ import annotations

from pathlib import Path

from bot.cli.program import program

DEFAULT_DB = Path("prdigest.db")
DEMO_DB = Path("prdigest-demo.db")


def reading_cache(configured: Path, named: Path | None) -> tuple[Path, str | None]:
    """(the cache to read, the note to print when it is the demo's instead of the default)."""
    if named is not None or configured != DEFAULT_DB or configured.exists() or not DEMO_DB.exists():
        return named or configured, None
    run = program()
    note = (
        f"prdigest: reading the demo's cache {DEMO_DB} ({DEFAULT_DB} does not exist yet; "
        f"`{run} sync` or `{run} import FILE` makes it)"
    )
    return DEMO_DB, note
