"""Chat answers with a model configured, as ``prdigest serve`` runs them against the fake Slack, the
fake Discord and the fake model: sent once when the model answers within the wait, else computed
first and edited in place when the sentences arrive."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.chat.post import PostResult
from bot.chat.slack.post import SlackPoster, web_client
from bot.chat.slack.render import SlackMessage, section
from bot.cli.discord import sync_commands
from bot.config.settings import Settings
from bot.prose import chat
from tests.bot.chat.discord.test_discord_app import discord_settings
from tests.bot.chat.slack.conftest import WEEK, slack_settings
from tests.bot.chat.slack.test_slack_app import send
from tests.fakes.discord import CHANNEL_ID, GUILD_ID, FakeDiscord
from tests.fakes.host import RunningHost
from tests.fakes.llm import KEY, MODEL, FakeLLM
from tests.fakes.slack import FakeSlack, RunningApp

NOTE = "These sentences were written by a language model"


def with_model(settings: Settings, llm: FakeLLM) -> Settings:
    return settings.model_copy(
        update={"prdigest_llm_url": llm.url, "prdigest_llm_model": MODEL, "prdigest_llm_key": KEY}
    )


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch, llm: FakeLLM) -> FakeLLM:
    """A model slower than the wait: every answer takes 0.3 s, the chat waits 0.05 s."""
    monkeypatch.setattr(chat, "ACK_WAIT", 0.05)
    llm.delay = 0.3
    return llm


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


def _blocks(value: Any) -> str:
    return json.dumps(json.loads(value) if isinstance(value, str) else value, ensure_ascii=False)


def test_slack_public_digest_is_posted_computed_then_updated_in_place(
    slow: FakeLLM, slack: FakeSlack, demo_db: Path
) -> None:
    app = RunningApp(with_model(slack_settings(slack), slow), demo_db)
    with app:
        send(app, slack, "/digest", f"{WEEK} public", channel="C0TEAM")
        slack.wait_calls("chat.update", 1, timeout=30)
        posts = slack.calls_to("chat.postMessage")
        updates = slack.wait_calls("chat.update", len([p for p in posts if p.params["channel"] == "C0TEAM"]))
    lead = posts[0]
    assert NOTE not in _blocks(lead.params["blocks"])  # the first answer is the computed one
    posted = {c.response["ts"] for c in posts}
    assert {u.params["ts"] for u in updates} <= posted  # updated where they are, never re-posted
    now = " ".join(_blocks(m["blocks"]) for (channel, _), m in slack.messages.items() if channel == "C0TEAM")
    assert NOTE in now and len(slow.requests) >= 1


def test_slack_digest_back_within_the_wait_is_sent_once(
    llm: FakeLLM, slack: FakeSlack, demo_db: Path
) -> None:
    app = RunningApp(with_model(slack_settings(slack), llm), demo_db)
    with app:
        send(app, slack, "/digest", f"{WEEK} public", channel="C0TEAM")
        slack.wait_calls("chat.postMessage", 2, timeout=30)
        posts = slack.calls_to("chat.postMessage")
    assert slack.calls_to("chat.update") == []
    assert NOTE in " ".join(_blocks(p.params["blocks"]) for p in posts)


def test_slack_private_digest_of_one_message_is_replaced(
    slow: FakeLLM, slack: FakeSlack, demo_db: Path
) -> None:
    app = RunningApp(with_model(slack_settings(slack, prdigest_lang="zh"), slow), demo_db)
    with app:
        _, _, key = send(app, slack, "/digest", WEEK)
        posted = slack.wait_posted(key, 2, timeout=30)
    computed, replacement, *_ = posted
    assert "replace_original" not in computed.body  # the computed answer, one message (zh)
    assert "以上文字由语言模型" not in _blocks(computed.body["blocks"])
    assert replacement.body["replace_original"] is True and replacement.body["response_type"] == "ephemeral"
    assert "以上文字由语言模型" in " ".join(_blocks(p.body["blocks"]) for p in posted[1:])


def test_slack_prose_off_asks_nothing(llm: FakeLLM, slack: FakeSlack, demo_db: Path) -> None:
    app = RunningApp(with_model(slack_settings(slack), llm), demo_db)
    with app:
        _, _, key = send(app, slack, "/digest", f"{WEEK} prose=off")
        posted = slack.wait_posted(key, 1, timeout=30)
    assert llm.requests == [] and NOTE not in _blocks(posted[0].body["blocks"])


@pytest.fixture
def discord_fake() -> Iterator[FakeDiscord]:
    with FakeDiscord(heartbeat_interval_ms=200) as running, running.patched():
        yield running


def _discord_bot(fake: FakeDiscord, cache: Path, llm: FakeLLM) -> RunningHost:
    settings = with_model(discord_settings(fake), llm)
    asyncio.run(sync_commands(settings, guild=int(GUILD_ID)))
    return RunningHost(settings, cache)


def test_discord_private_digest_is_edited_in_place(
    slow: FakeLLM, discord_fake: FakeDiscord, demo_db: Path
) -> None:
    fake = discord_fake
    with _discord_bot(fake, demo_db, slow):
        fake.wait(lambda: fake.frames_where(t="GUILD_CREATE"), what="the bot's gateway session")
        ix = fake.interact(fake.slash_command("digest", {"period": WEEK}))
        edits = fake.wait(
            lambda: [c for c in ix.calls() if c.route.startswith("PATCH")] or None,
            what="an edit of the answer",
            timeout=30,
        )
        followups = [c for c in ix.calls() if c.route == "POST /webhooks/{application_id}/{token}"]
    assert NOTE not in json.dumps([c.json for c in followups])  # the computed answer first
    assert NOTE in json.dumps([c.json for c in ix.calls() if c.route.startswith(("PATCH", "POST /webhooks"))])
    assert edits and fake.messages(CHANNEL_ID) == []  # still private: nothing in the channel


def test_discord_prose_option_off_asks_nothing(
    llm: FakeLLM, discord_fake: FakeDiscord, demo_db: Path
) -> None:
    fake = discord_fake
    with _discord_bot(fake, demo_db, llm):
        fake.wait(lambda: fake.frames_where(t="GUILD_CREATE"), what="the bot's gateway session")
        commands = {c["name"]: c for c in fake.commands(GUILD_ID)}
        assert {
            "name": "prose",
            "choices": [{"name": "on", "value": "on"}, {"name": "off", "value": "off"}],
        }.items() <= {
            k: v for k, v in next(o for o in commands["digest"]["options"] if o["name"] == "prose").items()
        }.items()
        ix = fake.interact(fake.slash_command("digest", {"period": WEEK, "prose": "off"}))
        fake.wait(lambda: len(ix.calls()) >= 2 or None, what="the answer")
    assert llm.requests == []


def _message(text: str) -> SlackMessage:
    return SlackMessage(text=text, blocks=[section(text)])


@pytest.mark.parametrize(("before", "after"), [(3, 2), (2, 4)])
def test_slack_revision_updates_in_place_adds_to_the_thread_and_deletes_the_rest(
    slack: FakeSlack, before: int, after: int
) -> None:
    async def go() -> PostResult:
        poster = SlackPoster(web_client(slack_settings(slack)), pace=0, permalink=False)
        posted = await poster.post_messages("C0TEAM", [_message(f"computed {i}") for i in range(before)])
        return await poster.revise(posted, [_message(f"worded {i}") for i in range(after)])

    revised = asyncio.run(go())
    assert len(revised.ids) == after
    shown = {ts: m["text"] for (channel, ts), m in slack.messages.items() if channel == "C0TEAM"}
    assert [shown[ts] for ts in revised.ids] == [f"worded {i}" for i in range(after)]
    assert len(shown) == after  # surplus computed messages deleted
    assert len(slack.calls_to("chat.update")) == min(before, after)
    extra = [c for c in slack.calls_to("chat.postMessage")[before:]]
    assert all(c.params["thread_ts"] == revised.lead for c in extra) and len(extra) == max(0, after - before)
