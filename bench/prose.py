"""Benchmark of grounded prose: the verifier's recall and precision, and what a digest costs.

    uv run --frozen python -m bench.prose [--rounds 5] [--delay 1.0] [--json OUT]

**Verifier.** Every part (7 themes, the risk section, the key-PR view) of every demo week's
digest, in English and Chinese, gets a correct answer — the fake model's grounded sentences
(``tests.fakes.llm``) — and correct rewordings of it that a careful model writes (PR numbers in
the text, a decimal rounded, a code span, a count in words or Chinese numerals). *Precision* is
the share of correct answers the verifier accepts. Each correct answer is then mutated twice per
kind of error: a cited PR swapped for one of another part (``pr_swap``) or for another PR of the
same part whose facts the sentence does not match (``pr_swap_inside``), a figure ±1
(``number_pm1``), a unit changed (``unit_changed``), a figure added that the facts do not hold
(``figure_invented``), a flag word added that no cited PR is flagged with (``flag_word_added``).
*Recall* is the share of mutated answers the verifier rejects, per kind and pooled.

**Cost.** ``prdigest digest 2026-W19`` (zh) against the fake endpoint on 127.0.0.1: requests and
wall time of the prose step, cold (an empty sentence cache) and cached (the same digest asked
again), the median of ``--rounds``, with answers that take ``--delay`` seconds each (a model's
generation time) and with instant answers. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import random
import re
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bot.ingest.demo import DEMO_REPO
from bot.prose.cache import DirectCache
from bot.prose.config import ProseConfig
from bot.prose.writer import ProseWriter
from classify.rules import Profile, load_profile
from commands.model import Invocation, Reply
from commands.period import week_of
from commands.prose.figures import FLAG_WORDS, read
from commands.prose.verify import index_facts, verify
from commands.registry import Context, dispatch
from storage.db import connect
from storage.prs import PRStore
from tests.conftest import DEMO_NOW
from tests.fakes.llm import FakeLLM, good_sentences
from tests.golden.record import demo_cache

Answer = list[dict[str, Any]]
SEED = 20260511
TRIALS = 2  # mutations of each kind per correct answer (random picks of sentence, figure, PR)


def weeks(store: PRStore) -> list[str]:
    from zoneinfo import ZoneInfo

    span = store.merged_range(DEMO_REPO)
    assert span is not None
    week, last, out = week_of(span[0], ZoneInfo("UTC")), week_of(span[1], ZoneInfo("UTC")), []
    while week.start <= last.start:
        out.append(week.label)
        week = week_of(week.end, ZoneInfo("UTC"))
    return out


def digest(ctx: Context, week: str, lang: str) -> Reply:
    inv = Invocation(command="digest", args=(week,), repo=DEMO_REPO, lang=lang, now=DEMO_NOW)  # type: ignore[arg-type]
    return dispatch(inv, ctx)


def all_facts(db: Path, profile: Profile) -> list[dict[str, Any]]:
    ctx = Context(store=PRStore(connect(db)), profile=profile)
    out = []
    for week in weeks(ctx.store):
        for lang in ("en", "zh"):
            reply = digest(ctx, week, lang)
            out += [p.facts for p in reply.prose()] if reply.prose else []
    return out


# -- correct answers ---------------------------------------------------------------------------------

_DECIMAL_PCT = re.compile(r"(\d+)\.(\d)(\s*%)")
_NAME = re.compile(r"[A-Za-z]+[A-Za-z0-9]*\d[A-Za-z0-9.]*|[A-Za-z]+_[A-Za-z_]+")
_ZH_COUNT = re.compile(r"(?<![\d.])([2-9]) 个")
_EN_COUNT = re.compile(r"(?<![\d.#])\b([2-9]) PRs")
_ZH_NUMERALS = "零一二三四五六七八九"
_EN_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def rewordings(answer: Answer) -> Iterator[tuple[str, Answer]]:
    """Correct answers written differently: each must pass as the original does."""
    refs = copy.deepcopy(answer)
    for s in refs:
        s["text"] = s["text"].rstrip("。.") + "".join(f" (#{n})" for n in s["prs"]) + "."
        s["prs"] = []
    yield "refs_in_text", refs
    for name, pattern, repl in (
        ("rounded", _DECIMAL_PCT, lambda m: f"{int(m.group(1)) + (int(m.group(2)) >= 5)}{m.group(3)}"),
        ("code_span", _NAME, lambda m: f"`{m.group(0)}`"),
        ("zh_numeral", _ZH_COUNT, lambda m: f"{_ZH_NUMERALS[int(m.group(1))]}个"),
        ("en_words", _EN_COUNT, lambda m: f"{_EN_WORDS[int(m.group(1))]} PRs"),
    ):
        changed = copy.deepcopy(answer)
        hit = False
        for s in changed:
            new = pattern.sub(repl, s["text"], count=1)
            hit, s["text"] = hit or new != s["text"], new
        if hit:
            yield name, changed


# -- mutations ---------------------------------------------------------------------------------------

_DIGITS = re.compile(r"(?<![\w.#])(\d+)(?![\w.])")
_UNITS = [("%", " 倍"), ("倍", "%"), ("μs", "ms"), ("ms", "s"), ("行", "%"), ("lines", "%"), ("x", "%")]


def _sentence_with(answer: Answer, pattern: re.Pattern[str]) -> dict[str, Any] | None:
    return next((s for s in answer if pattern.search(s["text"])), None)


def number_pm1(answer: Answer, facts: dict[str, Any], rng: random.Random) -> Answer | None:
    out = copy.deepcopy(answer)
    s = _sentence_with(out, _DIGITS)
    if s is None:
        return None
    m = rng.choice(list(_DIGITS.finditer(s["text"])))
    value = int(m.group(1)) + rng.choice((-1, 1))
    s["text"] = s["text"][: m.start()] + str(max(0, value)) + s["text"][m.end() :]
    return out


def unit_changed(answer: Answer, facts: dict[str, Any], rng: random.Random) -> Answer | None:
    out = copy.deepcopy(answer)
    for s in out:
        for old, new in _UNITS:
            m = re.search(rf"(?<=\d)\s?{re.escape(old)}(?![A-Za-z])", s["text"])
            if m:
                s["text"] = s["text"][: m.start()] + new + s["text"][m.end() :]
                return out
    return None


def figure_invented(answer: Answer, facts: dict[str, Any], rng: random.Random) -> Answer | None:
    index = index_facts(facts)
    known = {f.value for n in [None, *index.prs] for f in index.figures(n)}
    value = rng.choice([v for v in range(11, 98) if v not in known])
    out = copy.deepcopy(answer)
    s = rng.choice(out)
    zh = index.lang == "zh"
    s["text"] = s["text"].rstrip("。.") + (f"，提升 {value}%。" if zh else f", {value}% faster.")
    return out


def flag_word_added(answer: Answer, facts: dict[str, Any], rng: random.Random) -> Answer | None:
    index = index_facts(facts)
    out = copy.deepcopy(answer)
    zh = index.lang == "zh"
    words = {"breaking": ("这是一项破坏性变更", "a breaking change"), "security": ("修复了安全漏洞", "a security fix"),
             "regression": ("修复了一个回归", "fixing a regression"), "revert": ("随后被回滚", "later reverted")}  # fmt: skip
    for s in rng.sample(out, len(out)):
        for concept in rng.sample(list(words), len(words)):
            pattern, kinds = FLAG_WORDS[concept]
            cited = [n for n in s["prs"] if n in index.prs]
            if any(index.flags.get(n, set()) & kinds or pattern.search(index.prs[n]) for n in cited):
                continue
            s["text"] = s["text"].rstrip("。.") + (
                "，" + words[concept][0] + "。" if zh else f", {words[concept][1]}."
            )
            return out
    return None


def pr_swap(answer: Answer, facts: dict[str, Any], rng: random.Random, others: list[int]) -> Answer | None:
    index = index_facts(facts)
    foreign = [n for n in others if n not in index.prs]
    out = copy.deepcopy(answer)
    s = rng.choice(out)
    s["prs"] = [rng.choice(foreign) if i == 0 else n for i, n in enumerate(s["prs"])]
    return out


def pr_swap_inside(answer: Answer, facts: dict[str, Any], rng: random.Random) -> Answer | None:
    """Another PR of the same part cited, for a sentence that names something of its own PR."""
    index = index_facts(facts)
    out = copy.deepcopy(answer)
    for s in rng.sample(out, len(out)):
        own = s["prs"][0]
        claims = read(s["text"])
        if not (claims.figures or claims.names):
            continue
        others = [n for n in index.order if n != own and n not in {x for t in out for x in t["prs"]}]
        others = others or [n for n in index.order if n != own]
        if others:
            s["prs"] = [rng.choice(others)]
            return out
    return None


def measure_verifier(facts_list: list[dict[str, Any]]) -> dict[str, Any]:
    rng = random.Random(SEED)
    every_pr = sorted({n for f in facts_list for n in index_facts(f).prs})
    correct: Counter[str] = Counter()
    accepted: Counter[str] = Counter()
    mutated: Counter[str] = Counter()
    rejected: Counter[str] = Counter()
    missed: dict[str, list[str]] = {}
    mutators: dict[str, Callable[[Answer, dict[str, Any], random.Random], Answer | None]] = {
        "pr_swap": lambda a, f, r: pr_swap(a, f, r, every_pr),
        "pr_swap_inside": pr_swap_inside,
        "number_pm1": number_pm1,
        "unit_changed": unit_changed,
        "figure_invented": figure_invented,
        "flag_word_added": flag_word_added,
    }
    for facts in facts_list:
        answer = good_sentences(facts)
        for kind, variant in [("original", answer), *rewordings(answer)]:
            correct[kind] += 1
            accepted[kind] += verify(facts, json.dumps({"sentences": variant}, ensure_ascii=False)).ok
        for kind, mutate in [(k, m) for k, m in mutators.items() for _ in range(TRIALS)]:
            wrong = mutate(answer, facts, rng)
            if wrong is None or wrong == answer:
                continue
            mutated[kind] += 1
            ok = verify(facts, json.dumps({"sentences": wrong}, ensure_ascii=False)).ok
            rejected[kind] += not ok
            if ok:
                missed.setdefault(kind, []).append(json.dumps(wrong, ensure_ascii=False)[:300])
    return {
        "answers": len(facts_list),
        "precision": {k: accepted[k] / correct[k] for k in correct},
        "precision_pooled": sum(accepted.values()) / sum(correct.values()),
        "correct_answers": sum(correct.values()),
        "correct_by_kind": dict(correct),
        "recall": {k: rejected[k] / mutated[k] for k in mutated},
        "recall_pooled": sum(rejected.values()) / sum(mutated.values()),
        "mutated_answers": sum(mutated.values()),
        "mutated_by_kind": dict(mutated),
        "missed_examples": {k: v[:3] for k, v in missed.items()},
    }


# -- cost of a digest -------------------------------------------------------------------------------


def measure_cost(db: Path, profile: Profile, rounds: int, delay: float) -> dict[str, Any]:
    cold: list[tuple[int, float]] = []
    cached: list[tuple[int, float]] = []
    with FakeLLM(key="", delay=delay) as fake, tempfile.TemporaryDirectory() as tmp:
        config = ProseConfig(url=fake.url, model="fake-model", timeout=60.0)
        for i in range(rounds):
            copy_path = Path(tmp) / f"round{i}.db"
            shutil.copy(db, copy_path)
            ctx = Context(store=PRStore(connect(copy_path)), profile=profile)
            for into in (cold, cached):
                writer = ProseWriter(config, DirectCache(ctx.store.db, config.model))
                reply = digest(ctx, "2026-W19", "zh")
                started = time.perf_counter()
                asyncio.run(writer.write(reply))
                into.append((writer.last.requests, time.perf_counter() - started))
            ctx.store.db.close()
    return {
        "delay_s": delay,
        "rounds": rounds,
        "cold": {
            "requests": statistics.median(r for r, _ in cold),
            "wall_s": statistics.median(s for _, s in cold),
        },
        "cached": {
            "requests": statistics.median(r for r, _ in cached),
            "wall_s": statistics.median(s for _, s in cached),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--delay", type=float, default=1.0, help="seconds each fake answer takes")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    profile = load_profile()
    with tempfile.TemporaryDirectory() as tmp:
        db = demo_cache(Path(tmp), profile)
        verifier = measure_verifier(all_facts(db, profile))
        costs = [measure_cost(db, profile, args.rounds, d) for d in sorted({0.0, args.delay})]
    result = {"verifier": verifier, "cost": costs}
    print(json.dumps(result, ensure_ascii=False, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
