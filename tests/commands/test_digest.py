"""The digest command on the demo history: every section, every number recomputed independently."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from datetime import datetime

import pytest

from classify.periods import parse_period
from commands.model import BulletList, Heading, Table
from commands.registry import Context
from commands.render import render
from tests.conftest import DEMO_NOW, RunFn

REPO = "vllm-project/vllm"
EN_SECTIONS = [
    "Executive summary",
    "Key changes this week",
    "Module and topic trends",
    "Risk observations",
    "Key PR quick view",
    "Recommendations",
]
ZH_SECTIONS = ["执行摘要", "本周重点变化", "模块与主题趋势", "风险观察", "重点 PR 速览", "后续建议"]


def _expected_counts(ctx: Context, start: datetime, end: datetime) -> Counter[str]:
    rows = ctx.store.db.execute(
        "SELECT flags FROM prs WHERE repo = ? AND merged_at >= ? AND merged_at < ?",
        (REPO, start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ")),
    ).fetchall()
    counts: Counter[str] = Counter(merged=len(rows))
    for (flags,) in rows:
        counts.update(f["kind"] for f in json.loads(flags))
    return counts


def test_digest_has_every_section_in_order(run: RunFn) -> None:
    reply = run("digest", "2026-W19")
    assert reply.ok
    headings = [b.text for b in reply.all_blocks() if isinstance(b, Heading) and b.level == 2]
    assert headings == EN_SECTIONS
    # the summary is the lead; every other part is an explicit section
    assert isinstance(reply.blocks[0], Heading) and reply.blocks[0].text == EN_SECTIONS[0]
    assert [s.title for s in reply.sections] == EN_SECTIONS[1:]


def test_digest_counts_match_the_cache(run: RunFn, demo_ctx: Context) -> None:
    reply = run("digest", "2026-W19")
    period = parse_period("2026-W19", DEMO_NOW)
    expected = _expected_counts(demo_ctx, period.start, period.end)
    counts = reply.data["counts"]
    assert counts["merged"] == expected["merged"] >= 150
    for kind in ("core-path", "missing-tests", "breaking", "dependency", "large", "revert"):
        assert counts[kind] == expected[kind], kind
        assert counts[kind] > 0, f"the demo week should raise {kind}"
    eligible = sum(1 for p in reply.data["prs"] if p["score"] >= demo_ctx.profile.key_min_score)
    assert counts["key"] == min(math.ceil(expected["merged"] * demo_ctx.profile.key_share), eligible) > 0
    assert sum(p["key"] for p in reply.data["prs"]) == counts["key"]
    assert len(reply.data["prs"]) == counts["merged"]


def test_digest_compares_with_the_four_previous_weeks(run: RunFn, demo_ctx: Context) -> None:
    reply = run("digest", "2026-W19")
    previous = reply.data["previous"]
    assert [p["period"]["start"][:10] for p in previous] == [
        "2026-04-27",
        "2026-04-20",
        "2026-04-13",
        "2026-04-06",
    ]
    for p in previous:
        start = datetime.fromisoformat(p["period"]["start"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(p["period"]["end"].replace("Z", "+00:00"))
        expected = _expected_counts(demo_ctx, start, end)
        assert p["counts"]["merged"] == expected["merged"]
        assert p["counts"]["core-path"] == expected["core-path"]


def test_a_sudden_topic_becomes_a_theme_of_its_own(run: RunFn) -> None:
    themes = run("digest", "2026-W19").data["themes"]
    burst = next(t for t in themes if t["kind"] == "burst")
    assert burst["name"] == {"en": "AutoWeightsLoader migration", "zh": "AutoWeightsLoader 迁移"}
    assert len(burst["prs"]) >= 4
    assert f"#{burst['lead'][0]}" in burst["summary"]["en"] and burst["summary"]["zh"].endswith("。")
    prs = {p["number"]: p for p in run("digest", "2026-W19").data["prs"]}
    assert all("autoweightsloader" in prs[n]["title"].lower() for n in burst["prs"])
    # a theme's PRs are PRs of the period, and no PR sits in two themes
    all_numbers = [n for t in themes for n in t["prs"]]
    assert set(all_numbers) <= set(prs)
    assert len(all_numbers) == len(set(all_numbers))


def test_the_demo_weeks_themes_are_the_team_reports_seven_storylines(run: RunFn) -> None:
    """The reference report's seven stories (reference/example-weekly-report.zh.txt), not the
    "Model support" bucket: the tool-call parsers' many small fixes in one subsystem are told."""
    themes = run("digest", "2026-W19").data["themes"]
    assert {t["key"] for t in themes} == {
        "word:autoweightsloader",
        "module:rocm",
        "module:cpu",
        "module:performance",
        "module:kv-connector",
        "module:spec-decode",
        "module:tool-calling",
    }
    parsers = next(t for t in themes if t["key"] == "module:tool-calling")
    # the PRs the report names under its tool-parser story (the xgrammar bump among them)
    assert {39243, 40894, 41801, 41991, 42026, 41730} <= set(parsers["prs"])


def test_no_burst_theme_for_a_topic_that_is_always_there(run: RunFn) -> None:
    themes = run("digest", "2026-W18").data["themes"]
    bursts = [t["title"].lower() for t in themes if t["kind"] == "burst"]
    assert not set(bursts) & {"rocm", "kernel", "bugfix", "autoweightsloader"}
    assert any(t["kind"] == "module" for t in themes)


def test_highlights_and_key_prs_are_reported(run: RunFn) -> None:
    reply = run("digest", "2026-W19")
    assert reply.data["highlights"], "the demo week states measured effects"
    assert any("319%" in h["text"] for h in reply.data["highlights"])
    key = reply.data["key_prs"]
    text = render(reply, "text")
    # the top three in the lead, the next five in the quick view, numbered on: eight in rank order
    top = text.split("Top key PRs")[1].split("Key changes this week")[0]
    quick = text.split("Key PR quick view")[1].split("Recommendations")[0]
    items = [line for part in (top, quick) for line in part.splitlines() if re.match(r"^\d+\. ", line)]
    assert [int(line.split(".")[0]) for line in items] == list(range(1, 9))
    shown = [int(re.search(r"\(#(\d+)\)$", line).group(1)) for line in items]  # type: ignore[union-attr]
    assert shown == key[:8]


def test_the_lead_holds_the_summary_top_storylines_and_top_key_prs(run: RunFn) -> None:
    for lang, names in (("en", ("Top storylines", "Top key PRs")), ("zh", ("主要动向", "重点 PR"))):
        reply = run("digest", "2026-W19", lang=lang)
        headings = [b.text for b in reply.blocks if isinstance(b, Heading)]
        assert headings == [EN_SECTIONS[0] if lang == "en" else ZH_SECTIONS[0], *names]
        storylines, key_prs = [b for b in reply.blocks if isinstance(b, BulletList)]
        themes = reply.data["themes"][:3]
        assert [line.text.split(" — " if lang == "en" else "（")[0] for line in storylines.items] == [
            th["title"] for th in themes
        ]
        assert [b.prs[0].number for b in key_prs.items] == reply.data["key_prs"][:3] and key_prs.ordered
        assert all(" — " in b.text or "：" in b.text for b in key_prs.items)  # each with its one line
        named = [p.number for block in (storylines, key_prs) for b in block.items for p in b.prs]
        assert len(named) == len(set(named)) == 6  # no PR twice in the lead
        # the comparison table went to the trends section of the thread
        assert not any(isinstance(b, Table) for b in reply.blocks)
        assert isinstance(reply.sections[1].blocks[1], Table)


def test_recommendations_name_their_prs(run: RunFn) -> None:
    recs = run("digest", "2026-W19").data["recommendations"]
    assert recs
    assert all(r["prs"] for r in recs)
    assert any("breaking" in r["text"] for r in recs)


def test_module_filter_narrows_every_number(run: RunFn) -> None:
    full = run("digest", "2026-W19")
    rocm = run("digest", "2026-W19", "rocm")
    assert rocm.ok
    assert 0 < rocm.data["counts"]["merged"] < full.data["counts"]["merged"]
    assert all("rocm" in p["modules"] for p in rocm.data["prs"])
    assert rocm.data["modules_filter"] == ["rocm"]


def test_module_names_are_matched_case_insensitively_with_synonyms(run: RunFn, demo_ctx: Context) -> None:
    assert run("digest", "2026-W19", "ROCm").data["modules_filter"] == ["rocm"]
    synonym = demo_ctx.profile.resolve_module("AMD")
    assert synonym == "rocm"


def test_chinese_digest_reads_like_the_team_report(run: RunFn) -> None:
    reply = run("digest", "2026-W19", lang="zh")
    headings = [b.text for b in reply.all_blocks() if isinstance(b, Heading) and b.level == 2]
    assert headings == ZH_SECTIONS
    text = render(reply, "text")
    for word in ("重点", "核心路径变更", "缺少测试覆盖", "本周共合并"):
        assert word in text
    assert reply.data["counts"] == run("digest", "2026-W19").data["counts"]


def test_last_week_and_the_date_range_equal_the_iso_week(run: RunFn) -> None:
    iso = run("digest", "2026-W19").data
    assert run("digest", "last-week").data["counts"] == iso["counts"]
    assert run("digest", "2026-05-04..2026-05-10").data["counts"] == iso["counts"]


def test_week_is_the_last_seven_days(run: RunFn) -> None:
    reply = run("digest")
    assert reply.data["period"]["end"] == DEMO_NOW.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_an_empty_period_says_where_the_data_is(run: RunFn) -> None:
    reply = run("digest", "2025-W10")
    text = render(reply, "text")
    assert reply.ok and reply.data["counts"]["merged"] == 0
    assert "No PRs were merged in 2025-W10" in text
    assert "digest 2026-W19" in text


@pytest.mark.parametrize("timezone", ["UTC", "Europe/Berlin", "America/Los_Angeles", "Asia/Shanghai"])
def test_the_empty_period_hint_names_dates_and_week_in_one_time_zone(run: RunFn, timezone: str) -> None:
    """The demo's last PR is merged at 22:15 UTC on Sunday 2026-05-10: Monday 2026-05-11 in
    Berlin, so Berlin's hint must say 05-11 and 2026-W20 (it said 05-10 and W20)."""
    text = render(run("digest", "2025-W10", timezone=timezone), "text")
    found = re.search(
        r"from (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2}); try `prdigest digest (\d{4})-W(\d{2})`", text
    )
    assert found, text
    last = datetime.fromisoformat(found.group(2)).date()
    year, week, _ = last.isocalendar()
    assert (year, week) == (int(found.group(3)), int(found.group(4))), text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("2026-W99",), "not an ISO week"),
        (("yesterday-ish",), "unknown module 'yesterday-ish'"),
        (("2026-W19", "nosuchmodule"), "unknown module 'nosuchmodule'"),
        (("2026-W19", "2026-W18"), "one period"),
    ],
)
def test_bad_digest_input_gets_one_usage_line(run: RunFn, args: tuple[str, ...], message: str) -> None:
    reply = run("digest", *args)
    assert reply.status == "usage"
    assert message in reply.title
    assert "usage: prdigest digest [PERIOD] [MODULE…] [FLAG…] [any|all|only]" in reply.title
    assert "\n" not in reply.title


def test_markdown_and_json_renderings(run: RunFn) -> None:
    reply = run("digest", "2026-W19")
    md = render(reply, "markdown")
    assert md.startswith("# vllm-project/vllm weekly digest · 2026\\-W19") or md.startswith(
        "# vllm-project/vllm weekly digest · 2026-W19"
    )
    assert "## Executive summary" in md and "](https://github.com/vllm-project/vllm/pull/" in md
    data = json.loads(render(reply, "json"))
    assert set(data) >= {"repo", "period", "counts", "themes", "prs"}
    assert set(data["counts"]) == {
        "merged",
        "key",
        "core-path",
        "missing-tests",
        "breaking",
        "dependency",
        "large",
        "revert",
    }
    assert set(data["prs"][0]) >= {"number", "title", "modules", "flags", "key"}
    assert set(data["themes"][0]) >= {"title", "prs"}
