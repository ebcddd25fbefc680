"""Delivering to many channels at once, each channel in order.

A run's deliveries are grouped by channel (platform and channel id). One channel's deliveries go
one after the other, in the run's order — a channel never shows two digests interleaved, and a
digest's replies follow its lead — while different channels go at the same time, at most
``limit`` at once. How fast the messages then actually go is the platform poster's business
(``bot.chat.pacing``: a message a second per channel, the workspace's rate per method).

The first delivery to each platform goes alone until its lead has landed (or it ended): a
revoked token or a platform that is down then costs one refused request rather than one per
channel, and the deliverer holds that platform's other deliveries for the run, as it did when
every delivery went one after the other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

Opened = Callable[[], None]  # called by a delivery once its lead has landed: the others may go


@dataclass(frozen=True)
class Job(Generic[T]):
    """One delivery of a run: its place in the run's order, where it goes, and what it is."""

    index: int
    platform: str
    channel: str
    item: T


async def fan_out(
    jobs: Sequence[Job[T]],
    work: Callable[[Job[T], Opened], Awaitable[R]],
    *,
    limit: int,
    results: dict[int, R],
    ready: Callable[[Job[T]], Awaitable[None]] | None = None,
) -> None:
    """Run ``work`` for every job as the module docstring says, each result into ``results``
    under its job's index as soon as it is there. ``ready`` is awaited first, before the job
    takes one of the ``limit`` places (preparing it — building its digest — keeps no place from
    a job that is ready to post). An exception (the cache cannot record anything more) cancels
    what is still running and is raised; ``results`` keeps what finished."""
    lanes: dict[tuple[str, str], list[Job[T]]] = {}
    first: dict[str, int] = {}
    for job in sorted(jobs, key=lambda j: j.index):
        lanes.setdefault((job.platform, job.channel), []).append(job)
        first.setdefault(job.platform, job.index)
    gates = {platform: asyncio.Event() for platform in first}
    slots = asyncio.Semaphore(max(1, limit))

    async def lane(queue: list[Job[T]]) -> None:
        for job in queue:
            gate = gates[job.platform]
            if job.index != first[job.platform]:
                await gate.wait()
            if ready is not None:
                await ready(job)
            async with slots:
                try:
                    results[job.index] = await work(job, gate.set)
                finally:
                    gate.set()

    tasks = [asyncio.ensure_future(lane(queue)) for queue in lanes.values()]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
