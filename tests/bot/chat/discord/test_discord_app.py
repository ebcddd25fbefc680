"""The Discord front end as ``prdigest serve`` runs it, against the fake Discord on loopback.

The real host (``bot.host.serve.Host``) runs the Discord component in a background thread; discord.py
logs in over REST and keeps a gateway session with the fake. Tests register the commands with
``prdigest discord sync-commands``'s code, dispatch INTERACTION_CREATE events and assert the exact
callback and followup payloads, their order and the deferral.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.chat.discord.render import violations
from bot.cli.discord import sync_commands
from bot.config.settings import Settings
from classify.models import FileChange, PullRequest
from classify.rules import Profile
from commands.registry import REGISTRY, load_all
from tests.bot.chat.slack.conftest import REPO, WEEK, WEEK_START, build_cache, make_prs
from tests.fakes.discord import (
    BOT_ROLE_ID,
    CHANNEL_ID,
    EPHEMERAL,
    GUILD_ID,
    TOKEN,
    FakeDiscord,
    FakeInteraction,
    Perm,
    discord_error,
    rate_limited,
)
from tests.fakes.host import RunningHost

CALLBACK = "POST /interactions/{interaction_id}/{token}/callback"
FOLLOWUP = "POST /webhooks/{application_id}/{token}"
INJECTION = "@everyone <@&1300000000000000110> [click](http://evil)"
HOSTILE_PR = 777


def hostile() -> PullRequest:
    return PullRequest(
        repo=REPO,
        number=HOSTILE_PR,
        title=INJECTION,
        author="<@1300000000000000300>",
        body="@here [x](http://evil)",
        merged_at=WEEK_START + timedelta(days=1),
        files=[FileChange(path="vllm/core/scheduler.py", additions=3)],
        additions=3,
    )


@pytest.fixture(scope="module")
def cache_db(tmp_path_factory: pytest.TempPathFactory, profile: Profile) -> Path:
    path = tmp_path_factory.mktemp("discord") / "cache.db"
    earlier = [
        pr for w in range(4, 0, -1) for pr in make_prs(10, WEEK_START - timedelta(weeks=w), 2000 + 100 * w)
    ]
    return build_cache(path, [*earlier, *make_prs(40), hostile()], profile)


def discord_settings(fake: FakeDiscord, **extra: object) -> Settings:
    values: dict[str, object] = {
        "discord_bot_token": TOKEN,
        "prdigest_discord_api_url": fake.api_url,
        "prdigest_discord_gateway_url": fake.gateway_url,
        "prdigest_repo": REPO,
    }
    values.update(extra)
    return Settings(_env_file=None, **values)  # type: ignore[arg-type]


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    with FakeDiscord(heartbeat_interval_ms=200) as running, running.patched():
        yield running


@pytest.fixture
def bot(fake: FakeDiscord, cache_db: Path) -> Iterator[RunningHost]:
    settings = discord_settings(fake)
    asyncio.run(sync_commands(settings, guild=int(GUILD_ID)))
    with RunningHost(settings, cache_db) as host:
        fake.wait(lambda: fake.frames_where(t="GUILD_CREATE"), what="the bot's gateway session")
        yield host


def run(fake: FakeDiscord, payload: dict[str, Any], count: int) -> tuple[FakeInteraction, list[Any]]:
    ix = fake.interact(payload)
    calls = fake.wait(lambda: ix.calls() if len(ix.calls()) >= count else None, what=f"{count} calls")
    return ix, calls


def texts(payload: dict[str, Any]) -> str:
    """Every text of a message payload, as Discord would render it (content, embeds)."""
    out = [payload.get("content") or ""]
    for e in payload.get("embeds") or []:
        out += [e.get("title") or "", e.get("description") or ""]
        out += [f"{f['name']}\n{f['value']}" for f in e.get("fields") or []]
    return "\n".join(out)


# -- registration ---------------------------------------------------------------------------------


def test_sync_commands_registers_every_command_from_the_registry(fake: FakeDiscord) -> None:
    settings = discord_settings(fake)
    [synced] = asyncio.run(sync_commands(settings, guild=int(GUILD_ID)))
    assert sorted(synced.names) == sorted(
        ["digest", "help", "pr", "risks", "search", "subscribe", "unsubscribe", "subscriptions", "preview"]
    )
    # REST only: a login, then one bulk overwrite; no gateway session
    assert [c.route for c in fake.calls] == [
        "GET /users/@me",
        "GET /oauth2/applications/@me",
        "PUT /applications/{application_id}/guilds/{guild_id}/commands",
    ]
    assert fake.connections == []
    commands = {c["name"]: c for c in fake.commands(GUILD_ID)}
    risks = {o["name"]: o for o in commands["risks"]["options"]}
    assert [c["value"] for c in risks["kind"]["choices"]][-1] == "all"
    assert risks["period"]["autocomplete"] is True and "choices" not in risks["period"]
    digest = {o["name"]: o for o in commands["digest"]["options"]}
    assert digest["modules"]["autocomplete"] is True and digest["modules"]["type"] == 3
    assert digest["public"]["type"] == 5
    pr = commands["pr"]["options"]
    assert (pr[0]["name"], pr[0]["type"], pr[0]["required"]) == ("number", 4, True)
    search = commands["search"]["options"]
    assert search[0]["name"] == "words" and search[0]["required"] is True
    # a second sync keeps the ids (a bulk overwrite of the same names)
    ids = {c["name"]: c["id"] for c in fake.commands(GUILD_ID)}
    asyncio.run(sync_commands(settings, guild=int(GUILD_ID), clear_guild=None))
    assert {c["name"]: c["id"] for c in fake.commands(GUILD_ID)} == ids


def test_clear_guild_and_global_registration(fake: FakeDiscord) -> None:
    settings = discord_settings(fake)
    asyncio.run(sync_commands(settings, guild=int(GUILD_ID)))
    results = asyncio.run(sync_commands(settings, clear_guild=int(GUILD_ID)))
    assert [r.cleared for r in results] == [GUILD_ID]
    assert fake.commands(GUILD_ID) == []
    [synced] = asyncio.run(sync_commands(settings))
    load_all()
    assert synced.scope == "global" and len(fake.commands(None)) == len(REGISTRY)


# -- slash commands ----------------------------------------------------------------------------------


def test_digest_is_deferred_privately_then_completed_by_followups(
    fake: FakeDiscord, bot: RunningHost
) -> None:
    def titles() -> list[str]:
        return [e["title"] for c in ix.calls()[1:] for e in c.json["embeds"] if "title" in e]

    ix = fake.interact(fake.slash_command("digest", {"period": WEEK}))
    fake.wait(lambda: "Recommendations" in titles(), what="the digest's last section")
    callback, *followups = ix.calls()
    assert callback.route == CALLBACK and callback.json == {"type": 5, "data": {"flags": EPHEMERAL}}
    assert ix.response_delay is not None and ix.response_delay < 3.0
    assert [c.route for c in followups] == [FOLLOWUP] * len(followups) and 1 < len(followups) <= 5
    assert all(c.query["wait"] == "1" and c.json["flags"] == EPHEMERAL for c in followups)
    assert all(c.json["allowed_mentions"] == {"parse": []} for c in followups)
    assert all(violations(c.json) == [] for c in followups)
    assert titles()[0] == f"{REPO} weekly digest · {WEEK}"
    assert titles()[-2:] == ["Key PR quick view", "Recommendations"]
    assert fake.messages(CHANNEL_ID) == []  # nothing visible to the channel


def test_public_digest_is_the_followup_plus_a_thread(fake: FakeDiscord, bot: RunningHost) -> None:
    ix, _ = run(fake, fake.slash_command("digest", {"period": WEEK, "public": True}), 2)
    assert ix.calls()[0].json == {"type": 5}  # public: no ephemeral flag at defer time
    threads = fake.wait(
        lambda: fake.calls_to("POST /channels/{channel_id}/messages/{message_id}/threads"), what="a thread"
    )
    lead = fake.messages(CHANNEL_ID)[0]
    assert lead["id"] == threads[0].params["message_id"]
    footer = lead["embeds"][-1]["footer"]["text"]
    replies = int(footer.split("(")[1].split()[0])
    posts = fake.wait(
        lambda: (
            fake.calls_to(f"POST /channels/{lead['id']}/messages")
            if len(fake.calls_to(f"POST /channels/{lead['id']}/messages")) >= replies
            else None
        ),
        what="the thread's messages",
    )
    assert len(posts) == replies and all(p.auth == "bot" for p in posts)  # the bot token, not the webhook
    assert all(p.json["nonce"] and p.json["enforce_nonce"] is True for p in posts)
    assert all(p.json["allowed_mentions"] == {"parse": []} for p in posts)


def test_pr_answers_with_one_embed(fake: FakeDiscord, bot: RunningHost) -> None:
    _ix, calls = run(fake, fake.slash_command("pr", {"number": 1003}), 2)
    embed = calls[1].json["embeds"][0]
    assert "1003" in embed["title"] or "1003" in texts(embed)
    assert "[#1003](https://github.com/vllm-project/vllm/pull/1003)" in texts(calls[1].json)


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("risks", {"kind": "core-path", "period": WEEK}),
        ("search", {"words": "scheduler", "period": WEEK}),
        ("help", {}),
    ],
)
def test_every_other_command_is_deferred_and_answered(
    fake: FakeDiscord, bot: RunningHost, name: str, options: dict[str, Any]
) -> None:
    _ix, calls = run(fake, fake.slash_command(name, options), 2)
    assert [c.route for c in calls[:2]] == [CALLBACK, FOLLOWUP]
    assert calls[0].json == {"type": 5, "data": {"flags": EPHEMERAL}}
    assert calls[1].json["embeds"] and violations(calls[1].json) == []


def test_malformed_options_get_a_private_usage_line(fake: FakeDiscord, bot: RunningHost) -> None:
    _ix, calls = run(fake, fake.slash_command("digest", {"period": "next-year", "public": True}), 3)
    callback, delete, notice = calls[:3]
    assert callback.json == {"type": 5}
    assert delete.method == "DELETE" and delete.path.endswith("/messages/@original")
    assert notice.json["flags"] == EPHEMERAL
    assert notice.json["content"] == (
        "⚠️ unknown period 'next-year'; use week, last-week, YYYY-Www \\(e.g. 2026-W19\\) or "
        "YYYY-MM-DD..YYYY-MM-DD — usage: /digest \\[period:PERIOD\\] \\[modules:MODULE,…\\] "
        "\\[flags:FLAG,…\\] \\[match:any\\|all\\|only\\] \\[repo:OWNER/NAME\\] \\[public:True\\]\n"
        "Type `/help` for every command, or `/help COMMAND` for one."
    )
    assert "embeds" not in notice.json or notice.json["embeds"] == []
    assert fake.messages(CHANNEL_ID) == []  # the public deferral is gone


def test_a_wrongly_typed_option_is_a_usage_line_not_a_traceback(fake: FakeDiscord, bot: RunningHost) -> None:
    from tests.fakes.discord import option

    payload = fake.slash_command("pr", [option("number", "abc", type=3)])
    _ix, calls = run(fake, payload, 2)
    assert "is not a PR number" in calls[1].json["content"]


def test_mentions_in_pr_titles_ping_no_one_and_link_nowhere(fake: FakeDiscord, bot: RunningHost) -> None:
    _ix, calls = run(fake, fake.slash_command("pr", {"number": HOSTILE_PR, "public": True}), 2)
    followup = calls[1]
    body = texts(followup.json)
    assert followup.json["allowed_mentions"] == {"parse": []}
    assert "@\u200beveryone" in body and "\\<@&1300000000000000110\\>" in body
    assert "\\[click\\]\\(http://evil\\)" in body and "[click](" not in body
    [visible] = fake.messages(CHANNEL_ID)
    assert (visible["mention_everyone"], visible["mention_roles"], visible["mentions"]) == (False, [], [])


def test_autocomplete_is_answered_from_memory(fake: FakeDiscord, bot: RunningHost) -> None:
    ix, [callback] = run(fake, fake.autocomplete("digest", {"period": "last"}, focused="period"), 1)
    assert callback.json == {"type": 8, "data": {"choices": [{"name": "last-week", "value": "last-week"}]}}
    ix, [callback] = run(fake, fake.autocomplete("digest", {"modules": "rocm,sp"}, focused="modules"), 1)
    assert callback.json["data"]["choices"] == [{"name": "rocm,spec-decode", "value": "rocm,spec-decode"}]
    ix, [callback] = run(fake, fake.autocomplete("digest", {"period": ""}, focused="period"), 1)
    values = [c["value"] for c in callback.json["data"]["choices"]]
    assert values[:2] == ["week", "last-week"] and len(values) <= 25 and values[2].startswith("20")
    assert ix.response_delay is not None and ix.response_delay < 3.0
    # no database work: the worker threads never saw an autocomplete (they answer commands only)
    assert not fake.calls_to(FOLLOWUP)


def test_a_gateway_drop_is_resumed_and_the_missed_command_answered(
    fake: FakeDiscord, bot: RunningHost
) -> None:
    payload = fake.slash_command("help", {})
    fake.drop_gateway(4000, missed=[("INTERACTION_CREATE", payload)])
    ix = FakeInteraction(fake, payload["id"], payload["token"], payload)
    calls = fake.wait(lambda: ix.calls() if len(ix.calls()) >= 2 else None, what="the replayed command")
    assert [c.route for c in calls[:2]] == [CALLBACK, FOLLOWUP]
    assert fake.connections[1].path == "/resume" and fake.frames_where(op=6)


def test_health_reports_the_gateway(fake: FakeDiscord, bot: RunningHost) -> None:
    import urllib.request

    def health() -> dict[str, Any]:
        with urllib.request.urlopen(f"{bot.base}/healthz", timeout=5) as resp:
            state: dict[str, Any] = json.load(resp)["components"]["discord"]
            return state

    deadline = time.monotonic() + 10  # READY comes guild_ready_timeout after the last GUILD_CREATE
    while not health()["connected"] and time.monotonic() < deadline:
        time.sleep(0.05)
    state = health()
    assert state["connected"] is True and isinstance(state["latency_ms"], int)


def test_a_thread_the_bot_may_not_create_becomes_more_followups(fake: FakeDiscord, bot: RunningHost) -> None:
    fake.set_overwrite(CHANNEL_ID, BOT_ROLE_ID, deny=Perm.CREATE_PUBLIC_THREADS)
    ix, _ = run(fake, fake.slash_command("digest", {"period": WEEK, "public": True}), 3)
    followups = fake.wait(
        lambda: ix.calls() if len([c for c in ix.calls() if c.route == FOLLOWUP]) >= 2 else None,
        what="the followups",
    )
    assert not fake.calls_to("POST /channels/{channel_id}/messages/{message_id}/threads")
    assert all("flags" not in c.json for c in followups if c.route == FOLLOWUP)


def test_after_the_interaction_token_expired_a_public_answer_is_posted_with_the_bot_token(
    fake: FakeDiscord, bot: RunningHost
) -> None:
    fake.script(FOLLOWUP, discord_error(50027))  # Invalid Webhook Token: the 15 minutes are over
    ix = fake.interact(fake.slash_command("pr", {"number": 1003, "public": True}))
    [post] = fake.wait(
        lambda: fake.calls_to("POST /channels/{channel_id}/messages"), what="the bot-token post"
    )
    assert [c.route for c in ix.calls()] == [CALLBACK, FOLLOWUP]
    assert post.auth == "bot" and post.json["allowed_mentions"] == {"parse": []}
    assert "[#1003](https://github.com/vllm-project/vllm/pull/1003)" in texts(post.json)
    assert len(post.json["nonce"]) <= 25 and post.json["enforce_nonce"] is True


def expected_followup(db: Path, command: str, options: dict[str, Any]) -> dict[str, Any]:
    """What the followup must be, byte for byte: the same Reply rendered here, as discord.py sends it."""
    from bot.chat.discord.render import render
    from classify.rules import load_profile
    from commands.model import Invocation
    from commands.registry import Context, dispatch
    from storage.db import connect
    from storage.prs import PRStore

    conn = connect(db)
    try:
        ctx = Context(store=PRStore(conn), profile=load_profile())
        reply = dispatch(Invocation(command=command, options=options, repo=REPO, platform="discord"), ctx)
    finally:
        conn.close()
    [message] = render(reply, mode="compact")
    return {
        "embeds": [{"flags": 0, **e} for e in message.embeds],
        "tts": False,
        "flags": EPHEMERAL,
        "allowed_mentions": {"parse": []},
    }


@pytest.mark.parametrize(("command", "options"), [("pr", {"number": 1003}), ("help", {"command": "digest"})])
def test_the_followup_is_exactly_the_rendered_reply(
    fake: FakeDiscord, bot: RunningHost, cache_db: Path, command: str, options: dict[str, Any]
) -> None:
    _, calls = run(fake, fake.slash_command(command, options), 2)
    callback, followup = calls
    assert callback.json == {"type": 5, "data": {"flags": EPHEMERAL}}
    assert followup.json == expected_followup(cache_db, command, options)
    assert followup.status == 200 and len(fake.calls_to(FOLLOWUP)) == 1


def test_a_rate_limited_followup_is_retried_after_retry_after(fake: FakeDiscord, bot: RunningHost) -> None:
    fake.script(FOLLOWUP, rate_limited(0.05))
    _, calls = run(fake, fake.slash_command("help", {}), 3)
    _, limited, followup = calls
    assert [c.route for c in calls] == [CALLBACK, FOLLOWUP, FOLLOWUP]
    assert (limited.status, followup.status) == (429, 200) and followup.at - limited.at >= 0.045
    assert followup.json == limited.json  # the same answer, sent once it was allowed


def test_a_stop_lets_the_answers_in_flight_finish(fake: FakeDiscord, cache_db: Path) -> None:
    import threading

    from bot.host.runner import CommandRunner
    from bot.host.serve import context_factory
    from commands.model import Invocation, Reply

    settings = discord_settings(fake)
    release, working = threading.Event(), threading.Event()

    class Held(CommandRunner):
        async def dispatch(self, inv: Invocation) -> Reply:
            working.set()
            await asyncio.to_thread(release.wait, 15)
            return await super().dispatch(inv)

    host = RunningHost(settings, cache_db, runner=Held(context_factory(settings, cache_db)))
    with host:
        fake.wait(lambda: fake.frames_where(t="GUILD_CREATE"), what="the gateway session")
        ix = fake.interact(fake.slash_command("pr", {"number": 1003}))
        assert working.wait(15)  # deferred, and the answer is being computed…
        assert [c.route for c in ix.calls()] == [CALLBACK]
        stopper = threading.Thread(target=host.stop)
        stopper.start()  # …when the host is told to stop (as SIGTERM would)
        assert host.stopping.wait(15)
        assert [c.route for c in ix.calls()] == [CALLBACK]
        release.set()
        stopper.join(30)
    assert [c.route for c in ix.calls()] == [CALLBACK, FOLLOWUP]
    assert "[#1003](" in texts(ix.calls()[1].json)
    assert fake.connections[0].closed  # and then the gateway session was closed


def test_a_private_answer_too_long_shows_four_messages_and_says_how_to_see_all(
    fake: FakeDiscord, tmp_path: Path, profile: Any
) -> None:
    db = build_cache(tmp_path / "big.db", make_prs(400), profile)
    settings = discord_settings(fake)
    with RunningHost(settings, db):
        fake.wait(lambda: fake.frames_where(t="GUILD_CREATE"), what="the gateway session")
        ix = fake.interact(fake.slash_command("risks", {"kind": "all", "period": WEEK}))
        calls = fake.wait(lambda: ix.calls() if len(ix.calls()) >= 6 else None, what="the answer")
    callback, *followups = calls
    assert callback.json == {"type": 5, "data": {"flags": EPHEMERAL}} and len(followups) == 5
    assert all(c.json["flags"] == EPHEMERAL for c in followups)
    assert all(c.json["embeds"] for c in followups[:4])
    notice = followups[4].json["content"]
    assert notice.startswith("ℹ️ This answer has ") and "a private reply can show 4" in notice
    assert f"`/risks kind:all period:{WEEK} public:True`" in notice and "`prdigest risks`" in notice
