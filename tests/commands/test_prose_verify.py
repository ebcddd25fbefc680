"""The verifier on its own: figures, names and flag words read alike from facts and sentences,
and each check passing what the facts support and failing what they do not."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from commands.prose.figures import Figure, name_in, read, supports
from commands.prose.verify import verify


def figures(text: str) -> list[tuple[str, str]]:
    return [(f"{f.value.normalize():f}", f.unit) for f in read(text).figures]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Gives 16–24% higher decode throughput on MI355X.", [("16", "%"), ("24", "%")]),
        ("MI355X 上解码吞吐提升 16–24%", [("16", "%"), ("24", "%")]),
        ("提升 5-8%", [("5", "%"), ("8", "%")]),
        ("从 1289μs 降至 1.8μs，提速 719 倍", [("1289", "us"), ("1.8", "us"), ("719", "x")]),
        ("removes ~1,400 lines", [("1400", "lines")]),
        ("减少约 1400 行代码", [("1400", "lines")]),
        ("1.4k lines", [("1400", "lines")]),
        ("2.1x faster, 2.1 倍", [("2.1", "x"), ("2.1", "x")]),
        ("twice as fast, two parsers", [("2", "x"), ("2", "")]),
        ("twenty-five PRs", [("25", "")]),
        ("两倍，三个 PR，十二项", [("2", "x"), ("3", ""), ("12", "")]),
        ("百分之二十", [("20", "%")]),
        ("前四周平均 50.3 个", [("4", ""), ("50.3", "")]),
        ("a kernel time of 5 ms, 5 s", [("5", "ms"), ("5", "s")]),
        ("统一的 loader，进一步，第三方，一个新解析器，千万不要", []),
        ("(#41706) and #41901", []),
    ],
)
def test_figures_as_written(text: str, expected: list[tuple[str, str]]) -> None:
    assert figures(text) == expected


def test_names_and_versions() -> None:
    assert read("Qwen3.5 on H100 with FP8, load_weights, torch.compile, AutoWeightsLoader").names == (
        "Qwen3.5",
        "H100",
        "FP8",
        "load_weights",
        "torch.compile",
        "AutoWeightsLoader",
    )
    assert read("xgrammar 0.1.29 → 0.2.0, merged 2026-04-30").names == ("0.1.29", "0.2.0", "2026-04-30")
    assert read("the GPU and CI and plain words").names == ()


def _fig(value: str, step: str, unit: str) -> Figure:
    return Figure(Decimal(value), Decimal(step), unit, value)


def test_a_figure_may_be_rounded_but_never_more_precise_nor_in_another_unit() -> None:
    fact = _fig("13.5", "0.1", "%")
    assert supports(fact, _fig("13.5", "0.1", "%"))
    assert supports(fact, _fig("14", "1", "%"))  # rounded to the precision said
    assert supports(fact, _fig("14", "1", ""))  # no unit said
    assert not supports(fact, _fig("13.50", "0.01", "%"))  # more precise than the facts
    assert not supports(fact, _fig("13.5", "0.1", "x"))  # another unit
    assert not supports(_fig("16", "1", "%"), _fig("17", "1", "%"))
    assert not supports(_fig("16", "1", "%"), _fig("20", "1", "%"))  # integers are not rounded


def test_a_name_is_found_as_written_not_inside_a_longer_number() -> None:
    assert name_in("DeepSeek", "Migrate DeepSeekV2 to AutoWeightsLoader")
    assert name_in("Qwen3.5", "supports Qwen3.5/3.6 hybrids")
    assert not name_in("V3", "DeepSeek-V3.2")
    assert not name_in("H100", "H1000")
    assert not name_in("Qwen3.6", "Qwen3.5")


FACTS: dict[str, Any] = {
    "part": "theme",
    "language": "English (en)",
    "theme": {"name": "ROCm / AMD", "heading": "ROCm / AMD (41 of the 42 PRs)", "prs_in_theme": 41},
    "prs": [
        {
            "number": 39280,
            "title": "Fused shared experts (FSE) for Qwen3-Next",
            "measured_effects": ["Gives 16–24% higher decode throughput on MI355X."],
            "flags": [{"flag": "core-path", "label": "core-path change"}],
        },
        {
            "number": 42121,
            "title": "Remove the Tree Attention backend",
            "measured_effects": ["Removes ~1400 lines."],
            "flags": [{"flag": "breaking", "label": "breaking change"}],
        },
        {
            "number": 41684,
            "title": 'Revert "Support NVFP4 KV cache on MI300X (#41304)"',
            "flags": [{"flag": "revert"}],
        },
    ],
}


def check(*sentences: tuple[str, list[int]], facts: dict[str, Any] = FACTS) -> list[str]:
    answer = json.dumps({"sentences": [{"text": t, "prs": p} for t, p in sentences]})
    verdict = verify(facts, answer)
    return [p.check for p in verdict.problems]


def test_a_grounded_answer_passes() -> None:
    assert (
        check(
            ("Fused shared experts give 16–24% higher decode throughput on MI355X.", [39280]),
            ("Removing the Tree Attention backend is a breaking change that drops ~1400 lines.", [42121]),
            ("The revert undoes #41304.", [41684]),
        )
        == []
    )


@pytest.mark.parametrize(
    ("sentence", "cited", "failed"),
    [
        ("Fused shared experts give 17–24% more throughput.", [39280], "number"),  # a number ±1
        ("Fused shared experts give 16–24x more throughput.", [39280], "number"),  # another unit
        ("Fused shared experts give 37% more throughput.", [39280], "number"),  # invented
        ("The backend removal drops ~1400 lines.", [39280], "number"),  # the figure of another PR
        ("Fused shared experts for Qwen3.6.", [39280], "name"),
        ("Fused shared experts are a breaking change.", [39280], "flag_word"),
        ("Fused shared experts fix a security hole.", [39280], "flag_word"),
        ("Fused shared experts fix a regression.", [39280], "flag_word"),
        ("Fused shared experts, rolled back.", [39280], "flag_word"),
        ("Fused shared experts landed.", [], "citation"),
        ("Fused shared experts landed.", [12345], "citation"),
        ("Fused shared experts landed (#12345).", [39280], "citation"),
        ("Fused shared experts landed, @everyone.", [39280], "markup"),
        ("Fused shared experts landed <!channel>.", [39280], "markup"),
        ("See [the PR](https://example.com).", [39280], "markup"),
        ("Fused shared experts are **fast**.", [39280], "markup"),
        ("Fused shared experts :tada: landed.", [39280], "markup"),
    ],
)
def test_each_check_fails_what_the_facts_do_not_support(sentence: str, cited: list[int], failed: str) -> None:
    assert failed in check((sentence, cited))


def test_pr_numbers_in_the_text_become_citations_and_code_spans_plain_text() -> None:
    answer = json.dumps({"sentences": [{"text": "Fused `shared` experts land (#39280).", "prs": []}]})
    verdict = verify(FACTS, answer)
    assert verdict.ok
    [sentence] = verdict.sentences
    assert (sentence.text, sentence.prs) == ("Fused shared experts land.", (39280,))


def test_a_chinese_digest_needs_chinese_sentences() -> None:
    facts = {**FACTS, "language": "Chinese (zh)"}
    assert check(("Fused shared experts landed.", [39280]), facts=facts) == ["language"]
    assert check(("融合共享专家在 MI355X 上带来 16–24% 的解码吞吐提升。", [39280]), facts=facts) == []


def test_answers_that_are_not_the_json_asked_for() -> None:
    for content, problem in (
        ("no json here", "json"),
        ('{"text": "x"}', "shape"),
        ('{"sentences": []}', "count"),
    ):
        assert [p.check for p in verify(FACTS, content).problems] == [problem]
    fenced = '```json\n{"sentences": [{"text": "The backend goes.", "prs": ["#42121"]}]}\n```'
    assert verify(FACTS, fenced).ok


def test_the_key_pr_view_needs_one_sentence_per_pr_in_its_order() -> None:
    facts = {**FACTS, "part": "key_prs"}
    answer = [
        ("The revert undoes #41304.", [41684]),
        ("It drops ~1400 lines.", [42121]),
        ("Faster decode.", [39280]),
    ]
    verdict = verify(facts, json.dumps({"sentences": [{"text": t, "prs": p} for t, p in answer]}))
    assert verdict.ok and [s.prs for s in verdict.sentences] == [(39280,), (42121,), (41684,)]
    assert check(*answer[:2], facts=facts) == ["coverage"]
    assert "citation" in check(("Both.", [42121, 39280]), *answer[2:], facts=facts)


def test_the_risk_section_speaks_of_every_risk() -> None:
    facts = {
        "part": "risks",
        "language": "English (en)",
        "risks": [
            {"risk": "breaking", "prs_flagged": 7, "prs": [FACTS["prs"][1]]},
            {"risk": "revert", "prs_flagged": 1, "prs": [FACTS["prs"][2]]},
        ],
    }
    assert check(("7 breaking changes, among them the Tree Attention removal.", [42121]), facts=facts) == [
        "coverage"
    ]
    assert (
        check(
            ("7 breaking changes need release notes.", [42121]),
            ("1 revert to look into.", [41684]),
            facts=facts,
        )
        == []
    )
