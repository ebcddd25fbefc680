"""Benchmark: a 200,000-PR cache (about ten years of vLLM) and the latency of every command on it.

    uv run --frozen python -m bench.run [--prs 200000] [--db PATH] [--repeat 200] [--rebuild] [--only NAMES]

1. Build (or reuse) the cache: ``bench.generate.generate_history`` → classify with the default
   profile → ``PRStore.upsert``, the way ``prdigest import`` fills an empty cache: the full-text
   index built once at the end and merged (``storage.fts.built_after_a_first_import``), so it is
   one segment, as a user's cache is after its first import and after every later sync or import
   (they end with ``storage.fts.keep_merged``). A reused cache whose index has more segments than a write
   would leave (one built by an older benchmark, in 200 batches) is merged first, and the run says
   so. The database goes to /tmp unless ``--db`` says otherwise.
2. Time ``pr`` on random PRs with the cache file evicted from the OS page cache (first touches
   read the disk: what a bot sees for old PRs after a restart); informational, no target.
3. Read the cache file once (so the OS holds it, as it does for a bot that has been answering
   for a while), then time the full in-process path for each command: ``Invocation`` →
   ``commands.registry.dispatch`` → ``Reply`` → ``commands.render_text.render_text``, warm,
   ``--repeat`` runs each; print p50/p99.
   The process is set up as ``prdigest serve`` sets itself up (``bot.config.runtime.settle_heap``);
   ``--no-settle`` times CPython's default collector instead. Digests of random past weeks are
   timed twice: without stored storylines ("no cache": every digest computed, from the write-time
   aggregates, storylines found again) and, after a fill pass (what ``serve`` does in the
   background after it starts: every closed week's storylines stored in the cache,
   ``commands.report.fill.fill``; the pass is timed and reported), as a filled server answers
   them ("stored storylines"). The targets: p50 of ``pr``
   ≤ 1 ms, of ``risks``/``search`` ≤ 2 ms, of a week's ``digest`` ≤ 25 ms with p99 ≤ 50 ms.
4. Time ``reclassify`` over the whole cache: with the profile it was classified with (nothing to
   re-run), with a profile whose version differs (every row re-run and rewritten, the worst case),
   back, and unchanged again. A cache written by an older prdigest first gets one full run (its
   rows carry no profile hash yet), timed and labelled as such.
5. Report the cache size and peak RSS; write everything to ``bench/results.json``.

A command that misses its target is profiled with cProfile and the top functions are printed,
so the report says where the time goes. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import random
import re
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.generate import DEMO_END, DEMO_REPO, generate_history
from bot.config.runtime import settle_heap
from bot.ingest.load import reclassify
from classify.engine import classify
from classify.records import parse_pr
from classify.rules import PROFILES_DIR, Profile, load_profile
from classify.title_keys import ProfileTitleKeys
from commands.model import Invocation
from commands.registry import Context, dispatch, load_all
from commands.render_text import render_text
from storage import fts
from storage.db import connect
from storage.prs import PRStore

RESULTS = Path(__file__).resolve().parent / "results.json"
NOW = DEMO_END + timedelta(hours=9)  # Monday morning after the latest full week
# (p50, p99) targets in ms (None: no target for that percentile)
TARGETS_MS: dict[str, tuple[float, float | None]] = {
    "pr": (1.0, None),
    "risks": (2.0, None),
    "search": (2.0, None),
    "digest": (25.0, 50.0),
}
RECLASSIFY_TARGET_S = 30.0  # every row re-run
UNCHANGED_TARGET_S = 2.0  # nothing to re-run: the profile's content hash is on every row
SEARCH_WORDS = (
    "AutoWeightsLoader",
    "FlashInfer",
    "tool parser",
    "NIXL",
    "ROCm fp8",
    "speculative decoding",
    "MoE",
    "CUDA graph",
    "prefix caching",
    "Qwen3-Next",
    "DeepSeek",
    "LoRA",
    "structured output",
    "EAGLE",
    "AITER",
    "KV cache",
    "regression",
    "Mooncake",
    "quantization",
    "CPU attention",
    "fix",
    "tokenizer",
    "Gemma",
    "pipeline parallelism",
    "throughput",
)


def _rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    """Peak resident set size so far (ru_maxrss is KiB on Linux, bytes on macOS).

    ``RUSAGE_CHILDREN`` gives the largest of the finished child processes (reclassify's workers).
    """
    peak = resource.getrusage(who).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _anon_mb() -> float | None:
    """Resident anonymous memory now (heap and stacks, not memory-mapped cache pages); Linux only."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return None
    m = re.search(r"^RssAnon:\s+(\d+) kB", status, re.M)
    return int(m.group(1)) / 1024 if m else None


def _db_size(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists())


# -- build --------------------------------------------------------------------------------------


def build(path: Path, n_prs: int, profile: Profile) -> dict[str, Any]:
    """Generate, classify and store ``n_prs`` PRs; returns timings."""
    store = PRStore(connect(path, create=True), title_keys=ProfileTitleKeys(profile))
    started = time.perf_counter()
    t_gen = t_cls = 0.0

    def items() -> Any:
        nonlocal t_gen, t_cls
        gen = generate_history(n_prs, end=DEMO_END, repo=DEMO_REPO)
        done = 0
        while True:
            t0 = time.perf_counter()
            record = next(gen, None)
            if record is None:
                return
            pr = parse_pr(record)
            t1 = time.perf_counter()
            cls = classify(pr, profile)
            t2 = time.perf_counter()
            t_gen += t1 - t0
            t_cls += t2 - t1
            done += 1
            if done % 20_000 == 0:
                rate = done / (time.perf_counter() - started)
                print(f"  built {done:,}/{n_prs:,} ({rate:,.0f} PRs/s)", file=sys.stderr, flush=True)
            yield pr, cls

    with fts.built_after_a_first_import(store.db):  # as `prdigest import` into an empty cache
        counts = store.upsert(items(), batch=1000)
    total = time.perf_counter() - started
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.db.execute("ANALYZE")
    store.db.conn.close()
    return {
        "seconds": round(total, 1),
        "generate_s": round(t_gen, 1),
        "classify_s": round(t_cls, 1),
        "store_s": round(total - t_gen - t_cls, 1),
        "new": counts.new,
    }


def open_or_build(path: Path, n_prs: int, profile: Profile, rebuild: bool) -> dict[str, Any] | None:
    if path.exists() and not rebuild:
        try:
            have = PRStore(connect(path)).count()
        except Exception as exc:  # any problem: say so and stop, never delete
            raise SystemExit(f"bench: cannot reuse {path}: {exc}; pass --rebuild or another --db") from None
        if have == n_prs:
            print(f"reusing {path} ({have:,} PRs)", file=sys.stderr)
            _merge_like_a_write(path)
            return None
        raise SystemExit(f"bench: {path} holds {have:,} PRs, not {n_prs:,}; pass --rebuild or another --db")
    if path.exists():
        if not _is_bench_db(path):
            raise SystemExit(f"bench: {path} does not look like a benchmark cache; refusing to delete it")
        for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            p.unlink(missing_ok=True)
    print(f"building {path} with {n_prs:,} PRs …", file=sys.stderr, flush=True)
    return build(path, n_prs, profile)


def _merge_like_a_write(path: Path) -> None:
    """Leave a reused cache's full-text index as any write leaves a user's (``fts.keep_merged``)."""
    db = connect(path)
    try:
        before = fts.segments(db)
        started = time.perf_counter()
        if fts.keep_merged(db):
            print(
                f"  its full-text index had {before} segments: merged into {fts.segments(db)} "
                f"as a sync or import now leaves it ({time.perf_counter() - started:.1f} s)",
                file=sys.stderr,
            )
    finally:
        db.conn.close()


def _is_bench_db(path: Path) -> bool:
    """Only a prdigest cache holding nothing but the benchmark repository may be rebuilt."""
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            repos = [r[0] for r in conn.execute("SELECT DISTINCT repo FROM prs")]
    except sqlite3.Error:
        return False
    return repos in ([], [DEMO_REPO])


# -- latency ------------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    family: str  # pr | risks | search | digest (which target applies)
    make_args: Callable[[random.Random], tuple[str, ...]]
    warm: bool = True  # False: no warm-up runs, and the OS page cache starts empty
    cached: bool = True  # False: the digest is computed every time (no stored storylines)
    stored: bool = False  # True: closed weeks' storylines read from the cache (after a fill pass)


def _cache_files(path: Path) -> list[Path]:
    return [p for p in (path, Path(f"{path}-wal")) if p.exists()]


def evict_from_os_cache(path: Path) -> bool:
    """Drop the cache file's pages from the OS page cache (clean pages only; no root needed)."""
    if not hasattr(os, "posix_fadvise"):
        return False
    for p in _cache_files(path):
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return True


def read_into_os_cache(path: Path) -> float:
    """Read the cache file once, front to back; returns the seconds it took."""
    started = time.perf_counter()
    for p in _cache_files(path):
        with p.open("rb") as fh:
            while fh.read(1 << 22):
                pass
    return time.perf_counter() - started


def cases(numbers: list[int], weeks: list[str]) -> list[Case]:
    return [
        Case("digest week", "digest", lambda r: ("week",)),
        Case("digest last-week", "digest", lambda r: ("last-week",)),
        Case("digest YYYY-Www, no cache", "digest", lambda r: (r.choice(weeks),), cached=False),
        Case("digest YYYY-Www, stored storylines", "digest", lambda r: (r.choice(weeks),), stored=True),
        Case("risks all", "risks", lambda r: ("all",)),
        Case("risks core-path", "risks", lambda r: ("core-path",)),
        Case("pr NUMBER", "pr", lambda r: (str(r.choice(numbers)),)),
        Case("search WORDS", "search", lambda r: tuple(r.choice(SEARCH_WORDS).split())),
    ]


def fill_pass(store: PRStore, profile: Profile) -> dict[str, float | int]:
    """What ``serve`` does in the background after it starts: store the storylines of every
    closed week of the cache (``commands.report.fill.fill``), here in one go, timed."""
    from zoneinfo import ZoneInfo

    from commands.report.fill import closed_weeks, fill

    weeks = closed_weeks(store, DEMO_REPO, ZoneInfo("UTC"), NOW)
    print(f"storing the storylines of {len(weeks)} closed weeks …", file=sys.stderr, flush=True)
    started = time.perf_counter()
    found = len(fill(store, profile, DEMO_REPO, weeks, NOW))
    took = time.perf_counter() - started
    print(f"  {found} found and stored in {took:.1f} s", file=sys.stderr, flush=True)
    return {"weeks": len(weeks), "found": found, "seconds": round(took, 1)}


def run_case(ctx: Context, case: Case, repeat: int, rng: random.Random) -> dict[str, Any]:
    cpu: list[float] = []  # the thread's CPU time: on a shared machine, waiting for a core inflates wall time

    def once() -> float:
        inv = Invocation(command=case.name.split()[0], args=case.make_args(rng), repo=DEMO_REPO, now=NOW)
        t0, c0 = time.perf_counter(), time.thread_time()
        reply = dispatch(inv, ctx)
        text = render_text(reply)
        elapsed, cpu_s = time.perf_counter() - t0, time.thread_time() - c0
        if reply.status not in ("ok", "not_found") or not text:
            raise SystemExit(f"bench: {case.name} {inv.args} answered {reply.status}: {reply.title}")
        cpu.append(cpu_s * 1000)
        return elapsed * 1000

    for _ in range(5 if case.warm else 0):  # warm caches (SQLite pages, profile path cache, imports)
        once()
    cpu.clear()
    samples = sorted(once() for _ in range(repeat))
    p99 = samples[min(len(samples) - 1, max(0, round(0.99 * len(samples)) - 1))]
    p50 = statistics.median(samples)
    p50_target, p99_target = TARGETS_MS.get(case.family, (None, None)) if case.warm else (None, None)
    ok = None
    if p50_target is not None:
        ok = p50 <= p50_target and (p99_target is None or p99 <= p99_target)
    return {
        "command": case.name,
        "runs": repeat,
        "p50_ms": round(p50, 2),
        "p99_ms": round(p99, 2),
        "max_ms": round(samples[-1], 2),
        "cpu_p50_ms": round(statistics.median(cpu), 2),
        "target_p50_ms": p50_target,
        "target_p99_ms": p99_target,
        "ok": ok,
    }


def profile_case(ctx: Context, case: Case, runs: int = 30) -> str:
    """Where a slow command spends its time: top functions by cumulative time."""
    rng = random.Random(7)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(runs):
        inv = Invocation(command=case.name.split()[0], args=case.make_args(rng), repo=DEMO_REPO, now=NOW)
        render_text(dispatch(inv, ctx))
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(18)
    return out.getvalue()


# -- reclassify ---------------------------------------------------------------------------------


def _changed_profile(profile: Profile, workdir: Path) -> Profile | None:
    """The default profile with another version string: reclassify must then rewrite every row."""
    source = PROFILES_DIR / f"{profile.name}.toml"
    if not source.exists():
        return None
    text = source.read_text(encoding="utf-8")
    bumped, n = re.subn(r'(?m)^(version\s*=\s*")([^"]*)(")', r"\g<1>\g<2>-bench\g<3>", text, count=1)
    if not n:
        return None
    target = workdir / f"{profile.name}.toml"
    target.write_text(bumped, encoding="utf-8")
    return load_profile(target)


def time_reclassify(path: Path, profile: Profile) -> list[dict[str, Any]]:
    out = []
    store = PRStore(connect(path))
    with tempfile.TemporaryDirectory(prefix="prdigest-bench-") as tmp:
        changed = _changed_profile(profile, Path(tmp))
        plan: list[tuple[str, Profile, float]] = []
        if store.count_other_profile(None, profile.content_hash):
            # A cache built by an older prdigest (or another profile): its rows carry no hash of
            # this profile's content yet, so the first run classifies every row once.
            plan.append(("first run on rows without this profile's hash", profile, RECLASSIFY_TARGET_S))
        plan.append(("unchanged profile", profile, UNCHANGED_TARGET_S))
        if changed is not None:
            plan += [
                ("new profile version (every row rewritten)", changed, RECLASSIFY_TARGET_S),
                ("back to the default profile", profile, RECLASSIFY_TARGET_S),
                ("unchanged profile, again", profile, UNCHANGED_TARGET_S),
            ]
        for label, prof, target in plan:
            result = reclassify(store, prof)
            out.append(
                {
                    "case": label,
                    "prs": result.total,
                    "classified": result.classified,
                    "changed": result.changed,
                    "seconds": round(result.seconds, 3),
                    "workers": result.workers,
                    "target_s": target,
                    "ok": result.seconds <= target,
                }
            )
            print(
                f"  reclassify ({label}): {result.total:,} PRs, {result.classified:,} re-run, "
                f"{result.changed:,} changed, {result.seconds:.3f}s",
                file=sys.stderr,
                flush=True,
            )
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.db.conn.close()
    return out


# -- main ---------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.splitlines()[0])
    parser.add_argument("--prs", type=int, default=200_000, help="PRs in the cache (default 200,000)")
    parser.add_argument("--db", type=Path, default=None, help="cache file (default /tmp/prdigest-bench-N.db)")
    parser.add_argument("--repeat", type=int, default=200, help="timed runs per command (default 200)")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cache even if it exists")
    parser.add_argument("--skip-reclassify", action="store_true")
    parser.add_argument(
        "--no-settle",
        action="store_true",
        help="keep CPython's default GC (no gc.freeze, default thresholds)",
    )
    parser.add_argument("--results", type=Path, default=RESULTS, help="where to write the JSON results")
    parser.add_argument("--seed", type=int, default=1, help="seed for the random PR numbers, weeks and words")
    parser.add_argument(
        "--only",
        default=None,
        help="time only these commands, names as printed separated by commas without a space (e.g. "
        '"risks core-path,search WORDS,digest YYYY-Www, no cache")',
    )
    args = parser.parse_args(argv)
    path: Path = args.db or Path(tempfile.gettempdir()) / f"prdigest-bench-{args.prs}.db"

    profile = load_profile()
    built = open_or_build(path, args.prs, profile, args.rebuild)
    rss_build = _rss_mb()

    store = PRStore(connect(path), title_keys=ProfileTitleKeys(profile))
    counted = time.perf_counter()
    store.count_title_topics()  # a cache from before the aggregates: what `prdigest reclassify` does
    counted_s = time.perf_counter() - counted
    # as serve answers a week its fill has not reached: the digest cache only
    ctx = Context(store=store, profile=profile)  # as serve answers: closed periods' storylines stored
    plain = Context(store=store, profile=profile, stored_storylines=False)
    numbers = [int(r[0]) for r in store.db.execute("SELECT number FROM prs WHERE repo = ?", (DEMO_REPO,))]
    latest = NOW - timedelta(days=7)
    weeks = sorted({(latest - timedelta(weeks=k)).strftime("%G-W%V") for k in range(0, 104)})
    rng = random.Random(args.seed)
    load_all()
    if not args.no_settle:
        settle_heap()
    latencies = []
    slow: dict[str, str] = {}
    # a comma followed by a space is part of a name ("digest YYYY-Www, no cache")
    only = set(re.split(r",(?! )", args.only)) if args.only else None
    cold = Case("pr NUMBER, cold", "pr", lambda r: (str(r.choice(numbers)),), warm=False)
    if (only is None or cold.name in only) and evict_from_os_cache(path):
        print("timing pr with the cache file out of the OS page cache …", file=sys.stderr, flush=True)
        latencies.append(run_case(ctx, cold, args.repeat, rng))
    warmed_s = read_into_os_cache(path)
    print(
        f"read the cache file in {warmed_s:.1f} s; timing {args.repeat} runs per command …", file=sys.stderr
    )
    fill_s: dict[str, float | int] = {}
    for case in (c for c in cases(numbers, weeks) if only is None or c.name in only):
        if case.stored and not fill_s:
            fill_s = fill_pass(store, profile)
        chosen = ctx if case.cached else plain
        row = run_case(chosen, case, args.repeat, rng)
        latencies.append(row)
        if row["ok"] is False:
            slow[case.name] = profile_case(chosen, case)
    anon_queries = _anon_mb()
    store.db.conn.close()
    rss_queries = _rss_mb()

    recl = [] if args.skip_reclassify else time_reclassify(path, profile)
    results = {
        "when": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
        "prs": args.prs,
        "settled_heap": not args.no_settle,
        "cache_file_read_s": round(warmed_s, 1),
        "storyline_fill": fill_s,
        "title_topics_counted_s": round(counted_s, 1),
        "db": str(path),
        "db_bytes": _db_size(path),
        "build": built,
        "peak_rss_mb": {
            "after_build": round(rss_build, 1),
            "after_queries": round(rss_queries, 1),
            "anonymous_after_queries": None if anon_queries is None else round(anon_queries, 1),
            "after_reclassify": round(_rss_mb(), 1),
            "largest_child": round(_rss_mb(resource.RUSAGE_CHILDREN), 1),
        },
        "latency": latencies,
        "reclassify": recl,
        "profiles_of_slow_commands": slow,
    }
    args.results.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(table(results))
    for name, text in slow.items():
        print(f"\n--- profile of {name} (missed its target) ---\n{text}")
    return 0


def table(res: dict[str, Any]) -> str:
    lines = [f"prdigest benchmark: {res['prs']:,} PRs, cache {res['db_bytes'] / 1e6:,.0f} MB ({res['db']})"]
    if res["build"]:
        b = res["build"]
        lines.append(
            f"build: {b['seconds']:.0f} s (generate {b['generate_s']:.0f} s, "
            f"classify {b['classify_s']:.0f} s, store {b['store_s']:.0f} s)"
        )
    lines.append("")
    lines.append(
        f"{'command':<28}{'runs':>6}{'p50 ms':>10}{'p99 ms':>10}{'CPU p50':>10}{'target p50/p99':>16}  ok"
    )
    for row in res["latency"]:
        p50_target, p99_target, ok = row.get("target_p50_ms"), row.get("target_p99_ms"), row["ok"]
        target = (
            "—"
            if p50_target is None
            else f"{p50_target:g}/{'—' if p99_target is None else f'{p99_target:g}'}"
        )
        lines.append(
            f"{row['command']:<28}{row['runs']:>6}{row['p50_ms']:>10.2f}{row['p99_ms']:>10.2f}"
            f"{row.get('cpu_p50_ms', float('nan')):>10.2f}{target:>16}"
            + ("" if ok is None else f"  {'yes' if ok else 'NO'}")
        )
    for row in res["reclassify"]:
        lines.append(
            f"reclassify, {row['case']}: {row['prs']:,} PRs in {row['seconds']:.3g} s "
            f"({row['classified']:,} re-run, {row['changed']:,} changed; "
            f"target {row['target_s']:.0f} s: {'yes' if row['ok'] else 'NO'})"
        )
    rss = res["peak_rss_mb"]
    if rss.get("anonymous_after_queries") is not None:
        lines.append(
            f"heap (anonymous resident memory) after the queries: {rss['anonymous_after_queries']:.0f} MB"
        )
    lines.append(
        f"peak RSS: {rss['after_build']:.0f} MB after build, {rss['after_queries']:.0f} MB after queries, "
        f"{rss['after_reclassify']:.0f} MB at the end (largest child process {rss['largest_child']:.0f} MB)"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
