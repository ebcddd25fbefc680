"""Exactly once, and whole, whatever the network does: the real clients against fault-injecting
loopback Slack and Discord fakes with channel and thread history.

Every case ends with the same check (``whole``): one lead in the channel, and every reply of the
digest exactly once in its thread — or a ledger row that says ``partial``/``failed`` with the
reason. The client timeout is a setting (PRDIGEST_POST_TIMEOUT), 1 s here, so an answer later
than it takes a second, not thirty.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.chat.discord.steps import DiscordSteps, key_of
from bot.chat.slack.post import web_client
from bot.chat.slack.steps import SlackSteps
from bot.chat.steps import StepPoster
from bot.config.settings import Settings
from bot.delivery.deliverer import Deliverer, Outcome
from classify.rules import Profile
from storage.db import connect
from storage.deliveries import DeliveryStore
from storage.delivery_steps import StepStore
from tests.bot.delivery.test_deliverer import CHANNEL, DUE, subscribe
from tests.fakes.discord import CHANNEL_ID, TOKEN, FakeDiscord, discord_error, rate_limited, server_error
from tests.fakes.discord import Fault as DiscordFault
from tests.fakes.slack import BOT_TOKEN, FakeSlack, Fault, Response

TIMEOUT = 1.0
MESSAGES = "POST /channels/{channel_id}/messages"
W19 = date(2026, 5, 4)


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def discord_fake() -> Iterator[FakeDiscord]:
    with FakeDiscord() as running, running.patched():
        yield running


def slack_settings(slack: FakeSlack) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        slack_bot_token=BOT_TOKEN,
        prdigest_slack_api_url=slack.api_url,
        prdigest_post_timeout=TIMEOUT,
    )


def discord_settings(fake: FakeDiscord) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_bot_token=TOKEN,
        prdigest_discord_api_url=fake.api_url,
        prdigest_discord_gateway_url=fake.gateway_url,
        prdigest_post_timeout=TIMEOUT,
    )


def deliver(db: Path, profile: Profile, posters: Callable[[str], StepPoster], minutes: float = 0) -> Outcome:
    """One run at DUE + ``minutes`` with real waits (short back-off): its one outcome."""
    deliverer = Deliverer(connect(db), profile, posters, owner=f"run-{minutes}", backoff=(0.1, 0.2))
    [outcome] = asyncio.run(deliverer.run(DUE + timedelta(minutes=minutes)))
    return outcome


def on_slack(slack: FakeSlack) -> Callable[[str], StepPoster]:
    return lambda platform: SlackSteps(web_client(slack_settings(slack)), pace=0, timeout=TIMEOUT)


def on_discord(fake: FakeDiscord) -> Callable[[str], StepPoster]:
    return lambda platform: DiscordSteps(discord_settings(fake))


def stored_keys(db: Path) -> list[str]:
    [row] = connect(db).execute("SELECT id FROM deliveries").fetchall()
    return [s.key for s in StepStore(connect(db)).for_delivery(row[0])]


def slack_whole(slack: FakeSlack, db: Path, channel: str = CHANNEL) -> None:
    """One lead in the channel; its thread holds every reply of the stored digest exactly once."""
    leads = [m for m in slack.leads_in(channel) if m.get("metadata")]
    assert len(leads) == 1, [m["metadata"] for m in leads]
    replies = [m["metadata"]["event_payload"]["step"] for m in slack.thread(channel, leads[0]["ts"])]
    assert replies == stored_keys(db)[1:]


def discord_whole(fake: FakeDiscord, db: Path) -> None:
    keys = [key_of(m) for m in fake.messages(CHANNEL_ID)]
    leads = [m for m in fake.messages(CHANNEL_ID) if (key_of(m) or "").endswith("/lead")]
    assert len(leads) == 1, keys
    replies = [(key_of(m) or "").rsplit("/", 1)[1] for m in fake.messages(leads[0]["id"])]
    assert replies == stored_keys(db)[1:]


def row(db: Path) -> Any:
    found = DeliveryStore(connect(db)).find(1, W19)
    assert found is not None
    return found


# -- Slack ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", [0, 2])
def test_slack_a_connection_dropped_after_slack_stored_the_message_posts_it_once(
    demo_db: Path, profile: Profile, slack: FakeSlack, which: int
) -> None:
    """The library does not retry the post; the deliverer looks (after the settle time), finds
    it, and goes on with the rest — the lead (0) or a reply (2)."""
    subscribe(demo_db)
    slack.fault_at("chat.postMessage", which, Fault("drop"))
    outcome = deliver(demo_db, profile, on_slack(slack))
    assert outcome.state == "posted" and "found 1 message already posted" in outcome.reason, outcome
    assert len(slack.calls_to("chat.postMessage")) == len(stored_keys(demo_db))  # not one more
    slack_whole(slack, demo_db)


def test_slack_an_answer_later_than_the_client_timeout_is_not_posted_twice(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    """Slack stores the lead 1.5 s after the request, after the 1 s timeout: the look waits
    until twice the timeout, sees it, and does not post it again."""
    subscribe(demo_db)
    slack.fault("chat.postMessage", Fault("late", delay=1.5 * TIMEOUT))
    outcome = deliver(demo_db, profile, on_slack(slack))
    assert outcome.state == "posted" and "found 1 message" in outcome.reason, outcome
    slack_whole(slack, demo_db)


def test_slack_a_500_on_a_reply_stored_or_not_ends_whole(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    subscribe(demo_db)
    slack.fault_at("chat.postMessage", 1, Fault("answer", store=False))  # a 500, nothing stored
    slack.fault_at("chat.postMessage", 3, Fault("answer", store=True))  # a 500 after the store
    outcome = deliver(demo_db, profile, on_slack(slack))
    assert outcome.state == "posted" and "found 1 message already posted" in outcome.reason, outcome
    slack_whole(slack, demo_db)


def test_slack_5xx_on_a_reply_that_persists_is_partial_then_resumed_from_the_stored_messages(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    subscribe(demo_db)
    for i in (1, 2, 3):  # the first reply and both of its retries meet a 500, nothing stored
        slack.fault_at("chat.postMessage", i, Fault("answer", store=False))
    first = deliver(demo_db, profile, on_slack(slack))
    assert first.state == "partial" and first.reason.startswith("retrying at"), first
    assert "posted 1 of 6 messages (missing: themes_week" in first.reason and "fatal_error" in first.reason
    assert row(demo_db).state == "partial"
    stored = StepStore(connect(demo_db)).for_delivery(1)  # what the resumed run must post
    waiting = deliver(demo_db, profile, on_slack(slack), minutes=5)  # said, not retried yet
    assert waiting.state == "partial" and waiting.reason.startswith("resumes at")
    # a sync in between changes the cache: the resumed delivery posts what was stored, not a new digest
    connect(demo_db).execute("DELETE FROM prs WHERE rowid IN (SELECT rowid FROM prs LIMIT 20)")
    resumed = deliver(demo_db, profile, on_slack(slack), minutes=20)
    assert resumed.state == "posted", resumed
    slack_whole(slack, demo_db)
    lead = next(m for m in slack.leads_in(CHANNEL) if m.get("metadata"))
    posted = [m["blocks"] for m in slack.thread(CHANNEL, lead["ts"])]
    assert posted == [s.body["blocks"] for s in stored[1:]]
    # posted: the payloads are no longer needed, the keys and message ids stay
    after = StepStore(connect(demo_db)).for_delivery(1)
    assert [s.key for s in after] == [s.key for s in stored] and all(s.message_id for s in after)
    assert all(s.body == {} for s in after)


def test_slack_a_permission_refused_on_a_reply_is_partial_naming_it_and_retry_resumes(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    subscribe(demo_db)
    refused = Response(200, {"ok": False, "error": "missing_scope", "needed": "chat:write.public"})
    slack.fault_at("chat.postMessage", 1, Fault("answer", store=False, response=refused))
    outcome = deliver(demo_db, profile, on_slack(slack))
    assert outcome.state == "partial" and "chat:write.public" in outcome.reason, outcome
    assert "prdigest deliveries --retry 1" in outcome.reason
    later = asyncio.run(Deliverer(connect(demo_db), profile, on_slack(slack)).run(DUE + timedelta(hours=1)))
    assert later == []  # nothing automatic: a person must act first
    assert row(demo_db).state == "partial" and len(slack.leads_in(CHANNEL)) == 1
    DeliveryStore(connect(demo_db)).retry(1, now=DUE + timedelta(hours=2))
    again = deliver(demo_db, profile, on_slack(slack), minutes=120)
    assert again.state == "posted", again
    slack_whole(slack, demo_db)


def test_slack_a_retry_after_longer_than_a_run_waits_is_never_retried_before_it(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    subscribe(demo_db)
    slack.script(
        "chat.postMessage", Response(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "1200"})
    )
    first = deliver(demo_db, profile, on_slack(slack))
    assert first.state == "retrying" and "asked to wait 1200 s" in first.reason, first
    assert len(slack.calls_to("chat.postMessage")) == 1  # not at +2 s, not at +8 s
    early = deliver(demo_db, profile, on_slack(slack), minutes=16)
    assert early.state == "retrying" and len(slack.calls_to("chat.postMessage")) == 1
    late = deliver(demo_db, profile, on_slack(slack), minutes=21)
    assert late.state == "posted"
    slack_whole(slack, demo_db)


# -- Discord ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", [0, 2])
def test_discord_a_connection_dropped_after_discord_stored_the_message_posts_it_once(
    demo_db: Path, profile: Profile, discord_fake: FakeDiscord, which: int
) -> None:
    subscribe(demo_db, platform="discord", channel=CHANNEL_ID)
    discord_fake.fault(MESSAGES, DiscordFault("drop"), index=which)
    outcome = deliver(demo_db, profile, on_discord(discord_fake))
    assert outcome.state == "posted", outcome
    discord_whole(discord_fake, demo_db)


def test_discord_an_answer_later_than_the_client_timeout_is_not_posted_twice(
    demo_db: Path, profile: Profile, discord_fake: FakeDiscord
) -> None:
    subscribe(demo_db, platform="discord", channel=CHANNEL_ID)
    discord_fake.fault(MESSAGES, DiscordFault("late", delay=1.5 * TIMEOUT))
    outcome = deliver(demo_db, profile, on_discord(discord_fake))
    assert outcome.state == "posted", outcome
    discord_whole(discord_fake, demo_db)


def test_discord_a_500_on_a_reply_after_it_was_stored_ends_whole(
    demo_db: Path, profile: Profile, discord_fake: FakeDiscord
) -> None:
    subscribe(demo_db, platform="discord", channel=CHANNEL_ID)
    discord_fake.fault(MESSAGES, DiscordFault("answer", store=True, answer=server_error(500)), index=2)
    outcome = deliver(demo_db, profile, on_discord(discord_fake))
    assert outcome.state == "posted", outcome
    discord_whole(discord_fake, demo_db)


def test_discord_a_403_on_a_reply_is_partial_naming_the_permission_and_retry_resumes(
    demo_db: Path, profile: Profile, discord_fake: FakeDiscord
) -> None:
    subscribe(demo_db, platform="discord", channel=CHANNEL_ID)
    discord_fake.fault(MESSAGES, DiscordFault("answer", store=False, answer=discord_error(50013)), index=1)
    outcome = deliver(demo_db, profile, on_discord(discord_fake))
    assert outcome.state == "partial" and "Send Messages in Threads" in outcome.reason, outcome
    assert "posted 1 of 6 messages" in outcome.reason and row(demo_db).state == "partial"
    DeliveryStore(connect(demo_db)).retry(1, now=DUE + timedelta(hours=2))
    again = deliver(demo_db, profile, on_discord(discord_fake), minutes=120)
    assert again.state == "posted", again
    discord_whole(discord_fake, demo_db)


def test_discord_a_429_longer_than_a_run_waits_names_the_wait_and_is_not_retried_before_it(
    demo_db: Path, profile: Profile, discord_fake: FakeDiscord
) -> None:
    subscribe(demo_db, platform="discord", channel=CHANNEL_ID)
    discord_fake.script(MESSAGES, rate_limited(1200))
    first = deliver(demo_db, profile, on_discord(discord_fake))
    assert first.state == "retrying" and "1200" in first.reason and "?" not in first.reason, first
    assert len(discord_fake.calls_to(MESSAGES)) == 1
    assert deliver(demo_db, profile, on_discord(discord_fake), minutes=16).state == "retrying"
    assert deliver(demo_db, profile, on_discord(discord_fake), minutes=21).state == "posted"
    discord_whole(discord_fake, demo_db)
