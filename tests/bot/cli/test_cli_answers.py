"""Every bad input a new user runs into gets one clear line (exit 2) or a correct answer, through
the real `prdigest` executable."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.ingest.gitlog import iter_merged_prs
from bot.ingest.load import RecordError, validate_file
from tests.bot.cli.test_cli import assert_one_line_usage, cli
from tests.bot.ingest.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parents[3]


def test_a_copy_of_env_example_works_as_it_is(demo_db: Path, tmp_path: Path) -> None:
    """The README says: copy .env.example to .env. Its empty values mean "the default"."""
    shutil.copy(ROOT / ".env.example", tmp_path / ".env")
    shutil.copy(demo_db, tmp_path / "prdigest.db")
    result = cli("digest", "2026-W19", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("vllm-project/vllm weekly digest · 2026-W19")


def test_empty_environment_values_mean_the_default(demo_db: Path) -> None:
    env = {"PRDIGEST_REPO": "", "PRDIGEST_RULES": "", "PRDIGEST_LANG": "", "PRDIGEST_TIMEZONE": ""}
    result = cli("digest", "2026-W19", "--db", str(demo_db), env=env)
    assert result.returncode == 0, result.stderr
    assert "Executive summary" in result.stdout


def test_the_first_and_last_weeks_of_the_calendar(demo_db: Path) -> None:
    first = cli("digest", "0001-W01", "--db", str(demo_db))
    assert first.returncode == 0 and "No PRs were merged in 0001-W01" in first.stdout
    assert_one_line_usage(cli("risks", "core-path", "9999-W52", "--db", str(demo_db)), "beyond the calendar")
    assert_one_line_usage(cli("digest", "9999-W52", "--db", str(demo_db)), "beyond the calendar")


def test_a_module_with_nothing_this_week_says_so(demo_db: Path) -> None:
    result = cli("digest", "2026-W19", "tpu", "--db", str(demo_db))
    assert result.returncode == 0
    assert "No PRs in TPU in 2026-W19; 222 were merged there overall." in result.stdout


def test_an_unknown_repository_names_the_ones_in_the_cache(demo_db: Path) -> None:
    assert_one_line_usage(
        cli("digest", "2026-W19", "--repo", "foo/bar", "--db", str(demo_db)),
        "no PRs of foo/bar; it holds vllm-project/vllm",
    )


def test_a_forty_day_range_is_not_compared_with_a_four_week_average(demo_db: Path) -> None:
    result = cli("digest", "2026-04-01..2026-05-10", "--db", str(demo_db))
    assert result.returncode == 0
    assert "four-week" not in result.stdout and "Not compared" in result.stdout


def test_the_first_week_in_the_cache_raises_no_warnings_against_zero(demo_db: Path) -> None:
    result = cli("digest", "2026-W14", "--db", str(demo_db))
    assert result.returncode == 0
    assert "Above" not in result.stdout and " vs 0" not in result.stdout
    assert "Not compared: the cache starts on 2026-03-30" in result.stdout


def test_markdown_shows_no_stray_backslashes(demo_db: Path) -> None:
    md = cli("digest", "2026-W19", "--db", str(demo_db), "--format", "markdown").stdout
    assert "\\1." not in md and not any(f"\\{d}" in md for d in "0123456789")
    assert "### 1\\. AutoWeightsLoader" in md  # a heading that reads "1. …", not a list
    assert "| 61.8 |" in md  # table numbers as they are


def test_the_readme_pr_example_is_the_tree_attention_removal(demo_db: Path) -> None:
    result = cli("pr", "42121", "--db", str(demo_db))
    assert result.returncode == 0 and "Remove the Tree Attention backend" in result.stdout


def test_a_reclassified_cache_read_with_another_profile_says_how_to_fix_it(demo_db: Path) -> None:
    assert cli("reclassify", "--db", str(demo_db), env={"PRDIGEST_PROFILE": "generic"}).returncode == 0
    result = cli("digest", "2026-W19", "--db", str(demo_db))
    assert result.returncode == 0
    assert "classified by profile generic" in result.stdout and "prdigest reclassify" in result.stdout


def test_git_import_recognises_a_number_without_a_space(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "clone")
    repo.write("requirements/common.txt", "xgrammar==0.2.0\n")
    repo.commit("[CI/Build] Pin the requirements(#8747)", committed="2026-05-01T10:00:00+00:00")
    repo.write("vllm/a.py", "x = 1\n")
    repo.commit("[Core] Add a (#8748)", committed="2026-05-02T10:00:00+00:00")
    prs = {p.number: p for p in iter_merged_prs(repo.path, "o/r")}
    assert set(prs) == {8747, 8748}
    assert prs[8747].title == "[CI/Build] Pin the requirements"


def test_import_rejects_a_pr_merged_before_it_was_created(tmp_path: Path) -> None:
    record = {
        "repo": "o/r",
        "number": 5,
        "title": "x",
        "created_at": "2026-05-06T10:00:00Z",
        "merged_at": "2026-05-05T10:00:00Z",
    }
    path = tmp_path / "prs.jsonl"
    path.write_text(
        json.dumps({**record, "number": 4, "created_at": "2026-05-01T00:00:00Z"})
        + "\n"
        + json.dumps(record)
        + "\n"
    )
    with pytest.raises(
        RecordError, match=r"prs\.jsonl:2: merged_at: 2026-05-05T10:00:00Z is before created_at"
    ):
        validate_file(path)
    db = tmp_path / "c.db"
    assert_one_line_usage(cli("import", str(path), "--db", str(db)), "is before created_at")
