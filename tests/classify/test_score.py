"""The key-PR score's general rules, each with its evidence in the breakdown."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from classify.engine import classify, is_bot
from classify.models import Classification, PullRequest, ScorePart
from classify.rules import Profile, ProfileError, profile_from_data
from commands.locale.reasons import score_reason
from tests.classify.helpers import pr

_as_json = TypeAdapter(Classification)  # a classification survives JSON (the stored form)


def parts(cls: Classification) -> dict[str, ScorePart]:
    return {p.rule: p for p in cls.breakdown}


def by_author(author: str, title: str = "Update the widget") -> PullRequest:
    return replace(pr(title, [("src/widget.py", 40)]), author=author)


@pytest.mark.parametrize(
    ("author", "bot"),
    [
        ("dependabot[bot]", True),
        ("app/renovate", True),
        ("Renovate[Bot]", True),
        ("mergify", True),  # named in the generic profile's bot_authors
        ("octocat", False),
        ("", False),
        ("robotics-team", False),
    ],
)
def test_bots_are_recognised(generic: Profile, author: str, bot: bool) -> None:
    assert is_bot(author, generic.compiled.bot_authors) is bot
    part = parts(classify(by_author(author), generic)).get("bot")
    assert (part is not None) is bot
    if part is not None:
        assert part.points == generic.score.bot and part.reason == f"opened by a bot ({author})"


def test_kind_of_change_orders_features_fixes_and_maintenance(generic: Profile) -> None:
    files = [("src/engine/run.py", 150), ("tests/test_run.py", 40)]
    score = {
        title: classify(pr(title, files), generic).score
        for title in (
            "feat: add run resumption",
            "fix: resume runs after a crash",
            "refactor: split the run loop",
            "chore: tidy the run loop",
        )
    }
    ordered = sorted(score, key=lambda k: -score[k])
    assert [t.split(":")[0] for t in ordered] == ["feat", "fix", "refactor", "chore"]
    assert parts(classify(pr("chore: tidy the run loop", files), generic))["kind"].detail == "chore"


def test_source_changed_with_tests_earns_points_tests_alone_do_not(generic: Profile) -> None:
    both = classify(
        pr("Add retries", [("src/net.py", 80), ("tests/test_net.py", 30), "tests/test_more.py"]), generic
    )
    assert parts(both)["tests"].reason == "comes with tests (2 test files)"
    assert parts(both)["tests"].detail == "2"
    only_tests = classify(pr("Add retries tests", [("tests/test_net.py", 30)]), generic)
    only_source = classify(pr("Add retries", [("src/net.py", 80)]), generic)
    docs_and_tests = classify(
        pr("Explain retries", [("docs/net.md", 80), ("tests/test_net.py", 30)]), generic
    )
    assert "tests" not in parts(only_tests) and "tests" not in parts(only_source)
    assert "tests" not in parts(docs_and_tests)  # docs are exempt source


def test_one_of_a_series(generic: Profile) -> None:
    cls = classify(pr("[KV Connector][3/N] NIXL: plan-based transfers", [("src/kv.py", 200)]), generic)
    assert parts(cls)["series"].detail == "3/N" and parts(cls)["series"].points == generic.score.series
    assert "series" not in parts(classify(pr("Plan-based transfers", [("src/kv.py", 200)]), generic))


def test_small_changes_lose_a_little_and_sizes_gain(generic: Profile) -> None:
    assert generic.score.small is not None
    tiny = classify(pr("Fix a typo in the loader", [("src/load.py", 2)]), generic)
    assert parts(tiny)["small"].reason == f"small change: < {generic.score.small.lines} lines"
    big = classify(pr("Rework the loader", [("src/load.py", 900)]), generic)
    assert "small" not in parts(big) and parts(big)["size"].detail == "800"


def _profile(tmp_path: Path, score: dict[str, Any]) -> Profile:
    data = {
        "name": "t",
        "version": "1",
        "modules": {name: {"keywords": [name]} for name in ("alpha", "beta", "gamma", "delta", "misc")},
        "catch_all": "misc",
        "score": score,
    }
    return profile_from_data(data, source=tmp_path / "t.toml")


def test_weighted_modules_count_once_each_way(tmp_path: Path) -> None:
    profile = _profile(tmp_path, {"modules": {"alpha": 1.0, "beta": 0.5, "gamma": -1.0, "delta": -0.5}})
    cls = classify(pr("Rename alpha beta gamma delta everywhere"), profile)
    assert [(p.reason, p.points) for p in cls.breakdown if p.rule == "module"] == [
        ("module: alpha", 1.0),
        ("module: gamma", -1.0),
    ]


def test_every_part_says_which_rule_gave_it(generic: Profile) -> None:
    cls = classify(
        pr("[3/N] feat!: drop the old API", [("src/api.py", 400), ("tests/test_api.py", 50)]),
        generic,
    )
    assert cls.breakdown and all(p.rule for p in cls.breakdown)
    assert {p.rule for p in cls.breakdown} >= {"core-path", "flag", "kind", "size", "tests", "series"}
    again = _as_json.validate_json(_as_json.dump_json(cls))
    assert again.breakdown == cls.breakdown


def test_score_reasons_in_chinese_use_the_profiles_labels(generic: Profile) -> None:
    cls = classify(pr("feat: add retries [2/N]", [("src/net.py", 120), ("tests/test_net.py", 30)]), generic)
    zh = [score_reason("zh", p, generic) for p in cls.breakdown]
    assert "类型：新功能" in zh and "附带测试（1 个测试文件）" in zh and "系列 PR 之一（2/N）" in zh
    en = [score_reason("en", p, generic) for p in cls.breakdown]
    assert "kind: Feature" in en  # the profile's label, as in the older parts' reading
    assert [r for r, p in zip(en, cls.breakdown, strict=True) if p.rule in ("tests", "series")] == [
        "comes with tests (1 test file)",
        "one of a series (2/N)",
    ]
    theme = ScorePart(
        reason='part of the theme "CPU backend" (4 PRs)', points=1, rule="theme", detail="CPU backend"
    )
    assert score_reason("zh", theme, generic, {"CPU backend": {"zh": "CPU 后端"}}) == "属于主题“CPU 后端”"
    legacy = ScorePart(reason="kind: feature", points=1.5)  # stored before parts carried their rule
    assert score_reason("zh", legacy, generic) == "类型：新功能"  # read from its reason


@pytest.mark.parametrize(
    ("score", "error"),
    [
        ({"small": {"lines": 0, "points": -1}}, "score.small.lines: must be ≥ 1, got 0"),
        ({"smal": {"lines": 5, "points": -1}}, "score.smal: unknown key (did you mean 'small'?)"),
        ({"bot": "yes"}, "score.bot: expected a number, got a string"),
        ({"theme_min_prs": 1}, "score.theme_min_prs: must be ≥ 2, got 1"),
        ({"theme_kinds": ["manual"]}, "score.theme_kinds[0]: unknown kind 'manual'"),
    ],
)
def test_new_score_keys_are_validated(tmp_path: Path, score: dict[str, Any], error: str) -> None:
    with pytest.raises(ProfileError) as exc:
        _profile(tmp_path, score)
    assert str(exc.value) == f"t.toml: {error}"
