"""Splitting PR titles into tags, conventional-commit prefix and text (real vLLM titles)."""

from __future__ import annotations

import pytest

from classify.titles import is_series_marker, norm, parse_title, split_tag


@pytest.mark.parametrize(
    ("title", "tags", "text"),
    [
        (
            "[ROCm][Bugfix] Fix MLA prefill scale computation",
            ("ROCm", "Bugfix"),
            "Fix MLA prefill scale computation",
        ),
        ("[Hardware][AMD] Fused shared experts", ("Hardware", "AMD"), "Fused shared experts"),
        ("[Bugfix] [Kernel] spaced tags", ("Bugfix", "Kernel"), "spaced tags"),
        (
            "[Model] Migrate DeepSeekV2 to AutoWeightsLoader [3/N]",
            ("Model",),
            "Migrate DeepSeekV2 to AutoWeightsLoader",
        ),
        ("[last/6] [MRV2] Finish the migration", ("MRV2",), "Finish the migration"),
        ("[12/n][Core] Scheduler split", ("Core",), "Scheduler split"),
        ("[Perf][1/N] Faster sampler (#41234)", ("Perf",), "Faster sampler"),
        ("[kv_offload+HMA] Hybrid models", ("kv_offload+HMA",), "Hybrid models"),
        ("[P/D] NIXL handshake", ("P/D",), "NIXL handshake"),
        ("No tags at all", (), "No tags at all"),
        ("[Bugfix]: colon after tag", ("Bugfix",), "colon after tag"),
        ("", (), ""),
    ],
)
def test_tags_and_series_markers(title: str, tags: tuple[str, ...], text: str) -> None:
    parsed = parse_title(title)
    assert parsed.tags == tags
    assert parsed.text == text


@pytest.mark.parametrize(
    ("title", "prefix", "scopes", "bang", "text"),
    [
        ("fix(rocm): handle gfx950", "fix", ("rocm",), False, "handle gfx950"),
        ("feat: add a thing", "feat", (), False, "add a thing"),
        ("feat!: drop --foo", "feat", (), True, "drop --foo"),
        ("build(deps): bump torch to 2.9", "build", ("deps",), False, "bump torch to 2.9"),
        ("fix(rocm, moe)!: x", "fix", ("rocm", "moe"), True, "x"),
        ("(bugfix): old style", "bugfix", (), False, "old style"),
        ("[CI] fix: flaky test", "fix", (), False, "flaky test"),
        (
            "Qwen3: fix rope",
            "Qwen3",
            (),
            False,
            "fix rope",
        ),  # the engine decides whether a prefix means anything
        ("Fix: a:b ratio", "Fix", (), False, "a:b ratio"),
        ("Not a prefix:missing space", None, (), False, "Not a prefix:missing space"),
    ],
)
def test_conventional_commit_prefixes(
    title: str, prefix: str | None, scopes: tuple[str, ...], bang: bool, text: str
) -> None:
    parsed = parse_title(title)
    assert (parsed.prefix, parsed.scopes, parsed.bang, parsed.text) == (prefix, scopes, bang, text)


def test_after_tags_keeps_an_unknown_prefix() -> None:
    assert parse_title("[Model] Qwen3: fix rope [2/3]").after_tags == "Qwen3: fix rope"


@pytest.mark.parametrize("tag", ["1/N", "3/n", "12/N", "last/6", "final/3", "2 of 5", " 4 / 10 "])
def test_series_markers(tag: str) -> None:
    assert is_series_marker(tag)


@pytest.mark.parametrize("tag", ["P/D", "CI/Build", "V1", "N/A"])
def test_not_series_markers(tag: str) -> None:
    assert not is_series_marker(tag)


def test_normalisation_and_composite_tags() -> None:
    assert (
        norm("Spec Decode")
        == norm("spec-decode")
        == norm("SPEC_DECODE")
        == norm("spec.decode")
        == "specdecode"
    )
    assert norm("CI/Build") == "ci/build"
    assert split_tag("kv_offload+HMA") == ["kv_offload", "HMA"]
    assert split_tag("Kernel / MoE") == ["Kernel", "MoE"]
