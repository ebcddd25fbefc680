"""Benchmark: how long a one-shot ``prdigest`` command takes, against ``python -c pass``.

    uv run --frozen python -m bench.cli_start [--runs 20] [--venv .venv] [--db PATH]

A terminal user meets the CLI's start-up, not the microseconds of the query: the target is
a one-shot command within 10× of the bare interpreter of the same environment. Each command runs ``--runs`` times as a child process of the venv's own executables, the commands
interleaved round-robin so load from other jobs on the machine spreads over all of them; the
median wall time of each and its ratio to ``python -c pass`` are printed (and written as JSON
with ``--results``), and beside them the median CPU time (user + system) of the child: on a machine
shared with other jobs, waiting for a core inflates the wall time of every command alike, but
not the CPU each one spends.

The cache for ``pr`` is the bundled demo (``prdigest demo`` in a scratch directory) unless
``--db`` names one. Whether the venv holds compiled bytecode matters (a venv without it compiles
every module at each start when it cannot write ``__pycache__``, and once otherwise), so the
count of ``.pyc`` files in its site-packages is reported too. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DEMO_PR = "42121"  # a PR of the bundled demo week (the reference report's #42121)


def _env() -> dict[str, str]:
    """The user's environment without prdigest settings, so every command reads the given cache."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PRDIGEST_", "GITHUB_", "SLACK_", "DISCORD_"))
    }


def commands(venv: Path, db: Path) -> dict[str, list[str]]:
    python, exe = str(venv / "bin" / "python"), str(venv / "bin" / "prdigest")
    return {
        "python -c pass": [python, "-c", "pass"],
        "prdigest --help": [exe, "--help"],
        "prdigest help": [exe, "help"],
        f"prdigest pr {DEMO_PR}": [exe, "pr", DEMO_PR, "--db", str(db)],
        "prdigest risks": [exe, "risks", "--db", str(db)],
        "prdigest search": [exe, "search", "fp8", "--db", str(db)],
    }


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv`` (the CPU of the waited-for child alone)."""
    cpu = _cpu_of_children()
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=_env(), capture_output=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"bench: {' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()[-300:]}")
    return seconds, _cpu_of_children() - cpu


def _wall(argv: list[str], cwd: Path) -> float:
    return _run(argv, cwd)[0]


def pyc_files(venv: Path) -> int:
    return sum(1 for _ in venv.glob("lib/python*/site-packages/**/__pycache__/*.pyc"))


def own_pyc_files() -> int:
    """Compiled modules of prdigest's own packages beside their sources (an editable install:
    written at the first run, unless PYTHONDONTWRITEBYTECODE is set)."""
    root = Path(__file__).resolve().parent.parent
    return sum(
        1
        for pkg in ("bot", "commands", "storage", "classify")
        for _ in root.glob(f"{pkg}/**/__pycache__/*.pyc")
    )


def measure(venv: Path, db: Path, runs: int, cwd: Path) -> list[dict[str, Any]]:
    plan = commands(venv, db)
    for argv in plan.values():  # one untimed run each: the OS caches the files, __pycache__ is written
        _wall(argv, cwd)
    times: dict[str, list[float]] = {name: [] for name in plan}
    cpus: dict[str, list[float]] = {name: [] for name in plan}
    for _ in range(runs):
        for name, argv in plan.items():
            wall, cpu = _run(argv, cwd)
            times[name].append(wall)
            cpus[name].append(cpu)
    base = statistics.median(times["python -c pass"])
    base_cpu = statistics.median(cpus["python -c pass"]) or 1e-3  # a clock tick rounds to 0
    return [
        {
            "command": name,
            "runs": runs,
            "median_ms": round(statistics.median(ts) * 1000, 1),
            "min_ms": round(min(ts) * 1000, 1),
            "max_ms": round(max(ts) * 1000, 1),
            "ratio": round(statistics.median(ts) / base, 1),
            "cpu_median_ms": round(statistics.median(cpus[name]) * 1000, 1),
            "cpu_ratio": round(statistics.median(cpus[name]) / base_cpu, 1),
        }
        for name, ts in times.items()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cli_start", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs per command (default 20)")
    parser.add_argument(
        "--venv", type=Path, default=Path(sys.prefix), help="the environment (default: this one)"
    )
    parser.add_argument("--db", type=Path, default=None, help="cache for pr/risks (default: the demo cache)")
    parser.add_argument("--results", type=Path, default=None, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    venv = args.venv.resolve()
    with tempfile.TemporaryDirectory(prefix="prdigest-cli-start-") as tmp:
        cwd = Path(tmp)
        db = args.db
        if db is None:
            _wall([str(venv / "bin" / "prdigest"), "demo"], cwd)
            db = cwd / "prdigest-demo.db"
        rows = measure(venv, db.resolve(), args.runs, cwd)
    result = {
        "venv": str(venv),
        "pyc_files_in_site_packages": pyc_files(venv),
        "pyc_files_of_prdigest": own_pyc_files(),
        "dont_write_bytecode": bool(os.environ.get("PYTHONDONTWRITEBYTECODE")),
        "load": os.getloadavg(),
        "rows": rows,
    }
    print(
        f"{venv} ({result['pyc_files_in_site_packages']:,} .pyc files in site-packages, "
        f"{result['pyc_files_of_prdigest']} of prdigest's own modules"
        f"{', PYTHONDONTWRITEBYTECODE set' if result['dont_write_bytecode'] else ''}; load {result['load'][0]:.1f})"
    )
    print(f"{'command':<24}{'median ms':>11}{'min':>8}{'max':>8}{'× python':>10}{'CPU ms':>9}{'× CPU':>8}")
    for row in rows:
        print(
            f"{row['command']:<24}{row['median_ms']:>11.1f}{row['min_ms']:>8.1f}{row['max_ms']:>8.1f}"
            f"{row['ratio']:>10.1f}{row['cpu_median_ms']:>9.1f}{row['cpu_ratio']:>8.1f}"
        )
    if args.results:
        args.results.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
