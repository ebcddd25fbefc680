"""/subscribe and friends through the real Discord front end (``prdigest serve``'s host, the
real discord.py gateway session with the fake Discord), and scheduled delivery in a Discord-only
``serve``: the channel is where the command was typed; admins are PRDIGEST_ADMINS or members with
Manage Server / Administrator in the interaction's ``member.permissions`` — the registered
``default_permissions`` is never the check; a channel the bot cannot post to is refused with
nothing stored; subscription changes are rate-limited per user."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.chat.discord.steps import key_of
from bot.cli.discord import sync_commands
from bot.delivery.clock import DeliveryScheduler
from bot.host.serve import components_for
from classify.schedule import WEEKDAYS
from storage.db import connect
from storage.deliveries import DeliveryStore, delivery_key
from storage.subscriptions import SubscriptionStore
from tests.bot.chat.discord.test_discord_app import discord_settings
from tests.bot.chat.discord.test_discord_delivery import discord_sub
from tests.bot.delivery.test_clock import Clock
from tests.bot.delivery.test_deliverer import DUE
from tests.fakes.discord import (
    BOT_ROLE_ID,
    CHANNEL_ID,
    EPHEMERAL,
    GUILD_ID,
    USER_ID,
    FakeDiscord,
    Perm,
)
from tests.fakes.host import RunningHost

REPO = "vllm-project/vllm"
EVERYONE = int(Perm.VIEW_CHANNEL | Perm.SEND_MESSAGES | Perm.EMBED_LINKS | Perm.READ_MESSAGE_HISTORY)


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    with FakeDiscord(heartbeat_interval_ms=200) as running, running.patched():
        yield running


@pytest.fixture
def db(demo_db: Path, tmp_path: Path) -> Path:
    path = tmp_path / "subs.db"
    shutil.copy(demo_db, path)
    return path


@contextlib.contextmanager
def host(fake: FakeDiscord, db: Path, **extra: object) -> Iterator[RunningHost]:
    """``prdigest serve`` with Discord only (the scheduler beside it), its commands registered
    and its gateway session up."""
    settings = discord_settings(fake, prdigest_repo=REPO, **extra)
    asyncio.run(sync_commands(settings, guild=int(GUILD_ID)))
    with RunningHost(settings, db) as running:
        fake.wait(lambda: fake.frames_where(t="GUILD_CREATE"), what="the bot's gateway session")
        yield running


def command(fake: FakeDiscord, name: str, options: dict[str, Any] | None = None, **kw: Any) -> str:
    """Run one slash command; the text of its (private) answer."""
    ix = fake.interact(fake.slash_command(name, options or {}, **kw))
    calls = fake.wait(lambda: ix.calls() if len(ix.calls()) >= 2 else None, what=f"/{name} answered")
    answer = calls[1].json
    assert calls[0].json == {"type": 5, "data": {"flags": EPHEMERAL}} and answer["flags"] == EPHEMERAL
    parts = [answer.get("content") or ""]
    for e in answer.get("embeds") or []:
        parts += [e.get("title") or "", e.get("description") or ""]
    return "\n".join(parts).replace("\\", "")  # as read: without the markdown escapes


def stored(db: Path) -> list[tuple[str, str]]:
    return [(s.platform, s.channel) for s in SubscriptionStore(connect(db)).all()]


def test_the_registered_commands_carry_the_subscription_options(fake: FakeDiscord, db: Path) -> None:
    with host(fake, db):
        commands = {c["name"]: c for c in fake.commands(GUILD_ID)}
    options = {o["name"] for o in commands["subscribe"]["options"]}
    assert {"at", "tz", "every", "modules", "match", "flags", "lang", "layout", "quiet", "repo"} <= options
    assert commands["unsubscribe"]["options"][0]["name"] == "id"
    assert (
        commands["unsubscribe"]["options"][0]["type"] == 4
        and commands["unsubscribe"]["options"][0]["required"]
    )


def test_manage_server_and_administrator_subscribe_members_are_refused(fake: FakeDiscord, db: Path) -> None:
    moderators = fake.add_role(GUILD_ID, "moderators", EVERYONE | Perm.MANAGE_GUILD)
    admins = fake.add_role(GUILD_ID, "admins", EVERYONE | Perm.ADMINISTRATOR)
    from tests.fakes.discord import User

    fake.add_member(GUILD_ID, User("1300000000000000401", "mod"), [moderators.id])
    fake.add_member(GUILD_ID, User("1300000000000000402", "boss"), [admins.id])
    other = fake.add_channel("team-two").id
    with host(fake, db):
        refused = command(fake, "subscribe", {"tz": "Asia/Tokyo"}, user_id=USER_ID)
        assert "server admins only" in refused and stored(db) == []
        made = command(
            fake, "subscribe", {"at": "fri 16:00", "tz": "Asia/Tokyo"}, user_id="1300000000000000401"
        )
        assert "Subscribed (#1)" in made
        assert "Subscribed (#2)" in command(
            fake, "subscribe", {}, user_id="1300000000000000402", channel_id=other
        )
        # a member refused an admin command leaves nothing; listing is for everyone, per channel
        listed = command(fake, "subscriptions", {}, user_id=USER_ID)
        assert f"discord:{CHANNEL_ID}" in listed and other not in listed
        assert "server admins only" in command(fake, "unsubscribe", {"id": 1}, user_id=USER_ID)
    assert stored(db) == [("discord", CHANNEL_ID), ("discord", other)]
    first = SubscriptionStore(connect(db)).get(1)
    assert first is not None
    assert (first.weekday, first.at, first.timezone, first.created_by) == (
        4,
        "16:00",
        "Asia/Tokyo",
        "1300000000000000401",
    )


def test_prdigest_admins_count_and_a_member_permission_bit_is_the_check(fake: FakeDiscord, db: Path) -> None:
    from tests.fakes.discord import User

    fake.add_member(GUILD_ID, User("1300000000000000403", "bob"))
    with host(fake, db, prdigest_admins=USER_ID):
        # registered with Manage Server as default_member_permissions: a hint that hides the
        # command from members in Discord's menu, which a server's settings can change
        subscribe = next(c for c in fake.commands(GUILD_ID) if c["name"] == "subscribe")
        assert subscribe["default_member_permissions"] == str(int(Perm.MANAGE_GUILD))
        assert "Subscribed (#1)" in command(fake, "subscribe", {"lang": "zh"}, user_id=USER_ID)
        # ... so the check is at run time: a member without the bits is refused, whatever the
        # registration says (the interaction carries the member's real permissions)
        refused = command(fake, "unsubscribe", {"id": 1}, user_id="1300000000000000403")
        assert "server admins only" in refused
        assert "Unsubscribed" in command(fake, "unsubscribe", {"id": 1}, user_id=USER_ID)
    assert stored(db) == []


def test_a_channel_the_bot_cannot_post_to_is_refused_and_nothing_is_stored(
    fake: FakeDiscord, db: Path
) -> None:
    fake.set_overwrite(CHANNEL_ID, BOT_ROLE_ID, deny=Perm.EMBED_LINKS)
    with host(fake, db, prdigest_admins=USER_ID):
        refused = command(fake, "subscribe", {}, user_id=USER_ID)
        assert "cannot use this channel" in refused and "Embed Links" in refused
        fake.set_overwrite(CHANNEL_ID, BOT_ROLE_ID, deny=Perm.CREATE_PUBLIC_THREADS)
        refused = command(fake, "subscribe", {}, user_id=USER_ID)
        assert "Create Public Threads" in refused
        # the single layout needs no thread
        assert "Subscribed (#1)" in command(fake, "subscribe", {"layout": "single"}, user_id=USER_ID)
    assert stored(db) == [("discord", CHANNEL_ID)]


def test_bad_values_are_a_usage_line_and_nothing_is_stored(fake: FakeDiscord, db: Path) -> None:
    with host(fake, db, prdigest_admins=USER_ID):
        assert "Mars/Olympus" in command(fake, "subscribe", {"tz": "Mars/Olympus"}, user_id=USER_ID)
        assert "25:00" in command(fake, "subscribe", {"at": "mon 25:00"}, user_id=USER_ID)
    assert stored(db) == []


def test_subscription_changes_are_rate_limited_per_user_politely(fake: FakeDiscord, db: Path) -> None:
    with host(fake, db, prdigest_admins=f"{USER_ID},1300000000000000301"):
        answers = [command(fake, "subscribe", {"layout": "single"}, user_id=USER_ID) for _ in range(6)]
        assert all("Subscribed" in a for a in answers[:5])
        assert "Too many subscription changes at once: try again in" in answers[5]
        # another person is not slowed down by the first one's burst; reading is never limited
        assert "Subscribed" in command(fake, "subscribe", {}, user_id="1300000000000000301")
        listed = command(fake, "subscriptions", {}, user_id=USER_ID)
    assert len(stored(db)) == 6 and "#6" in listed


def test_mistyped_subscriptions_do_not_count_toward_the_rate_limit(fake: FakeDiscord, db: Path) -> None:
    with host(fake, db, prdigest_admins=USER_ID):
        for _ in range(8):  # more than the burst of five: each stores nothing, so costs nothing
            assert "Mars/Olympus" in command(fake, "subscribe", {"tz": "Mars/Olympus"}, user_id=USER_ID)
        answers = [command(fake, "subscribe", {"layout": "single"}, user_id=USER_ID) for _ in range(5)]
        assert all("Subscribed" in a for a in answers), answers
    assert len(stored(db)) == 5


def test_a_discord_only_serve_runs_the_scheduler_and_delivers(fake: FakeDiscord, db: Path) -> None:
    sub = discord_sub(db)
    assert sub.id is not None
    settings = discord_settings(fake, prdigest_repo=REPO)
    assert [type(c).__name__ for c in components_for(settings)] == [
        "DiscordComponent",
        "DeliveryScheduler",
        "StorylineFill",
    ]
    running = RunningHost(settings, db)
    [scheduler] = [c for c in running.host.components if isinstance(c, DeliveryScheduler)]
    scheduler.clock = Clock(DUE + timedelta(hours=2))  # the process started after Monday 09:00
    with running:
        deadline = time.monotonic() + 60
        while scheduler.runs < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        outcomes = list(scheduler.last_outcomes)
    assert [o.state for o in outcomes] == ["posted"], outcomes
    [lead] = fake.messages(CHANNEL_ID)
    assert key_of(lead) == f"{delivery_key(sub.id, date(2026, 5, 4))}/lead"
    assert lead["attachments"][0]["filename"] == "chart.png"
    row = DeliveryStore(connect(db)).find(sub.id, date(2026, 5, 4))
    assert row is not None and row.state == "posted"


def test_a_subscription_made_in_chat_for_two_minutes_from_now_posts_on_time(
    fake: FakeDiscord, db: Path
) -> None:
    """/subscribe typed in Discord re-arms the scheduler of the same ``serve`` at once (through the
    command runner's ``subscriptions_changed``): the digest due two to three minutes later — of a
    clock running 20 times as fast — is claimed at its due time, although the scheduler's
    recheck is six hours away and its watch for other processes is off."""
    settings = discord_settings(fake, prdigest_repo=REPO, prdigest_admins=USER_ID)
    asyncio.run(sync_commands(settings, guild=int(GUILD_ID)))
    running = RunningHost(settings, db)
    [scheduler] = [c for c in running.host.components if isinstance(c, DeliveryScheduler)]
    clock = Clock(datetime.now(UTC), rate=20)  # chat stamps subscriptions with the real time
    scheduler.clock, scheduler.recheck, scheduler.watch = clock, timedelta(hours=6), None
    with running:
        fake.wait(lambda: fake.frames_where(t="GUILD_CREATE"), what="the bot's gateway session")
        deadline = time.monotonic() + 30
        while scheduler.runs < 1:  # the catch-up run at start
            assert time.monotonic() < deadline, "no run at start"
            time.sleep(0.02)
        due = (clock() + timedelta(minutes=3)).replace(second=0, microsecond=0)
        at = f"{WEEKDAYS[due.weekday()]} {due:%H:%M}"
        answer = command(fake, "subscribe", {"at": at, "tz": "UTC", "layout": "single"}, user_id=USER_ID)
        assert "Subscribed (#1)" in answer and clock() < due
        fake.wait(lambda: fake.messages(CHANNEL_ID) or None, what="the digest", timeout=30)
        rearms = scheduler.rearms
    [row] = DeliveryStore(connect(db)).for_subscription(1)
    assert row.due_at == due and row.state == "posted"
    assert due <= row.created_at <= due + timedelta(seconds=60), row.created_at  # claimed on time
    assert rearms == 1 and len(fake.messages(CHANNEL_ID)) == 1


def test_the_refusal_is_in_the_configured_language(fake: FakeDiscord, db: Path) -> None:
    with host(fake, db, prdigest_lang="zh"):
        refused = command(fake, "subscribe", {}, user_id=USER_ID)
    assert "subscribe 仅限服务器管理员（管理服务器权限）使用" in refused and stored(db) == []
