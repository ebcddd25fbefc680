"""The Slack ``Poster`` through the real slack_sdk AsyncWebClient against the loopback fake Web API."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace

import pytest

from bot.chat.platforms import post_async
from bot.chat.post import PermanentPostError, PostResult, TransientPostError
from bot.chat.slack.post import SlackPoster, poster, web_client
from bot.chat.slack.render import render
from bot.config.settings import ConfigError, Settings
from commands.model import Heading, Paragraph, PRItem, PRRef, Reply, Section
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
        blocks=[Paragraph(text="3 merged")],
        sections=[
            Section(title="Key", blocks=[PRItem(pr=ref)]),
            Section(title="Risks", blocks=[Paragraph(text="none")]),
        ],
    )


def post(
    slack: FakeSlack, reply: Reply, channel: str, *, token: str | None = BOT_TOKEN, **kw: object
) -> PostResult:
    async def go() -> PostResult:
        sender = SlackPoster(web_client(settings_for(slack, token), **kw), pace=0)  # type: ignore[arg-type]
        return await sender.post(reply, channel)

    return asyncio.run(go())


def test_lead_message_then_thread_replies_with_exact_payloads(slack: FakeSlack) -> None:
    reply = digest()
    result = post(slack, reply, "C0DIGEST")
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
        platform="slack",
        channel="C0DIGEST",
        ids=(lead_ts, "1700000000.000002", "1700000000.000003"),
        permalink="https://fake.slack.com/archives/C0DIGEST/p1700000000000001",
    )
    assert result.lead == lead_ts and len(result.replies) == 2


def test_a_429_is_waited_out_for_exactly_its_retry_after_then_posted(slack: FakeSlack) -> None:
    slack.script(
        "chat.postMessage", Response(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "7"})
    )
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:  # a fake clock: the wait is recorded, not spent
        waits.append(seconds)

    result = post(
        slack, Reply(command="pr", title="one", blocks=[Paragraph(text="x")]), "C1", sleep=fake_sleep
    )
    calls = slack.calls_to("chat.postMessage")
    assert len(calls) == 2 and calls[0].params == calls[1].params
    assert waits == [7.0]
    assert result.ids == ("1700000000.000001",)


def test_a_retry_after_longer_than_we_wait_is_a_transient_error(slack: FakeSlack) -> None:
    slack.script(
        "chat.postMessage", Response(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "600"})
    )
    with pytest.raises(TransientPostError) as err:
        post(slack, digest(), "C1")
    assert str(err.value) == "Slack is rate-limiting posts to C1 (retry after 600 s): try again later"
    assert err.value.transient and err.value.code == "ratelimited"
    assert len(slack.calls_to("chat.postMessage")) == 1


def test_not_in_channel_says_to_invite_the_app(slack: FakeSlack) -> None:
    slack.channel_errors["C0PRIVATE"] = "not_in_channel"
    with pytest.raises(PermanentPostError) as err:
        post(slack, digest(), "C0PRIVATE")
    assert err.value.code == "not_in_channel" and not err.value.transient
    assert str(err.value) == (
        "prdigest is not in channel C0PRIVATE: invite the app to the channel "
        "(type `/invite @prdigest` there) and try again"
    )
    assert err.value.posted == 0


def test_errors_are_in_the_callers_language(slack: FakeSlack) -> None:
    slack.channel_errors["C0PRIVATE"] = "not_in_channel"
    with pytest.raises(PermanentPostError, match=r"^prdigest 不在频道 C0PRIVATE 中"):
        post(slack, replace(digest(), lang="zh"), "C0PRIVATE")


def test_channel_not_found_and_a_bad_token_are_explained(slack: FakeSlack) -> None:
    slack.channel_errors["CNOPE"] = "channel_not_found"
    with pytest.raises(PermanentPostError, match=r"^channel CNOPE not found: use the channel ID"):
        post(slack, digest(), "CNOPE")
    with pytest.raises(PermanentPostError, match=r"^Slack rejected SLACK_BOT_TOKEN \(invalid_auth\)") as err:
        post(slack, digest(), "C1", token="xoxb-wrong")
    assert "xoxb-wrong" not in str(err.value)


def test_a_failure_inside_the_thread_reports_what_was_posted(slack: FakeSlack) -> None:
    slack.script(
        "chat.postMessage",
        Response(200, {"ok": True, "channel": "C1", "ts": "1.1"}),
        Response(200, {"ok": False, "error": "is_archived"}),
    )
    with pytest.raises(PermanentPostError) as err:
        post(slack, digest(), "C1")
    assert (
        str(err.value)
        == "posted 1 of 3 messages, then: channel C1 is archived: unarchive it or post to another channel"
    )
    assert err.value.posted == 1


def test_a_5xx_is_transient(slack: FakeSlack) -> None:
    slack.script("chat.postMessage", Response(200, {"ok": False, "error": "internal_error"}))
    with pytest.raises(TransientPostError, match="internal_error"):
        post(slack, digest(), "C1")


def test_missing_token_is_a_config_error_and_sends_nothing(slack: FakeSlack) -> None:
    with pytest.raises(ConfigError, match=r"^SLACK_BOT_TOKEN is not set"):
        poster(settings_for(slack, token=None))
    with pytest.raises(PermanentPostError, match="not found"):
        post(slack, digest(), " ")
    assert slack.calls == []


def test_unreachable_api_is_one_transient_line(slack: FakeSlack) -> None:
    settings = Settings(
        _env_file=None,
        slack_bot_token=BOT_TOKEN,  # type: ignore[call-arg]
        prdigest_slack_api_url="http://127.0.0.1:9/api/",
    )
    with pytest.raises(TransientPostError, match=r"^cannot reach the Slack API"):
        asyncio.run(post_async(digest(), "slack:C1", settings))


def test_the_platform_is_chosen_by_the_target(slack: FakeSlack) -> None:
    result = asyncio.run(post_async(digest(), "slack:#C7", settings_for(slack)))
    assert (result.platform, result.channel, len(result.ids)) == ("slack", "C7", 3)
    assert [c.params["channel"] for c in slack.calls_to("chat.postMessage")] == ["C7"] * 3


def test_heading_sections_start_thread_replies() -> None:
    messages = render(digest(), mode="thread")
    assert [m.blocks[0]["type"] for m in messages[1:]] == ["header", "header"]
    assert messages[1].blocks[0]["text"]["text"] == "Key"
    assert isinstance(digest().all_blocks()[1], Heading)
