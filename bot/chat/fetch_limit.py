"""How often chat users may make prdigest fetch from GitHub: per user, and in total.

``/pr`` of a PR missing from the cache fetches it with the bot's GITHUB_TOKEN. Without a limit,
one user could spend the token's rate limit (5,000 points an hour, shared with ``sync``) or keep
the fetch lane busy for everyone. ``FetchLimiter`` is a sliding window: at most ``per_user``
fetches per user and ``total`` fetches overall in any ``window`` seconds. A refused fetch says how
long to wait; the cache still answers everything it holds.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class FetchLimits:
    """On-demand fetch limits: ``per_user`` and ``total`` fetches per ``window`` seconds; the
    fetch lane's ``workers`` and how many fetches may wait for one (``waiting``); ``deadline``
    seconds before a chat user is told GitHub did not answer (the GitHub client's own timeouts
    end the fetch itself soon after)."""

    per_user: int = 5
    total: int = 60
    window: float = 600.0
    workers: int = 2
    waiting: int = 4
    deadline: float = 20.0


class FetchLimiter:
    """Sliding-window counters; ``take(user)`` is 0.0 when a fetch may start (and counts it),
    else the seconds until one may."""

    def __init__(self, limits: FetchLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._lock = threading.Lock()
        self._all: deque[float] = deque()
        self._users: dict[str, deque[float]] = {}
        self.refused = 0

    def _expire(self, stamps: deque[float], now: float) -> None:
        while stamps and stamps[0] <= now - self.limits.window:
            stamps.popleft()

    def take(self, user: str | None) -> float:
        now = self._clock()
        key = user or "?"
        with self._lock:
            self._expire(self._all, now)
            mine = self._users.setdefault(key, deque())
            self._expire(mine, now)
            waits = []
            if len(mine) >= self.limits.per_user:
                waits.append(mine[0] + self.limits.window - now)
            if len(self._all) >= self.limits.total:
                waits.append(self._all[0] + self.limits.window - now)
            if waits:
                self.refused += 1
                return max(1.0, max(waits))
            mine.append(now)
            self._all.append(now)
            for name in [u for u, s in self._users.items() if not s]:  # forget idle users
                del self._users[name]
            return 0.0

    def refund(self, user: str | None) -> None:
        """Give back the fetch ``take`` just counted (it never reached GitHub)."""
        with self._lock:
            mine = self._users.get(user or "?")
            if mine:
                stamp = mine.pop()
                if stamp in self._all:
                    self._all.remove(stamp)
