"""The fake Discord (tests/fakes/discord.py) proven with the real discord.py client.

Each test runs discord.py 2.7 against the fake on loopback — REST through ``Route.BASE``, the gateway
through ``DiscordWebSocket.DEFAULT_GATEWAY`` — and asserts what reached the fake, byte for byte where
it matters. These tests pin the protocol facts the Discord front end is built on (see the fake's
docstring); they are not tests of prdigest's bot.
"""

from __future__ import annotations

import asyncio
import io
import zlib
from collections.abc import Iterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from tests.fakes.discord import (
    APP_ID,
    BOT_ID,
    BOT_PERMISSIONS,
    BOT_ROLE_ID,
    CHANNEL_ID,
    EPHEMERAL,
    GUILD_ID,
    TOKEN,
    USER_ID,
    FakeDiscord,
    FakeInteraction,
    Perm,
    connected,
    discord_error,
    rate_limited,
    server_error,
    slash_command_payload,
)

GUILD = discord.Object(int(GUILD_ID))
MESSAGES = "POST /channels/{channel_id}/messages"


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    with FakeDiscord() as running, running.patched():
        yield running


def make_client(**options: Any) -> discord.Client:
    options.setdefault("intents", discord.Intents.default())
    # discord.py waits guild_ready_timeout after the last GUILD_CREATE before READY (2 s by default)
    return discord.Client(guild_ready_timeout=0.05, **options)


class Bot:
    """A client with a CommandTree holding two guild commands shaped like prdigest's."""

    def __init__(self, **options: Any) -> None:
        self.client = make_client(**options)
        self.tree = app_commands.CommandTree(self.client)
        self.seen: list[dict[str, Any]] = []

        @self.tree.command(name="pr", description="Show one merged PR", guild=GUILD)
        @app_commands.describe(number="PR number", public="Post for everyone")
        async def pr(interaction: discord.Interaction, number: int, public: bool = False) -> None:
            self.seen.append(
                {"number": number, "public": public, "app_permissions": interaction.app_permissions}
            )
            await interaction.response.defer(ephemeral=not public)
            embed = discord.Embed(title=f"#{number} Fix the scheduler", description="core-path change")
            await interaction.followup.send(f"PR #{number}", embed=embed, ephemeral=not public)

        @self.tree.command(name="digest", description="The weekly digest", guild=GUILD)
        async def digest(interaction: discord.Interaction, period: str) -> None:
            await interaction.response.send_message(f"digest {period}", ephemeral=True)

        @digest.autocomplete("period")
        async def period_choices(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            options = ["week", "last-week", "2026-W19", "2026-W18"]
            return [app_commands.Choice(name=o, value=o) for o in options if o.startswith(current)]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# -- connecting -----------------------------------------------------------------------------------


@pytest.mark.parametrize("compress", [True, False], ids=["zlib-stream", "text-frames"])
def test_client_logs_in_over_rest_and_identifies_on_the_gateway(compress: bool) -> None:
    with FakeDiscord(compress=compress, heartbeat_interval_ms=50) as fake, fake.patched():

        async def scenario() -> None:
            client = make_client()
            async with connected(client):
                assert client.user is not None and client.user.id == int(BOT_ID)
                assert client.application_id == int(APP_ID)
                guild = client.get_guild(int(GUILD_ID))
                assert guild is not None and [c.name for c in guild.text_channels] == ["releases"]
                assert guild.me is not None and [r.id for r in guild.me.roles[1:]] == [int(BOT_ROLE_ID)]
                # the keep-alive thread beats every 50 ms and every beat is acknowledged
                await fake.until(lambda: len(fake.frames_where(op=11)) >= 3, what="three heartbeat ACKs")
                assert client.latency < 1.0

        run(scenario())
        # a plain Client never asks GET /gateway/bot: it goes straight to DEFAULT_GATEWAY
        assert [c.route for c in fake.calls] == ["GET /users/@me", "GET /oauth2/applications/@me"]
        assert all(c.headers["authorization"] == "Bot <token>" and c.auth == "bot" for c in fake.calls)
        assert (
            fake.calls[0]
            .headers["user-agent"]
            .startswith("DiscordBot (https://github.com/Rapptz/discord.py 2.7")
        )
        conn = fake.connections[0]
        assert (conn.path, conn.query) == (
            "/gateway",
            {"v": "10", "encoding": "json", "compress": "zlib-stream"},
        )
        assert conn.compressed is compress
        frames = [(f.direction, f.op, f.t) for f in fake.frames if f.conn == conn.id]
        assert frames[:3] == [
            ("sent", 10, None),
            ("recv", 1, None),
            ("sent", 11, None),
        ]  # HELLO, beat at once, ACK
        assert [f for f in frames if f[1] not in (1, 11)][:4] == [
            ("sent", 10, None),
            ("recv", 2, None),  # IDENTIFY
            ("sent", 0, "READY"),
            ("sent", 0, "GUILD_CREATE"),
        ]
        identify = fake.frames_where(op=2)[0].d
        assert identify["token"] == "<token>"  # recorded without the token
        assert identify["intents"] == discord.Intents.default().value
        assert identify["properties"]["browser"] == "discord.py"
        ready = fake.frames_where(t="READY")[0]
        assert ready.s == 1 and ready.d["resume_gateway_url"] == fake.resume_gateway_url
        assert ready.d["guilds"] == [{"id": GUILD_ID, "unavailable": True}]
        assert fake.frames_where(t="GUILD_CREATE")[0].s == 2


def test_rejected_token_is_login_failure_and_no_gateway_session(fake: FakeDiscord) -> None:
    async def scenario() -> None:
        with pytest.raises(discord.LoginFailure):
            async with connected(make_client(), "not-the-token"):
                pass

    run(scenario())
    [call] = fake.calls
    assert (call.route, call.status, call.auth) == ("GET /users/@me", 401, "rejected")
    assert call.response == {"message": "401: Unauthorized", "code": 0}
    assert call.headers["authorization"] == "<rejected token>"
    assert fake.connections == []


def test_privileged_intents_the_application_lacks_close_the_gateway_with_4014(fake: FakeDiscord) -> None:
    async def scenario() -> None:
        with pytest.raises(discord.PrivilegedIntentsRequired):
            async with connected(make_client(intents=discord.Intents.all())):
                pass

    run(scenario())
    assert fake.connections[0].close_code == 4014


# -- application commands ------------------------------------------------------------------------------


def test_tree_sync_is_a_bulk_overwrite_and_ids_survive_a_resync(fake: FakeDiscord) -> None:
    bot = Bot()

    async def scenario() -> None:
        async with connected(bot.client):
            first = await bot.tree.sync(guild=GUILD)
            again = await bot.tree.sync(guild=GUILD)
            fetched = await bot.tree.fetch_commands(guild=GUILD)
            assert sorted(c.name for c in first) == ["digest", "pr"]
            assert {c.name: c.id for c in again} == {c.name: c.id for c in first}  # same names keep their ids
            assert {c.name: c.id for c in fetched} == {c.name: c.id for c in first}
            assert await bot.tree.sync() == []  # no global commands registered

    run(scenario())
    puts = fake.calls_to("PUT /applications/{application_id}/guilds/{guild_id}/commands")
    assert [c.path for c in puts] == [f"/applications/{APP_ID}/guilds/{GUILD_ID}/commands"] * 2
    pr = next(c for c in puts[0].json if c["name"] == "pr")
    assert pr["type"] == 1 and pr["description"] == "Show one merged PR"
    assert [(o["name"], o["type"], o["required"]) for o in pr["options"]] == [
        ("number", 4, True),
        ("public", 5, False),
    ]
    digest = next(c for c in puts[0].json if c["name"] == "digest")
    assert digest["options"][0]["autocomplete"] is True
    assert [c["name"] for c in fake.commands(GUILD_ID)] == [c["name"] for c in puts[0].json]
    assert fake.calls_to("PUT /applications/{application_id}/commands")[0].json == []
    assert fake.calls_to("GET /applications/{application_id}/guilds/{guild_id}/commands")[0].status == 200


def test_daily_command_create_limit_answers_429_code_30034() -> None:
    with FakeDiscord(daily_command_creates=1) as fake, fake.patched():
        bot = Bot(max_ratelimit_timeout=30.0)  # discord.py raises instead of sleeping a day

        async def scenario() -> None:
            async with connected(bot.client):
                with pytest.raises(discord.RateLimited):
                    await bot.tree.sync(guild=GUILD)

        run(scenario())
        [put] = fake.calls_to("PUT /applications/{application_id}/guilds/{guild_id}/commands")
        assert put.status == 429 and put.response["code"] == 30034
        assert fake.commands(GUILD_ID) == []


def test_slash_command_is_deferred_then_completed_by_a_followup(fake: FakeDiscord) -> None:
    bot = Bot(allowed_mentions=discord.AllowedMentions.none())

    async def scenario() -> FakeInteraction:
        async with connected(bot.client):
            await bot.tree.sync(guild=GUILD)
            ix = fake.interact(fake.slash_command("pr", {"number": 42}))
            await ix.wait_calls(2)
            return ix

    ix = run(scenario())
    assert bot.seen[0]["number"] == 42 and bot.seen[0]["public"] is False
    callback, followup = ix.calls()
    assert callback.path == f"/interactions/{ix.id}/{ix.token}/callback"
    assert callback.query == {"with_response": "1"} and callback.auth is None
    assert callback.json == {"type": 5, "data": {"flags": 64}}
    assert callback.response["interaction"] == {
        "id": ix.id,
        "type": 2,
        "response_message_id": followup.response["id"],
        "response_message_loading": True,
        "response_message_ephemeral": True,
    }
    assert followup.route == "POST /webhooks/{application_id}/{token}"
    assert followup.path == f"/webhooks/{APP_ID}/{ix.token}" and followup.query == {
        "wait": "1",
        "with_components": "0",
    }
    assert followup.json == {
        "content": "PR #42",
        "embeds": [
            {"flags": 0, "type": "rich", "title": "#42 Fix the scheduler", "description": "core-path change"}
        ],
        "tts": False,
        "flags": 64,
        "allowed_mentions": {"parse": []},
    }
    # the first followup resolved the "thinking" message: it is the original response, still ephemeral
    assert ix.original is not None and ix.original["content"] == "PR #42"
    assert ix.original["flags"] == EPHEMERAL
    assert fake.messages(CHANNEL_ID) == []  # ephemeral: nothing visible in the channel
    assert ix.response_delay is not None and ix.response_delay < 3.0


def test_public_answer_is_decided_at_defer_time(fake: FakeDiscord) -> None:
    bot = Bot()

    async def scenario() -> FakeInteraction:
        async with connected(bot.client):
            await bot.tree.sync(guild=GUILD)
            ix = fake.interact(fake.slash_command("pr", {"number": 7, "public": True}))
            await ix.wait_calls(2)
            return ix

    ix = run(scenario())
    callback, followup = ix.calls()
    assert callback.json == {"type": 5}
    assert "flags" not in followup.json
    [visible] = fake.messages(CHANNEL_ID)
    assert visible["id"] == followup.response["id"] == callback.response["interaction"]["response_message_id"]
    assert visible["interaction_metadata"]["user"]["id"] == USER_ID and visible["webhook_id"] == APP_ID


def test_autocomplete_is_answered_with_choices(fake: FakeDiscord) -> None:
    bot = Bot()

    async def scenario() -> FakeInteraction:
        async with connected(bot.client):
            await bot.tree.sync(guild=GUILD)
            ix = fake.interact(fake.autocomplete("digest", {"period": "2026"}, focused="period"))
            await ix.wait_calls(1)
            return ix

    ix = run(scenario())
    assert ix.payload["type"] == 4 and ix.payload["data"]["options"] == [
        {"name": "period", "type": 3, "value": "2026", "focused": True}
    ]
    [callback] = ix.calls()
    assert callback.json == {
        "type": 8,
        "data": {
            "choices": [{"name": "2026-W19", "value": "2026-W19"}, {"name": "2026-W18", "value": "2026-W18"}]
        },
    }
    assert callback.status == 200 and callback.response["resource"] == {"type": 8}


def test_payload_builder_interaction_reaches_the_command_without_registration(fake: FakeDiscord) -> None:
    bot = Bot()

    async def scenario() -> list[Any]:
        async with connected(bot.client):
            payload = slash_command_payload("digest", {"period": "last-week"}, command_guild_id=GUILD_ID)
            fake.dispatch("INTERACTION_CREATE", payload)
            return await fake.wait_calls("POST /interactions/{interaction_id}/{token}/callback")

    [callback] = run(scenario())
    assert callback.json == {"type": 4, "data": {"content": "digest last-week", "flags": 64, "tts": False}}


def test_late_first_response_is_unknown_interaction_10062() -> None:
    with FakeDiscord(interaction_deadline=0.0) as fake, fake.patched():
        bot = Bot()
        errors: list[BaseException] = []

        @bot.tree.error
        async def on_error(interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
            errors.append(error.__cause__ or error)

        async def scenario() -> None:
            async with connected(bot.client):
                await bot.tree.sync(guild=GUILD)
                fake.interact(fake.slash_command("digest", {"period": "week"}))
                await fake.until(lambda: errors, what="the command's error")

        run(scenario())
        assert isinstance(errors[0], discord.NotFound) and errors[0].code == 10062


def test_followup_after_the_token_expired_fails_and_the_bot_token_still_posts(fake: FakeDiscord) -> None:
    bot = Bot()
    outcome: list[Any] = []

    @bot.tree.command(name="late", description="Answers after the token died", guild=GUILD)
    async def late(interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        fake.expire_interaction(interaction.token)
        try:
            await interaction.followup.send("too late")
        except discord.HTTPException as exc:
            outcome.append(exc)
            channel = interaction.client.get_channel(int(CHANNEL_ID))
            assert isinstance(channel, discord.TextChannel)
            outcome.append(await channel.send("posted with the bot token"))

    async def scenario() -> None:
        async with connected(bot.client):
            await bot.tree.sync(guild=GUILD)
            fake.interact(fake.slash_command("late"))
            await fake.until(lambda: len(outcome) == 2, what="the fallback post")

    run(scenario())
    assert outcome[0].status == 401 and outcome[0].code == 50027
    assert [m["content"] for m in fake.messages(CHANNEL_ID)] == ["", "posted with the bot token"]


# -- channel posts ---------------------------------------------------------------------------------------


async def login_only(client: discord.Client) -> None:
    """REST only, no gateway session (what `prdigest discord sync-commands` and posting need)."""
    await client.login(TOKEN)


def test_nonce_makes_a_repeated_post_one_message(fake: FakeDiscord) -> None:
    async def scenario() -> tuple[discord.Message, discord.Message]:
        async with make_client() as client:
            await login_only(client)
            channel = await client.fetch_channel(int(CHANNEL_ID))
            assert isinstance(channel, discord.TextChannel)
            embeds = [discord.Embed(title="Week 2026-W19", description="12 PRs")]
            first = await channel.send("digest", embeds=embeds, nonce="digest-2026-W19")
            second = await channel.send("digest", embeds=embeds, nonce="digest-2026-W19")
            return first, second

    first, second = run(scenario())
    assert first.id == second.id
    posts = fake.calls_to(MESSAGES)
    assert len(posts) == 2 and posts[0].json == posts[1].json
    assert posts[0].json["nonce"] == "digest-2026-W19" and posts[0].json["enforce_nonce"] is True
    [stored] = fake.messages(CHANNEL_ID)
    assert stored["nonce"] == "digest-2026-W19" and stored["embeds"][0]["title"] == "Week 2026-W19"


def test_lost_response_is_retried_by_discordpy_and_the_nonce_prevents_a_duplicate(fake: FakeDiscord) -> None:
    # the message is created but the 502 loses the answer; discord.py retries the same payload after 1 s
    fake.script(MESSAGES, server_error(502, apply_first=True))

    async def scenario() -> discord.Message:
        async with make_client() as client:
            await login_only(client)
            channel = await client.fetch_channel(int(CHANNEL_ID))
            assert isinstance(channel, discord.TextChannel)
            return await channel.send("lead", nonce="digest-2026-W19")

    message = run(scenario())
    assert [c.status for c in fake.calls_to(MESSAGES)] == [502, 200]
    assert [m["id"] for m in fake.messages(CHANNEL_ID)] == [str(message.id)]


def test_rate_limit_429_with_retry_after_is_slept_and_retried(fake: FakeDiscord) -> None:
    fake.script(MESSAGES, rate_limited(0.05))

    async def scenario() -> None:
        async with make_client() as client:
            await login_only(client)
            channel = await client.fetch_channel(int(CHANNEL_ID))
            assert isinstance(channel, discord.TextChannel)
            await channel.send("after the limit")

    run(scenario())
    first, second = fake.calls_to(MESSAGES)
    assert (first.status, first.response["retry_after"], second.status) == (429, 0.05, 200)
    assert second.at - first.at >= 0.045  # slept retry_after (timer resolution aside)
    assert len(fake.messages(CHANNEL_ID)) == 1


def test_429_without_the_via_header_is_not_retried(fake: FakeDiscord) -> None:
    answer = rate_limited(0.05)
    del answer.headers["Via"]  # what a Cloudflare ban looks like to discord.py
    fake.script(MESSAGES, answer)

    async def scenario() -> None:
        async with make_client() as client:
            await login_only(client)
            channel = await client.fetch_channel(int(CHANNEL_ID))
            assert isinstance(channel, discord.TextChannel)
            with pytest.raises(discord.HTTPException) as raised:
                await channel.send("x")
            assert raised.value.status == 429

    run(scenario())
    assert len(fake.calls_to(MESSAGES)) == 1


@pytest.mark.parametrize(
    ("code", "error", "status"),
    [(10003, discord.NotFound, 404), (50001, discord.Forbidden, 403), (50013, discord.Forbidden, 403)],
)
def test_scripted_discord_error_codes_reach_discordpy(
    fake: FakeDiscord, code: int, error: type[discord.HTTPException], status: int
) -> None:
    fake.script(f"POST /channels/{CHANNEL_ID}/messages", discord_error(code))

    async def scenario() -> None:
        async with make_client() as client:
            await login_only(client)
            with pytest.raises(error) as raised:
                await client.get_partial_messageable(int(CHANNEL_ID)).send("x")
            assert (raised.value.code, raised.value.status) == (code, status)

    run(scenario())


def test_bucket_headers_make_discordpy_wait_instead_of_hitting_429() -> None:
    with FakeDiscord(bucket=(2, 0.3)) as fake, fake.patched():

        async def scenario() -> None:
            async with make_client() as client:
                await login_only(client)
                channel = client.get_partial_messageable(int(CHANNEL_ID))
                for i in range(3):
                    await channel.send(f"part {i}")

        run(scenario())
        posts = fake.calls_to(MESSAGES)
        assert [c.status for c in posts] == [200, 200, 200]  # discord.py slept on Remaining: 0
        assert posts[2].at - posts[0].at >= 0.25
        assert len(fake.messages(CHANNEL_ID)) == 3


def test_thread_from_a_fetched_channel_message_accepts_posts(fake: FakeDiscord) -> None:
    async def scenario() -> tuple[discord.Message, discord.Thread]:
        async with make_client() as client:
            await login_only(client)
            channel = await client.fetch_channel(int(CHANNEL_ID))
            assert isinstance(channel, discord.TextChannel)
            lead = await client.get_partial_messageable(int(CHANNEL_ID)).send("Week 2026-W19: 12 PRs")
            with pytest.raises(
                ValueError, match="guild info"
            ):  # discord.py's trap: a partial message has no guild
                await lead.create_thread(name="sections")
            thread = await channel.get_partial_message(lead.id).create_thread(name="2026-W19 sections")
            await thread.send("## Scheduler")
            return lead, thread

    lead, thread = run(scenario())
    assert thread.id == lead.id and thread.parent_id == int(CHANNEL_ID)
    [start] = fake.calls_to("POST /channels/{channel_id}/messages/{message_id}/threads")
    assert start.json == {
        "name": "2026-W19 sections",
        "auto_archive_duration": 1440,
        "rate_limit_per_user": None,
    }
    assert [m["content"] for m in fake.messages(str(thread.id))] == ["## Scheduler"]
    assert [m["content"] for m in fake.messages(CHANNEL_ID)] == ["Week 2026-W19: 12 PRs"]
    assert fake.message(str(lead.id))["thread"]["id"] == str(thread.id)


def test_history_is_newest_first_with_limit(fake: FakeDiscord) -> None:
    async def scenario() -> list[str]:
        async with make_client() as client:
            await login_only(client)
            channel = await client.fetch_channel(int(CHANNEL_ID))
            assert isinstance(channel, discord.TextChannel)
            for i in range(3):
                await channel.send(f"m{i}")
            return [m.content async for m in channel.history(limit=2)]

    assert run(scenario()) == ["m2", "m1"]
    assert fake.calls_to("GET /channels/{channel_id}/messages")[0].query == {"limit": "2"}


def test_attachments_are_multipart_with_payload_json(fake: FakeDiscord) -> None:
    async def scenario() -> discord.Message:
        async with make_client() as client:
            await login_only(client)
            channel = client.get_partial_messageable(int(CHANNEL_ID))
            return await channel.send("full list", file=discord.File(io.BytesIO(b"# 400 PRs\n"), "digest.md"))

    message = run(scenario())
    [post] = fake.calls_to(MESSAGES)
    assert post.headers["content-type"].startswith("multipart/form-data")
    assert (
        post.json["attachments"] == [{"id": 0, "filename": "digest.md"}]
        and post.json["content"] == "full list"
    )
    assert [(f.field, f.filename, f.data) for f in post.files] == [("files[0]", "digest.md", b"# 400 PRs\n")]
    assert message.attachments[0].filename == "digest.md" and message.attachments[0].size == 10


def test_messages_over_discords_limits_are_refused_with_50035(fake: FakeDiscord) -> None:
    async def scenario() -> None:
        async with make_client() as client:
            await login_only(client)
            channel = client.get_partial_messageable(int(CHANNEL_ID))
            with pytest.raises(discord.HTTPException) as raised:
                await channel.send("x" * 2001)
            assert (raised.value.status, raised.value.code) == (400, 50035)
            assert "content: Must be 2000 or fewer in length." in str(raised.value)
            big = [discord.Embed(description="d" * 3000), discord.Embed(description="d" * 3001)]
            with pytest.raises(discord.HTTPException, match="Embed size exceeds maximum size of 6000"):
                await channel.send(embeds=big)
            await channel.send(
                "x" * 2000, embeds=[discord.Embed(description="d" * 3000)] * 2
            )  # exactly at the limits

    run(scenario())
    assert [c.status for c in fake.calls_to(MESSAGES)] == [400, 400, 200]


def test_allowed_mentions_none_on_the_client_is_in_every_payload(fake: FakeDiscord) -> None:
    bot = Bot(allowed_mentions=discord.AllowedMentions.none())
    injected = "@everyone <@&1300000000000000110> <@1300000000000000300> [click](http://evil)"

    @bot.tree.command(name="echo", description="Echo a PR title", guild=GUILD)
    async def echo(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(injected)
        await interaction.followup.send(injected)

    async def scenario() -> None:
        async with connected(bot.client):
            await bot.tree.sync(guild=GUILD)
            ix = fake.interact(fake.slash_command("echo"))
            await ix.wait_calls(2)
            channel = bot.client.get_channel(int(CHANNEL_ID))
            assert isinstance(channel, discord.TextChannel)
            await channel.send(injected)
        async with make_client() as plain:  # no allowed_mentions: everything in the text pings
            await login_only(plain)
            await plain.get_partial_messageable(int(CHANNEL_ID)).send(injected)

    run(scenario())
    [callback] = fake.calls_to("POST /interactions/{interaction_id}/{token}/callback")
    [followup] = fake.calls_to("POST /webhooks/{application_id}/{token}")
    quiet_post, loud_post = fake.calls_to(MESSAGES)
    for payload in (callback.json["data"], followup.json, quiet_post.json):
        assert payload["content"] == injected and payload["allowed_mentions"] == {"parse": []}
    assert "allowed_mentions" not in loud_post.json
    *quiet, loud = fake.messages(CHANNEL_ID)
    assert [(m["mention_everyone"], m["mention_roles"], m["mentions"]) for m in quiet] == [
        (False, [], [])
    ] * 3
    assert (loud["mention_everyone"], loud["mention_roles"]) == (True, [BOT_ROLE_ID])
    assert [u["id"] for u in loud["mentions"]] == [USER_ID]


# -- permissions -----------------------------------------------------------------------------------------


def test_missing_embed_links_is_visible_to_discordpy_and_embeds_are_dropped(fake: FakeDiscord) -> None:
    fake.set_overwrite(CHANNEL_ID, BOT_ROLE_ID, deny=Perm.EMBED_LINKS)
    assert fake.permissions(CHANNEL_ID) & BOT_PERMISSIONS == BOT_PERMISSIONS & ~Perm.EMBED_LINKS
    bot = Bot()

    async def scenario() -> None:
        # REST only: guild roles + channel overwrites + the bot's member, as `--post` would check
        async with make_client() as client:
            await login_only(client)
            guild = await client.fetch_guild(int(GUILD_ID))
            channel = await guild.fetch_channel(int(CHANNEL_ID))
            me = await guild.fetch_member(int(BOT_ID))
            perms = channel.permissions_for(me)
            assert not perms.embed_links
            assert perms.send_messages and perms.view_channel and perms.create_public_threads
            assert isinstance(channel, discord.TextChannel)
            sent = await channel.send("lead", embed=discord.Embed(title="dropped"))
            assert sent.embeds == []  # accepted, silently without the embed
        # over the gateway: the cached guild computes the same, and interactions carry app_permissions
        async with connected(bot.client):
            cached = bot.client.get_guild(int(GUILD_ID))
            assert cached is not None and cached.me is not None
            cached_channel = cached.get_channel(int(CHANNEL_ID))
            assert cached_channel is not None
            assert cached_channel.permissions_for(cached.me).value == fake.permissions(CHANNEL_ID)
            await bot.tree.sync(guild=GUILD)
            await fake.interact(fake.slash_command("pr", {"number": 1})).wait_calls(2)

    run(scenario())
    assert [c.route for c in fake.calls[:5]] == [
        "GET /users/@me",
        "GET /oauth2/applications/@me",
        "GET /guilds/{guild_id}",
        "GET /channels/{channel_id}",
        "GET /guilds/{guild_id}/members/{user_id}",
    ]
    assert fake.calls_to(MESSAGES)[0].json["embeds"][0]["title"] == "dropped"
    assert fake.messages(CHANNEL_ID)[0]["embeds"] == []
    assert not bot.seen[0]["app_permissions"].embed_links and bot.seen[0]["app_permissions"].send_messages


def test_missing_access_and_missing_permissions_answer_50001_and_50013(fake: FakeDiscord) -> None:
    hidden = fake.add_channel("hidden")
    fake.set_overwrite(hidden.id, GUILD_ID, deny=Perm.VIEW_CHANNEL)
    fake.set_overwrite(hidden.id, BOT_ROLE_ID, deny=Perm.VIEW_CHANNEL)
    readonly = fake.add_channel("announcements")
    fake.set_overwrite(readonly.id, BOT_ROLE_ID, deny=Perm.SEND_MESSAGES)
    fake.set_overwrite(readonly.id, GUILD_ID, deny=Perm.SEND_MESSAGES)

    async def scenario() -> None:
        async with make_client() as client:
            await login_only(client)
            with pytest.raises(discord.Forbidden) as no_access:
                await client.fetch_channel(int(hidden.id))
            with pytest.raises(discord.Forbidden) as no_send:
                await client.get_partial_messageable(int(readonly.id)).send("x")
            with pytest.raises(discord.NotFound) as unknown:
                await client.fetch_channel(1)
            assert (no_access.value.code, no_send.value.code, unknown.value.code) == (50001, 50013, 10003)

    run(scenario())


def test_permission_bits_match_discordpy() -> None:
    for perm in Perm:
        name = str(perm.name).lower()
        assert getattr(discord.Permissions, name).flag == perm.value, name


# -- gateway reconnects ------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [4000, None], ids=["close-frame-4000", "tcp-cut"])
def test_dropped_connection_is_resumed_and_missed_events_are_replayed(
    fake: FakeDiscord, code: int | None
) -> None:
    bot = Bot()

    async def scenario() -> tuple[FakeInteraction, int, str]:
        resumed = asyncio.Event()

        @bot.client.event
        async def on_resumed() -> None:
            resumed.set()

        async with connected(bot.client):
            await bot.tree.sync(guild=GUILD)
            seq, session = fake.seq, fake.session_id
            payload = fake.slash_command("pr", {"number": 99})
            fake.drop_gateway(code, missed=[("INTERACTION_CREATE", payload)])
            await asyncio.wait_for(resumed.wait(), 10)
            ix = FakeInteraction(fake, payload["id"], payload["token"], payload)
            await ix.wait_calls(2)
            assert session is not None
            return ix, seq, session

    ix, seq, session = run(scenario())
    first, second = fake.connections[:2]
    assert first.closed and first.close_code == (1006 if code is None else code)
    assert second.path == "/resume"  # READY's resume_gateway_url, not the default gateway
    [resume] = fake.frames_where(op=6)
    assert resume.d == {"seq": seq, "session_id": session, "token": "<token>"}
    replay = [(f.t, f.s) for f in fake.frames if f.conn == second.id and f.op == 0]
    assert replay == [("INTERACTION_CREATE", seq + 1), ("RESUMED", seq + 2)]
    assert (
        fake.frames_where(op=2)[0].conn == first.id and len(fake.frames_where(op=2)) == 1
    )  # no new IDENTIFY
    assert [c.json["type"] for c in ix.calls()[:1]] == [5] and bot.seen[0]["number"] == 99


class NoIdentifyPause(discord.Client):
    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        return None  # discord.py sleeps 5 s before every IDENTIFY but the first


def test_reconnect_request_resumes_and_an_invalid_session_identifies_again(fake: FakeDiscord) -> None:
    async def scenario() -> None:
        client = NoIdentifyPause(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        async with connected(client):
            fake.send_reconnect()
            await fake.until(lambda: fake.frames_where(t="RESUMED"), what="RESUMED")
            fake.invalidate_session(resumable=False)
            await fake.until(lambda: len(fake.frames_where(t="READY")) == 2, what="a second READY")
            await client.wait_until_ready()

    run(scenario())
    # discord.py keeps the resume URL for the fresh IDENTIFY after op 9 (its `gateway` parameter sticks)
    assert [c.path for c in fake.connections] == ["/gateway", "/resume", "/resume"]
    assert [f.op for f in fake.frames if f.direction == "recv" and f.op in (2, 6)] == [2, 6, 2]


# -- the HTTP surface itself -------------------------------------------------------------------------


def test_json_answers_have_exactly_application_json_and_requests_are_recorded(fake: FakeDiscord) -> None:
    async def scenario() -> None:
        async with aiohttp.ClientSession() as session:
            headers = {"Authorization": f"Bot {TOKEN}"}
            async with session.get(f"{fake.api_url}/users/@me", headers=headers) as resp:
                assert resp.headers["Content-Type"] == "application/json"
                assert (await resp.json())["id"] == BOT_ID
            async with session.get(f"{fake.api_url}/no/such/route", headers=headers) as resp:
                assert resp.status == 404 and resp.headers["Content-Type"] == "application/json"
            async with session.delete(f"{fake.api_url}/users/@me", headers=headers) as resp:
                assert resp.status == 405
            async with session.get(f"{fake.api_url}/channels/{CHANNEL_ID}") as resp:
                assert resp.status == 401 and await resp.json() == {"message": "401: Unauthorized", "code": 0}

    run(scenario())
    assert [(c.route, c.status) for c in fake.calls] == [
        ("GET /users/@me", 200),
        ("GET /no/such/route", 404),
        ("DELETE /users/@me", 405),
        ("GET /channels/{channel_id}", 401),
    ]
    assert all(TOKEN not in str(c.headers) for c in fake.calls)


def test_zlib_stream_frames_end_with_the_sync_flush_marker(fake: FakeDiscord) -> None:
    async def scenario() -> bytes:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"{fake.gateway_url}?v=10&encoding=json&compress=zlib-stream") as ws,
        ):
            msg = await ws.receive(timeout=5)
            assert msg.type is aiohttp.WSMsgType.BINARY
            return bytes(msg.data)

    frame = run(scenario())
    assert frame.endswith(b"\x00\x00\xff\xff")
    hello = zlib.decompressobj().decompress(frame)
    assert b'"op":10' in hello and b'"heartbeat_interval":1000' in hello


def test_original_response_and_followups_can_be_read_and_edited(fake: FakeDiscord) -> None:
    bot = Bot()

    @bot.tree.command(name="search", description="Search PRs", guild=GUILD)
    async def search(interaction: discord.Interaction, query: str) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.edit_original_response(content=f"searching {query}…")  # resolves "thinking"
        more = await interaction.followup.send("page 2", wait=True)
        await more.edit(content="page 2 of 2")
        original = await interaction.original_response()
        assert original.content == f"searching {query}…"
        bot.seen.append({"original": original.id, "followup": more.id})

    async def scenario() -> FakeInteraction:
        async with connected(bot.client):
            await bot.tree.sync(guild=GUILD)
            ix = fake.interact(fake.slash_command("search", {"query": "fp8"}))
            await fake.until(lambda: bot.seen, what="the command to finish")
            return ix

    ix = run(scenario())
    assert [c.route for c in ix.calls()] == [
        "POST /interactions/{interaction_id}/{token}/callback",
        "PATCH /webhooks/{application_id}/{token}/messages/@original",
        "POST /webhooks/{application_id}/{token}",
        "PATCH /webhooks/{application_id}/{token}/messages/{message_id}",
        "GET /webhooks/{application_id}/{token}/messages/@original",
    ]
    assert [c.status for c in ix.calls()] == [200] * 5
    assert ix.calls()[1].json == {"content": "searching fp8…", "tts": False}
    messages = {m["id"]: m for m in fake.messages(CHANNEL_ID)}
    assert messages[str(bot.seen[0]["original"])]["content"] == "searching fp8…"
    assert messages[str(bot.seen[0]["followup"])]["content"] == "page 2 of 2"
    assert messages[str(bot.seen[0]["followup"])]["edited_timestamp"] is not None


def test_direct_message_payload_reaches_a_global_command(fake: FakeDiscord) -> None:
    bot = Bot()

    @bot.tree.command(name="help", description="What prdigest can do")
    async def help_(interaction: discord.Interaction) -> None:
        assert interaction.guild_id is None and interaction.user.id == int(USER_ID)
        await interaction.response.send_message("commands: /digest /risks /pr /search", ephemeral=True)

    async def scenario() -> list[Any]:
        async with connected(bot.client):
            fake.dispatch("INTERACTION_CREATE", slash_command_payload("help", guild_id=None))
            return await fake.wait_calls("POST /interactions/{interaction_id}/{token}/callback")

    [callback] = run(scenario())
    assert callback.status == 200 and callback.json["data"]["flags"] == 64


def test_threads_need_send_messages_in_threads(fake: FakeDiscord) -> None:
    fake.set_overwrite(CHANNEL_ID, BOT_ROLE_ID, deny=Perm.SEND_MESSAGES_IN_THREADS)
    fake.set_overwrite(CHANNEL_ID, GUILD_ID, deny=Perm.SEND_MESSAGES_IN_THREADS)

    async def scenario() -> None:
        async with make_client() as client:
            await login_only(client)
            channel = await client.fetch_channel(int(CHANNEL_ID))
            assert isinstance(channel, discord.TextChannel)
            lead = await channel.send("lead")  # Send Messages is still there
            thread = await channel.get_partial_message(lead.id).create_thread(name="sections")
            with pytest.raises(discord.Forbidden) as raised:
                await thread.send("section")
            assert raised.value.code == 50013

    run(scenario())


def test_patched_points_discordpy_at_the_fake_and_restores_it() -> None:
    before = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    with FakeDiscord() as fake:
        with fake.patched():
            assert fake.api_url == discord.http.Route.BASE and fake.api_url.endswith("/api/v10")
            assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == fake.gateway_url
        assert before == (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    assert before[0] == "https://discord.com/api/v10"
