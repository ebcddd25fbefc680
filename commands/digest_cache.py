"""The server's cache of closed periods' digests, dropped whenever the cache file changes.

A week that has ended is asked for again and again (every channel's ``/digest last-week``, the
Monday deliveries, people paging through past weeks), and its numbers cannot change unless the
cache does. ``DigestCache`` keeps the gathered numbers (``DigestStats``: the period's PRs, themes,
key PRs and comparison) of the periods that ended before the question was asked; the reply is
still composed per call (language, notes), so a hit costs the composition only.

Invalidation: before every lookup the store's change token is read — the write generation
every write of PR rows bumps in its own transaction (``storage.storylines.generation``: a
``prdigest sync`` in cron, the scheduled sync of ``serve``, a PR fetched on demand), which any
connection in any process sees at its next read. Any difference empties the cache. Writes of
derived data (the stored storylines of closed periods) do not move it.
Each worker thread has its own connection, so each has its own ``DigestCache``.

Admission: only periods that ended within ``RECENT`` of the question are kept (``admits``). Those
are the ones asked again and again; a week from last year is asked once by someone paging
through history. Keeping it costs more than it saves: a kept digest's ~8,000 container objects
are walked by the garbage collector's middle-generation collections until they reach the old
one. On the 200,000-PR benchmark, 200 digests of random weeks of two years with every closed
week kept: 185 computed anyway (8 kept of 104), and the 16 middle-generation collections took
~60 ms each against ~6 ms with only recent weeks kept (p50 55 → 45 ms, p99 168 → 100 ms in one
run on the loaded 2-core machine). Each kept old week also pushed last week's digest out.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from commands.report.stats import DigestStats
    from storage.prs import PRStore

# A week's digest holds its ~400 PRs, themes and comparison (~3 MB on the 200,000-PR benchmark): 8 per
# command thread keep `serve` well inside its memory budget (150 MB of heap: bench/memory.py).
MAX_ENTRIES = 8
# periods that ended this long before the question are computed, not kept (see "Admission"): the
# last four weeks and a day, so every Monday's "last week" and the comparisons people page back to
RECENT = timedelta(weeks=4, days=1)


class DigestCache:
    """Least-recently-used digests of closed periods for one connection (see the module docstring)."""

    def __init__(self, max_entries: int = MAX_ENTRIES, recent: timedelta | None = RECENT) -> None:
        self.max_entries = max_entries
        self.recent = recent
        """how long after its end a period is still kept (None: any closed period)"""
        self._entries: OrderedDict[Hashable, DigestStats] = OrderedDict()
        self._token: tuple[int, int] | None = None
        self.hits = 0
        self.misses = 0

    def admits(self, end: datetime, now: datetime) -> bool:
        """Whether a period ending at ``end`` is closed at ``now`` and recent enough to keep."""
        return end <= now and (self.recent is None or now - end <= self.recent)

    def get(self, store: PRStore, key: Hashable, build: Callable[[], DigestStats]) -> DigestStats:
        token = store.change_token()
        if token != self._token:
            self._entries.clear()
            self._token = token
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
            self.hits += 1
            return found
        self.misses += 1
        stats = build()
        if store.change_token() == token:  # nothing committed meanwhile: the numbers are current
            self._entries[key] = stats
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return stats

    def __len__(self) -> int:
        return len(self._entries)
