"""`prdigest COMMAND … --post slack:CHANNEL` through the real executable and slack_sdk, against the loopback fake."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.cli.test_cli import assert_one_line_usage, cli
from tests.fakes.slack import BOT_TOKEN, FakeSlack


def test_digest_is_posted_as_a_lead_message_with_a_thread(demo_db: Path) -> None:
    with FakeSlack() as slack:
        env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "PRDIGEST_SLACK_API_URL": slack.api_url}
        result = cli("digest", "2026-W19", "--db", str(demo_db), "--post", "slack:C0DIGEST", env=env)
        assert result.returncode == 0, result.stderr
        posts = slack.calls_to("chat.postMessage")
    assert result.stdout.startswith("posted to slack:C0DIGEST: lead message ")
    assert len(posts) >= 2
    lead, *replies = posts
    assert lead.params["channel"] == "C0DIGEST" and "thread_ts" not in lead.params
    assert "2026-W19" in lead.params["text"]
    lead_ts = lead.response["ts"] if lead.response else None
    assert all(r.params.get("thread_ts") for r in replies)
    if lead_ts:
        assert {r.params["thread_ts"] for r in replies} == {lead_ts}
    assert f"{len(replies)} thread replies" in result.stdout
    assert result.stdout.rstrip().endswith(
        f"(https://fake.slack.com/archives/C0DIGEST/p{lead_ts.replace('.', '')})"
    )


@pytest.mark.parametrize(
    ("args", "first_words"),
    [
        (("risks", "core-path", "2026-W19"), "core-path change"),
        (("search", "kernel"), "Search"),
        (("pr",), "#"),
    ],
)
def test_every_reply_command_can_be_posted(demo_db: Path, args: tuple[str, ...], first_words: str) -> None:
    if args == ("pr",):
        import sqlite3

        number = sqlite3.connect(demo_db).execute("SELECT max(number) FROM prs").fetchone()[0]
        args = ("pr", str(number))
    with FakeSlack() as slack:
        env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "PRDIGEST_SLACK_API_URL": slack.api_url}
        result = cli(*args, "--db", str(demo_db), "--post", "slack:C0TEAM", env=env)
        posts = slack.calls_to("chat.postMessage")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("posted to slack:C0TEAM: lead message ")
    assert posts and posts[0].params["channel"] == "C0TEAM"
    assert posts[0].params["text"].startswith(first_words)


def test_help_cannot_be_posted() -> None:
    result = cli("help", "--post", "slack:C1")
    assert result.returncode == 2 and "No such option '--post'" in result.stderr


def test_not_in_channel_is_explained_in_one_line(demo_db: Path) -> None:
    with FakeSlack() as slack:
        slack.channel_errors["C0PRIVATE"] = "not_in_channel"
        env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "PRDIGEST_SLACK_API_URL": slack.api_url}
        result = cli("digest", "2026-W19", "--db", str(demo_db), "--post", "slack:C0PRIVATE", env=env)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "invite" in result.stderr.lower()


def test_bad_post_targets_and_missing_token(demo_db: Path) -> None:
    assert_one_line_usage(cli("digest", "--db", str(demo_db), "--post", "teams:X"), "use slack:CHANNEL_ID")
    assert_one_line_usage(cli("risks", "--db", str(demo_db), "--post", "slack:"), "use slack:CHANNEL_ID")
    assert_one_line_usage(cli("digest", "--db", str(demo_db), "--post", "slack:C1"), "SLACK_BOT_TOKEN")
