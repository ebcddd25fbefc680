"""The Discord ``Poster`` over REST, against the fake Discord: lead + thread, single layout, the
permission check, nonces, rate limits and Discord's error codes; and ``--post discord:ID``."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.chat.discord.post import DiscordPoster, poster
from bot.chat.discord.render import render
from bot.chat.post import PermanentPostError, PostResult, TransientPostError
from bot.config.settings import Settings
from commands.model import Invocation, Reply
from commands.registry import Context, dispatch
from storage.db import connect
from storage.prs import PRStore
from tests.bot.chat.discord.test_discord_app import discord_settings
from tests.bot.chat.slack.conftest import REPO, WEEK, build_cache, make_prs
from tests.bot.chat.test_render_limits import referenced
from tests.fakes.discord import (
    BOT_ROLE_ID,
    CHANNEL_ID,
    GUILD_ID,
    FakeDiscord,
    Perm,
    discord_error,
    rate_limited,
    server_error,
)

MESSAGES = "POST /channels/{channel_id}/messages"
THREADS = "POST /channels/{channel_id}/messages/{message_id}/threads"


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    with FakeDiscord() as running, running.patched():
        yield running


@pytest.fixture(scope="module")
def big_db(tmp_path_factory: pytest.TempPathFactory, profile: object) -> Path:
    return build_cache(tmp_path_factory.mktemp("post") / "big.db", make_prs(400), profile)  # type: ignore[arg-type]


def reply_for(db: Path, command: str, *words: str) -> Reply:
    conn = connect(db)
    try:
        from classify.rules import load_profile

        ctx = Context(store=PRStore(conn), profile=load_profile())
        return dispatch(Invocation(command=command, args=words, repo=REPO, platform="discord"), ctx)
    finally:
        conn.close()


def post(settings: Settings, reply: Reply, channel: str = CHANNEL_ID, **kw: object) -> PostResult:
    async def go() -> PostResult:
        p = DiscordPoster(settings, **kw)  # type: ignore[arg-type]
        try:
            return await p.post(reply, channel)
        finally:
            await p.close()

    return asyncio.run(go())


def test_a_400_pr_digest_is_a_lead_and_a_thread_within_every_limit(fake: FakeDiscord, big_db: Path) -> None:
    reply = reply_for(big_db, "digest", WEEK)
    result = post(discord_settings(fake), reply)
    expected = render(reply, mode="thread")
    assert len(result.ids) == len(expected) > 1
    # the fake enforces Discord's limits (50035 otherwise): every message was accepted
    posts = fake.calls_to(MESSAGES)
    assert [c.status for c in posts] == [200] * len(expected)
    [lead] = fake.messages(CHANNEL_ID)
    assert lead["id"] == result.lead and lead["embeds"][0]["title"] == f"{REPO} weekly digest · {WEEK}"
    assert lead["thread"]["id"] == result.lead
    [start] = fake.calls_to(THREADS)
    assert start.json["name"] == f"{REPO} weekly digest · {WEEK}"
    in_thread = fake.messages(result.lead)
    assert [m["id"] for m in in_thread] == list(result.replies)
    assert all(c.json["allowed_mentions"] == {"parse": []} for c in posts)
    nonces = [c.json["nonce"] for c in posts]
    assert len(set(nonces)) == len(nonces) and all(len(n) <= 25 for n in nonces)
    assert result.permalink == f"https://discord.com/channels/{GUILD_ID}/{CHANNEL_ID}/{result.lead}"


def test_single_layout_splits_across_messages_and_loses_no_pr(fake: FakeDiscord, big_db: Path) -> None:
    reply = reply_for(big_db, "risks", "all", WEEK)
    result = post(discord_settings(fake), reply, layout="single")
    assert not fake.calls_to(THREADS)  # single layout: no thread
    posted = fake.messages(CHANNEL_ID)
    assert [m["id"] for m in posted] == list(result.ids) and len(posted) > 1
    text = "\n".join(e.get("description", "") for m in posted for e in m["embeds"])
    linked = {int(n) for n in re.findall(r"\[#(\d+)\]\(https://", text)}
    assert linked == referenced(reply.all_blocks())


def test_reposting_the_same_reply_is_deduplicated_by_the_nonce(fake: FakeDiscord, big_db: Path) -> None:
    reply = reply_for(big_db, "pr", "1003")
    settings = discord_settings(fake)
    first = post(settings, reply)
    again = post(settings, reply)
    assert first.ids == again.ids and len(fake.messages(CHANNEL_ID)) == 1


def test_a_lost_answer_is_retried_and_the_nonce_prevents_a_duplicate(fake: FakeDiscord, big_db: Path) -> None:
    fake.script(MESSAGES, server_error(502, apply_first=True))
    result = post(discord_settings(fake), reply_for(big_db, "pr", "1003"))
    assert [c.status for c in fake.calls_to(MESSAGES)] == [502, 200]
    assert [m["id"] for m in fake.messages(CHANNEL_ID)] == [result.lead]


def test_a_429_with_retry_after_is_waited_out(fake: FakeDiscord, big_db: Path) -> None:
    fake.script(MESSAGES, rate_limited(0.05))
    result = post(discord_settings(fake), reply_for(big_db, "pr", "1003"))
    first, second = fake.calls_to(MESSAGES)
    assert (first.status, second.status) == (429, 200) and second.at - first.at >= 0.045
    assert result.ids == (fake.messages(CHANNEL_ID)[0]["id"],)


def test_a_429_longer_than_we_wait_is_transient(fake: FakeDiscord, big_db: Path) -> None:
    fake.script(MESSAGES, rate_limited(3600.0))
    with pytest.raises(TransientPostError, match="rate-limiting posts to 1300000000000000200"):
        post(discord_settings(fake), reply_for(big_db, "pr", "1003"))


def test_a_5xx_is_transient(fake: FakeDiscord, big_db: Path) -> None:
    # 503 is not among the statuses discord.py retries itself (500/502/504/524, ~25 s of backoff)
    fake.script(MESSAGES, server_error(503))
    with pytest.raises(TransientPostError) as raised:
        post(discord_settings(fake), reply_for(big_db, "pr", "1003"))
    assert raised.value.code == "503" and len(fake.calls_to(MESSAGES)) == 1


@pytest.mark.parametrize(
    ("code", "words"),
    [(10003, "not found"), (50001, "cannot see"), (50013, "lacks a permission")],
)
def test_discord_error_codes_are_permanent(fake: FakeDiscord, big_db: Path, code: int, words: str) -> None:
    fake.script(f"POST /channels/{CHANNEL_ID}/messages", discord_error(code))
    with pytest.raises(PermanentPostError, match=words) as raised:
        post(discord_settings(fake), reply_for(big_db, "pr", "1003"))
    assert raised.value.code == str(code)


@pytest.mark.parametrize(
    ("perm", "name"),
    [
        (Perm.EMBED_LINKS, "Embed Links"),
        (Perm.SEND_MESSAGES, "Send Messages"),
        (Perm.CREATE_PUBLIC_THREADS, "Create Public Threads"),
        (Perm.SEND_MESSAGES_IN_THREADS, "Send Messages in Threads"),
        (Perm.READ_MESSAGE_HISTORY, "Read Message History"),
    ],
)
def test_a_missing_permission_is_named_before_anything_is_sent(
    fake: FakeDiscord, big_db: Path, perm: Perm, name: str
) -> None:
    fake.set_overwrite(CHANNEL_ID, BOT_ROLE_ID, deny=perm)
    fake.set_overwrite(CHANNEL_ID, GUILD_ID, deny=perm)
    with pytest.raises(PermanentPostError) as raised:
        post(discord_settings(fake), reply_for(big_db, "digest", WEEK))
    assert (
        str(raised.value)
        == f"the bot needs {name} in #releases: grant it to the bot's role (channel › Edit Channel › Permissions) and try again"
    )
    assert fake.calls_to(MESSAGES) == []


def test_thread_permissions_are_not_needed_for_a_single_message(fake: FakeDiscord, big_db: Path) -> None:
    fake.set_overwrite(CHANNEL_ID, BOT_ROLE_ID, deny=Perm.CREATE_PUBLIC_THREADS)
    fake.set_overwrite(CHANNEL_ID, GUILD_ID, deny=Perm.CREATE_PUBLIC_THREADS)
    result = post(discord_settings(fake), reply_for(big_db, "pr", "1003"))
    assert len(result.ids) == 1


def test_a_channel_that_is_not_an_id_is_refused(fake: FakeDiscord, big_db: Path) -> None:
    with pytest.raises(PermanentPostError, match="is not a Discord channel ID"):
        post(discord_settings(fake), reply_for(big_db, "pr", "1003"), channel="releases")


def test_a_rejected_token_is_permanent(fake: FakeDiscord, big_db: Path) -> None:
    settings = discord_settings(fake, discord_bot_token="wrong")
    with pytest.raises(PermanentPostError, match="Discord rejected DISCORD_BOT_TOKEN"):
        post(settings, reply_for(big_db, "pr", "1003"))


def test_cli_post_discord(fake: FakeDiscord, big_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.cli.main import cli

    settings = discord_settings(fake)
    monkeypatch.setenv("DISCORD_BOT_TOKEN", settings.discord_bot_token.get_secret_value())  # type: ignore[union-attr]
    monkeypatch.setenv("PRDIGEST_DISCORD_API_URL", fake.api_url)
    monkeypatch.setenv("PRDIGEST_REPO", REPO)
    result = CliRunner().invoke(cli, ["pr", "1003", "--db", str(big_db), "--post", f"discord:{CHANNEL_ID}"])
    assert result.exit_code == 0, result.output
    [message] = fake.messages(CHANNEL_ID)
    assert f"discord:{CHANNEL_ID}" in result.output and message["id"] in result.output
    fake.script(MESSAGES, discord_error(50013))
    failed = CliRunner().invoke(cli, ["pr", "1004", "--db", str(big_db), "--post", f"discord:{CHANNEL_ID}"])
    assert failed.exit_code == 1 and "lacks a permission" in failed.output


def test_poster_without_a_token_is_a_config_error() -> None:
    from bot.config.settings import ConfigError

    with pytest.raises(ConfigError, match="DISCORD_BOT_TOKEN is not set"):
        poster(Settings(_env_file=None))  # type: ignore[call-arg]


def test_discord_unreachable_is_transient(big_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import discord.http

    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)  # restored afterwards
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        discord_bot_token="x",
        prdigest_discord_api_url="http://127.0.0.1:1/api/v10",  # nothing listens on port 1
    )
    with pytest.raises(
        TransientPostError, match=re.escape("cannot reach Discord at http://127.0.0.1:1/api/v10")
    ):
        post(settings, reply_for(big_db, "pr", "1003"))
