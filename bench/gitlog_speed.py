"""Benchmark: import 5,000 merged PRs from a local clone (``prdigest sync --git``).

Builds a synthetic vLLM-like repository with ``git fast-import`` — 5,000 PRs on main's
first-parent line (70% squash merges "Title (#N)", 30% merge commits "Merge pull request #N from
…" with a side branch), a few hundred direct commits, renames, deletions and binary files, in a tree
of ~2,500 source files of 100–400 lines — then times

  1. the git walk alone (``bot.ingest.gitlog.iter_merged_prs``: one ``git log`` process, parsed as it streams);
  2. side by side, ``--runs`` times: the bare ``git log --first-parent -m --raw --numstat -z`` an
     import runs (output discarded: the floor), then the whole import (``bot.ingest.sync.sync_git``: walk +
     classification with the vllm profile + SQLite upserts in batches of 500) into a fresh cache file;
     the ratio of the two is what prdigest adds to git's own work.

Targets: 5,000 merge commits in ≤ 15 s; the import ≤ 1.3× the bare git log.
``--clone PATH`` times an existing clone instead of the synthetic one.

    uv run --frozen python bench/gitlog_speed.py [--prs 5000] [--runs 3] [--keep DIR] [--clone PATH]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.ingest.gitlog import GitLogStats, git_command, head_commit, iter_merged_prs, log_args  # noqa: E402
from bot.ingest.sync import classifier_for, sync_git  # noqa: E402
from classify.rules import load_profile  # noqa: E402
from storage.db import connect  # noqa: E402
from storage.prs import PRStore  # noqa: E402

REPO = "vllm-project/vllm"
DIRS = [
    "vllm/model_executor/models",
    "vllm/model_executor/layers",
    "vllm/v1/core",
    "vllm/v1/engine",
    "vllm/attention/backends",
    "vllm/entrypoints/openai",
    "vllm/distributed",
    "csrc/attention",
    "csrc/quantization",
    "tests/models",
    "tests/v1",
    "docs/features",
    "benchmarks",
    ".buildkite",
]
TAGS = [
    "[Kernel]",
    "[Core]",
    "[Model]",
    "[Bugfix]",
    "[Doc]",
    "[CI]",
    "[Frontend]",
    "[V1]",
    "[Perf]",
    "[Misc]",
]
WORDS = [
    "fix",
    "add",
    "support",
    "improve",
    "refactor",
    "remove",
    "cache",
    "attention",
    "scheduler",
    "kernel",
    "quantization",
    "spec",
    "decode",
]


def _lines(rng: random.Random, n: int) -> list[str]:
    return [f"value_{rng.randrange(10**6)} = compute({i}, {rng.random():.6f})\n" for i in range(n)]


def _data(text: bytes) -> bytes:
    return b"data %d\n" % len(text) + text + b"\n"


def build_repo(path: Path, prs: int, seed: int = 1) -> None:
    """Write the synthetic history with one ``git fast-import`` stream."""
    rng = random.Random(seed)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    files: dict[str, list[str]] = {}
    for i in range(2500):
        d = DIRS[i % len(DIRS)]
        ext = ".cu" if d.startswith("csrc") else ".md" if d.startswith("docs") else ".py"
        files[f"{d}/file_{i}{ext}"] = _lines(rng, rng.randint(100, 400))
    out = bytearray()
    when = 1_700_000_000
    mark = 0

    def commit(
        ref: str,
        author: str,
        email: str,
        message: str,
        ops: bytes,
        merge: int | None = None,
        parent: int | None = None,
    ) -> int:
        nonlocal mark, when
        mark += 1
        when += rng.randint(60, 3600)
        out.extend(b"commit %s\nmark :%d\n" % (ref.encode(), mark))
        out.extend(f"author {author} <{email}> {when - 3600} +0000\n".encode())
        out.extend(f"committer GitHub <noreply@github.com> {when} +0000\n".encode())
        out.extend(_data(message.encode()))
        if parent is not None:
            out.extend(b"from :%d\n" % parent)
        if merge is not None:
            out.extend(b"merge :%d\n" % merge)
        out.extend(ops)
        return mark

    initial = b"".join(
        b"M 100644 inline %s\n" % p.encode() + _data("".join(c).encode()) for p, c in files.items()
    )
    main = commit("refs/heads/main", "Init", "init@example.com", "Initial import\n", initial)

    def change_ops(n_files: int) -> bytes:
        ops = bytearray()
        for _ in range(n_files):
            roll = rng.random()
            path = rng.choice(list(files))
            if roll < 0.06:  # new file
                new = f"{rng.choice(DIRS)}/new_{rng.randrange(10**9)}.py"
                files[new] = _lines(rng, rng.randint(20, 200))
                ops += b"M 100644 inline %s\n" % new.encode() + _data("".join(files[new]).encode())
            elif roll < 0.09 and len(files) > 500:  # deletion
                del files[path]
                ops += b"D %s\n" % path.encode()
            elif roll < 0.11:  # rename with a small edit
                content = files.pop(path)
                new = path.rsplit("/", 1)[0] + f"/renamed_{rng.randrange(10**9)}.py"
                content[rng.randrange(len(content))] = "# renamed\n"
                files[new] = content
                ops += b"D %s\n" % path.encode()
                ops += b"M 100644 inline %s\n" % new.encode() + _data("".join(content).encode())
            elif roll < 0.13:  # binary asset
                blob = rng.randbytes(2048)
                ops += b"M 100644 inline assets/img_%d.png\n" % rng.randrange(300) + _data(blob)
            else:  # edit a few lines
                content = files[path]
                for _ in range(rng.randint(1, 12)):
                    at = rng.randrange(len(content))
                    if rng.random() < 0.5:
                        content[at] = f"changed_{rng.randrange(10**6)} = {rng.random():.4f}\n"
                    else:
                        content.insert(at, f"added_{rng.randrange(10**6)} = True\n")
                ops += b"M 100644 inline %s\n" % path.encode() + _data("".join(content).encode())
        return bytes(ops)

    number = 1000
    for _ in range(prs):
        number += rng.randint(1, 3)
        title = f"{rng.choice(TAGS)} {' '.join(rng.choice(WORDS) for _ in range(rng.randint(3, 8)))}"
        body = (
            f"## Purpose\n\nThis PR {rng.choice(WORDS)}s things.\n\n## Test Plan\n\npytest tests/\n\n"
            f"Signed-off-by: Dev {number % 97} <dev{number % 97}@example.com>\n"
        )
        user = f"dev{number % 211}"
        n_files = rng.choice([1, 1, 2, 2, 3, 4, 5, 8, 13, 30])
        if rng.random() < 0.04:  # a direct commit, not a PR
            main = commit(
                "refs/heads/main",
                "Maint",
                "maint@example.com",
                f"Bump version {number}\n",
                change_ops(1),
                parent=main,
            )
        if rng.random() < 0.7:
            main = commit(
                "refs/heads/main",
                user,
                f"{number}+{user}@users.noreply.github.com",
                f"{title} (#{number})\n\n{body}",
                change_ops(n_files),
                parent=main,
            )
        else:
            side = commit(
                "refs/heads/side",
                user,
                f"{user}@example.com",
                f"wip {title}\n",
                change_ops(n_files),
                parent=main,
            )
            main = commit(
                "refs/heads/main",
                "Merger",
                "merger@example.com",
                f"Merge pull request #{number} from {user}/topic-{number}\n\n{title}\n\n{body}",
                b"",
                parent=main,
                merge=side,
            )
    out.extend(b"done\n")
    subprocess.run(["git", "-C", str(path), "fast-import", "--quiet", "--done"], input=bytes(out), check=True)
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "-f", "main"], check=True)
    subprocess.run(["git", "-C", str(path), "branch", "-q", "-D", "side"], check=False)


def _cpu() -> float:
    """CPU seconds used so far by this process and its finished children (git)."""
    return sum(_cpu_split())


def _cpu_split() -> tuple[float, float]:
    """(this process, its finished children: git) CPU seconds so far."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def bare_git_log(repo: Path) -> float:
    """Wall seconds of the very ``git log`` an import runs, its output thrown away: the floor."""
    cmd = git_command(repo, log_args(head_commit(repo)))
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def full_import(repo: Path, work: Path, run: int) -> tuple[float, float, float, int]:
    """(wall s, CPU s of Python, CPU s of git, PRs) of ``sync_git`` into a fresh cache file."""
    classifier = classifier_for(load_profile("vllm"))
    store = PRStore(connect(work / f"cache-{run}.db", create=True))
    (py0, git0), t0 = _cpu_split(), time.perf_counter()
    report = sync_git(store, classifier, repo, REPO)
    wall, (py1, git1) = time.perf_counter() - t0, _cpu_split()
    store.db.close()
    return wall, py1 - py0, git1 - git0, report.fetched


def _spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f}s (range {min(values):.2f}–{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prs", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3, help="side-by-side rounds (default 3)")
    parser.add_argument("--keep", type=Path, default=None, help="build the repository here and keep it")
    parser.add_argument(
        "--clone", type=Path, default=None, help="time this existing clone instead of building one"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="prdigest-gitbench-"))
    repo = args.clone or args.keep or work / "clone"
    try:
        t0 = time.perf_counter()
        if not (repo / ".git").exists() and args.clone is None:
            build_repo(repo, args.prs)
            print(f"built {repo} in {time.perf_counter() - t0:.1f}s")

        print(
            f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} "
            "(other work on the machine inflates wall times; CPU seconds are shown too)"
        )
        stats = GitLogStats()
        c0, t0 = _cpu(), time.perf_counter()
        count = sum(1 for _ in iter_merged_prs(repo, REPO, stats=stats))
        walk = time.perf_counter() - t0
        print(
            f"git walk: {count} PRs from {stats.commits} first-parent commits "
            f"({stats.skipped} non-PR skipped) in {walk:.2f}s wall, {_cpu() - c0:.2f}s CPU "
            f"= {count / walk:,.0f} PRs/s"
        )
        bare: list[float] = []
        full: list[float] = []
        ratios: list[float] = []
        for run in range(args.runs):  # interleaved, so both meet the same machine load
            b = bare_git_log(repo)
            wall, py_cpu, git_cpu, fetched = full_import(repo, work, run)
            bare.append(b)
            full.append(wall)
            ratios.append(wall / b)
            print(
                f"round {run + 1}: bare git log {b:.2f}s; full import (walk + classify + store) of "
                f"{fetched} PRs {wall:.2f}s wall (CPU: git {git_cpu:.2f}s, Python {py_cpu:.2f}s) = {wall / b:.2f}× git log "
                f"[load {os.getloadavg()[0]:.2f}]"
            )
        print(f"bare git log: {_spread(bare)}")
        print(f"full import: {_spread(full)}")
        print(
            f"import / git log: median {statistics.median(ratios):.2f}× (range {min(ratios):.2f}–{max(ratios):.2f}×)"
            "  [target: <= 1.3x]"
        )
        classifier = classifier_for(load_profile("vllm"))
        store = PRStore(connect(work / "cache-0.db"))
        t0 = time.perf_counter()
        again = sync_git(store, classifier, repo, REPO)
        took = time.perf_counter() - t0
        print(f"second import (incremental, nothing new): {again.fetched} PRs in {took:.2f}s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
