"""Scheduled delivery to Discord end to end: the demo cache, the real discord.py client and the
Discord poster against the loopback fake Discord, a controllable clock. The same exactly-once
proofs as for Slack (tests/bot/delivery/test_deliverer.py) — reruns, restart before and after the claim, a
crash between post and record, two processes on one database — plus Discord's own failures and
the chart sent as the lead's attachment."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage

from bot.chat.discord.steps import DiscordSteps, key_of, step_url
from bot.chat.steps import StepPoster
from bot.config.settings import Settings
from classify.rules import Profile
from commands.schedule import next_due
from storage.db import connect
from storage.deliveries import DeliveryStore, delivery_key
from storage.delivery_steps import StepStore
from storage.subscriptions import Subscription
from tests.bot.delivery.test_deliverer import CREATED, DUE, REPO, SETTLE, race_two_processes, subscribe
from tests.bot.delivery.test_deliverer import Harness as SlackHarness
from tests.fakes.discord import (
    BOT_ID,
    BOT_ROLE_ID,
    CHANNEL_ID,
    TOKEN,
    FakeDiscord,
    Perm,
    discord_error,
    rate_limited,
    server_error,
)

MESSAGES = "POST /channels/{channel_id}/messages"
HISTORY = "GET /channels/{channel_id}/messages"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    with FakeDiscord() as running, running.patched():
        yield running


def settings_for(fake: FakeDiscord, token: str = TOKEN) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_bot_token=token,
        prdigest_discord_api_url=fake.api_url,
        prdigest_discord_gateway_url=fake.gateway_url,
    )


def discord_sub(db_path: Path, **changes: object) -> Subscription:
    values: dict[str, object] = {"platform": "discord", "channel": CHANNEL_ID}
    values.update(changes)
    return subscribe(db_path, **values)


def harness(
    db_path: Path, profile: Profile, fake: FakeDiscord, owner: str = "test", token: str = TOKEN
) -> SlackHarness:
    """One prdigest process with the Discord poster on the fake Discord."""

    def posters(platform: str) -> StepPoster:
        assert platform == "discord"
        return DiscordSteps(settings_for(fake, token), timeout=SETTLE / 2)

    return SlackHarness(db_path, profile, None, owner, posters=posters)


def leads(fake: FakeDiscord, channel: str = CHANNEL_ID) -> list[dict[str, Any]]:
    """The digests' lead messages in the channel: those whose first embed's URL carries a
    delivery's ``lead`` step (a single-layout digest too long for one message continues in
    messages keyed by their own steps after it)."""
    return [m for m in fake.messages(channel) if (key_of(m) or "").endswith("/lead")]


def claimed_by_a_dead_process(db_path: Path) -> Subscription:
    sub = discord_sub(db_path)
    assert sub.id is not None
    dead = DeliveryStore(connect(db_path))
    assert dead.claim(sub.id, date(2026, 5, 4), date(2026, 5, 11), DUE, owner="dead", now=DUE) is not None
    return sub


def test_a_due_digest_is_posted_once_with_its_key_out_of_sight_and_the_chart_attached(
    demo_db: Path, profile: Profile, fake: FakeDiscord
) -> None:
    sub = discord_sub(demo_db)
    assert sub.id is not None
    h = harness(demo_db, profile, fake)
    assert h.run(DUE - timedelta(minutes=1)) == []
    [outcome] = h.run(DUE + timedelta(minutes=5))
    assert outcome.state == "posted", outcome
    key = delivery_key(sub.id, date(2026, 5, 4))
    [lead] = leads(fake)
    assert key_of(lead) == f"{key}/lead"
    assert lead["embeds"][0]["url"] == f"https://github.com/{REPO}#prdigest/{key}/lead"
    shown = [
        str(e.get(part)) for e in lead["embeds"] for part in ("title", "description", "footer", "fields")
    ]
    assert not any(key in text for text in shown)  # the key is nowhere a reader sees it
    assert "2026-W19" in (lead["embeds"][0].get("title") or "")
    # the chart: one multipart file chart.png with the lead, a valid PNG, shown by the lead's embed
    first = fake.calls_to(MESSAGES)[0]
    [upload] = first.files
    assert upload.filename == "chart.png" and upload.data.startswith(PNG_MAGIC)
    with PILImage.open(io.BytesIO(upload.data)) as png:
        png.verify()
    [attachment] = lead["attachments"]
    assert attachment["filename"] == "chart.png" and attachment["size"] == len(upload.data)
    assert attachment.get("description", "").startswith("Chart: vllm-project/vllm")
    assert first.json["embeds"][-1]["image"] == {"url": "attachment://chart.png"}
    assert lead["embeds"][-1]["image"]["url"] == attachment["url"]  # Discord resolved the reference
    # the rest went into a thread started from the lead, without files
    assert len(fake.calls_to(MESSAGES)) == len(outcome.ids) > 1
    assert all(not c.files for c in fake.calls_to(MESSAGES)[1:])
    row = h.ledger.find(sub.id, date(2026, 5, 4))
    assert row is not None and row.state == "posted" and row.message_ids == outcome.ids
    for later in (DUE + timedelta(minutes=5), DUE + timedelta(hours=1), DUE + timedelta(days=1)):
        assert h.run(later) == []
    assert len(leads(fake)) == 1


def test_without_attach_files_the_digest_goes_without_its_chart(
    demo_db: Path, profile: Profile, fake: FakeDiscord
) -> None:
    discord_sub(demo_db, layout="single")
    fake.set_overwrite(CHANNEL_ID, BOT_ROLE_ID, deny=Perm.ATTACH_FILES)
    [outcome] = harness(demo_db, profile, fake).run(DUE)
    assert outcome.state == "posted"
    first = fake.calls_to(MESSAGES)[0]
    assert first.files == [] and all("image" not in e for e in first.json["embeds"])
    assert len(leads(fake)) == 1


def test_restart_after_claim_before_post_posts_once(
    demo_db: Path, profile: Profile, fake: FakeDiscord
) -> None:
    sub = claimed_by_a_dead_process(demo_db)
    assert sub.id is not None
    h = harness(demo_db, profile, fake)
    [waiting] = h.run(DUE + timedelta(minutes=5))  # the lease still runs
    assert waiting.state == "held" and waiting.reason.startswith("leased to dead until")
    assert fake.calls_to(MESSAGES) == []
    [outcome] = h.run(DUE + timedelta(minutes=16))
    assert outcome.state == "posted"
    assert len(fake.calls_to(HISTORY)) == 1  # looked for an earlier post first
    assert len(leads(fake)) == 1
    row = h.ledger.find(sub.id, date(2026, 5, 4))
    assert row is not None and row.attempts == 2


def test_crash_after_post_before_record_is_found_and_not_posted_again(
    demo_db: Path, profile: Profile, fake: FakeDiscord
) -> None:
    sub = discord_sub(demo_db, layout="single")
    assert sub.id is not None
    first = harness(demo_db, profile, fake, owner="first")
    claim = first.ledger.claim(sub.id, date(2026, 5, 4), date(2026, 5, 11), DUE, owner="first", now=DUE)
    assert claim is not None
    reply = first.deliverer.build(sub, next_due(sub, CREATED), DUE)
    assert reply is not None
    key = claim.delivery.key

    async def post_and_die() -> tuple[list[Any], str]:
        poster = DiscordSteps(settings_for(fake))
        try:
            steps = poster.steps(reply, key=key, repo=REPO)
            return steps, (await poster.send_step(CHANNEL_ID, steps[0], lead=None, delivery=key)).id
        finally:
            await poster.close()

    steps, lead = asyncio.run(post_and_die())
    assert StepStore(first.db).store(claim, [(s.key, s.body, s.fallback) for s in steps])
    assert StepStore(first.db).sending(claim, "lead", now=DUE)
    # people talk in the channel afterwards: the post is no longer the newest message
    for i in range(3):
        fake.add_message(CHANNEL_ID, {"content": f"chatter {i}"})
    [outcome] = harness(demo_db, profile, fake, owner="second").run(DUE + timedelta(minutes=20))
    assert outcome.state == "posted" and "found 1 message already posted" in outcome.reason
    assert outcome.ids[0] == lead and len(outcome.ids) == len(steps)
    assert len(leads(fake)) == 1
    [history] = fake.calls_to(HISTORY)
    assert history.params["channel_id"] == CHANNEL_ID and history.query["limit"] == "100"


def test_the_earlier_post_is_found_beyond_the_first_page_of_history(
    demo_db: Path, profile: Profile, fake: FakeDiscord
) -> None:
    sub = discord_sub(demo_db, layout="single")
    assert sub.id is not None
    key = delivery_key(sub.id, date(2026, 5, 4))
    marked = {"description": "x", "url": step_url(REPO, key, "lead")}
    found = fake.add_message(CHANNEL_ID, {"embeds": [marked]}, author=BOT_ID)
    for i in range(150):
        fake.add_message(CHANNEL_ID, {"content": f"chatter {i}"})
    DeliveryStore(connect(demo_db)).claim(
        sub.id, date(2026, 5, 4), date(2026, 5, 11), DUE, owner="dead", now=DUE
    )
    [outcome] = harness(demo_db, profile, fake).run(DUE + timedelta(minutes=20))
    assert (outcome.state, outcome.ids[0]) == ("posted", found["id"])
    assert len(fake.calls_to(HISTORY)) == 2 and leads(fake) == [fake.message(found["id"])]
    assert len(fake.calls_to(MESSAGES)) == len(outcome.ids) - 1  # only the rest of the digest


@pytest.mark.parametrize(
    "unreadable",
    ["no Read Message History", "Missing Access on the history"],
)
def test_when_the_earlier_post_cannot_be_checked_the_delivery_is_unknown(
    demo_db: Path, profile: Profile, fake: FakeDiscord, unreadable: str
) -> None:
    sub = claimed_by_a_dead_process(demo_db)
    assert sub.id is not None
    if unreadable.startswith("no Read"):  # Discord would answer an empty list: that proves nothing
        fake.set_overwrite(CHANNEL_ID, BOT_ROLE_ID, deny=Perm.READ_MESSAGE_HISTORY)
    else:
        fake.script(HISTORY, discord_error(50001))
    h = harness(demo_db, profile, fake)
    [outcome] = h.run(DUE + timedelta(minutes=20))
    assert outcome.state == "unknown", outcome
    assert "could not check whether the lead posted" in outcome.reason
    assert fake.calls_to(MESSAGES) == []
    assert h.run(DUE + timedelta(hours=2)) == []  # unknown stays unknown until a person decides
    # `deliveries --retry` once the history is readable again: checked, not found, posted once
    fake.set_overwrite(CHANNEL_ID, BOT_ROLE_ID)
    row = h.ledger.find(sub.id, date(2026, 5, 4))
    assert row is not None
    h.ledger.retry(row.id, now=DUE + timedelta(hours=3))
    [again] = h.run(DUE + timedelta(hours=3))
    assert again.state == "posted" and len(leads(fake)) == 1


@pytest.mark.parametrize("code", [10003, 50001, 50013])
def test_permanent_discord_errors_fail_at_once_with_the_reason(
    demo_db: Path, profile: Profile, fake: FakeDiscord, code: int
) -> None:
    sub = discord_sub(demo_db, layout="single")
    assert sub.id is not None
    fake.script(MESSAGES, discord_error(code))
    h = harness(demo_db, profile, fake)
    [outcome] = h.run(DUE)
    assert outcome.state == "failed" and CHANNEL_ID in outcome.reason, outcome
    assert "Traceback" not in outcome.reason and "\n" not in outcome.reason
    assert h.sleeps == [] and len(fake.calls_to(MESSAGES)) == 1
    assert h.run(DUE + timedelta(hours=1)) == []
    row = h.ledger.find(sub.id, date(2026, 5, 4))
    assert row is not None and (row.state, row.reason) == ("failed", outcome.reason)


def test_a_429_is_waited_out_for_its_retry_after_and_posted_once(
    demo_db: Path, profile: Profile, fake: FakeDiscord
) -> None:
    discord_sub(demo_db, layout="single")
    fake.script(MESSAGES, rate_limited(0.2))
    h = harness(demo_db, profile, fake)
    [outcome] = h.run(DUE)
    assert outcome.state == "posted"
    first, second = fake.calls_to(MESSAGES)[:2]
    assert (first.status, second.status) == (429, 200)
    assert second.at - first.at >= 0.2  # discord.py slept the retry_after Discord sent
    assert len(leads(fake)) == 1


def test_server_errors_are_retried_with_back_off(demo_db: Path, profile: Profile, fake: FakeDiscord) -> None:
    discord_sub(demo_db, layout="single")
    fake.script(MESSAGES, server_error(503), server_error(503))
    h = harness(demo_db, profile, fake)
    [outcome] = h.run(DUE)
    assert outcome.state == "posted"
    # a 503 may come after the message was stored: each is given SETTLE s, looked for, resent
    assert h.sleeps == [pytest.approx(SETTLE, abs=0.5)] * 2 and len(fake.calls_to(HISTORY)) == 2
    assert [c.status for c in fake.calls_to(MESSAGES)][:3] == [503, 503, 200]
    assert len(leads(fake)) == 1


def test_a_lead_stored_despite_a_5xx_is_found_and_not_posted_again(
    demo_db: Path, profile: Profile, fake: FakeDiscord
) -> None:
    discord_sub(demo_db, layout="single")
    fake.script(MESSAGES, server_error(503, apply_first=True))  # Discord stored it, then said 503
    h = harness(demo_db, profile, fake)
    [outcome] = h.run(DUE)
    assert outcome.state == "posted" and "not posted again" in outcome.reason
    assert len(leads(fake)) == 1
    assert h.sleeps == [pytest.approx(SETTLE, abs=0.5)]


def test_a_rejected_token_holds_discord_deliveries_with_one_log_line(
    demo_db: Path, profile: Profile, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    discord_sub(demo_db)
    discord_sub(demo_db, channel="1300000000000000299")
    with caplog.at_level(logging.ERROR, logger="bot.delivery.deliverer"):
        outcomes = harness(demo_db, profile, fake, token="revoked-token").run(DUE)
    assert [o.state for o in outcomes] == ["failed", "held"]
    assert "DISCORD_BOT_TOKEN" in outcomes[0].reason
    assert fake.calls_to(MESSAGES) == []
    assert [c.auth for c in fake.calls] == ["rejected"]  # one login attempt, nothing more
    assert len([r for r in caplog.records if "held for this run" in r.message]) == 1


def test_two_processes_on_one_database_post_each_digest_once(demo_db: Path, fake: FakeDiscord) -> None:
    channels = [fake.add_channel(f"team-{i}").id for i in range(4)]
    for channel in channels:
        discord_sub(demo_db, channel=channel, layout="single")
    settings = {
        "discord_bot_token": TOKEN,
        "prdigest_discord_api_url": fake.api_url,
        "prdigest_discord_gateway_url": fake.gateway_url,
    }
    states = race_two_processes(demo_db, settings, channels)
    assert states.count("posted") == len(channels)
    assert all(len(leads(fake, c)) == 1 for c in channels)


# -- `prdigest subscribe discord:ID` and `prdigest deliver`, the real executable -------------------


def test_subscribe_checks_the_channel_and_deliver_posts_once(demo_db: Path, fake: FakeDiscord) -> None:
    from tests.bot.cli.test_cli import assert_one_line_usage, cli

    env = {
        "PRDIGEST_TIMEZONE": "Europe/Berlin",
        "DISCORD_BOT_TOKEN": TOKEN,
        "PRDIGEST_DISCORD_API_URL": fake.api_url,
        "PRDIGEST_DISCORD_GATEWAY_URL": fake.gateway_url,
    }
    db = str(demo_db)
    before, due = "2026-05-10T12:00:00Z", "2026-05-11T07:05:00Z"
    fake.set_overwrite(CHANNEL_ID, BOT_ROLE_ID, deny=Perm.CREATE_PUBLIC_THREADS)
    refused = cli("subscribe", f"discord:{CHANNEL_ID}", "--now", before, "--db", db, env=env)
    assert_one_line_usage(refused, f"cannot use discord:{CHANNEL_ID}", "Create Public Threads", "#releases")
    made = cli(
        "subscribe", f"discord:{CHANNEL_ID}", "--layout", "single", "--now", before, "--db", db, env=env
    )
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith(f"subscribed: #1 discord:{CHANNEL_ID} vllm-project/vllm")
    real = cli("deliver", "--now", due, "--db", db, env=env)
    assert real.returncode == 0, real.stderr
    assert real.stdout.startswith(
        f"posted   discord:{CHANNEL_ID} #1 2026-05-04 — vllm-project/vllm weekly digest"
    )
    again = cli("deliver", "--now", due, "--db", db, env=env)
    assert again.stdout.strip() == f"nothing due at {due}"
    [lead] = leads(fake)
    assert key_of(lead) == f"{delivery_key(1, date(2026, 5, 4))}/lead"
    assert [a["filename"] for a in lead["attachments"]] == ["chart.png"]


def test_a_process_down_at_nine_catches_up_within_the_window_once(
    demo_db: Path, profile: Profile, fake: FakeDiscord
) -> None:
    """Restart before the claim: nothing ran at 09:00; the first run after posts it, once."""
    discord_sub(demo_db, layout="single")
    h = harness(demo_db, profile, fake)
    [outcome] = h.run(DUE + timedelta(hours=23, minutes=59))
    assert outcome.state == "posted"
    assert h.run(DUE + timedelta(hours=24, minutes=30)) == []
    assert len(leads(fake)) == 1
