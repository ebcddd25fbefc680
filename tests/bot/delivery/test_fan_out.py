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


def test_a_rate_hands_out_its_burst_then_one_slot_per_interval_in_call_order() -> None:
    clock = Clock()
    rate = Rate(10.0, burst=3, clock=clock, sleep=clock.sleep)
    waits = [rate.reserve() for _ in range(6)]  # six senders at the same moment
    assert waits == pytest.approx([0, 0, 0, 0.1, 0.2, 0.3])
    clock.now += 10  # idle: the burst is back, and no more than the burst
    assert [rate.reserve() for _ in range(4)] == pytest.approx([0, 0, 0, 0.1])


def test_a_pause_moves_every_later_slot_after_it_one_at_a_time() -> None:
    clock = Clock()
    rate = Rate(10.0, burst=3, clock=clock, sleep=clock.sleep)
    rate.pause(2.0)  # a 429 asked for 2 s
    assert [rate.reserve() for _ in range(3)] == pytest.approx([2.0, 2.1, 2.2])  # no burst right after it


def test_a_429_halves_the_rate_and_accepted_requests_bring_it_back() -> None:
    clock = Clock()
    rate = Rate(10.0, burst=1, clock=clock, sleep=clock.sleep)
    rate.refused(1.0)
    assert [rate.reserve() for _ in range(3)] == pytest.approx([1.0, 1.2, 1.4])  # 5 a second now
    for _ in range(5):
        rate.refused(0.0)
    assert rate.interval == pytest.approx(1.6)  # never below a sixteenth of the quota
    for _ in range(200):
        rate.accepted()
    assert rate.interval == pytest.approx(0.1)  # back to the quota, and no faster


def test_a_sender_whose_slot_fell_inside_a_later_pause_takes_a_new_one() -> None:
    clock = Clock()
    rate = Rate(1.0, burst=1, clock=clock, sleep=clock.sleep)
    rate.reserve()  # someone took the slot at 100.0

    async def scenario() -> float:
        waiting = asyncio.ensure_future(rate.wait())  # its slot: 101.0
        await asyncio.sleep(0)
        rate.pause(5.0)  # meanwhile (at 100.0) another sender met a 429 asking for 5 s
        await waiting
        return clock.now

    went = asyncio.run(scenario())
    assert went >= 100.0 + 5.0  # its slot (101.0) fell inside the pause: it went after it


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
