"""The Monday run against a Slack that enforces its limits: wall time against the bound they allow.

    uv run --frozen python -m bench.monday --subs 20 --distinct 1 --repeat 3
    uv run --frozen python -m bench.monday --subs 1000 --distinct 50

Each run copies the demo cache, subscribes ``--subs`` channels of a loopback Slack fake to the
week 2026-W19 over ``--distinct`` different digests (filters × language: no filter and the
busiest modules, in English and Chinese, spread round-robin over the channels) and runs the real
``Deliverer`` once at the due time, with Slack's step poster as ``prdigest deliver`` makes it.
The fake runs in a process of its own (so it takes no CPU time from the run's interpreter) and
enforces a message a second per channel and workspace-wide rates per method, answering 429 with
Retry-After beyond them (``tests.fakes.slack.Limits``; ``--post-rate`` sets the posting cap).

Printed per run: wall time; the bound the fake's limits allow (the longest of: every message at
the workspace posting rate after its burst, every chart's two upload calls at their rate after
their burst, and the busiest channel's messages a second apart); digests and charts built; 429s;
the process's resident memory before the run, at its peak and after it (RSS, read from /proc);
and whether every channel got its digest whole and once. Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import bot.delivery.chart  # noqa: E402
import bot.delivery.deliverer  # noqa: E402
from bench.delivery_kills import demo_cache  # noqa: E402
from bot.chat.platforms import step_poster_for  # noqa: E402
from bot.config.settings import Settings  # noqa: E402
from bot.delivery.deliverer import Deliverer  # noqa: E402
from classify.rules import load_profile  # noqa: E402
from classify.schedule import first_anchor  # noqa: E402
from storage.db import connect  # noqa: E402
from storage.delivery_steps import StepStore  # noqa: E402
from storage.subscriptions import Subscription, SubscriptionStore  # noqa: E402

CREATED = datetime(2026, 5, 10, 12, 0, tzinfo=UTC)
DUE = datetime(2026, 5, 11, 7, 5, tzinfo=UTC)  # Monday 09:05 in Berlin: week 2026-W19 is due
ZONE = "Europe/Berlin"
# the busiest modules of the demo's week 2026-W19: each filter posts a full digest
MODULES = (
    "quantization kernel moe models rocm attention nvidia frontend performance distributed "
    "tool-calling ci config kv-connector spec-decode cpu model-loading qwen core deepseek compile "
    "docs model-runner gemma"
).split()
UPLOAD_RATE, UPLOAD_BURST = 100 / 60, 20.0


def digests(distinct: int) -> list[tuple[str, tuple[str, ...]]]:
    """``distinct`` (language, modules) pairs: no filter and the busiest modules, in en and zh."""
    filters: list[tuple[str, ...]] = [(), *((m,) for m in MODULES)]
    pairs = [(lang, f) for f in filters for lang in ("en", "zh")]
    if distinct > len(pairs):
        raise SystemExit(f"at most {len(pairs)} distinct digests")
    return pairs[:distinct]


def subscribe_all(db: Path, subs: int, distinct: int) -> None:
    store = SubscriptionStore(connect(db))
    zone = Subscription(
        platform="slack", channel="C", repo="o/r", anchor=date(2026, 5, 4), since=CREATED, timezone=ZONE
    ).zone
    anchor = first_anchor(CREATED, zone)
    kinds = digests(distinct)
    for i in range(subs):
        lang, modules = kinds[i % len(kinds)]
        sub = Subscription(
            platform="slack",
            channel=f"C0BENCH{i:05d}",
            repo="vllm-project/vllm",
            anchor=anchor,
            since=CREATED,
            timezone=ZONE,
            lang=lang,
            modules=modules,
        )
        store.add(sub, now=CREATED)


# -- the fake, in a process of its own ------------------------------------------------------------


def serve_fake(post_rate: float, post_burst: float, conn: Any) -> None:
    from tests.fakes.slack import FakeSlack, Limits

    limits = Limits(
        per_channel=1.0,
        workspace={
            "chat.postMessage": (post_rate, post_burst),
            "files.getUploadURLExternal": (UPLOAD_RATE, UPLOAD_BURST),
            "files.completeUploadExternal": (UPLOAD_RATE, UPLOAD_BURST),
        },
    )
    with FakeSlack(limits=limits) as fake:
        conn.send(fake.api_url)
        while (ask := conn.recv()) != "stop":
            conn.send(summary(fake, ask))
            fake.calls.clear()
            fake.history.clear()
            fake.replies.clear()
            fake.messages.clear()
            fake.uploads.clear()


def summary(fake: Any, stored: dict[str, list[str]]) -> dict[str, Any]:
    """What the fake saw: 429s per method, and per channel whether its digest landed whole and once
    (one lead, its thread holding the stored replies in order)."""
    whole = 0
    for channel, keys in stored.items():
        leads = fake.leads_in(channel)
        if len(leads) == 1:
            replies = [m["metadata"]["event_payload"]["step"] for m in fake.thread(channel, leads[0]["ts"])]
            whole += replies == keys[1:]
    limited = Counter(c.method for c in fake.limited())
    posts = [c for c in fake.calls if c.method == "chat.postMessage" and c.response.get("ok")]
    uploads = [
        c.at for c in fake.calls if c.method == "files.completeUploadExternal" and c.response.get("ok")
    ]
    return {
        "whole": whole,
        "limited": dict(limited),
        "posts": len(posts),
        "first_post": min((c.at for c in posts), default=0.0),
        "last_post": max((c.at for c in posts), default=0.0),
        "uploads": len(uploads),
        "last_upload": max(uploads, default=0.0),
    }


# -- one run ----------------------------------------------------------------------------------------


class Memory:
    """The process's anonymous resident memory (``RssAnon`` of /proc/self/status: the heaps of
    Python and SQLite, not the cache file SQLite maps into memory), sampled every 50 ms while a run
    goes on; with ``trace``, Python's own heap as tracemalloc counts it as well (slower)."""

    def __init__(self, trace: bool = False) -> None:
        self.trace = trace
        self.peak = 0
        self.traced = (0, 0)  # tracemalloc: (at the end, peak), bytes
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    @staticmethod
    def rss() -> int:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
        return 0

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, self.rss())

    def __enter__(self) -> Memory:
        if self.trace:
            import tracemalloc

            tracemalloc.start()
        self.peak = self.rss()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        if self.trace:
            import tracemalloc

            self.traced = tracemalloc.get_traced_memory()
            tracemalloc.stop()


def counting(counts: Counter[str]) -> None:
    """Count the digests dispatched and the charts drawn by the deliverer (whatever its version)."""

    def wrap(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return real(*args, **kwargs)

        return call

    bot.delivery.deliverer.dispatch = wrap("digests", bot.delivery.deliverer.dispatch)  # type: ignore[attr-defined]
    bot.delivery.chart.with_chart = wrap("charts", bot.delivery.chart.with_chart)  # type: ignore[attr-defined]


def bound(messages: list[int], charts: int, post_rate: float, post_burst: float) -> float:
    """The shortest time the fake's limits allow for these deliveries (seconds)."""
    posting = max(0.0, sum(messages) - post_burst) / post_rate
    uploads = max(0.0, charts - UPLOAD_BURST) / UPLOAD_RATE  # each upload: two calls, each at this rate
    channel = max(messages, default=1) - 1.0
    return max(posting, uploads, channel)


def one_run(
    template: Path, work: Path, api_url: str, args: argparse.Namespace, counts: Counter[str]
) -> dict[str, Any]:
    db = work / "run.db"
    shutil.copy(template, db)
    subscribe_all(db, args.subs, args.distinct)
    settings = Settings(_env_file=None, slack_bot_token="xoxb-test-token", prdigest_slack_api_url=api_url)  # type: ignore[call-arg]
    deliverer = Deliverer(connect(db), load_profile(), lambda p: step_poster_for(p, settings), owner="bench")
    counts.clear()
    before = Memory.rss()
    with Memory(args.trace) as memory:
        started = time.monotonic()
        outcomes = asyncio.run(deliverer.run(DUE))
        seconds = time.monotonic() - started
    deliverer.db.close()
    after = Memory.rss()
    conn = connect(db)
    stored = {}
    for row in conn.execute("SELECT id, subscription_id FROM deliveries").fetchall():
        channel = conn.execute("SELECT channel FROM subscriptions WHERE id = ?", (row[1],)).fetchone()[0]
        stored[channel] = [s.key for s in StepStore(conn).for_delivery(row[0])]
    conn.close()
    return {
        "seconds": seconds,
        "started": started,
        # every distinct digest's chart must go up once; the others may show it (SlackSteps lends it)
        "bound": bound([len(k) for k in stored.values()], args.distinct, args.post_rate, args.post_burst),
        "posted": sum(o.state == "posted" for o in outcomes),
        "states": dict(Counter(o.state for o in outcomes)),
        "messages": sum(len(k) for k in stored.values()),
        "digests": counts["digests"],
        "charts": counts["charts"],
        "rss_mb": (before / 2**20, memory.peak / 2**20, after / 2**20),
        "traced_mb": (memory.traced[0] / 2**20, memory.traced[1] / 2**20),
        "stored": stored,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subs", type=int, default=20)
    parser.add_argument("--distinct", type=int, default=1, help="distinct digests (language × filter)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--post-rate", type=float, default=10.0, help="the fake's workspace posting cap, per second"
    )
    parser.add_argument("--post-burst", type=float, default=10.0)
    parser.add_argument("--trace", action="store_true", help="count Python's heap with tracemalloc (slower)")
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    counting(counts)
    ctx = multiprocessing.get_context("spawn")
    here, there = ctx.Pipe()
    fake = ctx.Process(target=serve_fake, args=(args.post_rate, args.post_burst, there), daemon=True)
    fake.start()
    api_url = here.recv()
    runs = []
    with tempfile.TemporaryDirectory(prefix="prdigest-monday-") as tmp:
        work = Path(tmp)
        template = demo_cache(work)
        for i in range(args.repeat):
            result = one_run(template, work, api_url, args, counts)
            here.send(result.pop("stored"))
            seen = here.recv()
            runs.append(result)
            before, peak, after = result["rss_mb"]
            traced = "tracemalloc: peak {1:.0f} MB, {0:.0f} MB at the end; ".format(*result["traced_mb"])
            print(
                f"run {i + 1}: {args.subs} subscriptions over {args.distinct} digests: {result['seconds']:.1f} s "
                f"(bound {result['bound']:.1f} s, ratio {result['seconds'] / max(result['bound'], 0.001):.2f}); "
                f"{result['messages']} messages, {seen['posts']} posted; {result['digests']} digests and "
                f"{result['charts']} charts built; whole {seen['whole']}/{args.subs}; states {result['states']}; "
                f"429s {seen['limited']}; anonymous RSS {before:.0f} → peak {peak:.0f} → after {after:.0f} MB; "
                f"{traced if args.trace else ''}first post at {seen['first_post'] - result['started']:.1f} s, "
                f"last at {seen['last_post'] - result['started']:.1f} s; {seen['uploads']} uploads, the last at "
                f"{seen['last_upload'] - result['started']:.1f} s",
                flush=True,
            )
    here.send("stop")
    fake.join(10)
    if len(runs) > 1:
        secs = [r["seconds"] for r in runs]
        print(
            f"median {statistics.median(secs):.1f} s over {len(runs)} runs "
            f"(range {min(secs):.1f}–{max(secs):.1f}); bound {runs[0]['bound']:.1f} s; "
            f"median ratio {statistics.median(r['seconds'] / r['bound'] for r in runs):.2f}"
        )


if __name__ == "__main__":
    main()
