"""``prdigest sync`` end to end: the real command, the real client, the fake GitHub on loopback."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bot.cli.sync import Display, main, parse_duration, parse_when, sync
from bot.ingest.sync import Progress
from tests.fakes.github import TOKEN, FakeClock, FakeGitHub, fake_schema, make_prs

from .gitrepo import GitRepo

REPO = "octo/repo"


@pytest.fixture
def live() -> Iterator[FakeGitHub]:
    """A fake whose clock is the real one: the command sleeps for real, so tests avoid long waits."""
    schema = fake_schema()
    with FakeGitHub(schema, clock=FakeClock(start=time.time())) as server:
        yield server


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Settings for a command that never reaches GitHub (bad input, missing token, --git)."""
    monkeypatch.chdir(tmp_path)  # no developer .env
    for name in ("PRDIGEST_REPO", "PRDIGEST_RULES", "PRDIGEST_DB", "PRDIGEST_TIMEZONE", "PRDIGEST_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    return {"GITHUB_TOKEN": TOKEN, "PRDIGEST_GITHUB_API_URL": "http://127.0.0.1:9"}


@pytest.fixture
def live_env(live: FakeGitHub, env: dict[str, str]) -> dict[str, str]:
    return {**env, "PRDIGEST_GITHUB_API_URL": live.url}


def run(args: list[str], env: dict[str, str]) -> Result:
    return CliRunner().invoke(sync, args, env=env, catch_exceptions=False)


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_sync_prints_progress_and_a_summary(
    live: FakeGitHub, live_env: dict[str, str], tmp_path: Path
) -> None:
    now = datetime.now(UTC)
    live.add_prs(REPO, make_prs(150, now - timedelta(days=6), now - timedelta(hours=1)))
    db = tmp_path / "cache.db"
    result = run(["--repo", REPO, "--db", str(db)], live_env)
    assert result.exit_code == 0, result.stderr
    assert one_line(result.stdout) == (
        f"{REPO} (api): fetched 150, new 150, updated 0, requests used 2, rate limit remaining 4998/5000"
    )
    assert "sync: " in result.stderr and "page 2, 150 PRs, rate limit 4998 left" in result.stderr
    again = run(["--repo", REPO, "--db", str(db)], live_env)
    assert again.exit_code == 0
    assert "fetched 0, new 0, updated 0, requests used 1," in one_line(again.stdout)


def test_dates_are_read_in_the_configured_zone(
    live: FakeGitHub, live_env: dict[str, str], tmp_path: Path
) -> None:
    live.add_prs(REPO, [])
    env = {**live_env, "PRDIGEST_TIMEZONE": "Asia/Shanghai"}
    result = run(
        ["--repo", REPO, "--db", str(tmp_path / "c.db"), "--since", "2026-05-04", "--until", "2026-05-10"],
        env,
    )
    assert result.exit_code == 0, result.stderr
    assert "merged:2026-05-03T16:00:00+00:00..2026-05-10T15:59:59+00:00" in live.log[0].variables["q"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "yesterday-ish"], "--since 'yesterday-ish': use YYYY-MM-DD"),
        (["--until", "2026-13-01"], "--until '2026-13-01': use YYYY-MM-DD"),
        (["--since", "2026-05-10", "--until", "2026-05-01"], "is not before --until"),
        (["--since", "2999-01-01"], "is in the future"),
        (["--repo", "not-a-repo"], "expected OWNER/NAME"),
        (["--max-wait", "forever"], "--max-wait 'forever'"),
        (["--git", "/nonexistent/clone"], "no such directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    env: dict[str, str], tmp_path: Path, args: list[str], message: str
) -> None:
    result = run([*args, "--db", str(tmp_path / "c.db")], env)
    assert result.exit_code == 2
    assert message in one_line(result.stderr)
    assert result.stdout == ""


def test_a_database_that_is_not_sqlite_is_left_alone(env: dict[str, str], tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    result = run(["--repo", REPO, "--db", str(notes)], env)
    assert result.exit_code == 2 and "not a SQLite file" in one_line(result.stderr)
    assert notes.read_text() == "my notes\n"


def test_bad_api_url(env: dict[str, str], tmp_path: Path) -> None:
    result = run(
        ["--repo", REPO, "--db", str(tmp_path / "c.db")],
        {**env, "PRDIGEST_GITHUB_API_URL": "http://ghe.example.com/api/v3"},
    )
    assert result.exit_code == 2 and "plain http" in one_line(result.stderr)


def test_missing_token_says_how_to_create_one(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    result = run(["--repo", REPO, "--db", str(tmp_path / "c.db")], {**env, "GITHUB_TOKEN": ""})
    assert result.exit_code == 2
    line = one_line(result.stderr)
    assert "GITHUB_TOKEN is not set" in line and "settings/personal-access-tokens" in line
    assert "Pull requests: Read-only" in line
    assert not (tmp_path / "c.db").exists()  # nothing created before the configuration is usable


def test_rejected_token(live: FakeGitHub, live_env: dict[str, str], tmp_path: Path) -> None:
    live.add_prs(REPO, [])
    result = run(
        ["--repo", REPO, "--db", str(tmp_path / "c.db")], {**live_env, "GITHUB_TOKEN": "ghp_revoked"}
    )
    assert result.exit_code == 2
    assert "GITHUB_TOKEN was rejected by GitHub" in one_line(result.stderr)
    assert "requests used 1" in one_line(result.stdout)


def test_rate_limit_longer_than_max_wait_stops_cleanly(
    live: FakeGitHub, live_env: dict[str, str], tmp_path: Path
) -> None:
    now = datetime.now(UTC)
    live.add_prs(REPO, make_prs(250, now - timedelta(days=6), now - timedelta(hours=1)))
    live.inject_at(2, "primary", reset_in=3600)
    result = run(["--repo", REPO, "--db", str(tmp_path / "c.db"), "--max-wait", "1m"], live_env)
    assert result.exit_code == 1
    # the reset time is shown rounded up (so "after that time" is never too early)
    shown = re.search(r"until (\d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)?) UTC", result.stderr)
    assert shown is not None and "longer than --max-wait" in result.stderr, result.stderr
    at = datetime.fromisoformat(shown.group(1)).replace(tzinfo=UTC).timestamp()
    assert 0 <= at - live.reset_at < 60
    summary = one_line(result.stdout)
    assert "fetched 100, new 100" in summary and "rate limit remaining 0/5000" in summary
    assert "(incomplete: run sync again to continue)" in summary


def test_unknown_repository(live: FakeGitHub, live_env: dict[str, str], tmp_path: Path) -> None:
    live.add_prs(REPO, [])
    result = run(["--repo", "nobody/nothing", "--db", str(tmp_path / "c.db")], live_env)
    assert result.exit_code == 1
    assert "repository nobody/nothing was not found on GitHub or GITHUB_TOKEN cannot see it" in result.stderr


def test_git_import_needs_no_token(env: dict[str, str], tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "clone")
    repo.write("a.py", "x = 1\n")
    repo.commit("[Core] Add a (#10)", committed="2026-05-01T10:00:00+00:00")
    repo.write("b.py", "y = 2\n")
    repo.commit("tidy up", committed="2026-05-01T11:00:00+00:00")
    repo.git("remote", "add", "origin", "https://github.com/octo/fromgit.git")
    result = run(["--git", str(repo.path), "--db", str(tmp_path / "c.db")], {**env, "GITHUB_TOKEN": ""})
    assert result.exit_code == 0, result.stderr
    assert one_line(result.stdout) == (
        "octo/fromgit (git): fetched 1, new 1, updated 0, non-PR commits skipped 1"
    )  # a clone costs no GitHub request: the line does not report requests or a rate limit


def test_unknown_option_through_main_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--frobnicate"])
    assert info.value.code == 2
    assert "No such option '--frobnicate'" in one_line(capsys.readouterr().err)


def test_parsers() -> None:
    from zoneinfo import ZoneInfo

    assert parse_duration("90") == 90 and parse_duration("10m") == 600 and parse_duration("1h") == 3600
    utc = ZoneInfo("UTC")
    assert parse_when("2026-05-04", utc, option="--since") == datetime(2026, 5, 4, tzinfo=UTC)
    assert parse_when("2026-05-04", utc, option="--until", end=True) == datetime(2026, 5, 5, tzinfo=UTC)
    assert parse_when("2026-05-04T09:30Z", utc, option="--since") == datetime(2026, 5, 4, 9, 30, tzinfo=UTC)


def test_terminal_display_renders(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    now = datetime(2026, 5, 11, tzinfo=UTC)
    with Display(tty=True) as display:
        display.event(
            Progress(
                "page",
                "page 1",
                pages=1,
                prs=100,
                window_start=now - timedelta(days=7),
                window_end=now,
                window_total=200,
                window_done=100,
                rate_remaining=4999,
            )
        )
        display.note("GitHub answered HTTP 502; retrying in 1 s")
        display.event(Progress("batch", "git: 500 PRs", pages=1, prs=500))
    err = capsys.readouterr().err
    assert "retrying in 1 s" in err and "rate limit 4999 left" in err and "100/200" in err
    assert "git import" in err and "PRs 500" in err and "500/200" not in err
