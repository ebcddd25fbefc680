"""The digest's filters, as subscriptions use them: module match modes (any, all, only) and flags,
checked against the cache directly — the period's PRs and the comparison windows alike."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from classify.periods import parse_period
from commands.registry import Context
from storage.prs import TagFilter
from tests.conftest import DEMO_NOW, RunFn

REPO = "vllm-project/vllm"


def _rows(ctx: Context, start: datetime, end: datetime) -> list[tuple[int, set[str], set[str]]]:
    rows = ctx.store.db.execute(
        "SELECT number, modules, flags FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ?",
        (REPO, start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ")),
    ).fetchall()
    return [(n, set(json.loads(m)), {f["kind"] for f in json.loads(f)}) for n, m, f in rows]


def _expected(
    rows: list[tuple[int, set[str], set[str]]], mods: set[str], match: str, flags: set[str]
) -> set[int]:
    out = set()
    for number, have, kinds in rows:
        if match == "all":
            hit = bool(mods) and mods <= have
        elif match == "only":
            hit = bool(mods) and bool(have) and have <= mods
        else:
            hit = bool(have & mods)
        if hit or kinds & flags:
            out.add(number)
    return out


CASES = [
    (("rocm",), "any", ()),
    (("rocm", "kernel"), "any", ()),
    (("rocm", "kernel"), "all", ()),
    (("rocm", "kernel"), "only", ()),
    (("kv-connector", "ci"), "only", ()),
    (("rocm",), "any", ("core-path",)),
    ((), "any", ("breaking", "dependency")),
    (("attention", "kernel", "moe"), "only", ("revert",)),
]


@pytest.mark.parametrize(("mods", "match", "flags"), CASES)
def test_filtered_digest_has_exactly_the_matching_prs(
    run: RunFn, demo_ctx: Context, mods: tuple[str, ...], match: str, flags: tuple[str, ...]
) -> None:
    period = parse_period("2026-W19", DEMO_NOW)
    reply = run("digest", "2026-W19", *mods, *flags, *([match] if mods else []))
    assert reply.ok, reply.title
    expected = _expected(_rows(demo_ctx, period.start, period.end), set(mods), match, set(flags))
    assert {p["number"] for p in reply.data["prs"]} == expected
    assert reply.data["counts"]["merged"] == len(expected)
    assert (reply.data["modules_filter"], reply.data["match"], reply.data["flags_filter"]) == (
        list(mods),
        match,
        list(flags),
    )
    # the four comparison weeks are filtered the same way (SQL there, Python for the week itself)
    for window in reply.data["previous"]:
        wp = window["period"]
        start, end = datetime.fromisoformat(wp["start"]), datetime.fromisoformat(wp["end"])
        assert window["counts"]["merged"] == len(
            _expected(_rows(demo_ctx, start, end), set(mods), match, set(flags))
        )


def test_the_cases_are_not_vacuous(demo_ctx: Context) -> None:
    period = parse_period("2026-W19", DEMO_NOW)
    rows = _rows(demo_ctx, period.start, period.end)
    sizes = {case: len(_expected(rows, set(case[0]), case[1], set(case[2]))) for case in CASES}
    assert all(n > 0 for n in sizes.values()), list(sizes.values())
    assert sizes[(("rocm", "kernel"), "all", ())] < sizes[(("rocm", "kernel"), "any", ())]
    assert sizes[(("rocm",), "any", ("core-path",))] > sizes[(("rocm",), "any", ())]


def test_match_can_be_written_match_colon_and_in_any_order(run: RunFn) -> None:
    a = run("digest", "all", "rocm", "2026-W19", "kernel")
    b = run("digest", "2026-W19", "rocm", "kernel", "match:all")
    assert a.ok and a.data["prs"] == b.data["prs"] and a.data["match"] == "all"
    assert "(all)" in a.title


def test_match_without_modules_is_a_usage_error(run: RunFn) -> None:
    reply = run("digest", "2026-W19", "only")
    assert reply.status == "usage"
    assert "needs modules" in reply.title


def test_flag_names_are_shown_in_the_title(run: RunFn) -> None:
    reply = run("digest", "2026-W19", "rocm", "core-path")
    assert "ROCm" in reply.title or "rocm" in reply.title.lower()
    assert "core" in reply.title.lower()


def test_tag_filter_matches() -> None:
    f = TagFilter(("rocm", "kernel"), "only", ("breaking",))
    assert f.matches(["rocm"], []) and f.matches(["kernel", "rocm"], [])
    assert not f.matches(["rocm", "moe"], []) and not f.matches([], [])
    assert f.matches(["moe"], ["breaking"])
    assert TagFilter().matches(["x"], []) and not TagFilter()
    assert TagFilter(("a", "b"), "all").matches(["a", "b", "c"], []) and not TagFilter(
        ("a", "b"), "all"
    ).matches(["a"], [])
