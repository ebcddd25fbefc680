"""Benchmark: what a scheduled run inside ``prdigest serve`` costs the loop the chat front ends share.

    uv run --frozen python -m bench.clock_loop [--runs 5]

``serve`` runs exactly as in production (the host with the Slack and Discord components and the
Monday clock) on the demo cache, against the loopback fakes of Slack and Discord. Each run posts
one digest to Slack and one to Discord: two subscriptions due at the demo's last Monday are
added, the clock is woken (``rearm``) and the run is awaited in the delivery ledger. Meanwhile a
probe task on the host's loop sleeps 2 ms at a time and records how late it wakes: the loop's
stalls, which every Slack acknowledgement and Discord heartbeat waits behind.

Printed: the wall time of a run (median, worst), the loop's longest stall per run (median,
worst) and the share of probe wake-ups later than 50 ms, and the Discord logins the fake saw
(REST ``GET /users/@me``, gateway IDENTIFY) — one is serve's own at start. Not a test: nothing
here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.delivery.clock import DeliveryScheduler  # noqa: E402
from bot.ingest.demo import demo_data_path  # noqa: E402
from bot.ingest.load import import_file  # noqa: E402
from classify.rules import load_profile  # noqa: E402
from storage.db import connect  # noqa: E402
from storage.prs import PRStore  # noqa: E402
from tests.bot.delivery.test_clock import Clock  # noqa: E402
from tests.bot.delivery.test_clock_live import both, posted  # noqa: E402
from tests.bot.delivery.test_deliverer import DUE, subscribe  # noqa: E402
from tests.fakes.discord import CHANNEL_ID, FakeDiscord  # noqa: E402
from tests.fakes.host import RunningHost  # noqa: E402
from tests.fakes.slack import FakeSlack  # noqa: E402

PROBE = 0.002  # seconds the probe sleeps between looks at the loop
LATE = 0.050  # a wake-up this late is a stall a Slack acknowledgement would feel


class Probe:
    """Sleeps ``PROBE`` at a time on the host's loop and keeps how late each wake-up was."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.stop = False

    async def run(self) -> None:
        while not self.stop:
            start = time.perf_counter()
            await asyncio.sleep(PROBE)
            self.lags.append(time.perf_counter() - start - PROBE)

    def take(self) -> list[float]:
        lags, self.lags = self.lags, []
        return lags


def one_run(db: Path, scheduler: DeliveryScheduler, timeout: float = 120.0) -> float:
    """Two digests due (Slack, Discord), the clock woken, the run awaited: its wall time."""
    ids = [
        s.id
        for s in (
            subscribe(db, platform="slack", channel="C0DIGEST", layout="single"),
            subscribe(db, platform="discord", channel=CHANNEL_ID),
        )
        if s.id is not None
    ]
    start = time.perf_counter()
    scheduler.rearm()
    deadline = start + timeout
    while not posted(db, ids):
        if time.perf_counter() > deadline:
            raise SystemExit("a run did not post within the timeout")
        time.sleep(0.01)
    return time.perf_counter() - start


def measure(db: Path, runs: int) -> dict[str, Any]:
    with FakeSlack() as slack, FakeDiscord(heartbeat_interval_ms=200) as discord, discord.patched():
        running = RunningHost(both(slack, discord), db)
        [scheduler] = [c for c in running.host.components if isinstance(c, DeliveryScheduler)]
        scheduler.clock, scheduler.watch = Clock(DUE + timedelta(hours=1)), None
        probe = Probe()
        with running:
            discord.wait(lambda: discord.frames_where(t="READY"), what="the gateway session", timeout=30)
            loop: Any = running._loop
            loop.call_soon_threadsafe(lambda: loop.create_task(probe.run()))
            one_run(db, scheduler)  # warm: matplotlib and the digest path imported once
            probe.take()
            walls, worst, late = [], [], 0
            for _ in range(runs):
                walls.append(one_run(db, scheduler))
                lags = probe.take()
                worst.append(max(lags, default=0.0))
                late += sum(1 for lag in lags if lag > LATE)
            probe.stop = True
        rest = len(discord.calls_to("GET /users/@me"))
        identify = len(discord.frames_where(op=2, direction="recv"))
    return {"walls": walls, "worst": worst, "late": late, "logins": (rest, identify), "runs": runs + 1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "demo.db"
        store = PRStore(connect(db, create=True))
        import_file(store, load_profile(), demo_data_path())
        store.db.close()
        got = measure(db, args.runs)
    ms = [w * 1000 for w in got["walls"]]
    stall = [w * 1000 for w in got["worst"]]
    print(
        f"runs measured: {args.runs} (after one warm-up), each posting one digest to Slack and one to Discord"
    )
    print(f"run wall time: median {statistics.median(ms):.0f} ms, worst {max(ms):.0f} ms")
    print(
        f"loop's longest stall per run: median {statistics.median(stall):.1f} ms, worst {max(stall):.1f} ms"
    )
    print(f"probe wake-ups later than {LATE * 1000:.0f} ms: {got['late']}")
    rest, identify = got["logins"]
    print(
        f"Discord logins over {got['runs']} runs: GET /users/@me {rest}, IDENTIFY {identify} (serve's own: 1 each)"
    )


if __name__ == "__main__":
    main()
