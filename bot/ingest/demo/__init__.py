"""The bundled demo data: six ISO weeks of vLLM-like merged PRs (2026-W14 .. 2026-W19).

The file is produced by ``bench/generate.py`` (``python -m bench.generate --demo``) from a fixed
seed, so it is reproducible and fictional: realistic titles, file lists and PR-template bodies,
but no real PRs or people. ``prdigest demo`` loads it into a local cache and prints the digest
of its latest full week.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

DEMO_FILE = "vllm-demo.jsonl.gz"
DEMO_REPO = "vllm-project/vllm"
DEMO_LATEST_WEEK = "2026-W19"  # Mon 2026-05-04 .. Sun 2026-05-10 (UTC)


def demo_data_path() -> Path:
    """Where the bundled gzip-compressed JSONL file lives (inside the installed package)."""
    return Path(str(resources.files(__name__).joinpath(DEMO_FILE)))


def demo_records() -> Iterator[dict[str, Any]]:
    """The demo PR records, one dict per line of the file, in merge order."""
    with gzip.open(demo_data_path(), "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def bundle_keys() -> frozenset[tuple[str, int, str]]:
    """Every bundled PR as (repository, number, title): what a cache made by this demo holds."""
    return frozenset((r["repo"], int(r["number"]), r["title"]) for r in demo_records())


@dataclass(frozen=True)
class Leftovers:
    """What a cache at the demo's path holds beyond the bundled PRs (see ``leftovers``)."""

    prs: int  # PRs that are not the bundle's (another number, title or repository)
    demo_only: bool  # every PR in the cache came from a demo load: an older demo's cache


def leftovers(path: Path) -> Leftovers | None:
    """The PRs a cache holds that the bundled demo does not — an older prdigest's demo (its PRs were
    renumbered since) or a real cache passed as ``--db``; None when there are none or the file is
    no readable cache (the store reports that when it opens it).

    Read only, before the demo writes: the demo must neither mix its fictional PRs into a real
    cache nor print a week in which an older demo's PRs are counted twice. A cache is the demo's to
    replace only when every PR in it came from a demo load (``source = 'demo'``)."""
    import sqlite3

    from storage.db import open_reader  # read only, and nothing migrated: this is no prdigest cache yet

    try:
        conn = open_reader(path)
    except sqlite3.Error:
        return None
    try:
        rows = conn.execute("SELECT repo, number, title, source FROM prs").fetchall()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    keys = bundle_keys()
    extra = [row for row in rows if (row[0], row[1], row[2]) not in keys]
    if not extra:
        return None
    # only a load of the bundle writes "demo": a synced, imported or git-read PR is the user's
    return Leftovers(len(extra), all(row[3] == "demo" for row in rows))
