"""Template stripping, the one-line gist, and measured-effect highlights."""

from __future__ import annotations

import pytest

from classify.gist import gist
from classify.text import GIST_MAX, HIGHLIGHT_MAX_CHARS, clean_body, highlights
from tests.classify.helpers import vllm_body


def test_clean_body_strips_template_comments_checklists_and_trailers() -> None:
    body = vllm_body("Fuse the shared experts into the MoE kernel.") + "\nCo-authored-by: X <x@example.com>\n"
    cleaned = clean_body(body)
    assert "Fuse the shared experts" in cleaned
    for gone in (
        "PLEASE FILL IN",
        "markdownlint",
        "Essential Elements",
        "- [ ]",
        "BEFORE SUBMITTING",
        "Signed-off-by",
        "Co-authored-by",
        "<details>",
    ):
        assert gone not in cleaned, gone


def test_clean_body_keeps_author_text_and_other_details_blocks() -> None:
    body = (
        "Intro\n<details><summary>Logs</summary>\ntraceback here\n</details>\n- [x] done item\n***\nOutro\r\n"
    )
    cleaned = clean_body(body)
    assert "traceback here" in cleaned and "Intro" in cleaned and "Outro" in cleaned
    assert "done item" not in cleaned and "***" not in cleaned


def test_gist_takes_the_purpose_section() -> None:
    body = vllm_body(
        "FIX #41000\n\nReplace string-regex config keys in Helion with a structured `CaseKey`, "
        "so **pick_config** no longer parses strings on the hot path.",
        test_result="| calls | before | after |\n|---|---|---|\n| 80000 | 1289μs | 1.8μs |",
    )
    assert gist(body, "[Helion] Optimize config parsing") == (
        "Replace string-regex config keys in Helion with a structured CaseKey, "
        "so pick_config no longer parses strings on the hot path."
    )


def test_gist_skips_headings_checklists_code_and_issue_links() -> None:
    body = (
        "## Summary\n\nCloses #123\nhttps://github.com/org/repo/issues/9\n\n"
        "- Adds the [LFM2](https://example.com/lfm2) tool parser\n- Handles streaming edge cases\n\n"
        "## Test Plan\n```\npytest -q\n```\n"
    )
    assert gist(body, "title") == "Adds the LFM2 tool parser; handles streaming edge cases"


def test_gist_prefers_the_text_before_any_heading() -> None:
    body = "This PR removes the tree attention backend.\n\n## Test Plan\n\nCI\n"
    assert gist(body, "t") == "This PR removes the tree attention backend."


def test_no_gist_when_only_template_is_left() -> None:
    """The title is shown beside the gist: repeating it as the gist would say it twice."""
    empty = vllm_body("", test_plan="", test_result="")
    assert gist(empty, "Remove Tree Attention backend") == ""
    assert gist("", "Fallback title") == ""
    assert gist("## Test Plan\n\npytest\n", "Only tests") == ""


def test_gist_is_one_line_and_bounded() -> None:
    body = "## Purpose\n\n" + "word " * 200
    out = gist(body, "t")
    assert len(out) <= GIST_MAX and out.endswith("…") and "\n" not in out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Fused shared experts give 16–24% higher decode throughput on MI300X.",
            "Fused shared experts give 16–24% higher decode throughput on MI300X.",
        ),
        (
            "Gemma4 MTP: up to 319% end-to-end speedup on H100.",
            "Gemma4 MTP: up to 319% end-to-end speedup on H100.",
        ),
        (
            "pick_config goes from 1289μs → 1.8μs per call, i.e. 719× faster.",
            "pick_config goes from 1289μs → 1.8μs per call, i.e. 719× faster.",
        ),
        ("The result: 719× faster over 80000 calls.", "The result: 719× faster over 80000 calls."),
        (
            "This removes the unfinished backend (−1400 lines).",
            "This removes the unfinished backend (−1400 lines).",
        ),
        ("Removes ~1400 lines of dead code.", "Removes ~1400 lines of dead code."),
        (
            "Long-sequence throughput improves by 13.5% with the fusion.",
            "Long-sequence throughput improves by 13.5% with the fusion.",
        ),
        ("Latency drops from 12.5 ms to 9.1 ms.", "Latency drops from 12.5 ms to 9.1 ms."),
        ("- **2.3x faster** prefill", "2.3x faster prefill"),
    ],
)
def test_highlights_quote_measured_effects(text: str, expected: str) -> None:
    assert highlights("", text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Tested on 8x H100 with TP=8.",
        "GSM8K accuracy: 84.5%",
        "Test coverage is 85%",
        "Bump to v0.12.0",
        "Runs on MI300X and MI355X",
        "```\nthroughput: 50% higher\n```",  # code blocks are output, not claims
        "| throughput | +16% |",  # table rows are skipped
        "The fix touches 3 lines.",
    ],
)
def test_highlights_ignore_numbers_that_are_not_effects(text: str) -> None:
    assert highlights("", text) == []


def test_highlights_are_short_deduplicated_and_capped() -> None:
    long = (
        "In this run, "
        + "with many words " * 12
        + "decode throughput is 16% higher "
        + "and more words " * 12
    )
    out = highlights("", long)
    assert len(out) == 1 and len(out[0]) <= HIGHLIGHT_MAX_CHARS and "16% higher" in out[0]
    many = "\n".join(f"Case {i}: {i + 10}% faster." for i in range(6))
    assert len(highlights("", many)) == 3
    assert highlights("2x faster decode", "2x faster decode") == ["2x faster decode"]


def test_highlights_come_from_the_title_too() -> None:
    assert highlights("[Perf] 2x faster MoE align", "") == ["[Perf] 2x faster MoE align"]


def test_a_list_description_reads_as_one_sentence() -> None:
    """A description that is a list of changes (a squash merge's, an author's summary) is joined
    as one sentence: no "format.; Add", each later item in lower case unless it starts with a name."""
    body = (
        "- Drop support for the deprecated binary format.\n"
        "- Add compatibility tests for categorical features.\n"
        "- Use the same set of models for Python and R tests.\n"
        "- DMatrix slicing keeps the categories."
    )
    said = gist(body, "Remove the old model format")
    assert said is not None and ".;" not in said
    assert said.startswith("Drop support for the deprecated binary format; add compatibility tests")
    assert "; DMatrix slicing" in said or said.endswith("…")


def test_titles_are_shown_without_their_closing_full_stop() -> None:
    from classify.storylines import clean_title
    from classify.text import mid_sentence, without_final_period

    assert (
        clean_title("[EM] Check whether memory policy is set. (#11556)")
        == "Check whether memory policy is set"
    )
    # an item of a list starts with a capital, unless its first word is a lower-case name
    assert (
        clean_title("refactor(artifacts): use codegen for the query", "wandb/wandb")
        == "Use codegen for the query"
    )
    assert clean_title("feat: wandb beta sync reads runs", "wandb/wandb") == "wandb beta sync reads runs"
    assert clean_title("chore: uv lock refresh", "o/r") == "uv lock refresh"
    assert clean_title("fix: wandb.init hangs", "o/r") == "wandb.init hangs"
    assert without_final_period("Fix the loader, the parser etc.") == "Fix the loader, the parser etc."
    assert without_final_period("Wait for the pool...") == "Wait for the pool..."
    assert without_final_period("Support for NumPy 2.") == "Support for NumPy 2"
    assert [mid_sentence(x) for x in ("Add tests", "DMatrix slicing", "SDK", "iOS build")] == [
        "add tests",
        "DMatrix slicing",
        "SDK",
        "iOS build",
    ]


WANDB_TEMPLATE = """## Description

<!--
Include reference to internal ticket "Fixes WB-NNNNN" and/or GitHub issue "Fixes #NNNN" (if applicable)
-->

- Fixes [WB-26871](https://wandb.atlassian.net/browse/WB-26871)
- Fixes #NNNN

What does the PR do? Include a concise description of the PR contents.

{filled}
- [ ] I updated [CHANGELOG.unreleased.md](http://CHANGELOG.unreleased.md), or it's not applicable

## Testing

How was this PR tested?
"""


def test_a_template_left_as_it_was_gives_no_gist() -> None:
    """The template's prompts, its placeholder references and a ticket link are nobody's words
    about this PR: with nothing else written there is no gist; with a sentence written, that."""
    assert gist(WANDB_TEMPLATE.format(filled=""), "use codegen for the Versions query") == ""
    written = WANDB_TEMPLATE.format(filled="Moves the registry query onto generated models.\n")
    assert (
        gist(written, "use codegen for the Versions query")
        == "Moves the registry query onto generated models."
    )


def test_a_squash_merges_tool_commits_and_a_bots_metadata_are_no_gist() -> None:
    squash = "* Update all\n\n* 🎨 Auto format\n\n* Apply suggestions from code review\n\n* Merge branch 'master' into tr\n"
    assert gist(squash, "🌐 Update translations for tr (update-all)") == ""
    dependabot = (
        "Bumps [ruff](https://github.com/astral-sh/ruff) from 0.15.0 to 0.15.8.\n\n---\n"
        "updated-dependencies:\n- dependency-name: ruff\n  dependency-type: direct:development\n"
        "  update-type: version-update:semver-patch\n"
    )
    assert "dependency-name" not in gist(dependabot, "⬆ Bump ruff from 0.15.0 to 0.15.8")
