"""Title words for themes: stems, names, phrases, abbreviations, actions, series markers."""

from __future__ import annotations

import pytest

from classify.titles import parse_title
from classify.topics import (
    abbreviates,
    display_case,
    leading_verb,
    release_marked,
    stem,
    title_terms,
)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("kernels", "kernel"),
        ("categories", "category"),
        ("patches", "patch"),
        ("fixes", "fix"),
        ("class", "class"),
        ("status", "status"),
        ("analysis", "analysis"),
        ("AutoWeightsLoader", "autoweightsloader"),
        ("gpus", "gpus"),  # four letters or fewer stay as written
    ],
)
def test_stem_folds_plurals_only(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_title_terms_keep_names_and_phrases_and_drop_glue() -> None:
    terms = {t.key: t for t in title_terms("[Model] Fix DeepSeekV2 to AutoWeightsLoader (#41706)")}
    # "fix" says what kind of change it is and "to" is glue; "to" also breaks the phrase
    assert set(terms) == {"deepseekv2", "autoweightsloader"}
    assert terms["autoweightsloader"].name and terms["autoweightsloader"].text == "AutoWeightsLoader"
    # a verb no stopword list knows stays (a profile's kind keywords drop it when themes are found)
    assert {"migrate", "migrate deepseekv2"} <= {t.key for t in title_terms("Migrate DeepSeekV2")}
    phrase = {t.key for t in title_terms("Implement the external memory iterator")}
    assert {"external", "memory", "iterator", "external memory", "memory iterator"} <= phrase
    # a word only joins a phrase with its neighbour: "the" between them breaks the pair
    assert "implement external" not in phrase


def test_short_acronyms_count_but_short_lowercase_words_do_not() -> None:
    keys = {t.key for t in title_terms("Support KV cache offload on XPU for tp")}
    assert {"kv", "cache", "kv cache", "xpu"} <= keys
    assert "tp" not in keys


def test_extra_stopwords_are_dropped() -> None:
    assert "widget" not in {t.key for t in title_terms("Faster widget rendering", frozenset({"widget"}))}


@pytest.mark.parametrize(
    ("short", "phrase", "expected"),
    [
        ("EM", "external memory", True),
        ("mt", "multi-target", True),
        ("coll", "collective", True),
        ("enc", "encoder", True),
        ("EM", "memory", False),
        ("coll", "coll", False),  # a word does not abbreviate itself
        ("co", "collective", True),
        ("abc", "a big change", True),
        ("sycl", "sycl kernels", False),
        ("x1", "x one", False),  # only letters abbreviate
    ],
)
def test_abbreviations(short: str, phrase: str, expected: bool) -> None:
    assert abbreviates(short, phrase) is expected


def test_display_case_capitalises_plain_words_only() -> None:
    assert display_case("external memory") == "External Memory"
    assert display_case("multi-target") == "Multi-target"
    assert display_case("the NIXL connector") == "The NIXL Connector"


def test_leading_verb_reads_past_tags_and_prefixes() -> None:
    assert leading_verb("[Model] Migrate Plamo2 to AutoWeightsLoader") == "migrate"
    assert leading_verb("fix(sdk): handle empty runs") == "handle"
    assert leading_verb("[CI] 42 flaky tests") is None


@pytest.mark.parametrize(
    ("title", "series"),
    [
        ("[KV Connector][3/N] NIXL: plan-based transfers", "3/N"),
        ("[Model] Migrate X to AutoWeightsLoader [2/N]", "2/N"),
        ("Refactor the sampler (part 2)", "part 2"),
        ("Split the scheduler (2/3)", "2/3"),
        ("Use 1/N scaling for the loss", None),
        ("Update parts of the docs", None),
    ],
)
def test_series_markers_are_reported(title: str, series: str | None) -> None:
    assert parse_title(title).series == series


def test_release_marked_examples() -> None:
    assert release_marked("[2.13] Fix the loader")
    assert release_marked("[cherry-pick] Fix a (#12)")
    assert not release_marked("[Model] Support Llama 3.1")
    assert not release_marked("Add Qwen2.5 support")
    # the repository's own version bumped: what such titles share is the release
    assert release_marked("🔖 Release version 0.141.1")
    assert release_marked("chore: bump version to 2.3.0")
    assert not release_marked("⬆ Bump starlette from 0.52.1 to 1.0.0")  # a dependency's version
    assert not release_marked("📝 Update release notes")


def test_release_version_titles_make_no_storyline() -> None:
    """Nineteen "Release version X" PRs in a month share two words and a habit, not a story."""
    from classify.topics import release_mechanics

    titles = [f"🔖 Release version 0.141.{i}" for i in range(19)]
    assert release_mechanics("Release version", titles)
    assert not release_mechanics(
        "OpenAPI", ["Avoid flattening dependencies for OpenAPI", "Fix OpenAPI 3.1 refs"]
    )
