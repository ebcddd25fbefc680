"""Deterministic generator of vLLM-like merged PRs: the bundled demo data and the benchmark cache.

``generate_prs`` yields JSON-able dicts with the fields of ``classify.models.PullRequest``.
Everything comes from one seeded ``random.Random`` (no clock, no network, integer-only sizes),
so the same arguments give the same records on every machine and the bundled demo file can
be checked byte-for-byte against a fresh run.

A week is made of the hand-written headline PRs for that week (``bench.headlines``), one or two
reverts of recent PRs, and filler drawn from ``bench.catalog`` with area weights that drift
from week to week (so module trends move) and a size distribution where most PRs are small
and a few are huge.

Run ``python -m bench.generate --demo`` to rewrite ``bot/ingest/demo/vllm-demo.jsonl.gz``.
"""

from __future__ import annotations

import argparse
import gzip
import io
import itertools
import json
import math
import random
import re
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench import catalog as C
from bench.bodies import bench_table, compose, gsm8k_table, pytest_summary
from bench.headlines import HEADLINES, Headline

DEMO_END = datetime(2026, 5, 11, tzinfo=UTC)  # exclusive: the last week is Mon 2026-05-04 .. Sun 2026-05-10
DEMO_WEEKS = 6
DEMO_PER_WEEK = (170, 230)
DEMO_SEED = 20260510
DEMO_FIRST_NUMBER = 38_501
DEMO_REPO = "vllm-project/vllm"
DEMO_PATH = Path(__file__).resolve().parent.parent / "bot" / "ingest" / "demo" / "vllm-demo.jsonl.gz"

WEEK = timedelta(days=7)
_DAY_WEIGHTS = (11, 12, 12, 12, 10, 4, 3)  # Mon..Sun: merges slow down at the weekend
# UTC hours: the Asia-Pacific morning, the European day and the US day all merge.
_HOUR_WEIGHTS = (3, 4, 5, 6, 6, 5, 5, 5, 6, 7, 7, 7, 6, 7, 8, 9, 9, 9, 8, 7, 6, 5, 4, 3)

# Multipliers of an area's base weight for the latest six weeks (index = weeks before the end),
# so the demo's module trends have a story: CPU, KV transfer, speculative decoding and tool
# parsers accelerate into the latest week while Model Runner V2 and the frontend cool down.
_TRENDS: dict[str, tuple[float, ...]] = {
    "cpu": (2.0, 1.2, 1.0, 0.8, 0.7, 0.6),
    "spec": (1.5, 1.0, 1.1, 0.9, 0.8, 0.9),
    "kv": (1.5, 1.3, 1.1, 1.0, 0.9, 0.8),
    "mrv2": (0.5, 0.8, 1.0, 1.3, 1.6, 1.8),
    "tool_parser": (1.4, 1.1, 0.9, 1.0, 0.8, 0.9),
    "rocm": (1.2, 1.0, 1.1, 0.9, 1.0, 1.0),
    "frontend": (0.8, 0.9, 1.0, 1.1, 1.2, 1.3),
    "quantization": (1.2, 1.0, 0.9, 1.0, 1.1, 1.0),
    "compile": (0.9, 1.1, 1.2, 1.1, 1.0, 0.9),
    "multimodal": (0.7, 0.9, 1.0, 1.2, 1.3, 1.2),
    "ci": (1.0, 1.1, 0.9, 1.0, 1.1, 1.0),
}

# Total changed lines per kind: (weight, low, high) buckets — a long tail, mostly small.
_SIZES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "fix": ((70, 2, 30), (22, 31, 120), (7, 121, 400), (1, 401, 1200)),
    "feat": ((25, 10, 80), (40, 81, 300), (26, 301, 900), (9, 901, 2600)),
    "perf": ((35, 5, 60), (40, 61, 250), (20, 251, 700), (5, 701, 1800)),
    "refactor": ((30, 20, 120), (40, 121, 450), (23, 451, 1200), (7, 1201, 3000)),
    "misc": ((60, 2, 40), (30, 41, 200), (10, 201, 600)),
    "remove": ((20, 30, 200), (50, 201, 900), (30, 901, 2500)),
    "dep": ((85, 2, 12), (15, 13, 80)),
    "doc": ((60, 1, 30), (35, 31, 200), (5, 201, 700)),
    "ci": ((65, 2, 40), (30, 41, 200), (5, 201, 600)),
}
# Share of changed lines that are additions, per kind (refactors balance, removals delete).
_ADD_SHARE = {
    "fix": 70,
    "feat": 90,
    "perf": 70,
    "refactor": 50,
    "misc": 55,
    "remove": 8,
    "dep": 50,
    "doc": 80,
    "ci": 65,
}
_TEST_HABIT = {
    "fix": 1.0,
    "feat": 1.15,
    "perf": 0.6,
    "refactor": 0.8,
    "misc": 0.5,
    "remove": 0.6,
    "dep": 0.0,
    "doc": 0.0,
    "ci": 0.3,
}

_BUG_TAGS = (
    "[Bugfix]",
    "[Bugfix]",
    "[Bugfix]",
    "[BugFix]",
    "[BugFix]",
    "[Bug]",
    "[Fix]",
    "[BUGFIX]",
    "[bugfix]",
)
_KIND_TAGS = {
    "perf": ("[Perf]", "[Perf]", "[Performance]"),
    "refactor": ("[Refactor]", "[Misc]", "[Chore]"),
    "misc": ("[Misc]", "[Misc]", "[Chore]"),
    "remove": ("[Deprecate]", "[V0 Deprecation]", "[Cleanup]"),
    "doc": ("[Doc]", "[Docs]"),
    "ci": ("[CI]", "[CI/Build]", "[Build]"),
    "dep": ("[CI/Build]", "[Build]", "[Dependency]"),
    "feat": ("[Feature]", "[Feat]"),
}
_VENDOR_AREAS = frozenset(("rocm", "cpu", "xpu"))  # vendor tags lead: [ROCm][Bugfix], rarely a bare [Bugfix]
_GENERIC_TAGS = frozenset(("[Misc]", "[Chore]", "[Refactor]", "[Perf]", "[Performance]", "[Feature]", "[UX]"))
_CONVENTIONAL = {
    "fix": "fix",
    "feat": "feat",
    "perf": "perf",
    "refactor": "refactor",
    "misc": "chore",
    "remove": "refactor",
    "doc": "docs",
    "ci": "ci",
    "dep": "build",
}

_REVERT_REASONS = (
    "This broke the {test} tests on main (see the nightly build).",
    "Causes a {pct}% throughput regression on {model}; reverting while we investigate.",
    "Breaks the ROCm build.",
    "Broke `vllm serve` startup with PP > 1.",
    "Introduced a hang in the {test} job; reverting to unblock CI.",
)

# Cross-cutting changes that touch many files with a few lines each (large by file count).
_SWEEPS: tuple[tuple[str, str, str], ...] = (
    (
        "refactor",
        "Replace `Optional[X]` with `X | None` in {pkg}",
        "Mechanical typing cleanup, no functional change.",
    ),
    ("misc", "Enable ruff rule UP035 and fix the violations", "Turns on UP035 and fixes what it reports."),
    (
        "refactor",
        "Use `direct_register_custom_op` everywhere",
        "Removes the last direct `torch.library` registrations so that every op goes through one helper.",
    ),
)


@dataclass
class Draft:
    """A PR before it gets its number, merge time and description."""

    title: str
    kind: str
    files: list[dict[str, Any]]
    purpose: str
    plan: str = ""
    result: str = ""
    author: int | None = None
    labels: list[str] = field(default_factory=list)
    effect: str = ""
    revert: bool = False
    headline: bool = False
    number: int | None = None


# -- public API -------------------------------------------------------------------------------


def generate_prs(
    n_weeks: int,
    *,
    per_week: int | tuple[int, int],
    end: datetime,
    repo: str = DEMO_REPO,
    seed: int = DEMO_SEED,
    first_number: int | None = None,
) -> Iterator[dict[str, Any]]:
    """PR records for ``n_weeks`` 7-day windows ending at ``end`` (exclusive), in merge order.

    ``per_week`` is a fixed count or an inclusive (low, high) range drawn per week. PR numbers
    rise with merge time, starting at ``first_number`` (default: about where vLLM's counter
    stood at that date).
    """
    if n_weeks < 1:
        raise ValueError("n_weeks must be at least 1")
    rng = random.Random(seed)
    if isinstance(per_week, int):
        counts = [per_week] * n_weeks
    else:
        lo, hi = per_week
        counts = [rng.randint(lo, hi) for _ in range(n_weeks)]
    yield from _generate(rng, counts, end, repo, first_number)


def generate_history(
    total: int, *, years: float = 10.0, end: datetime = DEMO_END, repo: str = DEMO_REPO, seed: int = DEMO_SEED
) -> Iterator[dict[str, Any]]:
    """Exactly ``total`` PRs over ``years`` years with weekly volume rising over time (benchmark data)."""
    n_weeks = max(1, round(years * 52.18))
    rng = random.Random(seed)
    # Linear ramp from half the mean to 1.5x the mean, with ±15% noise, scaled to total: for 200,000 PRs
    # over ten years that is ~190 a week at the start and ~560 a week in the latest weeks.
    raw = [(0.5 + 1.0 * i / max(1, n_weeks - 1)) * rng.randint(85, 115) for i in range(n_weeks)]
    scale = total / sum(raw)
    cumulative = [0]
    for r in raw:
        cumulative.append(cumulative[-1] + r * scale)
    counts = [round(b) - round(a) for a, b in itertools.pairwise(cumulative)]
    yield from _generate(rng, counts, end, repo, first_number=1)


def demo_records() -> list[dict[str, Any]]:
    """The bundled demo dataset, as records."""
    return list(
        generate_prs(
            DEMO_WEEKS,
            per_week=DEMO_PER_WEEK,
            end=DEMO_END,
            repo=DEMO_REPO,
            seed=DEMO_SEED,
            first_number=DEMO_FIRST_NUMBER,
        )
    )


def to_jsonl(records: Sequence[dict[str, Any]]) -> bytes:
    """One compact JSON object per line, sorted by merge time (then number)."""
    ordered = sorted(records, key=lambda r: (r["merged_at"], r["number"]))
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in ordered).encode()


def gzip_bytes(data: bytes) -> bytes:
    """Gzip with a fixed header (no file name, mtime 0) so the output depends on the data only."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(data)
    return buf.getvalue()


def write_demo(path: Path = DEMO_PATH) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip_bytes(to_jsonl(demo_records())))
    return path


# -- the week loop ----------------------------------------------------------------------------


def _generate(
    rng: random.Random, counts: Sequence[int], end: datetime, repo: str, first_number: int | None
) -> Iterator[dict[str, Any]]:
    end = end.astimezone(UTC)
    n_weeks = len(counts)
    number = first_number if first_number is not None else _default_first_number(end, sum(counts))
    # numbers some headlines carry (those of the real PRs the team's report cites): never drawn
    reserved = {h.number for h in HEADLINES if h.number is not None}
    # (number, merged_at) of the numbered-in-order PRs: filler numbers follow merge order, so this
    # maps a fixed number to when the counter stood there
    opened: list[tuple[int, datetime]] = []
    recent: list[dict[str, Any]] = []
    seen: dict[str, None] = {}  # recent filler subjects, so a week rarely repeats a title
    for i, count in enumerate(counts):
        back = n_weeks - 1 - i  # weeks before the latest one
        start = end - WEEK * (n_weeks - i)
        heads = [h for h in HEADLINES if h.week == back] if back < 6 else []
        n_revert = 1 + (rng.random() < 0.4) if back == 0 else rng.choice((0, 1, 1, 2))
        n_revert = min(n_revert, count)
        heads = heads[: count - n_revert]  # a small week keeps its first headlines: counts are exact
        n_filler = count - len(heads) - n_revert
        weights = [a.weight * _trend(a.name, back) for a in C.AREAS]
        drafts: list[Draft] = [_from_headline(h) for h in heads]
        drafts += [_fresh_filler(rng, weights, seen) for _ in range(n_filler)]
        drafts += [Draft(title="", kind="revert", files=[], purpose="", revert=True) for _ in range(n_revert)]
        rng.shuffle(drafts)
        times = _merge_times(rng, start, len(drafts))
        # a revert needs something earlier to revert: keep reverts out of the first hours of the series
        if i == 0:
            drafts.sort(key=lambda d: d.revert)
        for draft, merged in zip(drafts, times, strict=True):
            number += rng.choice((1, 1, 2, 2, 3, 3, 4, 5, 6))
            while number in reserved:
                number += 1
            if draft.revert:
                draft = _revert(rng, recent, merged) or _fresh_filler(rng, weights, seen)
            if draft.number is not None:
                record = _finish(rng, draft, repo, draft.number, merged, _opened_by(opened, draft.number))
            else:
                record = _finish(rng, draft, repo, number, merged)
                opened.append((number, merged))
            recent.append(record)
            if len(recent) > 600:
                del recent[:200]
            yield record


def _opened_by(opened: list[tuple[int, datetime]], number: int) -> datetime | None:
    """Roughly when a PR numbered ``number`` was opened: when the counter passed that number (the
    last lower-numbered PR so far), or None when the number predates everything generated."""
    before = [when for n, when in opened if n < number]
    return max(before) if before else None


def _default_first_number(end: datetime, total: int) -> int:
    """vLLM's counter grows ~2,500 a month in 2026 (#31.6k in January, #44k by mid-May)."""
    days = (end - datetime(2026, 5, 11, tzinfo=UTC)).days
    at_end = 44_000 + days * 83
    return max(1, at_end - total * 3)


def _trend(area: str, back: int) -> float:
    table = _TRENDS.get(area)
    if table is not None and back < len(table):
        return table[back]
    # Older history: each area drifts on its own slow wave (deterministic: crc32, not hash()).
    h = zlib.crc32(area.encode())
    period = 9 + h % 23
    phase = (h >> 8) % 360 / 57.29577951308232
    return 1.0 + 0.35 * math.sin(2 * math.pi * back / period + phase)


def _merge_times(rng: random.Random, start: datetime, n: int) -> list[datetime]:
    seconds: set[int] = set()
    out: list[int] = []
    for _ in range(n):
        day = rng.choices(range(7), weights=_DAY_WEIGHTS)[0]
        hour = rng.choices(range(24), weights=_HOUR_WEIGHTS)[0]
        s = day * 86400 + hour * 3600 + rng.randrange(3600)
        while s in seconds:
            s = (s + 1) % (7 * 86400)
        seconds.add(s)
        out.append(s)
    return [start + timedelta(seconds=s) for s in sorted(out)]


# -- drafts -----------------------------------------------------------------------------------


# Slot name -> (vocabulary, fields): a tuple vocabulary entry fills several linked slots at once.
_SLOT_SOURCES: dict[str, tuple[tuple[Any, ...], tuple[str, ...]]] = {
    "model": (C.MODELS, ("model", "model_file", "hf")),
    "mm_model": (C.MM_MODELS, ("mm_model", "mm_file", "mm_hf")),
    "backend": (C.BACKENDS, ("backend", "backend_file")),
    "parser": (C.PARSERS, ("parser", "parser_file")),
    "connector": (C.CONNECTORS, ("connector", "connector_file")),
    "dep": (C.DEPENDENCIES, ("dep", "ver", "dep_files")),
    "quant": (C.QUANTS, ("quant",)),
    "hw": (C.HARDWARE, ("hw",)),
    "nv": (C.NV_HARDWARE, ("nv",)),
    "amd": (C.AMD_HARDWARE, ("amd",)),
    "op": (C.OPS, ("op",)),
    "env": (C.ENVS, ("env",)),
    "test": (C.TESTS, ("test",)),
    "pkg": (C.PKGS, ("pkg",)),
    "field": (C.FIELDS, ("field",)),
    "cli": (C.CLI_OPTIONS, ("cli",)),
    "feature": (C.FEATURES, ("feature",)),
    "doc": (C.DOCS, ("doc",)),
    "helper": (C.HELPERS, ("helper",)),
    "util_mod": (C.UTIL_MODS, ("util_mod",)),
    "metric": (C.METRICS, ("metric",)),
    "dataset": (C.DATASETS, ("dataset",)),
    "endpoint": (C.ENDPOINTS, ("endpoint",)),
    "kvdtype": (C.KV_DTYPES, ("kvdtype",)),
    "subcommand": (C.SUBCOMMANDS, ("subcommand",)),
    "cfg": (C.CONFIGS, ("cfg",)),
    "tp": (("2", "4", "8"), ("tp",)),
    "gpus": (("2", "4", "8"), ("gpus",)),
    "head": (("80", "96", "112", "192", "256"), ("head",)),
    "frames": (("64", "128", "256", "512"), ("frames",)),
    "count": (tuple(str(n) for n in range(3, 25)), ("count",)),
    "pct": (tuple(str(n) for n in range(3, 41)), ("pct",)),
}
# Popular model families, parsers and connectors show up every week; rare ones seldom, so chance
# alone rarely makes a rare one look like a burst topic.
_SLOT_WEIGHTS: dict[str, tuple[int, ...]] = {
    "model": C.MODEL_WEIGHTS,
    "parser": C.PARSER_WEIGHTS,
    "connector": C.CONNECTOR_WEIGHTS,
}
_SLOT_OWNER = {f: key for key, (_v, fields) in _SLOT_SOURCES.items() for f in fields}


class Slots(dict[str, Any]):
    """Template values drawn on first use, so a PR only pays for the slots its texts mention.

    Linked values (a model's display name, file and Hugging Face id) are drawn together. The
    draw order follows the order the templates ask in, which is fixed, so output stays
    deterministic.
    """

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    def __missing__(self, key: str) -> Any:
        if key == "qtag":
            quant = self["quant"]
            self[key] = quant if quant in ("FP8", "NVFP4", "MXFP4") else "Quantization"
            return self[key]
        owner = _SLOT_OWNER[key]
        vocabulary, fields = _SLOT_SOURCES[owner]
        weights = _SLOT_WEIGHTS.get(owner)
        value = self.rng.choices(vocabulary, weights=weights)[0] if weights else self.rng.choice(vocabulary)
        if owner == "dep":
            name, versions, files = value
            value = (name, self.rng.choice(versions), files)
        for name, item in zip(fields, value if len(fields) > 1 else (value,), strict=True):
            self[name] = item
        return self[key]


def _slots(rng: random.Random) -> Slots:
    return Slots(rng)


def _fresh_filler(rng: random.Random, weights: list[float], seen: dict[str, None]) -> Draft:
    """A filler PR whose subject was not used recently (a few tries, then accept a repeat)."""
    tries = 8
    for attempt in range(tries):
        last = attempt == tries - 1
        area = rng.choices(C.AREAS, weights=weights)[0]
        roll = rng.random()
        if roll < 0.008:
            sweep = _sweep(rng, _slots(rng))
            if sweep.title in seen and not last:
                continue
            _remember(seen, sweep.title)
            return sweep
        if area.name == "ci" and roll < 0.04:
            bump = _dependabot(rng)
            if bump.title in seen and not last:
                continue
            _remember(seen, bump.title)
            return bump
        subject = rng.choice(area.subjects)
        slots = _slots(rng)
        core = subject.title.format_map(slots)
        if core.lower() not in seen or last:
            break
    _remember(seen, core.lower())
    return _filler(rng, area, subject, slots, core)


def _remember(seen: dict[str, None], key: str) -> None:
    seen[key] = None
    while len(seen) > 450:
        del seen[next(iter(seen))]


def _filler(rng: random.Random, area: C.Area, subject: C.Subject, slots: Slots, core: str) -> Draft:
    kind = subject.kind
    title = _decorate(rng, area, kind, core, slots)
    total = _size(rng, kind)
    if subject.small:
        total = min(total, rng.randint(4, 90))
    effect = _effect(rng, kind, area.name, slots) if subject.effect and rng.random() < 0.7 else ""
    if effect:  # routine speedups are modest changes; the week's big ones are the headlines
        total = min(total, rng.randint(40, 450))
    if kind == "dep":
        src = list(subject.files) or list(slots["dep_files"])
    else:
        required = [p.format_map(slots) for p in subject.files]
        pool = [q for q in (p.format_map(slots) for p in area.src) if q not in required]
        n_src = 1 + rng.choice((0, 0, 0, 1, 1, 2)) + total // 250
        if subject.small and required:
            n_src = len(required)
        extra = rng.sample(pool, min(len(pool), max(0, n_src - len(required))))
        src = list(dict.fromkeys(required + extra))
    tests: list[str] = []
    habit = area.test_rate * _TEST_HABIT[kind]
    if area.tests and rng.random() < habit:
        wanted = [t.format_map(slots) for t in subject.tests] or [rng.choice(area.tests).format_map(slots)]
        if total > 300 and len(area.tests) > 1 and rng.random() < 0.5:
            wanted.append(rng.choice(area.tests).format_map(slots))
        tests = list(dict.fromkeys(wanted))
    docs = [rng.choice(C.AREAS[_DOCS_INDEX].src)] if kind == "feat" and rng.random() < 0.15 else []
    files = _split_lines(rng, kind, total, src, tests, docs)
    purpose = subject.purpose.format_map(slots)
    plan, result = _plan_result(rng, kind, tests, slots, effect)
    if effect and rng.random() < 0.6:
        purpose = f"{purpose} {effect}"
    return Draft(
        title=title,
        kind=kind,
        files=files,
        purpose=purpose,
        plan=plan,
        result=result,
        author=_pick_author(rng, area),
        effect=effect,
    )


_DOCS_INDEX = next(i for i, a in enumerate(C.AREAS) if a.name == "docs")
_ALL_SRC = tuple(
    sorted({p for a in C.AREAS for p in a.src if "{" not in p and p.startswith(("vllm/", "csrc/"))})
)


def _sweep(rng: random.Random, slots: Slots) -> Draft:
    kind, title, purpose = rng.choice(_SWEEPS)
    paths = rng.sample(_ALL_SRC, rng.randint(28, 60))
    files = [
        {"path": p, "additions": rng.randint(1, 9), "deletions": rng.randint(1, 9), "change_type": "modified"}
        for p in sorted(paths)
    ]
    tag = rng.choice(_KIND_TAGS.get(kind, ("[Misc]",)))
    return Draft(
        title=f"{tag} {title.format_map(slots)}",
        kind=kind,
        files=files,
        purpose=purpose.format_map(slots),
        plan="pre-commit run --all-files; CI",
        result="CI green.",
        author=rng.randrange(len(C.PEOPLE)),
    )


def _dependabot(rng: random.Random) -> Draft:
    action, old, new = rng.choice(C.GH_ACTIONS)
    workflows = rng.sample(
        (
            ".github/workflows/pre-commit.yml",
            ".github/workflows/cleanup_pr_body.yml",
            ".github/workflows/add_label_automerge.yml",
            ".github/workflows/issue_autolabel.yml",
            ".github/workflows/stale.yml",
        ),
        rng.randint(1, 3),
    )
    files = [
        {"path": w, "additions": 1, "deletions": 1, "change_type": "modified"} for w in sorted(workflows)
    ]
    return Draft(
        title=f"Bump {action} from {old} to {new}",
        kind="dep",
        files=files,
        purpose=f"Bumps [{action}](https://github.com/{action}) from {old} to {new}.",
        author=-1,
    )


def _decorate(rng: random.Random, area: C.Area, kind: str, core: str, slots: Slots) -> str:
    """Title tags as vLLM contributors write them: stacked, misspelled, conventional or absent."""
    roll = rng.random()
    if roll < 0.15:
        return core
    if roll < 0.19:
        scope = area.scope if rng.random() < 0.7 else ""
        prefix = _CONVENTIONAL[kind] + (f"({scope})" if scope else "")
        if kind == "fix" and core.startswith("Fix "):
            core = core[4:]
        if core[:2].istitle():  # "Fix ..." -> "fix ...", but "AITER ..." stays
            core = core[0].lower() + core[1:]
        return f"{prefix}: {core}"
    area_tag = rng.choice(area.tags).format_map(slots)
    generic = area_tag in _GENERIC_TAGS
    series = ""
    if area.series and rng.random() < area.series:
        series = f"[{rng.randint(1, 14)}/{rng.choice(('N', 'N', 'n'))}]"
    r = rng.random()
    if kind == "fix":
        bug = rng.choice(_BUG_TAGS)
        if generic or (r < 0.45 and area.name not in _VENDOR_AREAS):
            tags = [bug]
        elif r < 0.85:
            tags = [area_tag, bug]
        elif r < 0.93:
            tags = [bug, area_tag]
        else:
            tags = [area_tag]
    elif kind in ("doc", "ci", "dep") or area.name in ("docs", "ci"):
        tags = [rng.choice(_KIND_TAGS[kind])] if kind in _KIND_TAGS and r < 0.6 else [area_tag]
    else:
        kind_tags = _KIND_TAGS.get(kind, ("[Misc]",))
        if r < 0.7 or generic:
            tags = [area_tag]
        elif r < 0.85:
            tags = [area_tag, rng.choice(kind_tags)]
        else:
            tags = [rng.choice(kind_tags)]
    joined = (" " if rng.random() < 0.06 else "").join(dict.fromkeys(tags))
    return f"{joined}{series} {core}"


def _size(rng: random.Random, kind: str) -> int:
    buckets = _SIZES[kind]
    _w, lo, hi = rng.choices(buckets, weights=[b[0] for b in buckets])[0]
    return rng.randint(lo, hi)


def _split_lines(
    rng: random.Random, kind: str, total: int, src: list[str], tests: list[str], docs: list[str]
) -> list[dict[str, Any]]:
    """Spread ``total`` changed lines over the files: sources get most, tests ~30%, docs a little."""
    weights = [rng.randint(3, 12) for _ in src] + [rng.randint(3, 8) for _ in tests] + [1 for _ in docs]
    paths = src + tests + docs
    wsum = sum(weights)
    files = []
    for path, w in zip(paths, weights, strict=True):
        lines = max(1, total * w // wsum)
        share = _ADD_SHARE["feat" if path.startswith("tests/") and kind not in ("remove",) else kind]
        share = min(100, max(0, share + rng.randint(-15, 15)))
        adds = lines * share // 100
        dels = lines - adds
        if kind == "dep" and "requirements" in path:
            adds = dels = max(1, lines // 2)
        files.append({"path": path, "additions": adds, "deletions": dels, "change_type": "modified"})
    files = [f for f in files if f["additions"] or f["deletions"]] or files[:1]
    if files and not (files[0]["additions"] or files[0]["deletions"]):
        files[0]["additions"] = 1
    return sorted(files, key=lambda f: f["path"])


_KERNEL_AREAS = frozenset(
    ("kernels", "moe", "compile", "attention", "quantization", "rocm", "cpu", "sampling")
)


def _effect(rng: random.Random, kind: str, area: str, slots: Slots) -> str:
    """A measured effect as PR authors state it (the digest quotes these as highlights).

    The hardware is the one the title names, if it names one; kernel-level claims (×, μs)
    only come from kernel-ish areas.
    """
    drawn = next((slots[k] for k in ("nv", "amd", "hw") if k in slots), None)
    default = "amd" if area == "rocm" else "nv" if area in ("moe", "kernels", "quantization") else "hw"
    hw = drawn or slots[default]
    if area == "ci":
        return f"The image is {rng.randint(8, 35) / 10:.1f} GB smaller."
    if area == "cpu":
        hw = rng.choice(("a 56-core Sapphire Rapids", "Graviton4", "a 96-core Genoa"))
    picks = (0, 1, 2, 3, 4, 5, 6) if area in _KERNEL_AREAS else (0, 1, 4, 5, 6)
    pick = rng.choice(picks)
    if pick == 0:
        before = rng.randint(1500, 9000)
        pct = rng.randint(3, 45)
        return (
            f"{pct}% higher output token throughput on {hw} ({before} → {before * (100 + pct) // 100} tok/s)."
        )
    if pick == 1:
        return f"Up to {rng.randint(8, 60)}% speedup on {hw}."
    if pick == 2:
        thing = (
            slots["op"] if "op" in slots else rng.choice(("MoE layers", "GEMMs", "decode steps", "prefill"))
        )
        return f"{rng.randint(12, 95) / 10:.1f}× faster {thing} on {hw}."
    if pick == 3:
        a = rng.randint(40, 1600)
        return f"Kernel time {a}μs → {a * rng.randint(30, 85) // 100}μs on {hw}."
    if pick == 4:
        a = rng.randint(90, 2200)
        return f"TTFT p50 drops from {a} ms to {a * rng.randint(45, 90) // 100} ms."
    if pick == 5:
        return f"Reduces peak GPU memory by {rng.randint(5, 60) / 10:.1f} GiB."
    return (
        f"{rng.randint(20, 250) / 10:.1f}% higher throughput at batch size {rng.choice((1, 8, 32, 64, 256))}."
    )


def _plan_result(
    rng: random.Random, kind: str, tests: list[str], slots: Slots, effect: str
) -> tuple[str, str]:
    if kind == "doc":
        return "Built the docs locally with `mkdocs serve`.", "Renders correctly."
    if kind in ("ci", "dep"):
        return "CI", rng.choice(("CI green.", "The affected jobs pass.", ""))
    if effect:
        before = rng.randint(1500, 9000) + rng.randint(0, 99) / 100
        gain = rng.randint(103, 145) / 100
        plan = f"vllm bench serve --model {slots['hf']} --num-prompts 1000 --request-rate inf"
        return plan, f"{effect}\n\n{bench_table(rng, before, before * gain)}"
    if tests:
        plan = "pytest -v " + " ".join(tests)
        result = pytest_summary(rng)
        if rng.random() < 0.25:
            result += "\n\nAccuracy check:\n\n" + gsm8k_table(rng)
        return plan, result
    if kind == "fix":
        return (
            rng.choice(
                (
                    f"Reproduced with `vllm serve {slots['hf']}` and the script from the issue.",
                    "Ran the reproducer from the linked issue.",
                    "Manual test.",
                )
            ),
            rng.choice(
                (
                    "Fixed after this PR.",
                    "Before: crash with `RuntimeError`. After: works.",
                    "Works now; no crash after 1000 requests.",
                )
            ),
        )
    return (
        rng.choice(
            (
                "CI",
                "Existing tests.",
                f"lm_eval --model vllm --model_args pretrained={slots['hf']} --tasks gsm8k",
            )
        ),
        rng.choice(("CI passes.", gsm8k_table(rng), "")),
    )


def _pick_author(rng: random.Random, area: C.Area) -> int:
    if area.people and rng.random() < 0.7:
        return rng.choice(area.people)
    return rng.randrange(len(C.PEOPLE))


def _from_headline(h: Headline) -> Draft:
    files = []
    for spec in h.files:
        path, adds, dels = spec[0], spec[1], spec[2]
        entry: dict[str, Any] = {
            "path": path,
            "additions": adds,
            "deletions": dels,
            "change_type": spec[3] if len(spec) > 3 else "modified",
        }
        if len(spec) > 4:
            entry["previous_path"] = spec[4]
        files.append(entry)
    kind = "fix" if re.search(r"\[bug ?fix\]|^fix\b|\] fix\b", h.title, re.I) else "feat"
    if h.author == -1:
        kind = "dep"
    return Draft(
        title=h.title,
        kind=kind,
        files=files,
        purpose=h.purpose,
        plan=h.plan,
        result=h.result,
        author=h.author,
        labels=list(h.labels),
        headline=True,
        number=h.number,
    )


def _revert(rng: random.Random, recent: list[dict[str, Any]], merged: datetime) -> Draft | None:
    window = _z(merged - timedelta(days=10))
    candidates = [
        r
        for r in recent[-300:]
        if r["merged_at"] >= window
        and not r["title"].startswith(("Revert", "Bump"))
        and r["author"] != C.DEPENDABOT
    ]
    if not candidates:
        return None
    target = rng.choice(candidates)
    files = []
    for f in target["files"]:
        swapped = {"added": "removed", "removed": "added"}.get(f["change_type"], f["change_type"])
        entry = {
            "path": f["path"],
            "additions": f["deletions"],
            "deletions": f["additions"],
            "change_type": swapped,
        }
        if swapped == "renamed":
            entry = {
                "path": f["previous_path"],
                "additions": f["deletions"],
                "deletions": f["additions"],
                "change_type": "renamed",
                "previous_path": f["path"],
            }
        files.append(entry)
    slots = _slots(rng)
    reason = rng.choice(_REVERT_REASONS).format_map(slots)
    return Draft(
        title=f'Revert "{target["title"]} (#{target["number"]})"',
        kind="revert",
        files=files,
        purpose=f"Reverts {target['repo']}#{target['number']}\n\n{reason}",
        author=rng.randrange(len(C.PEOPLE)),
    )


# -- final record -----------------------------------------------------------------------------


def _z(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _finish(
    rng: random.Random,
    d: Draft,
    repo: str,
    number: int,
    merged: datetime,
    opened: datetime | None = None,
) -> dict[str, Any]:
    if d.author == -1:
        login, name = C.DEPENDABOT, ""
    else:
        login, name = C.PEOPLE[d.author if d.author is not None else rng.randrange(len(C.PEOPLE))]
    refs = ""
    if not d.revert and login != C.DEPENDABOT:
        r = rng.random()
        older = max(1, number - rng.randint(40, 3000))
        if r < 0.3:
            refs = f"Fixes #{older}" if d.kind == "fix" else f"Closes #{older}"
        elif r < 0.4:
            refs = f"Follow-up to #{older}."
        elif r < 0.46:
            refs = f"Part of the RFC #{older}."
    if d.revert or login == C.DEPENDABOT:
        body = d.purpose
        if login == C.DEPENDABOT:
            body += (
                "\n\n<details>\n<summary>Release notes</summary>\n\n<p><em>Sourced from the action's "
                "releases.</em></p>\n</details>\n\nDependabot will resolve any conflicts with this PR as "
                "long "
                "as you don't alter it yourself."
            )
        else:
            body += f"\n\nSigned-off-by: {name} <{login}@users.noreply.github.com>"
    else:
        people = [(login, name)]
        if rng.random() < 0.12:
            people.append(C.PEOPLE[rng.randrange(len(C.PEOPLE))])
        with_docs = any(f["path"].startswith("docs/") for f in d.files)
        body = compose(
            rng,
            purpose=d.purpose,
            plan=d.plan,
            result=d.result,
            refs=refs,
            people=people,
            with_docs=with_docs,
            full=d.headline,
        )
    created = merged - _open_for(rng)
    if opened is not None:  # a fixed (older) number: opened when the counter stood there
        created = min(created, opened)
    updated = merged + timedelta(seconds=rng.randint(5, 5400))
    additions = sum(f["additions"] for f in d.files)
    deletions = sum(f["deletions"] for f in d.files)
    return {
        "repo": repo,
        "number": number,
        "title": d.title,
        "body": body,
        "author": login,
        "created_at": _z(created),
        "merged_at": _z(merged),
        "updated_at": _z(updated),
        "base_branch": "main",
        "labels": _labels(rng, d, login),
        "additions": additions,
        "deletions": deletions,
        "files": d.files,
        "changed_files": len(d.files),
        "url": f"https://github.com/{repo}/pull/{number}",
        "source": "import",
    }


def _open_for(rng: random.Random) -> timedelta:
    bucket = rng.choices(((2, 24), (24, 168), (168, 672), (672, 2200)), weights=(25, 45, 25, 5))[0]
    return timedelta(hours=rng.randint(*bucket), minutes=rng.randrange(60))


_FAMILIES = (
    ("deepseek", "deepseek"),
    ("llama", "llama"),
    ("qwen", "qwen"),
    ("gpt-oss", "gpt-oss"),
    ("gpt_oss", "gpt-oss"),
    ("mistral", "mistral"),
    ("gemma", "gemma"),
    ("glm", "glm"),
)


def _labels(rng: random.Random, d: Draft, login: str) -> list[str]:
    """The labels vLLM's Mergify rules would have applied, plus `ready`/`bug`/`dependencies`."""
    paths = [f["path"] for f in d.files]
    title = d.title.lower()
    out: set[str] = set(d.labels)

    def any_path(*needles: str) -> bool:
        return any(n in p for p in paths for n in needles)

    if any_path("docs/", "examples/") or any(p.endswith(".md") and "/" not in p for p in paths):
        out.add("documentation")
    if any_path(
        ".github/",
        ".buildkite/",
        "cmake/",
        "CMakeLists.txt",
        "docker/Dockerfile",
        "requirements/",
        "setup.py",
    ):
        out.add("ci/build")
    if any_path("vllm/entrypoints/"):
        out.add("frontend")
    if any_path("vllm/multimodal/", "tests/multimodal/", "tests/models/multimodal/"):
        out.add("multi-modality")
    if any(
        f["change_type"] == "added" and f["path"].startswith("vllm/model_executor/models/") for f in d.files
    ) and any_path("vllm/model_executor/models/registry.py"):
        out.add("new-model")
    if any_path("benchmarks/"):
        out.add("performance")
    if any_path("vllm/v1/structured_output/"):
        out.add("structured-output")
    if any_path("vllm/v1/spec_decode/", "eagle", "_mtp", "speculative"):
        out.add("speculative-decoding")
    if any(p.startswith(("vllm/v1/", "tests/v1/")) for p in paths):
        out.add("v1")
    if any_path("tool_parsers/", "tests/tool_use/"):
        out.add("tool-calling")
    if any_path("kv_transfer/", "tests/v1/kv_connector/") or re.search(r"\bp/d\b|nixl|lmcache", title):
        out.add("kv-connector")
    if any_path("rocm", "aiter", "quark") or re.search(r"\brocm\b|\bamd\b", title):
        out.add("rocm")
    if any_path("cuda", "cutlass", "flashinfer", "trtllm") or re.search(r"\b(nvidia|cuda|cutlass)\b", title):
        out.add("nvidia")
    if any_path("csrc/cpu", "platforms/cpu.py", "cpu_extension.cmake", "worker/cpu") or "[cpu" in title:
        out.add("cpu")
    if any_path("xpu") or "[xpu]" in title:
        out.add("intel-gpu")
    for needle, label in _FAMILIES:
        if needle in title or any_path(f"models/{needle}"):
            out.add(label)
    if d.kind == "fix":
        out.add("bug")
    if login == C.DEPENDABOT:
        out.update(("dependencies", "github_actions"))
    elif rng.random() < 0.85:
        out.add("ready")
    return sorted(out)


# -- command line -----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.generate", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--demo", action="store_true", help=f"rewrite the bundled demo data ({DEMO_PATH.name})"
    )
    parser.add_argument("--out", type=Path, help="output file (.jsonl or .jsonl.gz)")
    parser.add_argument("--weeks", type=int, default=DEMO_WEEKS)
    parser.add_argument("--per-week", type=int, default=None, help="fixed PRs per week (default: 170-230)")
    parser.add_argument("--seed", type=int, default=DEMO_SEED)
    args = parser.parse_args(argv)
    if args.demo:
        path = write_demo(args.out or DEMO_PATH)
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
        return 0
    if args.out is None:
        parser.error("give --demo or --out FILE")
    per_week: int | tuple[int, int] = args.per_week if args.per_week else DEMO_PER_WEEK
    records = list(generate_prs(args.weeks, per_week=per_week, end=DEMO_END, seed=args.seed))
    data = to_jsonl(records)
    args.out.write_bytes(gzip_bytes(data) if args.out.suffix == ".gz" else data)
    print(f"wrote {args.out}: {len(records)} PRs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
