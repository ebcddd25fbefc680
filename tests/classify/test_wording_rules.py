"""The wording rules on real-shaped descriptions: a gist adds to its title and is prose (never a
table row, code, a checklist, a template heading or a list of links); a table's effect is a
sentence only with its metric, unit and setup; a dependency flag names what changed; chores are
never key PRs unless the profile says so; theme names are never versions and use the team's spelling."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from classify.engine import classify
from classify.gist import echoes, gist
from classify.models import Classification, FileChange, PullRequest
from classify.rules import Profile
from classify.text import clean_body, highlights, table_effects
from commands.report.themes import find_themes
from storage.prs import StoredPR
from tests.classify.helpers import pr, vllm_body

WANDB_TEMPLATE = """Description
-----------
<!--
Include reference to internal ticket "Fixes WB-NNNNN" and/or GitHub issue "Fixes #NNNN" (if applicable)
-->
{what}

Testing
-------
How was this PR tested?

<!--
NEW: We're using a new changelog format that's more useful for users.
-->
"""


@pytest.mark.parametrize(
    ("title", "body"),
    [
        # the repeated title: fastapi's dependabot bodies, an echo under vLLM's template
        (
            "⬆ Bump mkdocstrings[python] from 0.25.1 to 0.26.1",
            "Bumps [mkdocstrings[python]](https://github.com/mkdocstrings/mkdocstrings) from 0.25.1 to 0.26.1.",
        ),
        ("Support FP8 KV cache in FlashInfer", vllm_body("Adds FP8 KV cache support to FlashInfer.")),
        ("🌐 Update translations for ru (update-outdated)", "Update all"),
        ("Add `polymorphic_serialization` option", "Add polymorphic_serialization option."),
        # only template, a checklist, N/A, a link list, a table, code
        ("chore(sdk): add fixtures", WANDB_TEMPLATE.format(what="N/A")),
        ("Fix the build", "- [x] I ran the tests\n- [ ] I updated the docs\n"),
        ("Refs", "- [design doc](https://example.com/doc)\n- [issue](https://example.com/i/1)\n"),
        (
            "Speed up decode",
            "| Method | Steps | Throughput (tok/s) |\n|---|---|---|\n| DFlash | 9 | 2475 → 2904 |\n",
        ),
        ("Speed up decode", "DFlash | 9 | 2475 → 2904 | +17.33% | 2649 → 3213 | +21.29%\n"),
        ("Add a flag", "```bash\npython -m app --flag\n```\n"),
        ("Add a flag", "    python -m app --flag\n    echo done\n"),
        ("Add a flag", "$ python -m app --flag\n"),
        ("Add a flag", "Test Plan:\n\npytest tests/test_flag.py\n"),
    ],
)
def test_no_gist_says_nothing_beyond_the_title(title: str, body: str) -> None:
    assert gist(body, title) == ""


def test_a_gist_is_the_first_prose_that_adds_to_the_title() -> None:
    body = WANDB_TEMPLATE.format(
        what="Adds the `--live` option to `wandb beta sync`.\n\nIt uploads data as it appears in the run's file, "
        "so a long run can be watched while it is logged."
    )
    # the first paragraph repeats the title; the second says what it means
    assert gist(body, "feat: wandb beta sync --live") == (
        "It uploads data as it appears in the run's file, so a long run can be watched while it is logged."
    )
    vllm = vllm_body("Removes the Tree Attention backend and the tree-drafting branch of the EAGLE proposer.")
    kept = gist(vllm, "Remove the Tree Attention backend")  # extends the title by four things: kept
    assert kept == "Removes the Tree Attention backend and the tree-drafting branch of the EAGLE proposer."
    same = (
        "Fixes WB-123.\n\nAdds `--verbose` (short `-v`) which turns off truncation when printing the paths."
    )
    assert gist(same, "feat: add --verbose option to wandb beta sync").startswith(
        "Adds --verbose (short -v) which turns"
    )


def test_echoes_are_judged_on_content_words() -> None:
    assert echoes("Moves service_connection.py and service_token.py to a new subfolder in lib/.",
                  "refactor: move service_{connection,token}.py to lib/service/")  # fmt: skip
    assert echoes("docs: fix typos", "✏️ Fix several typos in ru translations")
    assert not echoes("Adds multi-token prediction for Gemma 4 as a lightweight auxiliary model.",
                      "Gemma 4 MTP speculative decoding with centroids masking")  # fmt: skip


def test_table_rows_are_never_highlights_and_a_table_speaks_only_with_metric_unit_and_setup() -> None:
    table = (
        "We measured on H100:\n\n| Method | Steps | Throughput (tok/s) | Gain |\n|---|---|---|---|\n"
        "| Baseline | 9 | 2475 | - |\n| DFlash | 9 | 2475 → 2904 | +17.33% |\n"
    )
    assert highlights("Speed up decode", clean_body(table)) == ["Throughput 2475 → 2904 tok/s with DFlash"]
    no_unit = "| Method | Throughput |\n|---|---|\n| DFlash | 2475 → 2904 |\n"
    no_setup = "| # | Throughput (tok/s) |\n|---|---|\n| 1 | 2475 → 2904 |\n"
    assert table_effects(no_unit) == [] and table_effects(no_setup) == []
    bare_row = "DFlash | 9 | 2475 → 2904 | +17.33% | 2649 → 3213 | +21.29% | 3.46 → 3.25\n"
    assert highlights("t", bare_row) == []


def flags(cls: Classification) -> dict[str, list[str]]:
    return {f.kind: f.evidence for f in cls.flags}


def test_a_dependency_flag_names_what_changed_never_just_a_file(generic: Profile) -> None:
    assert "dependency" not in flags(
        classify(pr("Tidy the project", ["pyproject.toml", "setup.py"]), generic)
    )
    assert flags(classify(pr("Refresh", ["uv.lock"]), generic))["dependency"] == ["uv.lock refreshed"]
    assert flags(classify(pr("➕ Add orjson", ["requirements.txt"]), generic))["dependency"] == [
        "orjson added"
    ]
    assert flags(classify(pr("➖ Drop six", ["requirements.txt"]), generic))["dependency"] == ["six removed"]
    assert flags(classify(pr("chore: bump go version from 1.23.4 -> 1.23.6", [".go-version"]), generic))[
        "dependency"
    ] == ["go 1.23.4 → 1.23.6"]


NEVER = [
    ("bot", "Bump foo from 1 to 2", ["requirements.txt"], "dependabot[bot]"),
    (
        "translation",
        "🌐 Add Portuguese translation for docs/pt/docs/index.md",
        ["docs/pt/docs/index.md"],
        "a",
    ),
    ("docs-only", "Rewrite the whole tutorial", [("docs/tutorial.md", 900)], "a"),
    ("lockfile", "Refresh the lock", [("uv.lock", 900)], "a"),
    ("own-version", "🔖 Release version 0.140.0", [("fastapi/__init__.py", 2)], "a"),
    ("typo", "Fix typos and grammar in the scheduler's docstrings", [("src/sched.py", 400)], "a"),
]


def _big(title: str, paths: list[tuple[str, int] | str], author: str) -> PullRequest:
    base = pr(title, paths)
    return dataclasses.replace(base, author=author, labels=["security"], body="Measured 3× faster on H100.")


@pytest.mark.parametrize(("why", "title", "paths", "author"), NEVER)
def test_chores_are_never_key_unless_the_profile_says_so(
    generic: Profile, why: str, title: str, paths: list[tuple[str, int] | str], author: str
) -> None:
    cls = classify(_big(title, paths, author), generic)
    assert cls.score < generic.key_min_score  # whatever else it earned (a label, a measured effect)
    assert [p.detail for p in cls.breakdown if p.rule == "never-key"] in ([why], ["docs-only"], [])
    allowing = _allowing(generic, why)  # a profile that lets this class be key
    assert why not in [p.detail for p in classify(_big(title, paths, author), allowing).breakdown]


def _allowing(profile: Profile, why: str) -> Profile:
    score = profile.score.model_copy(update={"never_key": [k for k in profile.score.never_key if k != why]})
    return dataclasses.replace(profile, score=score)


def test_a_dependency_upgrade_can_still_be_key(generic: Profile) -> None:
    cls = classify(
        _big("Upgrade torch from 2.8 to 2.9", [("requirements.txt", 3), ("src/a.py", 400)], "a"), generic
    )
    assert not [p for p in cls.breakdown if p.rule == "never-key"]
    assert cls.score >= generic.key_min_score


START = datetime(2026, 3, 2, 9, tzinfo=UTC)


def _stored(n: int, title: str, profile: Profile) -> StoredPR:
    item = PullRequest(
        repo="o/r", number=n, title=title, merged_at=START + timedelta(hours=n), author=f"dev{n % 3}",
        files=[FileChange(path=f"src/mod{n % 4}.py", additions=120)], additions=120,
    )  # fmt: skip
    return StoredPR(pr=item, cls=classify(item, profile))


def test_theme_names_are_never_versions_and_use_the_teams_spelling(generic: Profile) -> None:
    prs = [_stored(i, f"[v2.13] Backport fix {i} (#{100 + i})", generic) for i in range(1, 7)]
    prs += [_stored(i, f"[e2e] Cover case {i} in the E2E suite", generic) for i in range(10, 16)]
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma".split()
    prs += [_stored(20 + i, f"Improve the {w} widget", generic) for i, w in enumerate(words)]
    names = [th.name["en"] for th in find_themes(prs, generic)]
    assert not any("2.13" in n or "Backport" in n for n in names)
    assert "E2E" in names
