"""The digest a team lead can post unedited: its numbers agree with its tables and JSON, its
periods are compared fairly, it is short, and its Chinese is Chinese."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest

from classify.rules import Profile
from classify.storylines import clean_title
from commands.locale.effects import effect_text
from commands.locale.evidence import evidence_items
from commands.locale.words import avg_text, shown_avg, shown_change
from commands.model import BulletList, Heading, Paragraph, Reply, Table
from commands.registry import Context
from commands.render import render
from commands.report.compose import RISK_NAMED
from storage.db import connect
from storage.prs import PRStore, TagFilter
from tests.conftest import DEMO_NOW, RunFn

WEEKS = ("2026-W15", "2026-W16", "2026-W17", "2026-W18", "2026-W19")
PERIODS = (*WEEKS, "2026-04-01..2026-05-10", "2026-05-04..2026-05-06")


# -- reading numbers back out of the text ----------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?![\w])")


def _numbers(text: str) -> list[str]:
    return [m.group(0).replace(",", "").lstrip("+-") for m in _NUMBER.finditer(text)]


def _walk(value: Any) -> Iterator[float]:
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield float(value)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def _allowed(data: dict[str, Any]) -> set[str]:
    """Every number the JSON holds, as the text formats it: counts, averages (whole and one
    decimal), the changes against them, and 'N more' after the named items of a risk line."""
    values = set(_walk({k: v for k, v in data.items() if k not in ("prs", "highlights", "key_prs")}))
    out = {avg_text(v) for v in values} | {str(int(v)) for v in values if v == int(v)}
    counts, averages = data["counts"], data["averages"]
    # a percentage is the change against the average as shown beside it
    for key, avg in averages.items():
        if avg:
            out.add(str(abs(shown_change(counts[key], avg) or 0)))
    for row in data["modules"]:
        if row["avg_4w"]:
            out.add(str(abs(shown_change(row["count"], row["avg_4w"]) or 0)))
    for risk in data["risks"].values():
        out.add(str(risk["count"] - RISK_NAMED))
        out.add(str(risk["count"] - 5))
    return out


def _prose(reply: Reply, lang: str) -> list[str]:
    """The sentences prdigest wrote (summary, theme headings, trends, risks, recommendations), with
    what it quotes — PR titles, measured effects, evidence, commands, dates — cut out."""
    data = reply.data
    titles = sorted((clean_title(p["title"], data["repo"]) for p in data["prs"]), key=len, reverse=True)
    effects = sorted({effect_text(h["text"], lang) for h in data["highlights"]}, key=len, reverse=True)
    evidence: list[str] = []
    by_number = {p["number"]: p for p in data["prs"]}
    for kind, risk in data["risks"].items():
        for number, items in risk["evidence"].items():
            evidence += evidence_items(kind, items, lang, by_number[int(number)]["title"])
    cut = [*effects, *sorted(evidence, key=len, reverse=True), *titles]
    out = []
    quick = False
    for block in reply.all_blocks():
        if isinstance(block, Heading) and block.level == 2:
            quick = block.text in ("Key PR quick view", "重点 PR 速览")  # every line there is PR content
        if quick:
            continue
        texts: list[str] = []
        if isinstance(block, Heading | Paragraph):
            texts = [re.sub(r"^\d+\. ", "", block.text)]  # a theme's position is no count
        elif isinstance(block, BulletList):
            texts = [b.text for b in block.items]
        for text in texts:
            text = re.sub(r"`[^`]*`", " ", text)
            for piece in cut:
                # a quoted effect may start lower-case, as a later item of a listed description
                text = re.sub(re.escape(piece), " ", text, flags=re.I)
            text = re.sub(r"\d{4}-W\d{2}|\d{4}-\d{2}-\d{2}(?:\.\.\d{4}-\d{2}-\d{2})?|#\d+", " ", text)
            out.append(text)
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("period", PERIODS)
def test_every_number_in_the_text_is_a_number_of_the_json(run: RunFn, period: str, lang: str) -> None:
    reply = run("digest", period, lang=lang)
    allowed = _allowed(reply.data)
    for sentence in _prose(reply, lang):
        for number in _numbers(sentence):
            assert number in allowed, f"{number!r} in {sentence!r} is not in the JSON"


@pytest.mark.parametrize("period", WEEKS)
def test_the_summary_and_the_tables_state_the_same_numbers(run: RunFn, period: str) -> None:
    reply = run("digest", period)
    data = reply.data
    counts, averages = data["counts"], data["averages"]
    summary = next(b for b in reply.blocks if isinstance(b, Paragraph)).text
    m = re.match(
        r"^(\d+) PRs merged this week(?: \((\d+)% (more|fewer) than .*?: ([\d.]+)\))?; (\d+) of them", summary
    )
    assert m, summary
    assert int(m.group(1)) == counts["merged"] and int(m.group(5)) == counts["key"]
    if data["previous"]:
        assert m.group(4) == avg_text(averages["merged"])
        shown = float(m.group(4))
        assert int(m.group(2)) == abs(shown_change(counts["merged"], averages["merged"]) or 0)
        assert int(m.group(2)) == round(abs(counts["merged"] - shown) / shown * 100 + 1e-9)
        table = next(b for b in reply.all_blocks() if isinstance(b, Table) and b.columns[0] == "count")
        rows = {row[0]: row for row in table.rows}
        assert rows["merged"][1] == str(counts["merged"]) and rows["merged"][-1] == avg_text(
            averages["merged"]
        )
        for i, previous in enumerate(data["previous"], 2):
            assert rows["core-path change"][i] == str(previous["counts"]["core-path"])
    assert f"{counts['core-path']} PRs change core paths" in summary
    assert f"{counts['missing-tests']} lack test coverage" in summary


def _pct(now: float, shown: float) -> int:
    """The change a reader computes from the two numbers printed side by side."""
    exact = (now - shown) / shown * 100
    return int(Decimal(str(abs(exact))).quantize(Decimal(1), rounding=ROUND_HALF_UP))


@pytest.mark.parametrize(
    "args",
    [
        ("2026-W19",),
        ("2026-W18",),
        ("2026-W19", "rocm", "kernel", "all"),
        ("2026-W19", "rocm"),
        ("2026-W16", "spec-decode"),
        ("2026-04-21..2026-05-10",),
    ],
)
def test_every_percentage_is_computed_from_the_average_printed_beside_it(
    run: RunFn, args: tuple[str, ...]
) -> None:
    """ "17 PRs (10% more than the four-week average: 16)" read 15.75 and showed 16; the module
    table showed 15.5 and +10%: a reader checks 17 against the number printed."""
    reply = run("digest", *args)
    summary = next(b for b in reply.blocks if isinstance(b, Paragraph)).text
    m = re.search(r"^(\d+) PRs? merged this \w+ \((\d+)% (more|fewer) than [^:]*: ([\d.]+)\)", summary)
    checked = 0
    if m:
        now, pct, shown = int(m.group(1)), int(m.group(2)), float(m.group(4))
        assert pct == min(_pct(now, shown), 99 if now else 100) or (pct == 1 and now != shown), summary
        checked += 1
    compare = next(b for b in reply.all_blocks() if isinstance(b, Table) and b.columns[0] == "count")
    module_table = next(b for b in reply.all_blocks() if isinstance(b, Table) and b.columns[0] == "module")
    for row in module_table.rows:
        now, shown, change = int(row[1]), float(row[2]), row[3]
        if shown:
            assert change == f"{_pct(now, shown) * (1 if now >= shown else -1):+d}%", row
            checked += 1
    # the same count is shown with the same average in both tables (a filtered digest's "merged"
    # row and its module's row, "ROCm / AMD 42 36.5")
    merged = next(r for r in compare.rows if r[0] == "merged")
    for row in module_table.rows:
        if row[1] == merged[1] and len(args) == 2 and args[1] == "rocm" and row[0].startswith("ROCm"):
            assert row[2] == merged[-1], (row, merged)
    assert checked


def test_mostly_in_is_computed_from_the_module_counts(run: RunFn) -> None:
    """ "mostly in X (n), …" names the modules most of the flagged PRs touch, with those counts."""
    reply = run("digest", "2026-W19")
    prs = {p["number"]: p for p in reply.data["prs"]}
    text = render(reply, "text")
    for kind, prefix in (("core-path", "Core-path changes"), ("missing-tests", "Test gaps")):
        flagged = [prs[n] for n in reply.data["risks"][kind]["prs"]]
        tally: dict[str, int] = {}
        for p in flagged:
            for m in dict.fromkeys(p["modules"]):
                tally[m] = tally.get(m, 0) + 1
        top = reply.data["risks"][kind]["modules"]
        assert [row["count"] for row in top] == sorted(tally.values(), reverse=True)[:3]
        assert all(tally[row["module"]] == row["count"] for row in top)
        line = next(line for line in text.splitlines() if line.startswith(f"• {prefix}"))
        shown = [int(n) for n in re.findall(r"\((\d+)\)", line.split("mostly in", 1)[1])]
        assert shown == [row["count"] for row in top], line
        assert f": {len(flagged)} PRs" in line


@pytest.mark.parametrize("period", PERIODS)
def test_theme_headings_say_what_they_count(run: RunFn, period: str) -> None:
    """A theme named after a module counts, against the module table's count, only the PRs that
    touch the module, and the PRs of other modules that joined the story apart: 2026-W18 said
    "Kernels & custom ops — 68 PRs" beside a table saying 62 (15 of the 68 touch no kernel)."""
    reply = run("digest", period)
    data = reply.data
    modules = {p["number"]: p["modules"] for p in data["prs"]}
    table = {row["label"]: row["count"] for row in data["modules"]}
    headings = [
        b.text for b in reply.all_blocks() if isinstance(b, Heading) and b.level == 3 and b.text[:1].isdigit()
    ]
    for heading, theme in zip(headings, data["themes"], strict=True):
        n = len(theme["prs"])
        if theme["kind"] == "burst":
            assert f"{n} PRs" in heading
            continue
        if theme["module"] is None:
            assert f"— {n} PRs" in heading and theme["title"] not in table, heading
            continue
        inside = sum(1 for number in theme["prs"] if theme["module"] in modules[number])
        total = theme["module_total"]
        assert theme["in_module"] == inside and total == table[theme["title"]]
        assert theme["outside_module"] == n - inside
        outside = n - inside
        assert inside <= total, heading
        if outside:
            related = (
                "1 related one from another module"
                if outside == 1
                else f"{outside} related ones from other modules"
            )
            said = f"{inside} of the module's {total}" if inside < total else f"all {total} of the module's"
            assert heading.endswith(f"— {n} PRs: {said} and {related}"), heading
        elif inside < total:
            assert heading.endswith(f"— {n} PRs (of {total} in the module)"), heading
        else:
            assert heading.endswith(f"— {n} PRs"), heading
        # no number in the heading beyond those: "68 PRs" beside a table of 62 is gone
        assert all(
            int(x) in (inside, total, outside, n) for x in re.findall(r"\d+", heading.split(" — ", 1)[1])
        )


def test_theme_headings_in_chinese_count_the_same(run: RunFn) -> None:
    reply = run("digest", "2026-W18", lang="zh")
    themes = {th["title"]: th for th in reply.data["themes"]}
    kernel = themes["内核与算子"]
    outside = kernel["count"] - kernel["in_module"]
    assert outside > 0  # the case the review found
    heading = next(b.text for b in reply.all_blocks() if isinstance(b, Heading) and "内核与算子（" in b.text)
    assert heading.endswith(
        f"内核与算子（{kernel['count']} 个 PR：该模块 {kernel['module_total']} 个中的 {kernel['in_module']} 个，"
        f"另有 {outside} 个相关 PR 来自其他模块）"
    ), heading


# -- periods and comparisons -----------------------------------------------------------------------------


def test_a_range_is_compared_with_earlier_ranges_of_the_same_length(run: RunFn) -> None:
    reply = run("digest", "2026-04-21..2026-05-10")  # 20 days: one earlier 20-day window fits in the cache
    cmp = reply.data["comparison"]
    assert cmp["days"] == 20 and not cmp["weekly"]
    assert cmp["windows"] == len(reply.data["previous"]) == 1
    start = reply.data["period"]["start"]
    assert reply.data["previous"][0]["period"]["end"] == start
    text = render(reply, "text")
    assert "Comparison with the previous 20-day period (the cache starts on 2026-03-30)" in text
    assert "four-week" not in text and "weekly digest" not in text


def test_windows_before_the_cache_are_not_counted_as_zeros(run: RunFn) -> None:
    reply = run("digest", "2026-W14")  # the cache's first week
    assert reply.data["previous"] == [] and reply.data["comparison"]["windows"] == 0
    assert all(v is None for v in reply.data["averages"].values())
    text = render(reply, "text")
    assert "Not compared: the cache starts on 2026-03-30" in text
    assert "Above" not in text and " vs 0" not in text and "n/a" not in text
    second = run("digest", "2026-W15")
    assert second.data["comparison"]["windows"] == 1
    assert "Comparison with the previous week (the cache starts on 2026-03-30)" in render(second, "text")


def test_a_forty_day_range_is_not_compared_with_a_four_week_average(run: RunFn) -> None:
    reply = run("digest", "2026-04-01..2026-05-10")
    text = render(reply, "text")
    assert reply.data["comparison"]["days"] == 40
    assert reply.data["previous"] == []  # no earlier 40-day window lies inside the cache
    summary = text.split("Top storylines")[0]
    assert "Not compared" in summary and "four-week" not in text and "%" not in summary


@pytest.mark.parametrize("period", ["0001-W01", "0001-01-01..0001-01-03"])
def test_periods_at_the_start_of_the_calendar_get_a_correct_answer(run: RunFn, period: str) -> None:
    reply = run("digest", period)
    assert reply.ok and reply.data["counts"]["merged"] == 0
    assert "No PRs were merged" in render(reply, "text")


def test_a_period_past_the_end_of_the_calendar_is_one_usage_line(run: RunFn) -> None:
    for command in (("digest", "9999-W52"), ("risks", "core-path", "9999-W52")):
        reply = run(*command)
        assert reply.status == "usage" and "beyond the calendar" in reply.title and "\n" not in reply.title


# -- answers that tell the truth -------------------------------------------------------------------------


def test_a_module_filter_that_matches_nothing_says_so(run: RunFn) -> None:
    reply = run("digest", "2026-W19", "tpu")
    text = render(reply, "text")
    assert "No PRs in TPU in 2026-W19; 222 were merged there overall." in text
    assert "try `prdigest digest 2026-W19`" not in text
    assert "`prdigest digest 2026-W19 MODULE`" in text and "quantization (61)" in text
    zh = render(run("digest", "2026-W19", "tpu", lang="zh"), "text")
    assert "2026-W19 期间没有涉及 TPU 的 PR；同期共合并 222 个 PR。" in zh


def test_an_unknown_repository_names_the_cached_ones(run: RunFn) -> None:
    for command in ("digest", "risks", "search"):
        args = ("2026-W19",) if command != "search" else ("tree",)
        reply = run(command, *args, repo="foo/bar")
        assert reply.status == "usage"
        assert "the cache holds no PRs of foo/bar; it holds vllm-project/vllm" in reply.title
    assert run("digest", "2026-W19", repo="VLLM-project/vLLM").ok  # GitHub names are case-insensitive


def test_a_cache_classified_by_another_profile_says_so(demo_db: Path, profile: Profile) -> None:
    conn = sqlite3.connect(demo_db)
    conn.execute("UPDATE prs SET profile_version = '2020.1.1' WHERE number % 2 = 1")
    conn.commit()
    conn.close()
    ctx = Context(store=PRStore(connect(demo_db)), profile=profile)
    from commands.model import Invocation
    from commands.registry import dispatch

    for command, args in (("digest", ("2026-W19",)), ("risks", ("breaking", "2026-W19")), ("pr", ("42121",))):
        for lang, needle in (("en", "prdigest reclassify"), ("zh", "prdigest reclassify")):
            inv = Invocation(command=command, args=args, lang=lang, now=DEMO_NOW)  # type: ignore[arg-type]
            reply = dispatch(inv, ctx)
            assert reply.ok, reply.title
            text = render(reply, "text")
            if command == "pr" and lang == "en":
                assert "The active profile is vllm" in text
            assert needle in text, (command, lang)
    inv = Invocation(command="digest", args=("2026-W19",), now=DEMO_NOW)
    note = dispatch(inv, ctx).data["profile_note"]
    assert "classified by profile vllm 2020.1.1, not by the active vllm" in note


def test_a_freshly_classified_cache_has_no_profile_note(run: RunFn) -> None:
    reply = run("digest", "2026-W19")
    assert "profile_note" not in reply.data and "reclassify" not in render(reply, "text")


# -- concise ---------------------------------------------------------------------------------------------


def _sentences(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        if not line.strip() or re.match(r"^[-=\s]+$|^\S.*\s{2,}\S", line):  # rules and table rows
            continue
        line = re.sub(r"\s*\(#[\d, #]+\)$", "", line)  # the PR links after a line are no sentence
        out += [s.strip() for s in re.split(r"(?<=[.。！？])\s+|(?<=[。！？])", line) if len(s.strip()) > 25]
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_demo_week_is_as_short_as_the_team_report_and_says_nothing_twice(run: RunFn, lang: str) -> None:
    text = render(run("digest", "2026-W19", lang=lang), "text")
    lines = [line for line in text.splitlines() if line.strip()]
    # the team's report has 63 lines; ours adds the tables, and a lead that names three
    # storylines and three key PRs by itself, for the readers who never open the thread
    assert len(lines) <= 85, len(lines)
    sentences = _sentences(text)
    repeated = {s for s in sentences if sentences.count(s) > 1}
    assert not repeated, repeated
    for command in ("risks all 2026-W19", "digest 2026-W19 ", "pr 42121"):
        assert command in text  # the details are one command away


# -- Chinese ---------------------------------------------------------------------------------------------

ENGLISH_LEAKS = (
    "lines changed", "source lines", "files changed", "label:", "title:", "body:", "more files",
    "reverts", " more", "higher", "faster", "speedup", "drops from", "Removes", "kind:", "module:",
    "measured effect", "touches", "core path", "average", "merged", "week", "PRs", "n/a",
)  # fmt: skip


def _zh_prose(text: str, data: dict[str, Any]) -> str:
    for p in sorted(data["prs"], key=lambda p: -len(p["title"])):
        text = text.replace(p["title"], " ").replace(clean_title(p["title"], data.get("repo", "")), " ")
    return re.sub(r"`[^`]*`|https?://\S+|“[^”]*”", " ", text)


@pytest.mark.parametrize("period", ["2026-W19", "2026-W18", "2026-04-21..2026-05-10"])
def test_the_chinese_digest_is_chinese(run: RunFn, period: str) -> None:
    reply = run("digest", period, lang="zh")
    text = _zh_prose(render(reply, "text"), reply.data)
    for leak in ENGLISH_LEAKS:
        assert leak not in text, leak
    for line in text.splitlines():
        if re.match(r"^[-=\s]+$|.*\s{2,}\S", line):
            continue  # rules and table rows
        assert not re.search(r" \(#\d", line), line  # PR numbers full-width: （#1、#2）
        prose = re.sub(r"（#[\d、#]+）", "", line)  # the renderer's PR links
        assert not re.search(r"[\u4e00-\u9fff][,;:]|[,;:][\u4e00-\u9fff]", prose), (
            line
        )  # full-width punctuation
        assert not re.search(r"[\u4e00-\u9fff][A-Za-z0-9]|[A-Za-z0-9%][\u4e00-\u9fff]", prose), (
            line
        )  # spacing


def test_chinese_measured_effects_and_counts(run: RunFn) -> None:
    text = render(run("digest", "2026-W19", lang="zh"), "text")
    for phrase in (
        "MI355X 上解码吞吐提升 16–24%",
        "H100 上端到端最高加速 319%",
        "减少约 1400 行代码",
        "长序列上吞吐提升 13.5%",
        "本周共合并 222 个 PR",
        "依赖升级 3 个：xgrammar 0.1.29 → 0.2.0",
        "回滚 1 个：撤销了",
    ):
        assert phrase in text, phrase
    assert "排查 1 个回滚" not in text and "它们撤销了" not in text


def test_chinese_risks_and_pr_are_chinese(run: RunFn) -> None:
    for reply in (
        run("risks", "all", "2026-W19", lang="zh"),
        run("pr", "42121", lang="zh"),
        run("pr", "41882", lang="zh"),
    ):
        text = _zh_prose(render(reply, "text"), {"prs": [{"title": reply.data.get("title", "")}]})
        text = re.sub(r"^.*(?:Removes|Adds|seq_lens).*$", "", text, flags=re.M)  # the author's gist, quoted
        for leak in (
            "lines changed",
            "source lines",
            "label:",
            "title:",
            "body:",
            "kind:",
            "module:",
            "measured effect",
            "core path",
            "files changed",
            "reverts",
        ):
            assert leak not in text, (leak, reply.command)


# -- wording a team lead posts unedited ----------------------------------------------------------------


def _summary(reply: Reply) -> str:
    return next(b for b in reply.blocks if isinstance(b, Paragraph)).text


def test_no_count_of_zero_is_stated_as_a_plural(run: RunFn) -> None:
    """ "0 are breaking changes" reads oddly: none is one."""
    reply = run("digest", "2026-W19", "rocm", "kernel", "all")
    summary = _summary(reply)
    assert reply.data["counts"]["breaking"] == 0
    assert "none is a breaking change." in summary and "0 are" not in summary
    zh = _summary(run("digest", "2026-W19", "rocm", "kernel", "all", lang="zh"))
    assert "没有破坏性变更。" in zh and "0 个为破坏性变更" not in zh
    quiet = _summary(run("digest", "2026-W20", timezone="Europe/Berlin"))
    assert "No PR changes core paths, none lacks test coverage and none is a breaking change." in quiet
    # one PR against 213.3 is 99% fewer, never "100% fewer" while a PR was merged
    assert quiet.startswith("1 PR merged this week (99% fewer than the four-week average: 213.3)"), quiet


def test_a_list_in_running_english_ends_with_and(run: RunFn) -> None:
    text = render(run("digest", "2026-W19"), "text")
    line = next(line for line in text.splitlines() if line.startswith("• Add tests for"))
    assert re.search(r"in [^,]+, [^,]+ and [^,]+ before the next release", line), line
    trends = next(line for line in text.splitlines() if line.startswith("• Accelerating: "))
    assert re.search(r"\), [^,]+ \([^)]+\) and [^,]+ \([^)]+\)\.$", trends), trends


def test_the_dependency_recommendation_names_packages_never_files(run: RunFn) -> None:
    """ "Test against the upgraded requirements/common.txt, xgrammar, …": a file is no package."""
    for lang in ("en", "zh"):
        reply = run("digest", "2026-04-21..2026-05-10", lang=lang)
        rec = next(r for r in reply.data["recommendations"] if "xgrammar" in r["text"])
        assert "requirements" not in rec["text"] and ".txt" not in rec["text"], rec
        assert ("and others" if lang == "en" else "等补充") in rec["text"], rec
        # every PR it links upgrades a package it names
        by_number = {p["number"]: p for p in reply.data["prs"]}
        for number in rec["prs"]:
            items = reply.data["risks"]["dependency"]["evidence"].get(str(number)) or []
            assert any("→" in item for item in items) or "dependency" in by_number[number]["flags"]


def test_a_removed_package_is_never_called_upgraded(run: RunFn) -> None:
    """IPEX removed in 2026-W14: no "test against the upgraded IPEX"; the digest asks whether
    anything still needs it, and links the PR that removed it."""
    for lang, asks in (("en", "Check that nothing you run still needs IPEX"), ("zh", "移除了 IPEX")):
        reply = run("digest", "2026-W14", lang=lang)
        removed = [
            n
            for n, items in reply.data["risks"]["dependency"]["evidence"].items()
            if "IPEX removed" in " ".join(items) or "移除 IPEX" in items
        ]
        assert removed, reply.data["risks"]["dependency"]["evidence"]
        texts = {r["text"]: r["prs"] for r in reply.data["recommendations"]}
        upgraded = next(text for text in texts if "transformers" in text)
        assert "IPEX" not in upgraded, upgraded
        [ask] = [text for text in texts if asks in text]
        assert [str(n) for n in texts[ask]] == removed


@pytest.mark.parametrize(
    ("args", "en", "zh"),
    [
        (
            ("rocm", "core-path"),
            "Only PRs touching ROCm / AMD or with a core-path change flag are counted;",
            "仅统计涉及 ROCm / AMD 或带有核心路径变更标记的 PR；",
        ),
        (
            ("rocm", "kernel", "all"),
            "Only PRs touching ROCm / AMD and Kernels & custom ops are counted;",
            "仅统计同时涉及 ROCm / AMD 和内核与算子的 PR；",
        ),
        (
            ("rocm", "kernel"),
            "Only PRs touching ROCm / AMD or Kernels & custom ops are counted;",
            "仅统计涉及 ROCm / AMD 或内核与算子的 PR；",
        ),
        (
            ("core-path", "breaking"),
            "Only PRs with a core-path change or breaking change flag are counted;",
            "仅统计带有核心路径变更或破坏性变更标记的 PR；",
        ),
    ],
)
def test_a_filtered_digest_says_which_prs_it_counts(
    run: RunFn, args: tuple[str, ...], en: str, zh: str
) -> None:
    """Not "Only PRs touching ROCm / AMD, core-path change are counted": a flag is no module, and
    any/all reads as or/and."""
    assert en in _summary(run("digest", "2026-W19", *args))
    assert zh in _summary(run("digest", "2026-W19", *args, lang="zh"))


@pytest.mark.parametrize("words", [("2026-W19",), ("2026-W19", "rocm", "core-path")])
def test_the_rest_of_the_modules_is_counted_per_pr_before_the_period_too(
    run: RunFn, demo_ctx: Context, words: tuple[str, ...]
) -> None:
    """The chart's "none of these" row: PRs carrying none of the first dozen modules, in the
    period and (averaged) in each comparison window, with the digest's own filter applied."""
    data = run("digest", *words).data
    rest = data["other_modules"]
    assert rest is not None and rest["modules"] == len(data["modules"]) - 12
    shown = {m["module"] for m in data["modules"][:12]}
    assert rest["count"] == sum(1 for p in data["prs"] if not shown & set(p["modules"]))
    flt = TagFilter(tuple(data["modules_filter"]), data["match"], tuple(data["flags_filter"]))
    before = []
    for w in data["previous"]:
        start, end = (datetime.fromisoformat(w["period"][k]) for k in ("start", "end"))
        prs = demo_ctx.store.merged_between(data["repo"], start, end)
        prs = [s for s in prs if not flt or flt.matches(s.cls.modules, s.cls.flag_kinds)]
        assert len(prs) == w["counts"]["merged"]  # the same PRs the comparison counted
        before.append(sum(1 for s in prs if not shown & set(s.cls.modules)))
    assert len(before) == 4 and sum(before) > 0
    assert rest["avg_4w"] == shown_avg(sum(before) / 4)


def test_storylines_of_translations_and_docs_come_after_the_products_news() -> None:
    from types import SimpleNamespace

    from commands.report.compose import products_first

    def story(name: str, *kinds: str) -> Any:
        return SimpleNamespace(name=name, prs=[SimpleNamespace(cls=SimpleNamespace(kind=k)) for k in kinds])

    themes = [
        story("update-all", *["translation"] * 10),
        story("Tutorial", "docs", "docs", "translation"),
        story("JSON", "feature", "bugfix", "docs"),
        story("Type annotation", "feature", "refactor"),
    ]
    assert [th.name for th in products_first(themes)] == ["JSON", "Type annotation", "update-all", "Tutorial"]
