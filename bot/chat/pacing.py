"""Pacing a platform's requests when many channels are posted to at once.

A scheduled run posts to many channels concurrently (``bot.delivery.lanes``), and the platforms
limit that in two ways: about one message a second in each channel, and a rate per API method
across the whole workspace (Slack: posting "several hundred messages a minute", the upload
methods Tier 4, 100+ a minute). Letting every sender fire and collect 429s would waste requests
and, past a burst, Slack may drop messages from view; so a sender takes its slot first:

- ``Rate``: at most ``per_second`` requests a second with ``burst`` at once (the generic cell
  rate algorithm). ``reserve`` hands out slots in call order — concurrent senders on one event
  loop queue, they never share a slot — and returns the wait for the caller's slot.
- ``Spacing``: per key (a channel), the next request no earlier than ``gap`` seconds after the
  previous one was *answered*: a request sent a second after the previous one started could
  still arrive less than a second after it, when the previous one was slow on the way.

Both take a ``pause`` — a 429's Retry-After — after which nobody goes before it has passed, so
one refused sender makes all of them wait instead of each finding out for itself. A platform
whose real limit is below the one assumed (Slack does not publish its workspace figure) answers
429s: ``Rate.refused`` then also halves the rate (down to a sixteenth), and every request that
goes through brings it back up a little (``accepted``), so the run settles near the real limit
instead of meeting it again after every pause.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

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
        self._pauses = 0

    @property
    def tolerance(self) -> float:
        return (self.burst - 1) * self.interval

    def reserve(self) -> float:
        """Take the next slot: the seconds to wait before using it (0: now)."""
        now = self._clock()
        tat = max(self._tat, now)
        self._tat = tat + self.interval
        return max(0.0, tat - self.tolerance - now)

    def pause(self, seconds: float) -> None:
        """Nobody goes for ``seconds`` from now (then one slot at a time again)."""
        self._tat = max(self._tat, self._clock() + seconds + self.tolerance)
        self._pauses += 1

    def refused(self, seconds: float) -> None:
        """A 429 asking for ``seconds``: pause, and go at half the rate from then on."""
        self.interval = min(self.interval * 2, self.base * SLOWEST)
        self.pause(seconds)

    def accepted(self) -> None:
        """A request went through: the rate recovers (about 35 in a row undo one halving)."""
        self.interval = max(self.base, self.interval * RECOVERY)

    async def wait(self) -> None:
        """Wait for a slot. A pause that came meanwhile (another sender's 429) may cover the slot
        taken: then a new one is taken after the pause, never the old one used inside it."""
        while True:
            pauses = self._pauses
            delay = self.reserve()
            if delay > 0:
                await self._sleep(delay)
            if self._pauses == pauses:
                return


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
