"""A small token bucket per user for subscription changes from chat.

``/subscribe`` and ``/unsubscribe`` write to the database, may join a channel and re-arm the
scheduler; a person (or a script with a person's token) repeating them in a loop should get a
polite "slow down", not a burst of writes. Each user has ``capacity`` changes at once, refilled at
one every ``refill`` seconds — generous for a person setting up a few channels, tight for a loop.
Only a change that was made counts: a mistyped ``/subscribe`` (a usage answer), a refusal or the
"slow down" itself stores nothing and costs nothing, so typos never lock a person out.
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

    def wait(self, user: str) -> int:
        """0 when ``user`` has a change left, else the whole seconds until they have one (nothing
        is spent: a change is paid for once it was made, ``take``)."""
        now = self.clock()
        with self._lock:
            tokens, then = self._buckets.get(user, (float(self.capacity), now))
            tokens = min(float(self.capacity), tokens + (now - then) / self.refill)
        return 0 if tokens >= 1.0 else max(1, math.ceil((1.0 - tokens) * self.refill))

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


def _limited(limiter: ChangeLimiter | None, inv: Invocation) -> bool:
    load_all()
    spec = REGISTRY.get(inv.command)
    return limiter is not None and spec is not None and spec.admin_only


def _who(inv: Invocation) -> str:
    return f"{inv.platform}:{inv.user or '-'}"  # the same id on another platform is another person


def refuse_if_busy(limiter: ChangeLimiter | None, inv: Invocation) -> Reply | None:
    """For an admin-only command (a subscription change) from chat: the localized "slow down"
    answer when its user has spent their changes, else None. Nothing is stored when refused, and
    nothing is spent: ``charge`` pays for the change once it was made."""
    if not _limited(limiter, inv):
        return None
    assert limiter is not None
    wait = limiter.wait(_who(inv))
    return Reply.usage(inv.command, t(inv.lang, "error.slow_down", seconds=wait)) if wait else None


def charge(limiter: ChangeLimiter | None, inv: Invocation, reply: Reply) -> None:
    """Count a subscription change against its user — only one that went through (an ``ok``
    answer): a usage line, a refusal or a "slow down" changed nothing."""
    if reply.ok and _limited(limiter, inv):
        assert limiter is not None
        limiter.take(_who(inv))
