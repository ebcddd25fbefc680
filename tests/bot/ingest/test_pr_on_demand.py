"""`prdigest pr N` for an uncached PR: fetched from the fake GitHub, classified, cached, answered."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.bot.cli.test_cli import cli
from tests.fakes.github import TOKEN, FakeClock, FakeGitHub, fake_schema, make_prs

REPO = "octo/repo"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(fake_schema(), clock=FakeClock(start=time.time())) as server:
        yield server


def test_an_uncached_pr_is_fetched_once_then_answered_from_the_cache(
    github: FakeGitHub, tmp_path: Path
) -> None:
    end = datetime.now(UTC).replace(microsecond=0)
    prs = make_prs(3, end - timedelta(days=3), end)
    github.add_prs(REPO, prs)
    db = tmp_path / "c.db"
    cli("import", "/dev/null", "--db", str(db))  # an empty cache file
    env = {"GITHUB_TOKEN": TOKEN, "PRDIGEST_GITHUB_API_URL": github.url}
    number = prs[1].number

    first = cli("pr", str(number), "--repo", REPO, "--db", str(db), "--format", "json", env=env)
    assert first.returncode == 0, first.stderr
    data = json.loads(first.stdout)
    assert data["number"] == number and data["title"] == prs[1].title and data["modules"]
    requests = len(github.log)
    assert requests == 1

    again = cli("pr", str(number), "--repo", REPO, "--db", str(db), env=env)
    assert again.returncode == 0 and len(github.log) == requests, "the second answer comes from the cache"
    rows = sqlite3.connect(db).execute("SELECT source FROM prs WHERE number = ?", (number,)).fetchall()
    assert rows == [("api",)]

    missing = cli("pr", "424242", "--repo", REPO, "--db", str(db), env=env)
    assert missing.returncode == 1 and "has no merged PR #424242" in missing.stderr


def test_without_a_token_it_says_how_to_sync(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    cli("import", "/dev/null", "--db", str(db))
    result = cli("pr", "5", "--repo", REPO, "--db", str(db))
    assert result.returncode == 1 and "prdigest sync" in result.stderr
