"""The server's cache of closed periods' digests, dropped whenever the cache file changes.

A week that has ended is asked for again and again (every channel's ``/digest last-week``, the
Monday deliveries, people paging through past weeks), and its numbers cannot change unless the
cache does. ``DigestCache`` keeps the gathered numbers (``DigestStats``: the period's PRs, themes,
key PRs and comparison) of the periods that ended before the question was asked; the reply is
still composed per call (language, notes), so a hit costs the composition only.

Invalidation: before every lookup the store's change token is read — SQLite's
``PRAGMA data_version`` (bumped when *another* connection, in this process or another, commits:
a ``prdigest sync`` in cron, the scheduled sync of ``serve``) together with the connection's own
``total_changes`` (its own writes, e.g. a PR fetched on demand). Any difference empties the cache.
Each worker thread has its own connection, so each has its own ``DigestCache``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from commands.report.stats import DigestStats
    from storage.prs import PRStore

# A week's digest holds its ~400 PRs, themes and comparison (~3 MB on the 200,000-PR benchmark): 8 per
# command thread keep `serve` well inside its memory budget (issue 14, point 5).
MAX_ENTRIES = 8


class DigestCache:
    """Least-recently-used digests of closed periods for one connection (see the module docstring)."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, DigestStats] = OrderedDict()
        self._token: tuple[int, int] | None = None
        self.hits = 0
        self.misses = 0

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
