"""Benchmark: `prdigest serve` under load and abuse.

    uv run --frozen python -m bench.serve_load [--burst 200] [--slow 1000,5000]

The real executable runs as its own process (``prdigest serve`` on 127.0.0.1, the demo cache,
the loopback fake of Slack for the Web API and the response_urls); this process is the crowd:

* **burst during a write** — ``--burst`` signed slash commands sent at the same moment (one
  asyncio client, all five commands round robin) while ``prdigest reclassify`` rewrites every
  row of the same cache, run after run (the profile alternating) until the last answer is in:
  each request's acknowledgement time (Slack wants it within 3 s) and the time until its answer
  reached the response_url, median and worst;
* **slow headers** — N connections that send half a request head and stop (held open from this
  process), then 20 ``/healthz`` requests and 5 signed commands, one after another: median and
  worst round trip, and what ``/healthz`` reports about connections (cap, evicted).

``BENCH_SERVER_SOURCE=/path/to/other/checkout`` runs the server and the writer from that code
instead (for a before/after comparison). Not a test: nothing asserts; it prints figures. The
machine is shared, so quote medians.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.ingest.demo import DEMO_LATEST_WEEK, DEMO_REPO, demo_data_path  # noqa: E402
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
    if os.environ.get("BENCH_SERVER_SOURCE"):  # another checkout's code, e.g. the code before a change
        env["PYTHONPATH"] = os.environ["BENCH_SERVER_SOURCE"]
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


def start_server(
    env: dict[str, str], port: int, log: Path, nofile: int | None = None
) -> subprocess.Popen[bytes]:
    """``prdigest serve`` on 127.0.0.1:port; ``nofile`` lowers its open-file limit (a small VM)."""

    def limit() -> None:
        if nofile:
            _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))

    proc = subprocess.Popen(
        [str(EXE), "serve", "--host", "127.0.0.1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
        preexec_fn=limit,
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


class Writer:
    """``prdigest reclassify`` over the whole cache, again and again (the profile alternating, so
    every run rewrites every row) until stopped: the burst runs beside a write from start to end."""

    def __init__(self, db: Path, env: dict[str, str]) -> None:
        self.db, self.env = db, env
        self.runs: list[tuple[float, float, int]] = []  # (start, end, exit code)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        profiles = ["generic", "vllm"]
        while not self._stop.is_set():
            env = {**self.env, "PRDIGEST_PROFILE": profiles[len(self.runs) % 2]}
            started = time.monotonic()
            done = subprocess.run(
                [str(EXE), "reclassify", "--db", str(self.db), "--workers", "1"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
            self.runs.append((started, time.monotonic(), done.returncode))

    def __enter__(self) -> Writer:
        self._thread.start()
        time.sleep(0.5)  # the first run has begun writing
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(600)


def burst_during_write(tmp: Path, slack: FakeSlack, db: Path, size: int) -> None:
    work = tmp / "burst.db"
    shutil.copy(db, work)
    port = free_port()
    log = tmp / "serve-burst.log"
    env = env_for(slack, work, port)
    server = start_server(env, port, log)
    try:
        with Writer(work, env) as writer:
            began = time.monotonic()
            acks, answers, failed = asyncio.run(burst(f"http://127.0.0.1:{port}/slack/events", slack, size))
            ended = time.monotonic()
    finally:
        server.terminate()
        server.wait(30)
    covered = any(start <= began for start, _, _ in writer.runs) and writer.runs[-1][1] >= ended
    codes = sorted({code for _, _, code in writer.runs})
    within = sum(1 for a in acks if a <= 3.0)
    print(
        f"burst of {size} signed commands while `reclassify` rewrote every row "
        f"({len(writer.runs)} runs back to back, exit codes {codes}, writing from the first request to "
        f"the last answer: {covered}):"
    )
    print(
        f"  acknowledged within 3 s: {within}/{size} (non-200: {failed}); ack median "
        f"{ms(statistics.median(acks))}, worst {ms(max(acks))}"
    )
    print(f"  answer median {ms(statistics.median(answers))}, worst {ms(max(answers))}")


def _timed(call: Callable[[], object]) -> float | None:
    """Seconds ``call`` took, or None when it failed or timed out (no answer)."""
    started = time.perf_counter()
    try:
        call()
    except httpx.HTTPError:
        return None
    return time.perf_counter() - started


def _summary(times: list[float | None]) -> str:
    done = [t for t in times if t is not None]
    if not done:
        return f"no answer ({len(times)} tries, {TIMEOUT:.0f} s each)"
    lost = f", {len(times) - len(done)} unanswered" if len(done) < len(times) else ""
    return f"median {ms(statistics.median(done))}, worst {ms(max(done))}{lost}"


TIMEOUT = 10.0


def open_slow(port: int, count: int) -> list[socket.socket]:
    """Up to ``count`` slow-header connections; stops at the first that the server does not
    accept within 2 s (its backlog full: the server is no longer accepting)."""
    socks: list[socket.socket] = []
    for _ in range(count):
        try:
            socks += slow_headers(port, 1, timeout=2.0)
        except OSError:
            break
    return socks


def slow_header_figures(
    tmp: Path, slack: FakeSlack, db: Path, counts: list[int], nofile: int | None = None
) -> None:
    port = free_port()
    log = tmp / "serve-slow.log"
    server = start_server(env_for(slack, db, port), port, log, nofile)
    url = f"http://127.0.0.1:{port}"
    try:
        limit = f" (server's open-file limit {nofile})" if nofile else ""
        print(f"slow-header connections opened{limit} · /healthz ×20 and a signed /risks ×5, one at a time:")
        for count in counts:
            socks = open_slow(port, count)
            state: dict[str, object] = {}
            try:
                with httpx.Client(timeout=TIMEOUT) as client:

                    def health(state: dict[str, object] = state) -> None:
                        state.update(client.get(f"{url}/healthz").json().get("http", {}))

                    def command() -> None:
                        key = uuid.uuid4().hex
                        body = slash_body("/risks", f"core-path {DEMO_LATEST_WEEK}", slack.response_url(key))
                        client.post(f"{url}/slack/events", content=body, headers=signed_headers(body))

                    health_times = [_timed(health) for _ in range(20)]
                    command_times = [_timed(command) for _ in range(5 if health_times[-1] is not None else 1)]
            finally:
                close_all(socks)
            server_side = (
                f"; server: {state.get('connections')} connections, cap {state.get('connection_cap')}, "
                f"evicted {state.get('evicted')}"
                if state
                else ""
            )
            print(
                f"  {len(socks):>5}/{count} opened: /healthz {_summary(health_times)}; command ack "
                f"{_summary(command_times)}{server_side}"
            )
            time.sleep(1.0)
    finally:
        server.terminate()
        server.wait(30)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--burst", type=int, default=200)
    parser.add_argument("--slow", default="0,1000,5000", help="slow-header connection counts")
    parser.add_argument("--extra-weeks", type=int, default=10, help="weeks of 1,000 generated PRs added")
    parser.add_argument("--server-nofile", type=int, default=None, help="the server's open-file limit")
    parser.add_argument("--no-burst", action="store_true", help="only the slow-header figures")
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
        if not args.no_burst:
            burst_during_write(tmp, slack, db, args.burst)
        counts = [int(c) for c in args.slow.split(",") if c.strip()]
        if counts:
            slow_header_figures(tmp, slack, db, counts, args.server_nofile)


if __name__ == "__main__":
    main()
