"""Pacing a platform's requests when many channels are posted to at once.

A scheduled run posts to many channels concurrently (``bot.delivery.lanes``), and the platforms
limit that in two ways: about one message a second in each channel, and a rate per API method
across the whole workspace (Slack: posting "several hundred messages a minute", the upload
methods Tier 4, 100+ a minute). Letting every sender fire and collect 429s would waste requests
and, past a burst, Slack may drop messages from view; so a sender takes its slot first:

- ``Rate``: at most ``per_second`` requests a second with ``burst`` at once (the generic cell
  rate algorithm), a slot counted when its sender goes: concurrent senders on one event loop
  never share one, and senders held up together never go as more than a burst.
- ``Spacing``: per key (a channel), the next request no earlier than ``gap`` seconds after the
  previous one was *answered*: a request sent a second after the previous one started could
  still arrive less than a second after it, when the previous one was slow on the way.

Both take a ``pause`` — a 429's Retry-After — after which nobody goes before it has passed, so
one refused sender makes all of them wait instead of each finding out for itself. A platform
whose real limit is below the one assumed (Slack does not publish its workspace figure) answers
429s: ``Rate.refused`` then also slows the rate by a fifth (down to a sixteenth at the most),
and every request that goes through brings it back up a little (``accepted``), so the run
settles near the real limit instead of meeting it again after every pause — while a stray 429
(a burst after the event loop was held up) costs a few slower seconds, not half the rate.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

SLOWER = 1.25  # the interval's factor after a 429: a fifth fewer requests a second
SLOWEST = 16.0  # a rate is never slowed below a sixteenth of its quota
RECOVERY = 0.98  # the interval's factor after each accepted request, back to the quota's


@dataclass(frozen=True)
class Quota:
    """A platform's limit for one kind of request: ``per_second``, ``burst`` of them at once."""

    per_second: float
    burst: int = 1


class Rate:
    """``per_second`` requests a second, ``burst`` of them back to back (see the module docstring)."""

    def __init__(
        self,
        per_second: float,
        burst: int = 1,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if per_second <= 0 or burst < 1:
            raise ValueError("a rate needs per_second > 0 and burst >= 1")
        self.base = 1.0 / per_second  # the interval between slots at the full rate
        self.burst = burst
        self.interval = self.base
        self._clock = clock
        self._sleep = sleep
        self._tat = float("-inf")  # the theoretical arrival time of the next request

    @property
    def tolerance(self) -> float:
        return (self.burst - 1) * self.interval

    def pause(self, seconds: float) -> None:
        """Nobody goes for ``seconds`` from now (then one slot at a time again)."""
        self._tat = max(self._tat, self._clock() + seconds + self.tolerance)

    def refused(self, seconds: float) -> None:
        """A 429 asking for ``seconds``: pause, and go a fifth slower from then on."""
        self.interval = min(self.interval * SLOWER, self.base * SLOWEST)
        self.pause(seconds)

    def accepted(self) -> None:
        """A request went through: the rate recovers (a dozen in a row undo one slowing)."""
        self.interval = max(self.base, self.interval * RECOVERY)

    async def wait(self) -> None:
        """Wait until a request may go, and count it. The slot is taken when the caller goes, not
        booked ahead: senders that woke late together (the event loop was held up) still go at
        most ``burst`` at once, and a pause that came meanwhile (another sender's 429) is waited
        out, never gone through."""
        while (delay := self._tat - self.tolerance - self._clock()) > 0:
            await self._sleep(delay)
        self._tat = max(self._tat, self._clock()) + self.interval


class Spacing:
    """Per key, requests ``gap`` seconds apart, counted from the previous answer (0: unpaced)."""

    def __init__(self, gap: float, *, clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep) -> None:
        self.gap = gap
        self._clock = clock
        self._sleep = sleep
        self._free: dict[str, float] = {}  # key → when its next request may go

    async def wait(self, key: str) -> None:
        while (delay := self._free.get(key, float("-inf")) - self._clock()) > 0:
            await self._sleep(delay)  # again if a pause moved the time on meanwhile

    def answered(self, key: str) -> None:
        """The request for ``key`` got its answer (or gave up): the next one waits ``gap``."""
        self._free[key] = max(self._free.get(key, float("-inf")), self._clock() + self.gap)

    def pause(self, key: str, seconds: float) -> None:
        self._free[key] = max(self._free.get(key, float("-inf")), self._clock() + seconds)
