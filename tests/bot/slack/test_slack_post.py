"""Posting to a channel through the real slack_sdk clients against the loopback fake Web API."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from bot.config import ConfigError, Settings
from bot.slack.post import (
    PostResult,
    SlackPostError,
    async_web_client,
    post_messages_async,
    post_reply,
    web_client,
)
from bot.slack.render import render
from commands.model import Heading, Paragraph, PRItem, PRRef, Reply
from tests.fakes.slack import BOT_TOKEN, FakeSlack, Response


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


def settings_for(slack: FakeSlack, token: str | None = BOT_TOKEN) -> Settings:
    return Settings(_env_file=None, slack_bot_token=token, prdigest_slack_api_url=slack.api_url)  # type: ignore[call-arg]


def digest() -> Reply:
    ref = PRRef(number=42121, title="<!channel> fix", url="https://github.com/o/r/pull/42121", author="a")
    return Reply(
        command="digest",
        title="o/r weekly digest",
        blocks=[
            Paragraph(text="3 merged"),
            Heading(text="Key"),
            PRItem(pr=ref),
            Heading(text="Risks"),
            Paragraph(text="none"),
        ],
        sections=[1, 3],
    )


def test_lead_message_then_thread_replies_with_exact_payloads(slack: FakeSlack) -> None:
    reply = digest()
    result = post_reply(reply, "C0DIGEST", settings_for(slack), pace=0)
    calls = slack.calls_to("chat.postMessage")
    expected = [m.payload() for m in render(reply, mode="thread")]
    assert len(calls) == len(expected) == 3
    lead_ts = "1700000000.000001"
    assert calls[0].params == {
        "channel": "C0DIGEST",
        **expected[0],
        "unfurl_links": False,
        "unfurl_media": False,
    }
    for call, payload in zip(calls[1:], expected[1:], strict=True):
        assert call.params == {
            "channel": "C0DIGEST",
            **payload,
            "unfurl_links": False,
            "unfurl_media": False,
            "thread_ts": lead_ts,
        }
    assert all(c.headers["authorization"] == f"Bearer {BOT_TOKEN}" for c in calls)
    assert result == PostResult(
        channel="C0DIGEST", ts=lead_ts, replies=("1700000000.000002", "1700000000.000003")
    )
    assert result.messages == 3


def test_a_429_is_waited_out_for_retry_after_then_posted(slack: FakeSlack) -> None:
    slack.script(
        "chat.postMessage", Response(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "1"})
    )
    started = time.monotonic()
    result = post_reply(
        Reply(command="pr", title="one", blocks=[Paragraph(text="x")]), "C1", settings_for(slack)
    )
    calls = slack.calls_to("chat.postMessage")
    assert len(calls) == 2
    assert calls[0].params == calls[1].params
    assert calls[1].at - calls[0].at >= 0.95
    assert time.monotonic() - started < 10
    assert result.ts == "1700000000.000001"


def test_a_retry_after_longer_than_we_wait_is_a_clear_error(slack: FakeSlack) -> None:
    slack.script(
        "chat.postMessage", Response(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "600"})
    )
    with pytest.raises(SlackPostError) as err:
        post_reply(digest(), "C1", settings_for(slack), pace=0)
    assert str(err.value) == "Slack is rate-limiting posts to C1 (retry after 600 s): try again later"
    assert len(slack.calls_to("chat.postMessage")) == 1


def test_not_in_channel_says_to_invite_the_app(slack: FakeSlack) -> None:
    slack.channel_errors["C0PRIVATE"] = "not_in_channel"
    with pytest.raises(SlackPostError) as err:
        post_reply(digest(), "C0PRIVATE", settings_for(slack), pace=0)
    assert err.value.error == "not_in_channel"
    assert str(err.value) == (
        "prdigest is not in channel C0PRIVATE: invite the app to the channel "
        "(type `/invite @prdigest` there) and try again"
    )
    assert err.value.posted == 0


def test_channel_not_found_and_a_bad_token_are_explained(slack: FakeSlack) -> None:
    slack.channel_errors["CNOPE"] = "channel_not_found"
    with pytest.raises(SlackPostError, match=r"^channel CNOPE not found: use the channel ID"):
        post_reply(digest(), "CNOPE", settings_for(slack), pace=0)
    with pytest.raises(SlackPostError, match=r"^Slack rejected SLACK_BOT_TOKEN \(invalid_auth\)") as err:
        post_reply(digest(), "C1", settings_for(slack, token="xoxb-wrong"), pace=0)
    assert "xoxb-wrong" not in str(err.value)


def test_a_failure_inside_the_thread_reports_what_was_posted(slack: FakeSlack) -> None:
    slack.script(
        "chat.postMessage",
        Response(200, {"ok": True, "channel": "C1", "ts": "1.1"}),
        Response(200, {"ok": False, "error": "is_archived"}),
    )
    with pytest.raises(SlackPostError) as err:
        post_reply(digest(), "C1", settings_for(slack), pace=0)
    assert (
        str(err.value)
        == "posted 1 of 3 messages, then: channel C1 is archived: unarchive it or post to another channel"
    )
    assert err.value.posted == 1


def test_missing_token_is_a_config_error(slack: FakeSlack) -> None:
    with pytest.raises(ConfigError, match=r"^SLACK_BOT_TOKEN is not set"):
        post_reply(digest(), "C1", settings_for(slack, token=None))
    with pytest.raises(SlackPostError, match="no Slack channel given"):
        post_reply(digest(), " ", settings_for(slack))
    assert slack.calls == []


def test_unreachable_api_is_one_line(slack: FakeSlack) -> None:
    settings = Settings(
        _env_file=None,
        slack_bot_token=BOT_TOKEN,  # type: ignore[call-arg]
        prdigest_slack_api_url="http://127.0.0.1:9/api/",
    )
    with pytest.raises(SlackPostError, match=r"^cannot reach the Slack API"):
        post_reply(digest(), "C1", settings, client=web_client(settings), pace=0)


def test_async_client_posts_the_same_thread_and_waits_out_429(slack: FakeSlack) -> None:
    slack.script(
        "chat.postMessage", Response(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "1"})
    )
    messages = render(digest(), mode="thread")

    async def go() -> PostResult:
        return await post_messages_async(async_web_client(settings_for(slack)), "C2", messages, pace=0)

    result = asyncio.run(go())
    calls = slack.calls_to("chat.postMessage")
    assert len(calls) == 4  # the 429, then lead + 2 replies
    assert calls[1].at - calls[0].at >= 0.95
    assert [c.params.get("thread_ts") for c in calls[1:]] == [None, result.ts, result.ts]
    assert [c.params["blocks"] for c in calls[1:]] == [m.blocks for m in messages]
