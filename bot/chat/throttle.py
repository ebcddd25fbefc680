"""A small token bucket per user for subscription changes from chat.

``/subscribe`` and ``/unsubscribe`` write to the database, may join a channel and re-arm the
scheduler; a person (or a script with a person's token) repeating them in a loop should get a
polite "slow down", not a burst of writes. Each user has ``capacity`` changes at once, refilled at
one every ``refill`` seconds — generous for a person setting up a few channels, tight for a loop.
The state is per process (one ``serve``); the buckets of people who stopped long ago are dropped
so that the table cannot grow without bound.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from commands.locale import t
from commands.model import Invocation, Reply
from commands.registry import REGISTRY, load_all

CAPACITY = 5
REFILL = 12.0  # seconds per change once the burst is spent: five a minute
MAX_USERS = 10_000


class ChangeLimiter:
    """``take(user)`` → 0 when the change may go ahead, else the whole seconds to wait."""

    def __init__(
        self,
        capacity: int = CAPACITY,
        refill: float = REFILL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity = capacity
        self.refill = refill
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # user → (tokens, when counted)
        self._lock = threading.Lock()

    def take(self, user: str) -> int:
        now = self.clock()
        with self._lock:
            tokens, then = self._buckets.get(user, (float(self.capacity), now))
            tokens = min(float(self.capacity), tokens + (now - then) / self.refill)
            if tokens >= 1.0:
                self._buckets[user] = (tokens - 1.0, now)
                self._prune(now)
                return 0
            self._buckets[user] = (tokens, now)
            return max(1, math.ceil((1.0 - tokens) * self.refill))

    def _prune(self, now: float) -> None:
        if len(self._buckets) <= MAX_USERS:
            return
        full = self.capacity * self.refill  # a bucket untouched this long is full again: forget it
        self._buckets = {u: b for u, b in self._buckets.items() if now - b[1] < full}


def refuse_if_busy(limiter: ChangeLimiter | None, inv: Invocation) -> Reply | None:
    """For an admin-only command (a subscription change) from chat: the localized "slow down"
    answer when its user has spent their changes, else None. Nothing is stored when refused."""
    load_all()
    spec = REGISTRY.get(inv.command)
    if limiter is None or spec is None or not spec.admin_only:
        return None
    wait = limiter.take(f"{inv.platform}:{inv.user or '-'}")
    if not wait:
        return None
    return Reply.usage(inv.command, t(inv.lang, "error.slow_down", seconds=wait))
