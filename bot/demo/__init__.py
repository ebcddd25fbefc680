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
