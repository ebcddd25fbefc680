"""A fake Discord on 127.0.0.1: the REST API under ``/api/v10`` and the gateway websocket.

It is a real aiohttp server on its own event loop in a background thread, so the real discord.py
client talks to it exactly as it talks to Discord: ``Route.BASE`` points at :attr:`FakeDiscord.api_url`
and ``DiscordWebSocket.DEFAULT_GATEWAY`` at :attr:`FakeDiscord.gateway_url`. The fake keeps a small
world (guilds, roles, members, channels with permission overwrites, messages, threads, application
commands, interactions) and answers the way Discord does: the same status codes, error codes and JSON
shapes, ``Content-Type: application/json`` exactly (discord.py parses nothing else as JSON), Discord's
limits enforced as Discord enforces them (50035 "Invalid Form Body"), embeds silently dropped without
Embed Links, ``nonce`` + ``enforce_nonce`` de-duplication, the 3-second interaction deadline (10062),
the interaction token's expiry (50027), 401 for a rejected token. Every request is recorded
(headers without the token) and any route can be scripted to answer a 429 with ``retry_after``, a 5xx
or a Discord error code.

The gateway speaks the real protocol: HELLO, IDENTIFY -> READY (``resume_gateway_url`` points back here,
on a different path) followed by GUILD_CREATE, heartbeats -> HEARTBEAT_ACK, sequence numbers,
RESUME -> missed events + RESUMED, RECONNECT (op 7), INVALID_SESSION (op 9). It compresses frames with
zlib-stream when the client asks for it (discord.py 2.7 does on Python < 3.14 without ``zstandard``) and
sends plain text frames otherwise.

How to use it::

    from tests.fakes.discord import FakeDiscord, connected, TOKEN, GUILD_ID, CHANNEL_ID

    def test_something() -> None:
        with FakeDiscord() as fake, fake.patched():          # points discord.py at the fake, restores after
            async def scenario() -> None:
                client = discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.05)
                tree = app_commands.CommandTree(client)
                ...register commands...
                async with connected(client, TOKEN):          # start() in a task, bounded wait for READY
                    await tree.sync(guild=discord.Object(GUILD_ID))
                    ix = fake.interact(fake.slash_command("pr", {"number": 42}))   # INTERACTION_CREATE
                    calls = await ix.wait_calls(2)            # callback + followup, in order
                    assert calls[0].json == {"type": 5, "data": {"flags": 64}}
            asyncio.run(scenario())

* World: ``fake.guild(GUILD_ID)`` / ``fake.channel(CHANNEL_ID)`` are plain dataclasses; change them
  with ``fake.add_channel``, ``fake.add_role``, ``fake.add_member``, ``fake.set_overwrite`` (which also
  sends CHANNEL_UPDATE to a connected client). ``fake.permissions(CHANNEL_ID)`` is Discord's own
  computation for the bot, ``Perm`` names the bits.
* Inspection: ``fake.calls`` (every REST request as :class:`ApiCall`), ``fake.calls_to("POST
  /channels/{channel_id}/messages")`` (a route template or a concrete path), ``fake.messages(id)``,
  ``fake.commands(guild_id)``, ``fake.frames`` (every gateway frame), ``fake.connections``.
* Waiting: ``await fake.until(predicate)`` inside the client's loop, ``fake.wait(predicate)`` from
  another thread; both bounded and woken by the fake's own events (no polling sleeps).
* Scripting: ``fake.script("POST /channels/{channel_id}/messages", rate_limited(0.05))``; answers
  are consumed in order before the real behaviour; ``Answer(..., apply_first=True)`` lets the request
  take effect and loses the answer (a retried post then meets its nonce).
* Gateway control: ``fake.interact(payload)``, ``fake.dispatch(event, data)``,
  ``fake.drop_gateway(code, missed=[...])``, ``fake.send_reconnect()``, ``fake.invalidate_session()``.
* Routes: the ``@_route`` table below (``_ROUTES``); any other path answers a recorded 404 in JSON, a
  known path with another method 405. Interaction callbacks and ``/webhooks/{app}/{token}`` take no
  Authorization (as on Discord); every other route answers 401 without the bot token.
* Clients need ``guild_ready_timeout`` small (discord.py waits that long after the last GUILD_CREATE
  before ``on_ready``; 2 s by default) and must be started with ``start()``, never ``run()``.
* ``import discord`` warns (``audioop``, deprecated) and this suite makes warnings errors: a test
  package imports discord once with that warning silenced (see tests/bot/chat/discord/conftest.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import enum
import hashlib
import json
import math
import re
import secrets
import threading
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import WSMsgType, web

T = TypeVar("T")

TOKEN = "fake-bot-token.prdigest.test"
APP_ID = "1300000000000000001"  # a new application's bot user has the application's id
BOT_ID = APP_ID
GUILD_ID = "1300000000000000100"
CHANNEL_ID = "1300000000000000200"
BOT_ROLE_ID = "1300000000000000110"
USER_ID = "1300000000000000300"
OWNER_ID = "1300000000000000301"

DISCORD_EPOCH_MS = 1420070400000
DEFAULT_ATTACHMENT_LIMIT = 10 * 1024 * 1024
INTERACTION_TTL = 15 * 60.0


class Perm(enum.IntFlag):
    """Discord permission bits (the ones a chat bot meets)."""

    CREATE_INSTANT_INVITE = 1 << 0
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    SEND_TTS_MESSAGES = 1 << 12
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    USE_APPLICATION_COMMANDS = 1 << 31
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    SEND_MESSAGES_IN_THREADS = 1 << 38


ALL_PERMS = (1 << 51) - 1
#: what the bot's invite asks for (issue 11, point 5)
BOT_PERMISSIONS = (
    Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.CREATE_PUBLIC_THREADS
    | Perm.SEND_MESSAGES_IN_THREADS
)
#: roughly what a new server gives @everyone
EVERYONE_PERMISSIONS = (
    Perm.CREATE_INSTANT_INVITE
    | Perm.ADD_REACTIONS
    | Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.USE_APPLICATION_COMMANDS
    | Perm.CREATE_PUBLIC_THREADS
    | Perm.SEND_MESSAGES_IN_THREADS
)

# gateway intents the fake looks at
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MESSAGES = 1 << 9
PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | (1 << 15)  # members, presences, message content

TEXT_CHANNEL, ANNOUNCEMENT_CHANNEL, PUBLIC_THREAD = 0, 5, 11
EPHEMERAL, LOADING, HAS_THREAD = 1 << 6, 1 << 7, 1 << 5

# -- Discord's error answers ------------------------------------------------------------------

#: code -> (HTTP status, message) as Discord sends them
ERRORS: dict[int, tuple[int, str]] = {
    0: (401, "401: Unauthorized"),
    10003: (404, "Unknown Channel"),
    10004: (404, "Unknown Guild"),
    10007: (404, "Unknown Member"),
    10008: (404, "Unknown Message"),
    10013: (404, "Unknown User"),
    10015: (404, "Unknown Webhook"),
    10062: (404, "Unknown interaction"),
    10063: (404, "Unknown application command"),
    30034: (429, "Max number of daily application command creates has been reached (200)"),
    40005: (413, "Request entity too large"),
    40060: (400, "Interaction has already been acknowledged."),
    50001: (403, "Missing Access"),
    50005: (403, "Cannot edit a message authored by another user"),
    50006: (400, "Cannot send an empty message"),
    50013: (403, "Missing Permissions"),
    50024: (400, "Cannot execute action on this channel type"),
    50027: (401, "Invalid Webhook Token"),
    50035: (400, "Invalid Form Body"),
    160004: (400, "A thread has already been created for this message"),
}


@dataclass
class Answer:
    """An HTTP answer: status, JSON body (None: no body) and extra headers.

    ``apply_first``: for scripted answers, let the request take effect first and send this answer
    instead of the real one (a response lost on the way back; the client will retry).
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    apply_first: bool = False


@dataclass
class Fault:
    """What the fake does to one REST request instead of answering at once (``FakeDiscord.fault``):
    ``drop`` — the request takes effect (``store``, else not), then the connection is closed
    without an answer; ``late`` — it takes effect after ``delay`` seconds, then is answered;
    ``hold`` — it takes effect (``store``, else not), ``reached`` is set, and the connection is
    closed once ``release`` is set (at most 60 s later): a test kills the client meanwhile;
    ``answer`` — it takes effect (``store``, else not) and gets ``answer`` instead of its own."""

    kind: str
    store: bool = True
    delay: float = 0.0
    answer: Answer | None = None
    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


def discord_error(code: int, *, message: str | None = None, errors: dict[str, Any] | None = None) -> Answer:
    """Discord's error body: ``{"message": ..., "code": ...}`` with the status Discord uses."""
    status, default = ERRORS[code]
    body: dict[str, Any] = {"message": message or default, "code": code}
    if errors:
        body["errors"] = errors
    return Answer(status, body)


def rate_limited(retry_after: float = 0.05, *, is_global: bool = False, code: int | None = None) -> Answer:
    """A 429 as Discord sends it: JSON ``retry_after`` (seconds, float), ``global``, and the ``Via``
    header discord.py requires before it trusts the body (without it, it assumes a Cloudflare ban)."""
    body: dict[str, Any] = {
        "message": "You are being rate limited.",
        "retry_after": retry_after,
        "global": is_global,
    }
    if code is not None:
        body["code"] = code
        body["message"] = ERRORS[code][1]
    headers = {
        "Retry-After": str(max(1, int(retry_after + 0.999))),
        "Via": "1.1 google",
        "X-RateLimit-Scope": "global" if is_global else "user",
    }
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    return Answer(429, body, headers)


def server_error(status: int = 500, *, apply_first: bool = False) -> Answer:
    return Answer(status, {"message": f"{status}: Internal Server Error", "code": 0}, apply_first=apply_first)


def form_error(path: Sequence[str | int], code: str, message: str) -> Answer:
    """A 50035 "Invalid Form Body" naming the offending field the way Discord nests it."""
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for key in reversed(path):
        errors = {str(key): errors}
    return discord_error(50035, errors=errors)


# -- records ----------------------------------------------------------------------------------


@dataclass
class UploadedFile:
    field: str
    filename: str
    content_type: str | None
    data: bytes


@dataclass
class ApiCall:
    """One REST request as the fake received it, and what it answered."""

    method: str
    path: str  # below /api/v10, e.g. /channels/123/messages
    route: str  # "METHOD template", e.g. "POST /channels/{channel_id}/messages"
    params: dict[str, str]
    query: dict[str, str]
    json: Any  # the JSON body, or the parsed payload_json of a multipart body
    files: list[UploadedFile]
    headers: dict[str, str]  # lower-case names; the token replaced by <token>
    auth: str | None  # "bot" (the fake's token), "rejected", or None (no Authorization header)
    at: float  # time.monotonic() when it arrived
    status: int = 0
    response: Any = None
    scripted: bool = False

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"


@dataclass
class GatewayConnection:
    id: int
    path: str
    query: dict[str, str]
    compressed: bool
    at: float
    close_code: int | None = None
    closed: bool = False


@dataclass
class GatewayFrame:
    """One gateway payload; ``sent`` by the fake or received from the client (tokens redacted)."""

    conn: int
    direction: str  # "sent" | "recv"
    op: int
    t: str | None
    s: int | None
    d: Any
    at: float


# -- the world ----------------------------------------------------------------------------------


@dataclass
class Role:
    id: str
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    bot_id: str | None = None

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(int(self.permissions)),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }
        if self.bot_id:
            data["tags"] = {"bot_id": self.bot_id}
        return data


@dataclass
class User:
    id: str
    username: str
    bot: bool = False

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "username": self.username,
            "discriminator": "0",
            "global_name": None if self.bot else self.username.title(),
            "avatar": None,
            "public_flags": 0,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass
class Overwrite:
    id: str
    type: int  # 0 role, 1 member
    allow: int = 0
    deny: int = 0

    def payload(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "allow": str(int(self.allow)), "deny": str(int(self.deny))}


@dataclass
class Channel:
    id: str
    guild_id: str
    name: str
    type: int = TEXT_CHANNEL
    position: int = 0
    overwrites: list[Overwrite] = field(default_factory=list)
    parent_id: str | None = None  # a thread's channel
    owner_id: str | None = None  # a thread's creator
    auto_archive_duration: int = 1440
    created: str = ""
    message_count: int = 0

    @property
    def is_thread(self) -> bool:
        return self.type in (10, 11, 12)

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "guild_id": self.guild_id,
            "name": self.name,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
            "nsfw": False,
        }
        if self.is_thread:
            data.update(
                parent_id=self.parent_id,
                owner_id=self.owner_id,
                message_count=self.message_count,
                total_message_sent=self.message_count,
                member_count=1,
                thread_metadata={
                    "archived": False,
                    "archive_timestamp": self.created,
                    "auto_archive_duration": self.auto_archive_duration,
                    "locked": False,
                    "create_timestamp": self.created,
                },
            )
        else:
            data.update(
                position=self.position,
                parent_id=self.parent_id,
                topic=None,
                permission_overwrites=[o.payload() for o in self.overwrites],
            )
        return data


@dataclass
class Guild:
    id: str
    name: str
    owner_id: str
    roles: dict[str, Role] = field(default_factory=dict)
    members: dict[str, list[str]] = field(default_factory=dict)  # user id -> role ids (not @everyone)
    channels: dict[str, Channel] = field(default_factory=dict)

    def payload(self, users: Mapping[str, User], *, full: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": self.owner_id,
            "region": None,
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "max_members": 500000,
            "max_video_channel_users": 25,
        }
        if full:  # the GUILD_CREATE extras
            data.update(
                joined_at=_iso(time.time()),
                large=False,
                unavailable=False,
                member_count=len(self.members),
                members=[self.member_payload(uid, users) for uid in self.members],
                channels=[c.payload() for c in self.channels.values() if not c.is_thread],
                threads=[c.payload() for c in self.channels.values() if c.is_thread],
                presences=[],
                voice_states=[],
                stage_instances=[],
                guild_scheduled_events=[],
                soundboard_sounds=[],
            )
        else:
            data.update(approximate_member_count=len(self.members), approximate_presence_count=0)
        return data

    def member_payload(self, user_id: str, users: Mapping[str, User]) -> dict[str, Any]:
        user = users.get(user_id) or User(user_id, f"user{user_id[-4:]}")
        return {
            "user": user.payload(),
            "nick": None,
            "avatar": None,
            "banner": None,
            "roles": list(self.members[user_id]),
            "joined_at": "2025-01-01T00:00:00.000000+00:00",
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="microseconds")


# -- interaction payloads as Discord sends them -------------------------------------------------

OPTION_TYPES = {"string": 3, "integer": 4, "boolean": 5, "user": 6, "channel": 7, "role": 8, "number": 10}


def option(name: str, value: Any, *, type: int | None = None, focused: bool = False) -> dict[str, Any]:
    """One ``data.options`` entry; the type follows the Python value unless given."""
    if type is None:
        if isinstance(value, bool):
            type = 5
        elif isinstance(value, int):
            type = 4
        elif isinstance(value, float):
            type = 10
        else:
            type = 3
    entry: dict[str, Any] = {"name": name, "type": type, "value": value}
    if focused:
        entry["focused"] = True
    return entry


def _options(options: Mapping[str, Any] | Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(options, Mapping):
        return [option(k, v) for k, v in options.items()]
    return [dict(o) for o in options]


def interaction_payload(
    kind: int,
    name: str,
    options: Mapping[str, Any] | Sequence[dict[str, Any]] = (),
    *,
    command_id: str = "1300000000000009000",
    command_guild_id: str | None = None,
    guild_id: str | None = GUILD_ID,
    channel: Mapping[str, Any] | None = None,
    member: Mapping[str, Any] | None = None,
    user: Mapping[str, Any] | None = None,
    member_permissions: int = int(EVERYONE_PERMISSIONS),
    app_permissions: int = int(BOT_PERMISSIONS),
    application_id: str = APP_ID,
    interaction_id: str | None = None,
    token: str | None = None,
    locale: str = "en-US",
    attachment_size_limit: int = DEFAULT_ATTACHMENT_LIMIT,
) -> dict[str, Any]:
    """An INTERACTION_CREATE payload (``kind`` 2: application command, 4: autocomplete).

    ``command_guild_id`` is ``data.guild_id``: set it for commands registered in a guild (discord.py's
    CommandTree looks them up there). ``attachment_size_limit`` is required by discord.py 2.7.1.
    """
    data: dict[str, Any] = {"id": command_id, "name": name, "type": 1}
    opts = _options(options)
    if opts:
        data["options"] = opts
    if command_guild_id:
        data["guild_id"] = command_guild_id
    payload: dict[str, Any] = {
        "id": interaction_id or _snowflake(),
        "application_id": application_id,
        "type": kind,
        "data": data,
        "token": token or "aW50ZXJhY3Rpb24" + secrets.token_urlsafe(48),
        "version": 1,
        "locale": locale,
        "app_permissions": str(int(app_permissions)),
        "entitlements": [],
        "entitlement_sku_ids": [],
        "attachment_size_limit": attachment_size_limit,
    }
    if guild_id is not None:
        chan = dict(
            channel or {"id": CHANNEL_ID, "type": TEXT_CHANNEL, "guild_id": guild_id, "name": "releases"}
        )
        mem = dict(
            member
            or {
                "user": User(USER_ID, "alice").payload(),
                "roles": [],
                "joined_at": "2025-01-01T00:00:00.000000+00:00",
                "deaf": False,
                "mute": False,
                "flags": 0,
                "nick": None,
                "avatar": None,
                "pending": False,
            }
        )
        mem.setdefault("permissions", str(int(member_permissions)))
        payload.update(
            guild_id=guild_id,
            guild={"id": guild_id, "locale": locale, "features": []},
            guild_locale=locale,
            channel_id=chan["id"],
            channel=chan,
            member=mem,
            authorizing_integration_owners={"0": guild_id},
            context=0,
        )
    else:
        who = dict(user or User(USER_ID, "alice").payload())
        payload.update(
            user=who,
            channel_id=(channel or {}).get("id", "1300000000000000900"),
            channel=dict(channel or {"id": "1300000000000000900", "type": 1, "recipients": [who]}),
            authorizing_integration_owners={"1": who["id"]},
            context=1,
        )
    return payload


def slash_command_payload(
    name: str, options: Mapping[str, Any] | Sequence[dict[str, Any]] = (), **kw: Any
) -> dict[str, Any]:
    """A slash command (chat input) interaction; see :func:`interaction_payload` for the keywords."""
    return interaction_payload(2, name, options, **kw)


def autocomplete_payload(
    name: str, options: Mapping[str, Any] | Sequence[dict[str, Any]], focused: str, **kw: Any
) -> dict[str, Any]:
    """An autocomplete interaction: the same options, the one being typed marked ``focused``
    (its value is the partial text, always a string as Discord sends it)."""
    opts = _options(options)
    for o in opts:
        if o["name"] == focused:
            o["focused"] = True
    if not any(o.get("focused") for o in opts):
        opts.append(option(focused, "", focused=True))
    return interaction_payload(4, name, opts, **kw)


# -- snowflakes -----------------------------------------------------------------------------------

_snow_lock = threading.Lock()
_snow_last = 0


def _snowflake() -> str:
    """A time-based, strictly increasing snowflake (discord.py derives timestamps from ids)."""
    global _snow_last
    with _snow_lock:
        value = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        _snow_last = max(value, _snow_last + 1)
        return str(_snow_last)


# -- message validation: Discord's limits ----------------------------------------------------------

EMBED_LIMITS = {"title": 256, "description": 4096, "fields": 25, "footer": 2048, "author": 256}


def embed_size(embed: Mapping[str, Any]) -> int:
    """The characters Discord counts toward 6,000 per message."""
    size = len(embed.get("title") or "") + len(embed.get("description") or "")
    size += len((embed.get("footer") or {}).get("text") or "") + len(
        (embed.get("author") or {}).get("name") or ""
    )
    for f in embed.get("fields") or []:
        size += len(f.get("name") or "") + len(f.get("value") or "")
    return size


def validate_message(payload: Mapping[str, Any], *, files: int = 0, edit: bool = False) -> Answer | None:
    """None if Discord would accept the message, else its 400 answer."""
    content = payload.get("content")
    if content is not None and len(str(content)) > 2000:
        return form_error(["content"], "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")
    embeds = payload.get("embeds") or []
    if len(embeds) > 10:
        return form_error(["embeds"], "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    for i, e in enumerate(embeds):
        for key in ("title", "description"):
            if len(e.get(key) or "") > EMBED_LIMITS[key]:
                n = EMBED_LIMITS[key]
                return form_error(
                    ["embeds", i, key], "BASE_TYPE_MAX_LENGTH", f"Must be {n} or fewer in length."
                )
        if len((e.get("footer") or {}).get("text") or "") > 2048:
            return form_error(
                ["embeds", i, "footer", "text"], "BASE_TYPE_MAX_LENGTH", "Must be 2048 or fewer in length."
            )
        if len((e.get("author") or {}).get("name") or "") > 256:
            return form_error(
                ["embeds", i, "author", "name"], "BASE_TYPE_MAX_LENGTH", "Must be 256 or fewer in length."
            )
        fields = e.get("fields") or []
        if len(fields) > 25:
            return form_error(
                ["embeds", i, "fields"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
            )
        for j, f in enumerate(fields):
            for key, limit in (("name", 256), ("value", 1024)):
                text = f.get(key)
                if not text:
                    return form_error(
                        ["embeds", i, "fields", j, key], "BASE_TYPE_REQUIRED", "This field is required"
                    )
                if len(text) > limit:
                    return form_error(
                        ["embeds", i, "fields", j, key],
                        "BASE_TYPE_MAX_LENGTH",
                        f"Must be {limit} or fewer in length.",
                    )
    if sum(embed_size(e) for e in embeds) > 6000:
        return form_error(["embeds"], "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")
    nonce = payload.get("nonce")
    if isinstance(nonce, str) and len(nonce) > 25:
        return form_error(["nonce"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    if not edit and not (
        content
        or embeds
        or files
        or payload.get("components")
        or payload.get("sticker_ids")
        or payload.get("poll")
    ):
        return discord_error(50006)
    return None


_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


def resolve_mentions(content: str, allowed: Mapping[str, Any] | None) -> tuple[bool, list[str], list[str]]:
    """Who a message pings: (everyone/here, user ids, role ids), honouring ``allowed_mentions``
    (absent: everything in the content pings)."""
    if allowed is None:
        parse = {"everyone", "users", "roles"}
        users: set[str] = set()
        roles: set[str] = set()
    else:
        parse = set(allowed.get("parse") or [])
        users = {str(u) for u in allowed.get("users") or []}
        roles = {str(r) for r in allowed.get("roles") or []}
    everyone = ("@everyone" in content or "@here" in content) and "everyone" in parse
    user_ids = [u for u in _USER_MENTION.findall(content) if "users" in parse or u in users]
    role_ids = [r for r in _ROLE_MENTION.findall(content) if "roles" in parse or r in roles]
    return everyone, list(dict.fromkeys(user_ids)), list(dict.fromkeys(role_ids))


# -- internal state ----------------------------------------------------------------------------------


@dataclass
class _Interaction:
    id: str
    token: str
    type: int
    payload: dict[str, Any]
    created: float
    channel_id: str | None
    guild_id: str | None
    response_type: int | None = None
    responded_at: float | None = None
    original_id: str | None = None
    expired: bool = False


@dataclass
class _Session:
    id: str
    intents: int
    seq: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)
    conn: _Conn | None = None


class _Close:
    def __init__(self, code: int | None) -> None:
        self.code = code


@dataclass
class _Conn:
    record: GatewayConnection
    ws: web.WebSocketResponse
    request: web.Request
    queue: asyncio.Queue[dict[str, Any] | _Close]
    zlib: Any = None  # a zlib compressobj when the client asked for zlib-stream


@dataclass
class _Req:
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    json: Any
    files: list[UploadedFile]
    auth: str | None


_ROUTES: list[tuple[str, str, re.Pattern[str], str]] = []  # method, template, regex, handler name


def _route(method: str, template: str) -> Callable[[Callable[..., Answer]], Callable[..., Answer]]:
    pattern = re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$")

    def register(fn: Callable[..., Answer]) -> Callable[..., Answer]:
        _ROUTES.append((method, template, pattern, fn.__name__))
        return fn

    return register


# -- the fake ---------------------------------------------------------------------------------------


class FakeDiscord:
    """Start with ``with FakeDiscord() as fake:``; point discord.py at it with ``fake.patched()``.

    ``compress``: answer ``compress=zlib-stream`` with zlib-compressed binary frames (as Discord does);
    False sends text frames whatever the client asks. ``interaction_deadline``: seconds within which
    the first callback must arrive (Discord: 3). ``bucket``: (limit, window seconds) to emit
    X-RateLimit headers and enforce a per-route, per-channel budget with 429s; None (default) sends no
    rate-limit headers. ``privileged_intents``: the privileged intents the application may use (others
    close the gateway with 4014, as for an application without the toggles).
    """

    def __init__(
        self,
        *,
        token: str = TOKEN,
        heartbeat_interval_ms: int = 1000,
        compress: bool = True,
        interaction_deadline: float = 3.0,
        interaction_ttl: float = INTERACTION_TTL,
        bucket: tuple[int, float] | None = None,
        privileged_intents: int = 0,
        daily_command_creates: int = 200,
    ) -> None:
        self.token = token
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.compress = compress
        self.interaction_deadline = interaction_deadline
        self.interaction_ttl = interaction_ttl
        self.bucket = bucket
        self.privileged_intents = privileged_intents
        self.daily_command_creates = daily_command_creates
        self.ack_heartbeats = True

        self.calls: list[ApiCall] = []
        self.frames: list[GatewayFrame] = []
        self.connections: list[GatewayConnection] = []
        self.users: dict[str, User] = {}
        self.guilds: dict[str, Guild] = {}
        self._messages: dict[str, list[dict[str, Any]]] = {}  # channel id -> messages, oldest first
        self._by_id: dict[str, dict[str, Any]] = {}  # message id -> message (ephemeral ones too)
        self._nonces: dict[tuple[str, str], str] = {}  # (author id, nonce) -> message id
        self._commands: dict[str | None, list[dict[str, Any]]] = {}  # guild id (None: global) -> commands
        self._creates: dict[str | None, int] = {}
        self._interactions: dict[str, _Interaction] = {}
        self._sessions: dict[str, _Session] = {}
        self._session: _Session | None = None
        self._scripts: dict[str, list[Answer]] = {}
        self._faults: dict[tuple[str, int], Fault] = {}  # (route, n-th request of it) -> fault
        self._seen: dict[str, int] = {}  # requests per route as they arrived
        self._buckets: dict[str, list[float]] = {}
        self._conn_ids = 0

        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._wakers: list[Callable[[], None]] = []
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._conns: dict[int, _Conn] = {}
        self.port = 0
        self._thread = threading.Thread(target=self._loop.run_forever, name="fake-discord", daemon=True)
        self._build_world()

    # -- lifecycle ------------------------------------------------------------------------------

    def __enter__(self) -> FakeDiscord:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            for conn in list(self._conns.values()):
                with contextlib.suppress(Exception):
                    await conn.ws.close(code=1001)
            if self._runner is not None:
                await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    async def _start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/resume", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        """What ``discord.http.Route.BASE`` becomes (keeps the /api/v10 suffix)."""
        return f"{self.base}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    @property
    def resume_gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/resume"

    @contextlib.contextmanager
    def patched(self) -> Iterator[FakeDiscord]:
        """Point discord.py's REST base and default gateway at this fake; restore them after."""
        old_base = discord.http.Route.BASE
        old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.api_url
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield self
        finally:
            discord.http.Route.BASE = old_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    # -- the world ------------------------------------------------------------------------------

    def _build_world(self) -> None:
        self.users[BOT_ID] = User(BOT_ID, "prdigest", bot=True)
        self.users[USER_ID] = User(USER_ID, "alice")
        self.users[OWNER_ID] = User(OWNER_ID, "owner")
        guild = Guild(GUILD_ID, "prdigest-test", OWNER_ID)
        guild.roles[GUILD_ID] = Role(GUILD_ID, "@everyone", int(EVERYONE_PERMISSIONS))
        guild.roles[BOT_ROLE_ID] = Role(BOT_ROLE_ID, "prdigest", int(BOT_PERMISSIONS), 1, True, BOT_ID)
        guild.members = {BOT_ID: [BOT_ROLE_ID], USER_ID: [], OWNER_ID: []}
        guild.channels[CHANNEL_ID] = Channel(CHANNEL_ID, GUILD_ID, "releases", created=_iso(time.time()))
        self.guilds[GUILD_ID] = guild
        self._messages[CHANNEL_ID] = []

    @property
    def bot_user(self) -> User:
        return self.users[BOT_ID]

    def guild(self, guild_id: str = GUILD_ID) -> Guild:
        return self.guilds[guild_id]

    def channel(self, channel_id: str) -> Channel:
        with self._lock:
            found = self._find_channel(channel_id)
            if found is None:
                raise KeyError(channel_id)
            return found

    def add_guild(self, name: str, *, guild_id: str | None = None, bot_member: bool = True) -> Guild:
        with self._lock:
            gid = guild_id or _snowflake()
            guild = Guild(gid, name, OWNER_ID)
            guild.roles[gid] = Role(gid, "@everyone", int(EVERYONE_PERMISSIONS))
            guild.members[OWNER_ID] = []
            if bot_member:
                role = self.add_role(guild, "prdigest", int(BOT_PERMISSIONS), managed=True)
                guild.members[BOT_ID] = [role.id]
            self.guilds[gid] = guild
            return guild

    def add_role(self, guild: Guild | str, name: str, permissions: int, *, managed: bool = False) -> Role:
        with self._lock:
            g = self.guilds[guild] if isinstance(guild, str) else guild
            role = Role(
                _snowflake(), name, int(permissions), len(g.roles), managed, BOT_ID if managed else None
            )
            g.roles[role.id] = role
            return role

    def add_member(self, guild_id: str, user: User, roles: Iterable[str] = ()) -> None:
        with self._lock:
            self.users.setdefault(user.id, user)
            self.guilds[guild_id].members[user.id] = list(roles)

    def add_channel(
        self,
        name: str,
        *,
        guild_id: str = GUILD_ID,
        channel_id: str | None = None,
        type: int = TEXT_CHANNEL,
        overwrites: Iterable[Overwrite] = (),
    ) -> Channel:
        with self._lock:
            guild = self.guilds[guild_id]
            chan = Channel(
                channel_id or _snowflake(),
                guild_id,
                name,
                type,
                position=len(guild.channels),
                overwrites=list(overwrites),
                created=_iso(time.time()),
            )
            guild.channels[chan.id] = chan
            self._messages[chan.id] = []
            self._dispatch_locked("CHANNEL_CREATE", chan.payload(), intent=INTENT_GUILDS)
            return chan

    def set_overwrite(
        self, channel_id: str, target_id: str, *, allow: int = 0, deny: int = 0, member: bool = False
    ) -> None:
        """Set one permission overwrite (role, or member) on a channel; a connected client gets
        CHANNEL_UPDATE as from Discord."""
        with self._lock:
            chan = self.channel(channel_id)
            chan.overwrites = [o for o in chan.overwrites if o.id != target_id]
            chan.overwrites.append(Overwrite(target_id, 1 if member else 0, int(allow), int(deny)))
            self._dispatch_locked("CHANNEL_UPDATE", chan.payload(), intent=INTENT_GUILDS)

    def permissions(self, channel_id: str, user_id: str = BOT_ID) -> int:
        """A member's permissions in a channel, computed as Discord does (threads use their parent's
        overwrites; no View Channel means nothing; no Send Messages takes the implicit ones along)."""
        with self._lock:
            chan = self.channel(channel_id)
            guild = self.guilds[chan.guild_id]
            if chan.is_thread and chan.parent_id:
                chan = self.channel(chan.parent_id)
            if user_id not in guild.members:
                return 0
            if guild.owner_id == user_id:
                return ALL_PERMS
            roles = guild.members[user_id]
            perms = guild.roles[guild.id].permissions
            for rid in roles:
                if rid in guild.roles:
                    perms |= guild.roles[rid].permissions
            if perms & Perm.ADMINISTRATOR:
                return ALL_PERMS
            by_id = {o.id: o for o in chan.overwrites}
            everyone = by_id.get(guild.id)
            if everyone is not None:
                perms = (perms & ~everyone.deny) | everyone.allow
            allow = deny = 0
            for o in chan.overwrites:
                if o.type == 0 and o.id in roles:
                    allow |= o.allow
                    deny |= o.deny
            perms = (perms & ~deny) | allow
            mine = by_id.get(user_id)
            if mine is not None and mine.type == 1:
                perms = (perms & ~mine.deny) | mine.allow
            if not perms & Perm.VIEW_CHANNEL:
                return 0
            if not perms & Perm.SEND_MESSAGES:
                perms &= ~(
                    Perm.SEND_TTS_MESSAGES | Perm.MENTION_EVERYONE | Perm.EMBED_LINKS | Perm.ATTACH_FILES
                )
            return int(perms)

    def messages(self, channel_id: str) -> list[dict[str, Any]]:
        """Messages visible in a channel (not ephemeral ones), oldest first, as Discord stores them."""
        with self._lock:
            return copy.deepcopy(self._messages.get(channel_id, []))

    def add_message(
        self, channel_id: str, payload: Mapping[str, Any], *, author: str = USER_ID
    ) -> dict[str, Any]:
        """A message in a channel as if ``author`` had sent it (people talking after a post)."""
        with self._lock:
            msg = self._new_message(channel_id, payload)
            msg["author"] = self.users[author].payload()
            return copy.deepcopy(msg)

    def message(self, message_id: str) -> dict[str, Any]:
        with self._lock:
            return copy.deepcopy(self._by_id[message_id])

    def commands(self, guild_id: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return copy.deepcopy(self._commands.get(guild_id, []))

    # -- scripting and inspection ----------------------------------------------------------------

    def script(self, route: str, *answers: Answer) -> None:
        """The next requests to ``route`` get these answers in order, before the real behaviour.
        ``route`` is ``"METHOD /template"`` (``POST /channels/{channel_id}/messages``) or a concrete
        ``"METHOD /path"`` (``POST /channels/123/messages``)."""
        with self._lock:
            self._scripts.setdefault(route, []).extend(answers)

    def fault(self, route: str, fault: Fault, *, index: int = 0) -> None:
        """The ``index``-th request from now on (0: the next) of ``route`` (a template such as
        ``POST /channels/{channel_id}/messages``) meets ``fault``."""
        with self._lock:
            self._faults[(route, self._seen.get(route, 0) + index)] = fault

    def _next_fault(self, method: str, path: str) -> Fault | None:
        template = next((t for m, t, pattern, _ in _ROUTES if m == method and pattern.match(path)), path)
        route = f"{method} {template}"
        with self._lock:
            n = self._seen.get(route, 0)
            self._seen[route] = n + 1
            return self._faults.pop((route, n), None)

    def calls_to(self, route: str) -> list[ApiCall]:
        """Calls matching a route template key or a concrete ``"METHOD /path"``, in arrival order."""
        with self._lock:
            return [c for c in self.calls if route in (c.route, c.key)]

    def wait(
        self, predicate: Callable[[], T | None], timeout: float = 10.0, what: str = "the condition"
    ) -> T:
        """Block (another thread than the client's) until ``predicate()`` is truthy; bounded."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                result = predicate()
                if result:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"fake Discord: timed out after {timeout}s waiting for {what}")
                self._cond.wait(left)

    async def until(
        self, predicate: Callable[[], T | None], timeout: float = 10.0, what: str = "the condition"
    ) -> T:
        """Await (inside the client's loop) until ``predicate()`` is truthy; woken by the fake's events."""
        loop = asyncio.get_running_loop()
        event = asyncio.Event()

        def wake() -> None:
            with contextlib.suppress(RuntimeError):  # the waiting loop is gone
                loop.call_soon_threadsafe(event.set)

        with self._lock:
            self._wakers.append(wake)
        try:
            deadline = loop.time() + timeout
            while True:
                event.clear()
                with self._lock:
                    result = predicate()
                if result:
                    return result
                left = deadline - loop.time()
                if left <= 0:
                    raise AssertionError(f"fake Discord: timed out after {timeout}s waiting for {what}")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), left)
        finally:
            with self._lock:
                self._wakers.remove(wake)

    async def wait_calls(self, route: str, count: int = 1, timeout: float = 10.0) -> list[ApiCall]:
        def enough() -> list[ApiCall] | None:
            found = self.calls_to(route)
            return found if len(found) >= count else None

        return await self.until(enough, timeout, f"{count} call(s) to {route}")

    def _changed(self) -> None:
        """Under the lock: wake every waiter."""
        self._cond.notify_all()
        for wake in list(self._wakers):
            wake()

    # -- gateway control from tests ----------------------------------------------------------------

    @property
    def session_id(self) -> str | None:
        with self._lock:
            return self._session.id if self._session else None

    @property
    def seq(self) -> int:
        with self._lock:
            return self._session.seq if self._session else 0

    def dispatch(self, event: str, data: Mapping[str, Any]) -> int:
        """Send a DISPATCH (op 0) in the current session; returns its sequence number. Without a live
        connection the event waits in the session for a RESUME, as on Discord."""
        with self._lock:
            if self._session is None:
                raise AssertionError("fake Discord: no gateway session to dispatch into (no IDENTIFY yet)")
            if event == "INTERACTION_CREATE":
                self._register_interaction(dict(data))
            return self._dispatch_locked(event, dict(data))

    def interact(self, payload: Mapping[str, Any]) -> FakeInteraction:
        """Dispatch an INTERACTION_CREATE and return a handle on its callback and followups."""
        self.dispatch("INTERACTION_CREATE", payload)
        return FakeInteraction(self, str(payload["id"]), str(payload["token"]), dict(payload))

    def drop_gateway(
        self, code: int | None = 4000, *, missed: Iterable[tuple[str, Mapping[str, Any]]] = ()
    ) -> None:
        """Close the live connection (close ``code``; None: cut TCP without a close frame). ``missed``
        events are added to the session at the same moment, so the client can only get them by a RESUME."""
        with self._lock:
            session = self._session
            if session is None or session.conn is None:
                raise AssertionError("fake Discord: no live gateway connection to drop")
            conn = session.conn
            session.conn = None
            for event, data in missed:
                if event == "INTERACTION_CREATE":
                    self._register_interaction(dict(data))
                self._dispatch_locked(event, dict(data))
            self._loop.call_soon_threadsafe(conn.queue.put_nowait, _Close(code))

    def send_reconnect(self) -> None:
        """op 7 RECONNECT: Discord asks the client to reconnect and resume."""
        self._send_op(7, None)

    def invalidate_session(self, resumable: bool = False) -> None:
        """op 9 INVALID_SESSION; with ``resumable`` False the client must IDENTIFY anew."""
        with self._lock:
            if not resumable and self._session is not None:
                self._sessions.pop(self._session.id, None)
        self._send_op(9, resumable)

    def _send_op(self, op: int, d: Any) -> None:
        with self._lock:
            if self._session is None or self._session.conn is None:
                raise AssertionError("fake Discord: no live gateway connection")
            self._send_locked(self._session.conn, {"op": op, "d": d, "s": None, "t": None})

    def frames_where(
        self, *, op: int | None = None, direction: str | None = None, t: str | None = None
    ) -> list[GatewayFrame]:
        with self._lock:
            return [
                f
                for f in self.frames
                if (op is None or f.op == op)
                and (direction is None or f.direction == direction)
                and (t is None or f.t == t)
            ]

    # -- world payload helpers used for interactions ----------------------------------------------

    def slash_command(
        self, name: str, options: Mapping[str, Any] | Sequence[dict[str, Any]] = (), **kw: Any
    ) -> dict[str, Any]:
        """A slash-command payload filled from the fake's world: the registered command's id and
        scope, option types from its registration, the channel, the invoking member with their
        permissions and the bot's ``app_permissions`` as Discord computes them."""
        return interaction_payload(2, name, self._typed(name, options, kw), **self._context(name, kw))

    def autocomplete(
        self, name: str, options: Mapping[str, Any] | Sequence[dict[str, Any]], focused: str, **kw: Any
    ) -> dict[str, Any]:
        opts = self._typed(name, options, kw)
        for o in opts:
            if o["name"] == focused:
                o["focused"] = True
                o["type"] = o.get("type", 3)
                o["value"] = str(o["value"])  # the partial text, as typed
        if not any(o.get("focused") for o in opts):
            opts.append(option(focused, "", focused=True))
        return interaction_payload(4, name, opts, **self._context(name, kw))

    def _registered(self, name: str, guild_id: str | None) -> dict[str, Any] | None:
        for scope in (guild_id, None):
            for cmd in self._commands.get(scope, []):
                if cmd["name"] == name and cmd.get("type", 1) == 1:
                    return cmd
        return None

    def _typed(
        self, name: str, options: Mapping[str, Any] | Sequence[dict[str, Any]], kw: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        with self._lock:
            cmd = self._registered(name, kw.get("guild_id", GUILD_ID))
        if not isinstance(options, Mapping) or cmd is None:
            return _options(options)
        types = {o["name"]: o["type"] for o in cmd.get("options", [])}
        return [option(k, v, type=types.get(k)) for k, v in options.items()]

    def _context(self, name: str, kw: dict[str, Any]) -> dict[str, Any]:
        kw = dict(kw)
        user_id = kw.pop("user_id", USER_ID)
        channel_id = kw.pop("channel_id", CHANNEL_ID)
        guild_id = kw.get("guild_id", GUILD_ID)
        with self._lock:
            cmd = self._registered(name, guild_id)
            if cmd is not None:
                kw.setdefault("command_id", cmd["id"])
                kw.setdefault("command_guild_id", cmd.get("guild_id"))
            if guild_id is not None and guild_id in self.guilds:
                guild = self.guilds[guild_id]
                kw.setdefault("channel", self.channel(channel_id).payload())
                if user_id in guild.members:
                    member = guild.member_payload(user_id, self.users)
                    member["permissions"] = str(self.permissions(channel_id, user_id))
                    kw.setdefault("member", member)
                kw.setdefault("app_permissions", self.permissions(channel_id, BOT_ID))
        return kw

    # -- gateway server -------------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        query = dict(request.query)
        zlib_stream = self.compress and query.get("compress") == "zlib-stream"
        with self._lock:
            self._conn_ids += 1
            record = GatewayConnection(self._conn_ids, request.path, query, zlib_stream, time.monotonic())
            conn = _Conn(record, ws, request, asyncio.Queue(), zlib.compressobj() if zlib_stream else None)
            self.connections.append(record)
            self._conns[record.id] = conn
            self._send_locked(
                conn,
                {"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}, "s": None, "t": None},
            )
            self._changed()
        sender = asyncio.create_task(self._sender(conn))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await self._on_frame(conn, json.loads(msg.data))
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender
            with self._lock:
                record.closed = True
                code = record.close_code or ws.close_code  # 1006 after a cut without a close frame
                record.close_code = None if code is None else int(code)
                for session in self._sessions.values():
                    if session.conn is conn:
                        session.conn = None
                self._conns.pop(record.id, None)
                self._changed()
        return ws

    async def _sender(self, conn: _Conn) -> None:
        """Write frames in order (zlib-stream is one compression context per connection)."""
        while True:
            item = await conn.queue.get()
            if isinstance(item, _Close):
                conn.record.close_code = item.code
                if item.code is None:
                    transport = conn.request.transport
                    if transport is not None:
                        transport.abort()
                else:
                    await conn.ws.close(code=item.code)
                return
            text = json.dumps(item, separators=(",", ":"))
            try:
                if conn.zlib is not None:
                    await conn.ws.send_bytes(
                        conn.zlib.compress(text.encode()) + conn.zlib.flush(zlib.Z_SYNC_FLUSH)
                    )
                else:
                    await conn.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return

    def _send_locked(self, conn: _Conn, frame: dict[str, Any]) -> None:
        self.frames.append(
            GatewayFrame(
                conn.record.id,
                "sent",
                frame["op"],
                frame.get("t"),
                frame.get("s"),
                frame.get("d"),
                time.monotonic(),
            )
        )
        self._loop.call_soon_threadsafe(conn.queue.put_nowait, frame)

    def _dispatch_locked(self, event: str, data: dict[str, Any], *, intent: int | None = None) -> int:
        session = self._session
        if session is None or (intent is not None and not session.intents & intent):
            return 0
        session.seq += 1
        frame = {"op": 0, "t": event, "s": session.seq, "d": data}
        session.events.append(frame)
        if session.conn is not None:
            self._send_locked(session.conn, frame)
        self._changed()
        return session.seq

    def _redact(self, d: Any) -> Any:
        if isinstance(d, dict) and "token" in d:
            d = dict(d)
            d["token"] = "<token>" if d["token"] == self.token else "<rejected token>"
        return d

    async def _on_frame(self, conn: _Conn, frame: dict[str, Any]) -> None:
        op, d = frame.get("op"), frame.get("d")
        close: int | None = None
        with self._lock:
            self.frames.append(
                GatewayFrame(
                    conn.record.id, "recv", int(op or -1), None, None, self._redact(d), time.monotonic()
                )
            )
            if op == 1:
                if self.ack_heartbeats:
                    self._send_locked(conn, {"op": 11, "d": None, "s": None, "t": None})
            elif op == 2:
                close = self._identify(conn, d or {})
            elif op == 6:
                close = self._resume(conn, d or {})
            self._changed()
        if close is not None:
            self._loop.call_soon(conn.queue.put_nowait, _Close(close))

    def _identify(self, conn: _Conn, d: Mapping[str, Any]) -> int | None:
        if d.get("token") != self.token:
            return 4004  # Authentication failed
        intents = d.get("intents")
        if not isinstance(intents, int):
            return 4013  # Invalid intent(s)
        if intents & PRIVILEGED_INTENTS & ~self.privileged_intents:
            return 4014  # Disallowed intent(s)
        session = _Session(secrets.token_hex(16), intents)
        self._sessions[session.id] = session
        self._session = session
        session.conn = conn
        guild_ids = [g.id for g in self.guilds.values() if BOT_ID in g.members]
        self._dispatch_locked(
            "READY",
            {
                "v": 10,
                "user": {
                    **self.bot_user.payload(),
                    "verified": True,
                    "mfa_enabled": False,
                    "flags": 0,
                    "email": None,
                },
                "guilds": [{"id": gid, "unavailable": True} for gid in guild_ids],
                "session_id": session.id,
                "session_type": "normal",
                "resume_gateway_url": self.resume_gateway_url,
                "application": {"id": APP_ID, "flags": 0},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": [],
                "user_settings": {},
                "auth": {},
                "_trace": ['["fake-discord",{"micros":0}]'],
            },
        )
        for gid in guild_ids:
            if intents & INTENT_GUILDS:
                self._dispatch_locked("GUILD_CREATE", self.guilds[gid].payload(self.users, full=True))
        return None

    def _resume(self, conn: _Conn, d: Mapping[str, Any]) -> int | None:
        session = self._sessions.get(str(d.get("session_id")))
        seq = d.get("seq")
        if d.get("token") != self.token:
            return 4004
        if session is None or not isinstance(seq, int) or seq > session.seq:
            self._send_locked(conn, {"op": 9, "d": False, "s": None, "t": None})
            return None
        self._session = session
        session.conn = conn
        for frame in session.events:
            if frame["s"] > seq:
                self._send_locked(conn, frame)
        self._dispatch_locked("RESUMED", {"_trace": ['["fake-discord",{"micros":0}]']})
        return None

    # -- REST server ----------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        query = dict(request.query)
        body: Any = None
        files: list[UploadedFile] = []
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/"):
            form = await request.post()
            for name, value in form.items():
                if isinstance(value, web.FileField):
                    files.append(UploadedFile(name, value.filename, value.content_type, value.file.read()))
                    value.file.close()  # a request dropped on purpose must not leave it to the collector
                elif name == "payload_json":
                    body = json.loads(value)
        else:
            raw = await request.read()
            if raw:
                body = json.loads(raw) if "json" in ctype else raw.decode("utf-8", "replace")
        auth_header = request.headers.get("Authorization")
        auth = None if auth_header is None else ("bot" if auth_header == f"Bot {self.token}" else "rejected")
        headers = {k.lower(): v for k, v in request.headers.items()}
        if "authorization" in headers:
            headers["authorization"] = "Bot <token>" if auth == "bot" else "<rejected token>"
        fault = self._next_fault(request.method, path)
        if fault is not None and fault.kind == "late":
            await asyncio.sleep(fault.delay)
        elif fault is not None and fault.kind == "answer":
            if fault.store:
                self._handle(request.method, path, query, body, files, headers, auth)
            given = fault.answer or server_error(500)
            out = {**given.headers, "Content-Type": "application/json"}
            return web.Response(status=given.status, body=json.dumps(given.body).encode(), headers=out)
        elif fault is not None:  # drop or hold: take effect (or not), then no answer at all
            if fault.store:
                self._handle(request.method, path, query, body, files, headers, auth)
            if fault.kind == "hold":
                fault.reached.set()
                await asyncio.get_running_loop().run_in_executor(None, fault.release.wait, 60)
            if request.transport is not None:
                request.transport.abort()
            raise asyncio.CancelledError  # aiohttp ends the handler without writing anything
        answer = self._handle(request.method, path, query, body, files, headers, auth)
        out_headers = dict(answer.headers)
        if answer.body is None:
            return web.Response(status=answer.status, headers=out_headers)
        out_headers["Content-Type"] = "application/json"  # exactly: discord.py parses nothing else
        return web.Response(status=answer.status, body=json.dumps(answer.body).encode(), headers=out_headers)

    def _handle(
        self,
        method: str,
        path: str,
        query: dict[str, str],
        body: Any,
        files: list[UploadedFile],
        headers: dict[str, str],
        auth: str | None,
    ) -> Answer:
        with self._lock:
            template, params, handler = "", {}, None
            allowed = False
            for m, tmpl, pattern, name in _ROUTES:
                match = pattern.match(path)
                if match:
                    allowed = True
                    if m == method:
                        template, params, handler = tmpl, match.groupdict(), getattr(self, name)
                        break
            call = ApiCall(
                method,
                path,
                f"{method} {template or path}",
                params,
                query,
                body,
                files,
                headers,
                auth,
                time.monotonic(),
            )
            self.calls.append(call)
            req = _Req(method, path, params, query, body, files, auth)
            scripted = self._scripts.get(call.route) or self._scripts.get(call.key)
            if scripted:
                answer = scripted.pop(0)
                call.scripted = True
                if answer.apply_first and handler is not None:
                    handler(req)
            elif handler is None:
                answer = Answer(
                    405 if allowed else 404,
                    {"message": "405: Method Not Allowed" if allowed else "404: Not Found", "code": 0},
                )
            elif auth != "bot" and not template.startswith(
                ("/interactions/", "/webhooks/{application_id}/{token}")
            ):
                answer = discord_error(0)
            else:
                limited, headers = self._bucket(call, params)
                answer = limited or handler(req)
                answer.headers.update(headers)
            call.status, call.response = answer.status, copy.deepcopy(answer.body)
            self._changed()
            return answer

    def _bucket(self, call: ApiCall, params: Mapping[str, str]) -> tuple[Answer | None, dict[str, str]]:
        """Optional per-route budget (``bucket=(limit, window)``) with Discord's headers and 429s."""
        if self.bucket is None:
            return None, {}
        limit, window = self.bucket
        major = params.get("channel_id") or params.get("guild_id") or params.get("token") or ""
        key = f"{call.route}:{major}"
        now = time.monotonic()
        # 1 ms of grace: a client sleeping exactly Reset-After may wake a timer tick early
        hits = [t for t in self._buckets.get(key, []) if now - t < window - 0.001]
        reset_after = window - (now - hits[0]) if hits else window
        if len(hits) >= limit:
            self._buckets[key] = hits
            return rate_limited(round(reset_after, 3)), self._bucket_headers(
                call.route, limit, 0, reset_after
            )
        hits.append(now)
        self._buckets[key] = hits
        return None, self._bucket_headers(call.route, limit, limit - len(hits), reset_after)

    @staticmethod
    def _bucket_headers(route: str, limit: int, remaining: int, reset_after: float) -> dict[str, str]:
        return {
            "X-RateLimit-Bucket": hashlib.md5(route.encode()).hexdigest()[:16],
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{math.ceil((time.time() + reset_after) * 1000) / 1000:.3f}",
            "X-RateLimit-Reset-After": f"{math.ceil(reset_after * 1000) / 1000:.3f}",  # never early
        }

    def _ok(self, body: Any, status: int = 200) -> Answer:
        return Answer(status, body)

    def _no_content(self) -> Answer:
        return self._ok(None, 204)

    # -- lookups ---------------------------------------------------------------------------------------

    def _find_channel(self, channel_id: str) -> Channel | None:
        for guild in self.guilds.values():
            if channel_id in guild.channels:
                return guild.channels[channel_id]
        return None

    def _visible_channel(self, channel_id: str) -> tuple[Channel | None, Answer | None]:
        chan = self._find_channel(channel_id)
        if chan is None:
            return None, discord_error(10003)
        if not self.permissions(channel_id) & Perm.VIEW_CHANNEL:
            return None, discord_error(50001)
        return chan, None

    # -- REST: users, application, gateway --------------------------------------------------------------

    @_route("GET", "/users/@me")
    def _get_me(self, req: _Req) -> Answer:
        return self._ok(
            {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0, "locale": "en-US"}
        )

    @_route("GET", "/users/{user_id}")
    def _get_user(self, req: _Req) -> Answer:
        user = self.users.get(req.params["user_id"])
        return self._ok(user.payload()) if user else discord_error(10013)

    @_route("GET", "/oauth2/applications/@me")
    def _get_application(self, req: _Req) -> Answer:
        return self._ok(
            {
                "id": APP_ID,
                "name": "prdigest",
                "icon": None,
                "description": "Weekly digests of merged PRs",
                "summary": "",
                "type": None,
                "hook": True,
                "bot_public": False,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "owner": self.users[OWNER_ID].payload(),
                "team": None,
                "flags": 0,
                "rpc_origins": [],
                "tags": [],
                "install_params": {
                    "scopes": ["bot", "applications.commands"],
                    "permissions": str(int(BOT_PERMISSIONS)),
                },
                "integration_types_config": {"0": {}},
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "approximate_guild_count": len(self.guilds),
                "bot": self.bot_user.payload(),
            }
        )

    @_route("GET", "/gateway")
    def _get_gateway(self, req: _Req) -> Answer:
        return self._ok({"url": self.gateway_url})

    @_route("GET", "/gateway/bot")
    def _get_gateway_bot(self, req: _Req) -> Answer:
        return self._ok(
            {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 86400000,
                    "max_concurrency": 1,
                },
            }
        )

    # -- REST: application commands -----------------------------------------------------------------------

    @_route("GET", "/applications/{application_id}/commands")
    @_route("GET", "/applications/{application_id}/guilds/{guild_id}/commands")
    def _list_commands(self, req: _Req) -> Answer:
        guild_id = req.params.get("guild_id")
        return self._scope_error(req, guild_id) or self._ok(copy.deepcopy(self._commands.get(guild_id, [])))

    @_route("GET", "/applications/{application_id}/commands/{command_id}")
    @_route("GET", "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}")
    def _get_command(self, req: _Req) -> Answer:
        return self._one_command(req)

    @_route("DELETE", "/applications/{application_id}/commands/{command_id}")
    @_route("DELETE", "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}")
    def _delete_command(self, req: _Req) -> Answer:
        return self._one_command(req, delete=True)

    def _scope_error(self, req: _Req, guild_id: str | None) -> Answer | None:
        if req.params["application_id"] != APP_ID:
            return discord_error(50001)
        if guild_id is not None and (
            guild_id not in self.guilds or BOT_ID not in self.guilds[guild_id].members
        ):
            return discord_error(50001)  # the app is not installed there
        return None

    def _one_command(self, req: _Req, *, delete: bool = False) -> Answer:
        guild_id = req.params.get("guild_id")
        error = self._scope_error(req, guild_id)
        if error:
            return error
        cmds = self._commands.get(guild_id, [])
        for cmd in cmds:
            if cmd["id"] == req.params["command_id"]:
                if delete:
                    cmds.remove(cmd)
                    return self._no_content()
                return self._ok(copy.deepcopy(cmd))
        return discord_error(10063)

    @_route("PUT", "/applications/{application_id}/commands")
    @_route("PUT", "/applications/{application_id}/guilds/{guild_id}/commands")
    def _overwrite_commands(self, req: _Req) -> Answer:
        """Bulk overwrite: the list replaces the scope's commands; a command keeps its id when its
        name and type stay (as on Discord), new names count toward the daily create limit."""
        guild_id = req.params.get("guild_id")
        error = self._scope_error(req, guild_id)
        if error:
            return error
        if not isinstance(req.json, list):
            return form_error([], "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType")
        invalid = _validate_commands(req.json)
        if invalid:
            return invalid
        old = {(c["name"], c.get("type", 1)): c for c in self._commands.get(guild_id, [])}
        new_names = [c for c in req.json if (c["name"], c.get("type", 1)) not in old]
        if self._creates.get(guild_id, 0) + len(new_names) > self.daily_command_creates:
            return rate_limited(86400.0, code=30034)
        self._creates[guild_id] = self._creates.get(guild_id, 0) + len(new_names)
        stored = []
        for spec in req.json:
            kind = spec.get("type", 1)
            prev = old.get((spec["name"], kind))
            cmd = {
                "id": prev["id"] if prev else _snowflake(),
                "application_id": APP_ID,
                "version": _snowflake(),
                "type": kind,
                "name": spec["name"],
                "name_localizations": spec.get("name_localizations"),
                "description": spec.get("description", ""),
                "description_localizations": spec.get("description_localizations"),
                "default_member_permissions": spec.get("default_member_permissions"),
                "dm_permission": spec.get("dm_permission", True),
                "nsfw": spec.get("nsfw", False),
                "integration_types": spec.get("integration_types", [0]),
                "contexts": spec.get("contexts"),
                "options": copy.deepcopy(spec.get("options", [])),
            }
            if guild_id is not None:
                cmd["guild_id"] = guild_id
            stored.append(cmd)
        self._commands[guild_id] = stored
        return self._ok(copy.deepcopy(stored))

    # -- REST: guilds and channels --------------------------------------------------------------------------

    def _member_guild(self, guild_id: str) -> tuple[Guild | None, Answer | None]:
        guild = self.guilds.get(guild_id)
        if guild is None:
            return None, discord_error(10004)
        if BOT_ID not in guild.members:
            return None, discord_error(50001)
        return guild, None

    @_route("GET", "/guilds/{guild_id}")
    def _get_guild(self, req: _Req) -> Answer:
        guild, error = self._member_guild(req.params["guild_id"])
        return error or self._ok(guild.payload(self.users))  # type: ignore[union-attr]

    @_route("GET", "/guilds/{guild_id}/roles")
    def _get_roles(self, req: _Req) -> Answer:
        guild, error = self._member_guild(req.params["guild_id"])
        return error or self._ok([r.payload() for r in guild.roles.values()])  # type: ignore[union-attr]

    @_route("GET", "/guilds/{guild_id}/channels")
    def _get_guild_channels(self, req: _Req) -> Answer:
        guild, error = self._member_guild(req.params["guild_id"])
        if error:
            return error
        return self._ok([c.payload() for c in guild.channels.values() if not c.is_thread])  # type: ignore[union-attr]

    @_route("GET", "/guilds/{guild_id}/members/{user_id}")
    def _get_member(self, req: _Req) -> Answer:
        guild, error = self._member_guild(req.params["guild_id"])
        if error:
            return error
        uid = req.params["user_id"]
        if uid not in guild.members:  # type: ignore[union-attr]
            return discord_error(10007)
        return self._ok(guild.member_payload(uid, self.users))  # type: ignore[union-attr]

    @_route("GET", "/channels/{channel_id}")
    def _get_channel(self, req: _Req) -> Answer:
        chan, error = self._visible_channel(req.params["channel_id"])
        return error or self._ok(chan.payload())  # type: ignore[union-attr]

    @_route("POST", "/channels/{channel_id}/typing")
    def _typing(self, req: _Req) -> Answer:
        _chan, error = self._visible_channel(req.params["channel_id"])
        return error or self._no_content()

    # -- REST: messages ------------------------------------------------------------------------------------

    @_route("GET", "/channels/{channel_id}/messages")
    def _get_messages(self, req: _Req) -> Answer:
        cid = req.params["channel_id"]
        _chan, error = self._visible_channel(cid)
        if error:
            return error
        try:
            limit = int(req.query.get("limit", "50"))
        except ValueError:
            return form_error(["limit"], "NUMBER_TYPE_COERCE", "Value is not int.")
        if not 1 <= limit <= 100:
            return form_error(["limit"], "NUMBER_TYPE_MAX", "int value should be between 1 and 100.")
        if not self.permissions(cid) & Perm.READ_MESSAGE_HISTORY:
            return self._ok([])  # Discord returns no messages without Read Message History
        msgs = list(reversed(self._messages.get(cid, [])))  # newest first
        if "before" in req.query:
            msgs = [m for m in msgs if int(m["id"]) < int(req.query["before"])]
        if "after" in req.query:
            msgs = [m for m in msgs if int(m["id"]) > int(req.query["after"])][-limit:]
        return self._ok(copy.deepcopy(msgs[:limit]))

    @_route("GET", "/channels/{channel_id}/messages/{message_id}")
    def _get_message(self, req: _Req) -> Answer:
        _chan, error = self._visible_channel(req.params["channel_id"])
        if error:
            return error
        msg = self._channel_message(req.params["channel_id"], req.params["message_id"])
        return self._ok(copy.deepcopy(msg)) if msg else discord_error(10008)

    @_route("POST", "/channels/{channel_id}/messages")
    def _post_message(self, req: _Req) -> Answer:
        cid = req.params["channel_id"]
        chan, error = self._visible_channel(cid)
        if error:
            return error
        assert chan is not None
        perms = self.permissions(cid)
        needed = Perm.SEND_MESSAGES_IN_THREADS if chan.is_thread else Perm.SEND_MESSAGES
        if not perms & needed:
            return discord_error(50013)
        payload = dict(req.json or {})
        if req.files and not perms & Perm.ATTACH_FILES:
            return discord_error(50013)
        invalid = validate_message(payload, files=len(req.files))
        if invalid:
            return invalid
        nonce = payload.get("nonce")
        if nonce is not None and payload.get("enforce_nonce"):
            seen = self._nonces.get((BOT_ID, str(nonce)))
            if seen is not None and seen in self._by_id:
                return self._ok(copy.deepcopy(self._by_id[seen]))  # the message it already made
        if not perms & Perm.EMBED_LINKS:
            payload["embeds"] = []  # Discord drops them without a word
        msg = self._new_message(cid, payload, req.files)
        if nonce is not None and payload.get("enforce_nonce"):
            self._nonces[(BOT_ID, str(nonce))] = msg["id"]
        return self._ok(copy.deepcopy(msg))

    @_route("PATCH", "/channels/{channel_id}/messages/{message_id}")
    def _edit_message(self, req: _Req) -> Answer:
        _chan, error = self._visible_channel(req.params["channel_id"])
        if error:
            return error
        msg = self._channel_message(req.params["channel_id"], req.params["message_id"])
        if msg is None:
            return discord_error(10008)
        if msg["author"]["id"] != BOT_ID:
            return discord_error(50005)
        return self._apply_edit(msg, dict(req.json or {}), req.files)

    @_route("DELETE", "/channels/{channel_id}/messages/{message_id}")
    def _delete_message(self, req: _Req) -> Answer:
        _chan, error = self._visible_channel(req.params["channel_id"])
        if error:
            return error
        msg = self._channel_message(req.params["channel_id"], req.params["message_id"])
        if msg is None:
            return discord_error(10008)
        self._remove_message(msg)
        return self._no_content()

    def _channel_message(self, channel_id: str, message_id: str) -> dict[str, Any] | None:
        msg = self._by_id.get(message_id)
        return msg if msg is not None and msg["channel_id"] == channel_id else None

    def _new_message(
        self,
        channel_id: str,
        payload: Mapping[str, Any],
        files: Sequence[UploadedFile] = (),
        *,
        webhook_id: str | None = None,
        flags: int = 0,
        interaction: _Interaction | None = None,
    ) -> dict[str, Any]:
        content = str(payload.get("content") or "")
        everyone, user_ids, role_ids = resolve_mentions(content, payload.get("allowed_mentions"))
        mid = _snowflake()
        msg: dict[str, Any] = {
            "id": mid,
            "channel_id": channel_id,
            "type": 0,
            "author": self.bot_user.payload(),
            "content": content,
            "timestamp": _iso(time.time()),
            "edited_timestamp": None,
            "tts": bool(payload.get("tts", False)),
            "mention_everyone": everyone,
            "mentions": [
                self.users[u].payload() if u in self.users else User(u, f"user{u[-4:]}").payload()
                for u in user_ids
            ],
            "mention_roles": role_ids,
            "attachments": (attachments := self._attachments(payload, files)),
            "embeds": [
                _resolve_image({"type": "rich", **e}, attachments) for e in payload.get("embeds") or []
            ],
            "pinned": False,
            "flags": int(payload.get("flags") or 0) | flags,
            "components": list(payload.get("components") or []),
        }
        if payload.get("nonce") is not None:
            msg["nonce"] = payload["nonce"]
        if webhook_id is not None:
            msg["webhook_id"] = webhook_id
            msg["application_id"] = APP_ID
        if interaction is not None:
            user = (
                (interaction.payload.get("member") or {}).get("user") or interaction.payload.get("user") or {}
            )
            msg["type"] = 20  # CHAT_INPUT_COMMAND reply
            msg["interaction_metadata"] = {
                "id": interaction.id,
                "type": interaction.type,
                "user": user,
                "authorizing_integration_owners": interaction.payload.get(
                    "authorizing_integration_owners", {}
                ),
            }
        self._by_id[mid] = msg
        if not msg["flags"] & EPHEMERAL:
            self._messages.setdefault(channel_id, []).append(msg)
            chan = self._find_channel(channel_id)
            if chan is not None and chan.is_thread:
                chan.message_count += 1
            event = dict(msg)
            if chan is not None:
                event["guild_id"] = chan.guild_id
            self._dispatch_locked("MESSAGE_CREATE", copy.deepcopy(event), intent=INTENT_GUILD_MESSAGES)
        return msg

    def _attachments(self, payload: Mapping[str, Any], files: Sequence[UploadedFile]) -> list[dict[str, Any]]:
        described = {str(a.get("id")): a for a in payload.get("attachments") or []}
        out = []
        for i, f in enumerate(files):
            meta = described.get(str(i), {})
            aid = _snowflake()
            entry = {
                "id": aid,
                "filename": meta.get("filename", f.filename),
                "size": len(f.data),
                "url": f"{self.base}/attachments/{aid}/{f.filename}",
                "proxy_url": f"{self.base}/attachments/{aid}/{f.filename}",
                "content_type": f.content_type,
            }
            if meta.get("description"):
                entry["description"] = meta["description"]
            out.append(entry)
        return out

    def _apply_edit(
        self,
        msg: dict[str, Any],
        payload: dict[str, Any],
        files: Sequence[UploadedFile],
        *,
        resolve: bool = False,
    ) -> Answer:
        invalid = validate_message(payload, files=len(files), edit=True)
        if invalid:
            return invalid
        if "content" in payload:
            msg["content"] = str(payload["content"] or "")
            everyone, user_ids, role_ids = resolve_mentions(msg["content"], payload.get("allowed_mentions"))
            msg.update(mention_everyone=everyone, mention_roles=role_ids)
            msg["mentions"] = [
                self.users[u].payload() if u in self.users else User(u, "user").payload() for u in user_ids
            ]
        if "embeds" in payload:
            msg["embeds"] = [{"type": "rich", **e} for e in payload["embeds"] or []]
        if "components" in payload:
            msg["components"] = list(payload["components"] or [])
        if files:
            msg["attachments"] = self._attachments(payload, files)
        if "flags" in payload and payload["flags"] is not None:
            msg["flags"] = (msg["flags"] & (EPHEMERAL | HAS_THREAD)) | int(payload["flags"])
        if not msg["flags"] & LOADING and not resolve:
            msg["edited_timestamp"] = _iso(time.time())
        msg["flags"] &= ~LOADING
        return self._ok(copy.deepcopy(msg))

    def _remove_message(self, msg: Mapping[str, Any]) -> None:
        self._by_id.pop(msg["id"], None)
        msgs = self._messages.get(msg["channel_id"], [])
        self._messages[msg["channel_id"]] = [m for m in msgs if m["id"] != msg["id"]]

    # -- REST: threads ----------------------------------------------------------------------------------

    @_route("POST", "/channels/{channel_id}/messages/{message_id}/threads")
    def _thread_from_message(self, req: _Req) -> Answer:
        cid, mid = req.params["channel_id"], req.params["message_id"]
        chan, error = self._visible_channel(cid)
        if error:
            return error
        assert chan is not None
        if chan.type not in (TEXT_CHANNEL, ANNOUNCEMENT_CHANNEL):
            return discord_error(50024)
        msg = self._channel_message(cid, mid)
        if msg is None:
            return discord_error(10008)
        if self._find_channel(mid) is not None:
            return discord_error(160004)
        if not self.permissions(cid) & Perm.CREATE_PUBLIC_THREADS:
            return discord_error(50013)
        invalid = _validate_thread(req.json)
        if invalid:
            return invalid
        thread = self._new_thread(chan, mid, req.json)
        msg["flags"] |= HAS_THREAD
        msg["thread"] = thread.payload()
        return self._ok({**thread.payload(), "member": self._thread_member(thread)}, 201)

    @_route("POST", "/channels/{channel_id}/threads")
    def _thread_without_message(self, req: _Req) -> Answer:
        chan, error = self._visible_channel(req.params["channel_id"])
        if error:
            return error
        assert chan is not None
        if chan.type not in (TEXT_CHANNEL, ANNOUNCEMENT_CHANNEL):
            return discord_error(50024)
        if not self.permissions(chan.id) & Perm.CREATE_PUBLIC_THREADS:
            return discord_error(50013)
        invalid = _validate_thread(req.json)
        if invalid:
            return invalid
        thread = self._new_thread(chan, _snowflake(), req.json)
        return self._ok({**thread.payload(), "member": self._thread_member(thread)}, 201)

    def _new_thread(self, parent: Channel, thread_id: str, spec: Mapping[str, Any]) -> Channel:
        thread = Channel(
            thread_id,
            parent.guild_id,
            str(spec["name"]),
            PUBLIC_THREAD,
            parent_id=parent.id,
            owner_id=BOT_ID,
            auto_archive_duration=int(spec.get("auto_archive_duration") or 1440),
            created=_iso(time.time()),
        )
        self.guilds[parent.guild_id].channels[thread.id] = thread
        self._messages[thread.id] = []
        self._dispatch_locked(
            "THREAD_CREATE", {**thread.payload(), "newly_created": True}, intent=INTENT_GUILDS
        )
        return thread

    @staticmethod
    def _thread_member(thread: Channel) -> dict[str, Any]:
        return {"id": thread.id, "user_id": BOT_ID, "join_timestamp": thread.created, "flags": 0}

    # -- REST: interactions -----------------------------------------------------------------------------

    def _register_interaction(self, payload: dict[str, Any]) -> None:
        self._interactions[str(payload["id"])] = _Interaction(
            str(payload["id"]),
            str(payload["token"]),
            int(payload["type"]),
            payload,
            time.monotonic(),
            payload.get("channel_id") or (payload.get("channel") or {}).get("id"),
            payload.get("guild_id"),
        )

    def expire_interaction(self, token: str) -> None:
        """Make an interaction token as dead as after Discord's 15 minutes."""
        with self._lock:
            for ix in self._interactions.values():
                if ix.token == token:
                    ix.expired = True

    def _by_token(self, application_id: str, token: str) -> tuple[_Interaction | None, Answer | None]:
        if application_id != APP_ID:
            return None, discord_error(10015)
        for ix in self._interactions.values():
            if ix.token == token:
                if ix.expired or time.monotonic() - ix.created > self.interaction_ttl:
                    return None, discord_error(50027)
                if ix.response_type is None:
                    return None, discord_error(10015)  # no followups before the first response
                return ix, None
        return None, discord_error(10015)

    @_route("POST", "/interactions/{interaction_id}/{token}/callback")
    def _callback(self, req: _Req) -> Answer:
        ix = self._interactions.get(req.params["interaction_id"])
        if ix is None or ix.token != req.params["token"] or ix.expired:
            return discord_error(10062)
        if ix.response_type is not None:
            return discord_error(40060)
        if time.monotonic() - ix.created > self.interaction_deadline:
            return discord_error(10062)  # the 3 seconds are over
        body = req.json if isinstance(req.json, dict) else {}
        kind = body.get("type")
        data = dict(body.get("data") or {})
        allowed = {1: {1}, 2: {4, 5, 9, 10, 12}, 3: {4, 5, 6, 7, 9, 10, 12}, 4: {8}, 5: {4, 5, 6, 7, 10, 12}}
        if kind not in allowed.get(ix.type, set()):
            return form_error(
                ["type"],
                "INTERACTION_RESPONSE_TYPE_INVALID",
                "Interaction response type is invalid for this interaction",
            )
        resource: dict[str, Any] = {"type": kind}
        if kind == 8:
            choices = data.get("choices")
            if not isinstance(choices, list) or len(choices) > 25:
                return form_error(
                    ["data", "choices"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
                )
            for i, c in enumerate(choices):
                if not 1 <= len(str(c.get("name", ""))) <= 100:
                    return form_error(
                        ["data", "choices", i, "name"],
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 100 in length.",
                    )
                if isinstance(c.get("value"), str) and len(c["value"]) > 100:
                    return form_error(
                        ["data", "choices", i, "value"],
                        "BASE_TYPE_MAX_LENGTH",
                        "Must be 100 or fewer in length.",
                    )
        elif kind in (4, 5):
            if kind == 4:
                invalid = validate_message(data, files=len(req.files))
                if invalid:
                    return invalid
            channel_id = ix.channel_id or "0"
            msg = self._new_message(
                channel_id,
                data if kind == 4 else {"content": "", "flags": data.get("flags", 0)},
                req.files if kind == 4 else (),
                webhook_id=APP_ID,
                flags=0 if kind == 4 else LOADING,
                interaction=ix,
            )
            ix.original_id = msg["id"]
            resource["message"] = copy.deepcopy(msg)
        ix.response_type, ix.responded_at = kind, time.monotonic()
        if req.query.get("with_response") not in ("1", "true", "True"):
            return self._no_content()
        callback: dict[str, Any] = {"id": ix.id, "type": ix.type}
        if ix.original_id:
            flags = self._by_id[ix.original_id]["flags"]
            callback.update(
                response_message_id=ix.original_id,
                response_message_loading=bool(flags & LOADING),
                response_message_ephemeral=bool(flags & EPHEMERAL),
            )
        return self._ok({"interaction": callback, "resource": resource})

    @_route("POST", "/webhooks/{application_id}/{token}")
    def _followup(self, req: _Req) -> Answer:
        ix, error = self._by_token(req.params["application_id"], req.params["token"])
        if error:
            return error
        assert ix is not None
        payload = dict(req.json or {})
        invalid = validate_message(payload, files=len(req.files))
        if invalid:
            return invalid
        original = self._by_id.get(ix.original_id or "")
        if original is not None and original["flags"] & LOADING:
            # The first followup after a deferral resolves the "thinking" message: it becomes the
            # original response and keeps the deferral's ephemeral state whatever its own flags say
            # (discord-api-docs #2742, #3466).
            payload.pop("flags", None)
            self._apply_edit(original, payload, req.files, resolve=True)
            msg = original
        else:
            msg = self._new_message(
                ix.channel_id or "0", payload, req.files, webhook_id=APP_ID, interaction=ix
            )
        if req.query.get("wait") in ("1", "true", "True"):
            return self._ok(copy.deepcopy(msg))
        return self._no_content()

    def _webhook_message(self, req: _Req) -> tuple[dict[str, Any] | None, Answer | None]:
        """The interaction's original response (``@original``) or one of its followups."""
        ix, error = self._by_token(req.params["application_id"], req.params["token"])
        if error:
            return None, error
        assert ix is not None
        wanted = req.params.get("message_id", "@original")
        msg = self._by_id.get(ix.original_id or "" if wanted == "@original" else wanted)
        if msg is None or (msg.get("interaction_metadata") or {}).get("id") != ix.id:
            return None, discord_error(10008)
        return msg, None

    # the @original template is registered first: {message_id} would match it too
    @_route("GET", "/webhooks/{application_id}/{token}/messages/{message_id}")
    @_route("GET", "/webhooks/{application_id}/{token}/messages/@original")
    def _get_webhook_message(self, req: _Req) -> Answer:
        msg, error = self._webhook_message(req)
        return error or self._ok(copy.deepcopy(msg))

    @_route("PATCH", "/webhooks/{application_id}/{token}/messages/{message_id}")
    @_route("PATCH", "/webhooks/{application_id}/{token}/messages/@original")
    def _edit_webhook_message(self, req: _Req) -> Answer:
        msg, error = self._webhook_message(req)
        if error:
            return error
        assert msg is not None
        return self._apply_edit(msg, dict(req.json or {}), req.files)

    @_route("DELETE", "/webhooks/{application_id}/{token}/messages/{message_id}")
    @_route("DELETE", "/webhooks/{application_id}/{token}/messages/@original")
    def _delete_webhook_message(self, req: _Req) -> Answer:
        msg, error = self._webhook_message(req)
        if error:
            return error
        assert msg is not None
        self._remove_message(msg)
        return self._no_content()


def _resolve_image(embed: dict[str, Any], attachments: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """An embed image ``attachment://NAME`` becomes the uploaded file's URL (with its size), as
    Discord stores it; one naming no attachment of the message is dropped (Discord shows none)."""
    url = str((embed.get("image") or {}).get("url") or "")
    if not url.startswith("attachment://"):
        return embed
    found = next((a for a in attachments if a["filename"] == url.removeprefix("attachment://")), None)
    if found is None:
        return {k: v for k, v in embed.items() if k != "image"}
    return {**embed, "image": {"url": found["url"], "proxy_url": found["proxy_url"]}}


def _validate_thread(spec: Any) -> Answer | None:
    if not isinstance(spec, dict) or not 1 <= len(str(spec.get("name") or "")) <= 100:
        return form_error(["name"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
    duration = spec.get("auto_archive_duration")
    if duration is not None and duration not in (60, 1440, 4320, 10080):
        return form_error(
            ["auto_archive_duration"], "BASE_TYPE_CHOICES", "Value must be one of {60, 1440, 4320, 10080}."
        )
    return None


_COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")


def _validate_commands(specs: Sequence[Any]) -> Answer | None:
    """Discord's checks on a bulk overwrite (the ones a generated command set can trip)."""
    if sum(1 for s in specs if isinstance(s, dict) and s.get("type", 1) == 1) > 100:
        return form_error([], "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
    seen: set[tuple[str, int]] = set()
    for i, spec in enumerate(specs):
        if not isinstance(spec, dict):
            return form_error([i], "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        name = str(spec.get("name") or "")
        kind = spec.get("type", 1)
        if kind == 1 and (not _COMMAND_NAME.match(name) or name != name.lower()):
            return form_error([i, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
        if (name, kind) in seen:
            return form_error(
                [i, "name"], "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique"
            )
        seen.add((name, kind))
        if kind == 1 and not 1 <= len(spec.get("description") or "") <= 100:
            return form_error(
                [i, "description"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
            )
        options = spec.get("options") or []
        if len(options) > 25:
            return form_error([i, "options"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        optional_seen = False
        for j, opt in enumerate(options):
            oname = str(opt.get("name") or "")
            if not _COMMAND_NAME.match(oname) or oname != oname.lower():
                return form_error(
                    [i, "options", j, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"
                )
            if not 1 <= len(opt.get("description") or "") <= 100:
                return form_error(
                    [i, "options", j, "description"],
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 100 in length.",
                )
            if len(opt.get("choices") or []) > 25:
                return form_error(
                    [i, "options", j, "choices"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
                )
            if opt.get("choices") and opt.get("autocomplete"):
                return form_error(
                    [i, "options", j, "autocomplete"],
                    "AUTOCOMPLETE_AND_CHOICES",
                    "Autocomplete cannot be set with choices",
                )
            if opt.get("type") not in (1, 2):
                if opt.get("required"):
                    if optional_seen:
                        return form_error(
                            [i, "options"],
                            "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                            "Required options must be placed before non-required options",
                        )
                else:
                    optional_seen = True
    return None


class FakeInteraction:
    """A dispatched interaction: its REST traffic (callback, followups, edits) as the fake saw it."""

    def __init__(self, fake: FakeDiscord, id: str, token: str, payload: dict[str, Any]) -> None:
        self.fake, self.id, self.token, self.payload = fake, id, token, payload

    def calls(self) -> list[ApiCall]:
        """Every request carrying this interaction's token, in arrival order."""
        with self.fake._lock:
            return [c for c in self.fake.calls if c.params.get("token") == self.token]

    async def wait_calls(self, count: int, timeout: float = 10.0) -> list[ApiCall]:
        def enough() -> list[ApiCall] | None:
            found = self.calls()
            return found if len(found) >= count else None

        return await self.fake.until(enough, timeout, f"{count} request(s) for interaction {self.id}")

    @property
    def response_delay(self) -> float | None:
        """Seconds from dispatch to the first callback (None: not answered)."""
        with self.fake._lock:
            ix = self.fake._interactions[self.id]
            return None if ix.responded_at is None else ix.responded_at - ix.created

    @property
    def original(self) -> dict[str, Any] | None:
        with self.fake._lock:
            ix = self.fake._interactions[self.id]
            return None if ix.original_id is None else copy.deepcopy(self.fake._by_id[ix.original_id])


@contextlib.asynccontextmanager
async def connected(
    client: discord.Client, token: str = TOKEN, *, timeout: float = 10.0
) -> AsyncIterator[discord.Client]:
    """``async with client:`` + ``client.start(token)`` in a task, until READY (bounded); closes the
    client and awaits the task on the way out. A failing start (LoginFailure, ...) is raised here."""
    async with client:
        task = asyncio.create_task(client.start(token), name="discord-client")
        ready = asyncio.create_task(client.wait_until_ready())
        done, _ = await asyncio.wait({task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ready
            if task in done:
                task.result()  # raises what start() raised
                raise AssertionError("discord.py stopped before READY")
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            raise AssertionError(f"discord.py did not become ready within {timeout}s")
        try:
            yield client
        finally:
            await client.close()
            await asyncio.wait_for(task, timeout)
