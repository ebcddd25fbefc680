"""Benchmark: memory of the long-running server and of an import.

    uv run --frozen python -m bench.memory serve [--db PATH] [--commands 600] [--fill]
    uv run --frozen python -m bench.memory import [--prs 50000 200000]

``serve``: the server's in-process host on a cache (by default the 200,000-PR one ``bench.run``
builds): the same ``CommandRunner`` and per-thread contexts ``prdigest serve`` uses (two command
threads, each with its own SQLite connection), set up like the server (``settle_heap``), answers a
mix of commands — digests of random ISO weeks of the last two years, ``risks`` of every kind, ``pr``
of random PRs, ``search`` — then reports the process's resident memory from ``/proc/self/status``:
``RssAnon`` is the heap (Python objects, SQLite's page caches and sorters; the target is
≤ 150 MB), ``RssFile`` the cache file's pages mapped by SQLite's memory-mapped reads (the OS page
cache, shared and reclaimable, not allocations), ``VmHWM`` the peak of the two together.
With ``--fill`` a thread with its own connection meanwhile stores the storylines of the closed
weeks the cache lacks, as ``serve``'s storyline fill does after start (unpaced here).

``import``: for each ``--prs`` count, writes that many generated PRs to a JSON Lines file and runs
``prdigest import`` on it into a fresh cache in a child process, sampling its ``RssAnon`` every 50 ms.
An import that streams has the same peak heap whatever the history's length.

Linux only (``/proc``). Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from array import array
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bench.generate import DEMO_END, DEMO_REPO, generate_history

NOW = DEMO_END + timedelta(hours=9)
KINDS = ("all", "core-path", "missing-tests", "breaking", "dependency", "large", "revert")
WORDS = (
    "FlashInfer",
    "tool parser",
    "MoE",
    "CUDA graph",
    "LoRA",
    "fix",
    "KV cache",
    "quantization",
    "DeepSeek",
)


def status_mb() -> dict[str, float]:
    """RssAnon, RssFile, VmRSS and VmHWM of this process, in MB."""
    text = Path("/proc/self/status").read_text(encoding="ascii")
    out = {}
    for key in ("RssAnon", "RssFile", "VmRSS", "VmHWM"):
        m = re.search(rf"^{key}:\s+(\d+) kB", text, re.M)
        out[key] = int(m.group(1)) / 1024 if m else float("nan")
    return out


# -- serve ----------------------------------------------------------------------------------------


def serve(db: Path, commands: int, seed: int, fill: bool = False) -> dict[str, Any]:
    from bot.config.runtime import settle_heap
    from bot.host.runner import CommandRunner
    from classify.rules import load_profile
    from commands.model import Invocation
    from commands.registry import Context, load_all
    from commands.render_text import render_text
    from storage.db import connect
    from storage.prs import PRStore

    profile = load_profile()

    def factory() -> Context:  # bot.host.serve.context_factory, with the bundled profile
        return Context(store=PRStore(connect(db)), profile=profile)

    load_all()
    start = status_mb()
    runner = CommandRunner(factory)
    lister = connect(db)  # the PR numbers to ask for: a compact array, so the bench adds ~1 MB of heap
    numbers = array(
        "i", (r[0] for r in lister.execute("SELECT number FROM prs WHERE repo = ?", (DEMO_REPO,)))
    )
    lister.close()
    latest = NOW - timedelta(days=7)
    weeks = [(latest - timedelta(weeks=k)).strftime("%G-W%V") for k in range(104)]
    rng = random.Random(seed)
    settle_heap()
    settled = status_mb()

    def invocation(i: int) -> Invocation:
        family = i % 4
        if family == 0:
            cmd, args = "digest", (rng.choice(weeks),)
        elif family == 1:
            cmd, args = "risks", (rng.choice(KINDS),)
        elif family == 2:
            cmd, args = "pr", (str(rng.choice(numbers)),)
        else:
            cmd, args = "search", tuple(rng.choice(WORDS).split())
        return Invocation(command=cmd, args=args, repo=DEMO_REPO, now=NOW)

    async def answer_all() -> list[float]:
        peaks = []
        for i in range(commands):
            reply = await runner.dispatch(invocation(i))
            if reply.status not in ("ok", "not_found") or not render_text(reply):
                raise SystemExit(f"bench: {reply.status}: {reply.title}")
            if i % 50 == 49:
                peaks.append(status_mb()["RssAnon"])
        return peaks

    filler = None
    filled: list[int] = []
    if fill:
        # what `prdigest serve`'s storyline fill does after start (bot.host.storyline_fill), unpaced: a
        # thread with its own connection finding the closed weeks' storylines the cache lacks,
        # while the commands are answered
        def fill_all() -> None:
            from commands.report.fill import closed_weeks
            from commands.report.fill import fill as fill_weeks

            ctx = factory()  # kept open, like the fill lane's thread and connection in serve
            weeks = closed_weeks(ctx.store, DEMO_REPO, ZoneInfo("UTC"), NOW)
            filled.append(len(fill_weeks(ctx.store, ctx.profile, DEMO_REPO, weeks, NOW)))
            filled_all.set()
            measured.wait()
            ctx.store.db.close()

        filled_all, measured = threading.Event(), threading.Event()
        filler = threading.Thread(target=fill_all, name="fill")
        filler.start()
    t0 = time.perf_counter()
    samples = asyncio.run(answer_all())
    if filler is not None:
        filled_all.wait()
    took = time.perf_counter() - t0
    after = status_mb()
    if filler is not None:
        measured.set()
        filler.join()
    runner.commands.close()
    runner.fetches.close()
    runner.health.close()
    return {
        "db": str(db),
        "commands": commands,
        "seconds": round(took, 1),
        "mb_at_start": {k: round(v, 1) for k, v in start.items()},
        "mb_settled": {k: round(v, 1) for k, v in settled.items()},
        "mb_after_commands": {k: round(v, 1) for k, v in after.items()},
        "heap_every_50_commands": [round(v, 1) for v in samples],
        "weeks_filled": filled[0] if filled else None,
    }


# -- import ---------------------------------------------------------------------------------------


def write_history(path: Path, prs: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for record in generate_history(prs, end=DEMO_END, repo=DEMO_REPO):
            fh.write(json.dumps(record, ensure_ascii=False, default=str))
            fh.write("\n")


def _child_import(records: Path, db: Path) -> None:
    """Run in a child: ``prdigest import``'s own code path, with the heap sampled meanwhile."""
    from bot.ingest.load import import_file
    from classify.rules import load_profile
    from storage.db import close, connect
    from storage.prs import PRStore

    peak = {"RssAnon": 0.0, "RssFile": 0.0}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            now = status_mb()
            for key in peak:
                peak[key] = max(peak[key], now[key])

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    t0 = time.perf_counter()
    store = PRStore(connect(db, create=True))
    result = import_file(store, load_profile(), records)
    close(store.db)
    done.set()
    sampler.join()
    final = status_mb()
    print(
        json.dumps(
            {
                "prs": result.total,
                "new": result.counts.new,
                "seconds": round(time.perf_counter() - t0, 1),
                "peak_heap_mb": round(max(peak["RssAnon"], final["RssAnon"]), 1),
                "peak_file_pages_mb": round(peak["RssFile"], 1),
                "peak_rss_mb": round(final["VmHWM"], 1),
            }
        )
    )


def imports(counts: list[int]) -> list[dict[str, Any]]:
    out = []
    work = Path(tempfile.mkdtemp(prefix="prdigest-membench-"))
    try:
        for n in counts:
            records = work / f"history-{n}.jsonl"
            t0 = time.perf_counter()
            write_history(records, n)
            print(
                f"wrote {n:,} PRs to {records} in {time.perf_counter() - t0:.0f}s",
                file=sys.stderr,
                flush=True,
            )
            db = work / f"cache-{n}.db"
            proc = subprocess.run(
                [sys.executable, "-m", "bench.memory", "_import", str(records), str(db)],
                capture_output=True,
                text=True,
                check=True,
                cwd=Path(__file__).resolve().parents[1],
            )
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            row["file_mb"] = round(records.stat().st_size / 1e6)
            row["load_average"] = round(os.getloadavg()[0], 2)
            print(json.dumps(row), flush=True)
            out.append(row)
            records.unlink()
            for p in work.glob(f"cache-{n}.db*"):
                p.unlink()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    s = sub.add_parser("serve", help="heap of the in-process server host after a mix of commands")
    s.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "prdigest-bench-200000.db")
    s.add_argument("--commands", type=int, default=600)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument(
        "--fill",
        action="store_true",
        help="meanwhile store the closed weeks' storylines the cache lacks, as serve does after start",
    )
    i = sub.add_parser("import", help="peak heap of `prdigest import` at several history lengths")
    i.add_argument("--prs", type=int, nargs="+", default=[50_000, 200_000])
    c = sub.add_parser("_import")  # the child of `import`
    c.add_argument("records", type=Path)
    c.add_argument("db", type=Path)
    args = parser.parse_args(argv)
    if not Path("/proc/self/status").exists():
        raise SystemExit("bench.memory reads /proc/self/status: Linux only")
    if args.what == "serve":
        if not args.db.exists():
            raise SystemExit(f"bench: {args.db} does not exist; build it with `python -m bench.run` first")
        print(json.dumps(serve(args.db, args.commands, args.seed, args.fill), indent=2))
    elif args.what == "import":
        imports(args.prs)
    else:
        _child_import(args.records, args.db)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
