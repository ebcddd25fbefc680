"""Posting to Discord over REST: the Discord ``Poster`` (``bot.chat.post``).

A Reply becomes a lead message (title, summary, top highlights) with the sections in a thread
started from it; ``layout="single"`` packs everything into as few channel messages as possible.
Before anything is sent, the bot's permissions in the channel are computed the way Discord does
(the guild's roles, the channel's overwrites, the bot's member) and a missing one is named —
without Embed Links Discord would accept the post and silently drop every embed.

Every message carries a stable ``nonce`` (a hash of the channel, the message and its place), sent
with ``enforce_nonce``: a retried post — discord.py's own retry after a lost 5xx answer — finds
the message already there instead of posting it twice. Scheduled digests are posted one keyed
message at a time by ``bot.chat.discord.steps``. Rate
limits are discord.py's to wait out up to ``MAX_RETRY_AFTER``; longer ones, 5xx and network
failures are ``TransientPostError``; unknown channel (10003), missing access (50001), missing
permissions (50013) and a rejected token are ``PermanentPostError``.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import aiohttp

from bot.chat.discord.client import TokenRejected, Unreachable, bot_token, discord, login, make_client
from bot.chat.discord.render import DiscordMessage, render, violations
from bot.chat.post import PermanentPostError, PostError, PostResult, TransientPostError
from bot.config.retry_after import retry_after
from bot.config.settings import ConfigError, Settings
from commands.locale import t
from commands.model import Reply

log = logging.getLogger(__name__)

TARGET_HINT = "discord:CHANNEL_ID"
Layout = Literal["thread", "single"]
MAX_THREAD_NAME = 100

# (attribute of discord.Permissions, the name Discord's settings show)
BASE_PERMISSIONS = (
    ("view_channel", "View Channel"),
    ("send_messages", "Send Messages"),
    ("embed_links", "Embed Links"),
    ("read_message_history", "Read Message History"),
)
THREAD_PERMISSIONS = (
    ("create_public_threads", "Create Public Threads"),
    ("send_messages_in_threads", "Send Messages in Threads"),
)
FILE_PERMISSIONS = (("attach_files", "Attach Files"),)
#: every permission the bot may need: what ``prdigest discord invite-url`` asks for
ALL_PERMISSIONS = (*BASE_PERMISSIONS, *FILE_PERMISSIONS, *THREAD_PERMISSIONS)

HISTORY_PAGE = 100  # GET /channels/{id}/messages takes at most 100
HISTORY_PAGES = 5  # the channel's last 500 messages: far more than a week brings after a digest

PERMANENT_CODES = {
    10003: "discord.unknown_channel",
    50001: "discord.missing_access",
    50013: "discord.missing_permissions",
}


def invite_permissions() -> int:
    return discord.Permissions(**{attr: True for attr, _ in ALL_PERMISSIONS}).value


def nonce(channel: str, message: DiscordMessage, index: int) -> str:
    """A stable nonce of at most 25 characters for the ``index``-th message of a post."""
    body = json.dumps([channel, index, message.payload()], sort_keys=True, ensure_ascii=False)
    return f"pd{hashlib.blake2b(body.encode(), digest_size=10).hexdigest()}{index:02d}"[:25]


def to_embeds(message: DiscordMessage) -> list[discord.Embed]:
    return [discord.Embed.from_dict(e) for e in message.embeds]


def to_files(message: DiscordMessage) -> list[discord.File]:
    """The message's attachments as multipart files (new objects for every send: discord.py
    reads them to the end)."""
    return [
        discord.File(io.BytesIO(f.data), filename=f.name, description=f.description or None)
        for f in message.files
    ]


def explain(exc: BaseException, channel: str, lang: str = "en") -> PostError:
    """A Discord failure as one actionable line, transient or permanent, with Discord's code."""
    if isinstance(exc, PostError):
        return exc
    if isinstance(exc, Unreachable):
        return TransientPostError(str(exc))
    if isinstance(exc, TokenRejected):
        return PermanentPostError(str(exc), code="401")
    if isinstance(exc, discord.RateLimited):
        return TransientPostError(
            t(lang, "discord.rate_limited", channel=channel, wait=f"{exc.retry_after:.0f}"),
            code="429",
            retry_after=exc.retry_after,
        )
    if isinstance(exc, discord.HTTPException):
        code = exc.code or exc.status
        if exc.code in PERMANENT_CODES:
            return PermanentPostError(t(lang, PERMANENT_CODES[exc.code], channel=channel), code=str(exc.code))
        if exc.status == 401:
            return PermanentPostError(t(lang, "discord.auth"), code="401")
        if exc.status == 429:
            wait = _retry_after(exc)
            shown = f"{wait:.0f}" if wait is not None else "?"
            return TransientPostError(
                t(lang, "discord.rate_limited", channel=channel, wait=shown), code="429", retry_after=wait
            )
        text = t(lang, "discord.api_error", code=code, text=str(exc.text)[:200])
        if exc.status >= 500:  # the message may have been stored before the error
            return TransientPostError(text, code=str(code), uncertain=True)
        return PermanentPostError(text, code=str(code))
    if isinstance(exc, ConfigError):
        return PermanentPostError(str(exc))
    error = f"{type(exc).__name__}: {exc}"  # a dropped connection: no answer, so maybe posted
    return TransientPostError(t(lang, "discord.unreachable", error=error), uncertain=True)


_ERRORS = (discord.DiscordException, aiohttp.ClientError, OSError, ConfigError)


def _retry_after(exc: discord.HTTPException) -> float | None:
    """The wait a 429 asked for: its JSON ``retry_after``, else its Retry-After header."""
    text = exc.text if isinstance(exc.text, str) else ""
    try:
        body = json.loads(text) if text.startswith("{") else {}
        if isinstance(body, dict) and isinstance(body.get("retry_after"), int | float):
            return max(0.0, float(body["retry_after"]))
    except ValueError:
        pass
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    return retry_after(headers.get("Retry-After"))


def without_files(message: DiscordMessage) -> DiscordMessage:
    """The message without its attachments and the embed images that showed them."""
    names = {f"attachment://{f.name}" for f in message.files}
    embeds = [
        {k: v for k, v in e.items() if not (k == "image" and (v or {}).get("url") in names)}
        for e in message.embeds
    ]
    return replace(message, embeds=embeds, files=[])


class DiscordPoster:
    """The Discord ``Poster``. ``client`` may be a running gateway client (the bot shares its
    session); without one the poster logs in over REST on first use and closes on ``close()``."""

    platform = "discord"

    def __init__(self, settings: Settings, *, client: Any = None, layout: Layout = "thread") -> None:
        self.settings = settings
        self.layout = layout
        self._own = client is None
        self.client: Any = client

    async def _client(self) -> Any:
        if self.client is None:
            self.client = make_client(self.settings)
        if self.client.user is None:
            await login(self.client, self.settings)
        return self.client

    async def post(self, reply: Reply, channel: str) -> PostResult:
        """Post ``reply`` to ``channel`` (its ID: right-click the channel › Copy Channel ID)."""
        # a reply without sections (a "single" subscription's digest, folded into its lead) is
        # one message where it fits and consecutive ones where it does not: no thread to ask for
        layout: Layout = self.layout if reply.sections else "single"
        messages = render(reply, mode="thread" if layout == "thread" else "compact")
        return await self.post_messages(channel, messages, title=reply.title, lang=reply.lang, layout=layout)

    async def check(self, channel: str, *, thread: bool = True, lang: str = "en") -> None:
        """For ``prdigest subscribe discord:ID``: the channel exists and the bot has every
        permission a scheduled digest needs there (PermanentPostError naming the first missing)."""
        try:
            await self.target(channel.strip().removeprefix("#"), lang, thread=thread)
        except _ERRORS as exc:
            raise explain(exc, channel, lang) from None

    async def target(self, channel: str, lang: str, *, thread: bool) -> tuple[Any, bool]:
        """The channel, fetched with its guild, after checking every permission the post needs,
        and whether the bot may attach files there (not required: without it the chart is left
        out, see ``post_messages``)."""
        client = await self._client()
        if not channel.isdigit():
            raise PermanentPostError(t(lang, "discord.channel_id", channel=channel))
        found = await client.fetch_channel(int(channel))
        guild_id = getattr(getattr(found, "guild", None), "id", None)
        if guild_id is None:  # a DM channel: nothing to check
            return found, True
        guild = await client.fetch_guild(guild_id)
        fetched = await guild.fetch_channel(int(channel))
        me = await guild.fetch_member(client.user.id)
        perms = fetched.permissions_for(me)
        needed = [*BASE_PERMISSIONS, *(THREAD_PERMISSIONS if thread else ())]
        missing = [label for attr, label in needed if not getattr(perms, attr)]
        if missing:
            raise PermanentPostError(
                t(lang, "discord.needs", permission=missing[0], channel=f"#{fetched.name}"), code="50013"
            )
        return fetched, bool(perms.attach_files)

    async def post_messages(
        self,
        channel: str,
        messages: Sequence[DiscordMessage],
        *,
        title: str = "",
        lang: str = "en",
        layout: Layout | None = None,
    ) -> PostResult:
        """``messages[0]`` to the channel, the rest in a thread started from it (``thread``
        layout) or after it (``single``; ``layout`` overrides the poster's). Files go as multipart attachments; where the bot may not
        attach files (or Discord refuses the upload) the message goes without them and without the
        embed image that showed them — the digest matters more than its chart."""
        channel = channel.strip().removeprefix("#")
        for m in messages:
            problems = violations(m)
            if problems:  # the renderer guarantees this; refuse rather than let Discord half-post
                raise PermanentPostError(
                    f"refusing to post a message that breaks Discord's limits: {problems[0]}"
                )
        threaded = (layout or self.layout) == "thread" and len(messages) > 1
        done: list[str] = []
        try:
            target, can_attach = await self.target(channel, lang, thread=threaded)
            dest = target
            for i, message in enumerate(messages):
                if message.files and not can_attach:
                    log.warning(
                        "discord: no Attach Files permission in %s; posting without the chart", channel
                    )
                    message = without_files(message)
                sent = await self._send(dest, message, nonce(channel, message, i))
                done.append(str(sent.id))
                if i == 0 and threaded:
                    dest = await self.thread(target, sent.id, title)
        except _ERRORS as exc:
            failure = explain(exc, channel, lang)
            if done:
                reason = t(lang, "discord.partial", done=len(done), total=len(messages), reason=failure)
                failure = type(failure)(reason, code=failure.code, posted=len(done))
            log.warning("discord post to %s failed: %s", channel, failure)
            raise failure from None
        guild = getattr(getattr(target, "guild", None), "id", "@me")
        link = f"https://discord.com/channels/{guild}/{channel}/{done[0]}"
        return PostResult("discord", channel, tuple(done), link)

    async def _send(self, dest: Any, message: DiscordMessage, key: str) -> Any:
        """One message; when Discord refuses its attachment (too large: 40005), once more without."""
        try:
            return await dest.send(
                content=message.content or None,
                embeds=to_embeds(message),
                files=to_files(message),
                nonce=key,
            )
        except discord.HTTPException as exc:
            if not message.files or exc.code != 40005:
                raise
            log.warning("discord refused the attachment (%s); posting without the chart", exc.code)
            return await dest.send(
                content=message.content or None, embeds=to_embeds(without_files(message)), nonce=key
            )

    async def thread(self, channel: Any, message_id: int, title: str) -> Any:
        """A public thread from the lead (from the fetched channel: it has the guild); when a
        retried post meets the thread already made (160004), that thread."""
        name = (" ".join(title.split()) or "prdigest")[:MAX_THREAD_NAME]
        try:
            return await channel.get_partial_message(message_id).create_thread(name=name)
        except discord.HTTPException as exc:
            if exc.code != 160004:
                raise
            return await self.client.fetch_channel(message_id)

    async def close(self) -> None:
        if self._own and self.client is not None:
            await self.client.close()


def poster(settings: Settings) -> DiscordPoster:
    """``bot.chat.post``'s entry point (ConfigError without DISCORD_BOT_TOKEN)."""
    bot_token(settings)
    return DiscordPoster(settings)
