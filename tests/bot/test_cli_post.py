"""`prdigest digest … --post slack:CHANNEL` through the real executable and slack_sdk, against the loopback fake."""

from __future__ import annotations

from pathlib import Path

from tests.bot.test_cli import assert_one_line_usage, cli
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
    assert_one_line_usage(cli("digest", "--db", str(demo_db), "--post", "slack:C1"), "SLACK_BOT_TOKEN")
