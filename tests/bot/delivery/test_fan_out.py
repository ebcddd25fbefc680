"""The parts of a run that posts to many channels at once, alone: ``bot.chat.pacing`` on a
controlled clock, and ``bot.delivery.lanes`` with deliveries that wait on events."""

from __future__ import annotations

import asyncio

import pytest

from bot.chat.pacing import Rate, Spacing
from bot.delivery.lanes import Job, Opened, fan_out


class Clock:
    """A clock that moves only when something sleeps on it."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        await asyncio.sleep(0)  # others run meanwhile, as they would during a real sleep
        self.now += seconds

    async def sleep_until(self, seconds: float) -> None:
        """A sleep among concurrent sleepers: time moves to the wake-up time (if not past it)."""
        wake = self.now + seconds
        await asyncio.sleep(0)
        self.now = max(self.now, wake)


def went(rate: Rate, clock: Clock, n: int) -> list[float]:
    """When each of ``n`` senders, one after the other, was let through (from 100.0)."""

    async def senders() -> list[float]:
        times = []
        for _ in range(n):
            await rate.wait()
            times.append(clock.now - 100.0)
        return times

    return asyncio.run(senders())


def test_a_rate_lets_its_burst_through_then_one_per_interval() -> None:
    clock = Clock()
    rate = Rate(10.0, burst=3, clock=clock, sleep=clock.sleep)
    assert went(rate, clock, 6) == pytest.approx([0, 0, 0, 0.1, 0.2, 0.3])
    clock.now += 10  # idle: the burst is back, and no more than the burst
    assert went(rate, clock, 4) == pytest.approx([10.3 + x for x in (0, 0, 0, 0.1)], abs=1e-6)


def test_a_pause_holds_every_sender_then_lets_them_through_one_at_a_time() -> None:
    clock = Clock()
    rate = Rate(10.0, burst=3, clock=clock, sleep=clock.sleep)
    rate.pause(2.0)  # a 429 asked for 2 s
    assert went(rate, clock, 3) == pytest.approx([2.0, 2.1, 2.2])  # no burst right after it


def test_a_429_slows_the_rate_by_a_fifth_and_accepted_requests_bring_it_back() -> None:
    clock = Clock()
    rate = Rate(10.0, burst=1, clock=clock, sleep=clock.sleep)
    rate.refused(1.0)
    assert went(rate, clock, 3) == pytest.approx([1.0, 1.125, 1.25])  # 8 a second now
    for _ in range(20):
        rate.refused(0.0)
    assert rate.interval == pytest.approx(1.6)  # never below a sixteenth of the quota
    for _ in range(200):
        rate.accepted()
    assert rate.interval == pytest.approx(0.1)  # back to the quota, and no faster


def test_a_sender_waiting_when_a_pause_comes_waits_it_out() -> None:
    clock = Clock()
    rate = Rate(1.0, burst=1, clock=clock, sleep=clock.sleep)

    async def scenario() -> float:
        await rate.wait()  # someone went at 100.0: the next may go at 101.0
        waiting = asyncio.ensure_future(rate.wait())
        await asyncio.sleep(0)
        rate.pause(5.0)  # meanwhile (at 100.0) another sender met a 429 asking for 5 s
        await waiting
        return clock.now

    assert asyncio.run(scenario()) >= 100.0 + 5.0  # not at 101.0, inside the pause


def test_senders_held_up_together_go_as_one_burst_at_the_most() -> None:
    """The event loop was held up while senders waited (a long write, a busy machine): when they
    wake, late, they still go no more than ``burst`` at once — a slot booked ahead would let them
    all go together, past the platform's burst."""
    clock = Clock()
    rate = Rate(10.0, burst=2, clock=clock, sleep=clock.sleep_until)
    gone: list[float] = []

    async def sender() -> None:
        await rate.wait()
        gone.append(clock.now)

    async def scenario() -> None:
        senders = asyncio.gather(*(sender() for _ in range(6)))
        await asyncio.sleep(0)
        clock.now += 1.0  # held up for a second while they slept
        await senders

    asyncio.run(scenario())
    assert len(gone) == 6
    for t in gone:
        assert sum(1 for u in gone if t <= u < t + 0.1 - 1e-9) <= 2, gone


def test_spacing_counts_from_the_answer_per_channel_and_keeps_pauses() -> None:
    clock = Clock()
    spacing = Spacing(1.0, clock=clock, sleep=clock.sleep)

    async def scenario() -> None:
        await spacing.wait("C1")
        clock.now += 0.4  # the request took 0.4 s
        spacing.answered("C1")
        await spacing.wait("C2")  # another channel: at once
        assert clock.slept == []
        await spacing.wait("C1")
        assert clock.slept == pytest.approx([1.0])  # a second after the answer, not after the send
        spacing.pause("C1", 30.0)
        spacing.answered("C1")  # an answer does not shorten a pause
        await spacing.wait("C1")
        assert clock.slept[-1] == pytest.approx(30.0)

    asyncio.run(scenario())


def test_unpaced_spacing_never_waits() -> None:
    clock = Clock()
    spacing = Spacing(0.0, clock=clock, sleep=clock.sleep)

    async def scenario() -> None:
        for _ in range(3):
            await spacing.wait("C1")
            spacing.answered("C1")

    asyncio.run(scenario())
    assert clock.slept == []


def _jobs(*where: tuple[str, str]) -> list[Job[str]]:
    return [
        Job(i, platform, channel, f"{platform}:{channel}#{i}") for i, (platform, channel) in enumerate(where)
    ]


def test_channels_go_at_once_each_channel_in_order_within_the_limit() -> None:
    jobs = _jobs(*[("slack", f"C{n % 3}") for n in range(9)])  # three channels, three deliveries each
    log: list[str] = []
    running: set[str] = set()
    most = 0

    async def work(job: Job[str], opened: Opened) -> str:
        nonlocal most
        opened()
        assert job.channel not in running  # never two deliveries of one channel at once
        running.add(job.channel)
        most = max(most, len(running))
        log.append(f"start {job.item}")
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        running.discard(job.channel)
        return job.item

    results: dict[int, str] = {}
    asyncio.run(fan_out(jobs, work, limit=2, results=results))
    assert results == {j.index: j.item for j in jobs}
    assert most == 2  # channels overlapped, never more than the limit
    for channel in ("C0", "C1", "C2"):
        mine = [line.split("#")[1] for line in log if f":{channel}#" in line]
        assert mine == sorted(mine, key=int)  # each channel in the run's order


def test_the_first_delivery_to_a_platform_goes_alone_until_its_lead_landed() -> None:
    jobs = _jobs(("slack", "C0"), ("slack", "C1"), ("discord", "D0"), ("slack", "C2"))
    started: list[str] = []

    async def scenario() -> dict[int, str]:
        lead = asyncio.Event()
        results: dict[int, str] = {}

        async def work(job: Job[str], opened: Opened) -> str:
            started.append(job.item)
            if job.index == 0:
                await lead.wait()  # the first Slack lead is still on its way
                opened()
            return job.item

        task = asyncio.ensure_future(fan_out(jobs, work, limit=8, results=results))
        for _ in range(5):
            await asyncio.sleep(0)
        # Discord's first delivery went at once; Slack's others wait for the first Slack lead
        assert started == ["slack:C0#0", "discord:D0#2"]
        lead.set()
        await task
        return results

    results = asyncio.run(scenario())
    assert sorted(results) == [0, 1, 2, 3] and started[2:] == ["slack:C1#1", "slack:C2#3"]


def test_a_failure_that_stops_the_run_cancels_the_rest_and_keeps_what_finished() -> None:
    jobs = _jobs(("slack", "C0"), ("slack", "C1"), ("slack", "C2"))
    cancelled: list[int] = []

    async def work(job: Job[str], opened: Opened) -> str:
        opened()
        if job.index == 1:
            raise OSError("disk full")
        if job.index == 2:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.append(job.index)
                raise
        return job.item

    results: dict[int, str] = {}
    with pytest.raises(OSError, match="disk full"):
        asyncio.run(fan_out(jobs, work, limit=8, results=results))
    assert results == {0: "slack:C0#0"} and cancelled == [2]
