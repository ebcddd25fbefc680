"""settle_heap freezes startup objects and raises the young-generation threshold, once.

Run in a child interpreter: freezing is process-wide and would leak into the rest of the suite.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = """
import gc
from bot.config.runtime import YOUNG_THRESHOLD, settle_heap
before = gc.get_freeze_count()
settle_heap(collect=False)
frozen = gc.get_freeze_count()
settle_heap()  # a second call changes nothing
print(before, frozen > 1000, gc.get_freeze_count() == frozen, gc.get_threshold()[0] == YOUNG_THRESHOLD)
"""


def test_settle_heap_freezes_once_and_raises_the_threshold() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.split() == ["0", "True", "True", "True"]
