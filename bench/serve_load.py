"""Benchmark: `prdigest serve` under load and abuse (issue 10's figures).

    uv run --frozen python -m bench.serve_load [--burst 200] [--slow 1000,5000]

The real executable runs as its own process (``prdigest serve`` on 127.0.0.1, the demo cache,
the loopback fake of Slack for the Web API and the response_urls); this process is the crowd:

* **burst during a write** — ``--burst`` signed slash commands sent at the same moment (one
  asyncio client, all five commands round robin) while ``prdigest reclassify`` rewrites every
  row of the same cache (a different profile): each request's acknowledgement time (Slack wants
  it within 3 s) and the time until its answer reached the response_url, median and worst;
* **slow headers** — N connections that send half a request head and stop (held open from this
  process), then 20 ``/healthz`` requests and 5 signed commands, one after another: median and
  worst round trip, and what ``/healthz`` reports about connections (cap, evicted).

Not a test: nothing asserts; it prints figures. The machine is shared, so quote medians.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.demo import DEMO_LATEST_WEEK, DEMO_REPO, demo_data_path  # noqa: E402
from tests.fakes.slack import BOT_TOKEN, SIGNING_SECRET, FakeSlack, signed_headers, slash_body  # noqa: E402
from tests.fakes.sockets import close_all, slow_headers  # noqa: E402

EXE = Path(sys.executable).parent / "prdigest"
COMMANDS = [
    ("/digest", DEMO_LATEST_WEEK),
    ("/risks", f"core-path {DEMO_LATEST_WEEK}"),
    ("/search", "kernel"),
    ("/pr", "40104"),
    ("/help", ""),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env_for(slack: FakeSlack, db: Path, port: int, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRDIGEST_", "GITHUB_", "SLACK_"))}
    env.update(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SIGNING_SECRET,
        PRDIGEST_SLACK_API_URL=slack.api_url,
        PRDIGEST_DB=str(db),
        PRDIGEST_PORT=str(port),
        PRDIGEST_REPO=DEMO_REPO,
        **extra,
    )
    return env


def start_server(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [str(EXE), "serve", "--host", "127.0.0.1"], env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb")
    )
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"prdigest serve did not start: {log.read_text()[-2000:]}")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


async def burst(url: str, slack: FakeSlack, size: int) -> tuple[list[float], list[float], int]:
    limits = httpx.Limits(max_connections=size, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        ready = asyncio.Event()

        async def one(i: int) -> tuple[float, str, float, int]:
            command, text = COMMANDS[i % len(COMMANDS)]
            key = uuid.uuid4().hex
            body = slash_body(command, text, slack.response_url(key))
            headers = signed_headers(body)
            await ready.wait()
            sent = time.monotonic()
            resp = await client.post(url, content=body, headers=headers)
            return time.monotonic() - sent, key, sent, resp.status_code

        tasks = [asyncio.create_task(one(i)) for i in range(size)]
        await asyncio.sleep(0.2)
        ready.set()
        results = await asyncio.gather(*tasks)
    acks = [r[0] for r in results]
    answers = []
    for _, key, sent, _ in results:
        posted = await asyncio.to_thread(slack.wait_posted, key, 1, 120)
        answers.append(posted[0].at - sent if posted else float("inf"))
    failed = sum(1 for r in results if r[3] != 200)
    return acks, answers, failed


def burst_during_write(tmp: Path, slack: FakeSlack, db: Path, size: int) -> None:
    work = tmp / "burst.db"
    shutil.copy(db, work)
    port = free_port()
    log = tmp / "serve-burst.log"
    server = start_server(env_for(slack, work, port), port, log)
    try:
        writer = subprocess.Popen(
            [str(EXE), "reclassify", "--db", str(work), "--workers", "1"],
            env={**env_for(slack, work, port), "PRDIGEST_PROFILE": "generic"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        time.sleep(0.3)  # the writer has opened its transaction
        writing = writer.poll() is None
        acks, answers, failed = asyncio.run(burst(f"http://127.0.0.1:{port}/slack/events", slack, size))
        still = writer.poll() is None
        _, err = writer.communicate(timeout=300)
    finally:
        server.terminate()
        server.wait(30)
    within = sum(1 for a in acks if a <= 3.0)
    print(
        f"burst of {size} signed commands during `reclassify` (writing at start: {writing}, "
        f"still writing after the acks: {still}, writer exit {writer.returncode}{' ' + err.decode()[-200:] if writer.returncode else ''}):"
    )
    print(
        f"  acknowledged within 3 s: {within}/{size} (non-200: {failed}); ack median {ms(statistics.median(acks))}, "
        f"worst {ms(max(acks))}"
    )
    print(f"  answer median {ms(statistics.median(answers))}, worst {ms(max(answers))}")


def slow_header_figures(tmp: Path, slack: FakeSlack, db: Path, counts: list[int]) -> None:
    port = free_port()
    log = tmp / "serve-slow.log"
    server = start_server(env_for(slack, db, port), port, log)
    try:
        print("slow-header connections held open · /healthz ×20 and a signed /risks ×5, one at a time:")
        for count in counts:
            socks = slow_headers(port, count) if count else []
            try:
                health_times, command_times = [], []
                state: dict[str, object] = {}
                with httpx.Client(timeout=60) as client:
                    for _ in range(20):
                        started = time.perf_counter()
                        resp = client.get(f"http://127.0.0.1:{port}/healthz")
                        health_times.append(time.perf_counter() - started)
                        state = resp.json()["http"]
                    for _ in range(5):
                        key = uuid.uuid4().hex
                        body = slash_body("/risks", f"core-path {DEMO_LATEST_WEEK}", slack.response_url(key))
                        started = time.perf_counter()
                        client.post(
                            f"http://127.0.0.1:{port}/slack/events",
                            content=body,
                            headers=signed_headers(body),
                        )
                        command_times.append(time.perf_counter() - started)
            finally:
                close_all(socks)
            print(
                f"  {count:>5} open: /healthz median {ms(statistics.median(health_times))}, worst "
                f"{ms(max(health_times))}; command ack median {ms(statistics.median(command_times))}, "
                f"worst {ms(max(command_times))}; server: {state.get('connections')} connections, "
                f"cap {state.get('connection_cap')}, evicted {state.get('evicted')}"
            )
            time.sleep(0.5)
    finally:
        server.terminate()
        server.wait(30)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--burst", type=int, default=200)
    parser.add_argument("--slow", default="0,1000,5000", help="slow-header connection counts")
    parser.add_argument("--extra-weeks", type=int, default=10, help="weeks of 1,000 generated PRs added")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp_name, FakeSlack() as slack:
        tmp = Path(tmp_name)
        db = tmp / "demo.db"
        done = subprocess.run(
            [str(EXE), "import", str(demo_data_path()), "--db", str(db)], capture_output=True, check=False
        )
        if done.returncode:
            raise SystemExit(done.stderr.decode())
        if args.extra_weeks:  # a bigger cache, so that the write lasts through the burst
            extra = tmp / "extra.jsonl.gz"
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "bench.generate",
                    "--out",
                    str(extra),
                    "--weeks",
                    str(args.extra_weeks),
                    "--per-week",
                    "1000",
                    "--seed",
                    "11",
                ],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
            subprocess.run([str(EXE), "import", str(extra), "--db", str(db)], check=True, capture_output=True)
        with sqlite3.connect(db) as conn:
            total = conn.execute("SELECT count(*) FROM prs").fetchone()[0]
        print(f"cache: {total} PRs; prdigest serve as its own process on 127.0.0.1")
        burst_during_write(tmp, slack, db, args.burst)
        slow_header_figures(tmp, slack, db, [int(c) for c in args.slow.split(",") if c.strip()])


if __name__ == "__main__":
    main()
