"""A scheduled digest on Discord, one message at a time (``bot.chat.steps.StepPoster``).

Every message is sent with a nonce made of the delivery key and the step key, with
``enforce_nonce`` (discord.py sets it with every nonce): Discord returns the message it already
made for a nonce it saw in the last few minutes instead of making another, so discord.py's own
retries (a 5xx, a reset connection) and ours cannot post a message twice while the nonce is
remembered. For anything older the message is found by its key: the first embed of every message
links to the repository with ``#prdigest/<delivery>/<step>`` as the URL's fragment — invisible
to readers (the title links to the repository), unlike the footer that carried the key before.
The lead is looked for in the channel, a reply in the lead's thread (whose id is the lead's).

Every request is bounded by ``timeout`` (PRDIGEST_POST_TIMEOUT): an answer later than that is a
lost answer, and the deliverer looks before it sends again.

Many channels are posted to at once (``bot.delivery.lanes``). Discord's limits are per route
bucket (a channel's messages are one) and discord.py keeps them from the X-RateLimit headers,
waiting out a 429 (a global one for every request); the global limit itself (50 requests a
second for the bot) is kept here beforehand, with room left for the bot's other requests:
``GLOBAL_RATE`` message posts and history reads a second at the most.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.chat.discord.client import bot_token, discord
from bot.chat.discord.post import _ERRORS, HISTORY_PAGE, HISTORY_PAGES, DiscordPoster, explain, without_files
from bot.chat.discord.render import DiscordMessage, render
from bot.chat.pacing import Quota, Rate
from bot.chat.post import PermanentPostError
from bot.chat.steps import Landed, OnUploads, Step, files_from_json, files_json, part_keys, section_keys
from bot.config.settings import Settings
from commands.locale import t
from commands.model import Reply

log = logging.getLogger(__name__)

GLOBAL_RATE = Quota(per_second=40.0, burst=5)
MARK = "#prdigest/"  # the URL fragment that carries a message's delivery and step


def step_url(repo: str, delivery: str, step: str) -> str:
    return f"https://github.com/{repo}{MARK}{delivery}/{step}"


def step_nonce(channel: str, delivery: str, step: str) -> str:
    """A nonce of 25 characters (Discord's limit) for one step of one delivery to one channel (the
    channel too: Discord returns an earlier message of the same author with the same nonce, and
    another cache's subscription #1 posting the same week elsewhere must not get ours)."""
    return "pd" + hashlib.blake2b(f"{channel}/{delivery}/{step}".encode(), digest_size=16).hexdigest()[:23]


def key_of(message: dict[str, Any]) -> str | None:
    """``<delivery>/<step>`` from a message as Discord returns it, if it carries one."""
    for embed in message.get("embeds") or []:
        url = str(embed.get("url") or "")
        if MARK in url:
            return url.split(MARK, 1)[1]
    return None


def part_counts(reply: Reply, thread: bool) -> list[int]:
    """How many messages the lead and each section take in ``render``'s thread layout."""
    counts = [len(render(replace(reply, sections=[]), mode="thread"))]
    for section in reply.sections:
        alone = replace(reply, title="", blocks=[], sections=[section], files=[])
        counts.append(len(render(alone, mode="thread")))
    return counts


class DiscordSteps(DiscordPoster):
    """The Discord poster with the steps of a scheduled delivery (see the module docstring)."""

    def __init__(self, settings: Settings, *, client: Any = None, timeout: float | None = None) -> None:
        super().__init__(settings, client=client)
        self.timeout = timeout if timeout is not None else settings.prdigest_post_timeout
        self.settle = 2 * self.timeout
        self._targets: dict[tuple[str, bool], tuple[Any, bool]] = {}
        self._threads: dict[str, Any] = {}
        self._login = asyncio.Lock()  # deliveries to several channels at once log in once
        self.rate = Rate(GLOBAL_RATE.per_second, GLOBAL_RATE.burst)

    async def _client(self) -> Any:
        async with self._login:
            return await super()._client()

    # -- rendering, once -------------------------------------------------------------------

    def steps(self, reply: Reply, *, key: str, repo: str, smaller: Reply | None = None) -> list[Step]:
        threaded = self.layout == "thread" and bool(reply.sections)
        plain = replace(reply, delivery_key=None)
        messages = render(plain, mode="thread" if threaded else "compact")
        counts = part_counts(plain, threaded) if threaded else [len(messages)]
        if sum(counts) == len(messages):
            keys = [
                k for part, n in zip(section_keys(reply), counts, strict=False) for k in part_keys(part, n)
            ]
        else:  # the layout changed: keys by position, still unique
            keys = ["lead", *(f"message-{i + 1}" for i in range(1, len(messages)))]
        fallback = render(replace(smaller, delivery_key=None, files=[]), mode="compact") if smaller else []
        out = []
        for i, (step_key, message) in enumerate(zip(keys, messages, strict=True)):
            body = self._body(message, repo, key, step_key, thread=threaded and i > 0, title=reply.title)
            small = (
                self._body(fallback[0], repo, key, step_key, thread=False, title=reply.title)
                if i == 0 and fallback
                else None
            )
            out.append(Step(step_key, body, small))
        return out

    def keyed(self, steps: Sequence[Step], *, key: str, repo: str) -> list[Step]:
        """The steps with this delivery's key in the first embed's URL (of the smaller layout too)."""

        def rekeyed(body: dict[str, Any] | None, step: str) -> dict[str, Any] | None:
            if body is None or not body.get("embeds"):
                return body
            embeds = [dict(e) for e in body["embeds"]]
            embeds[0]["url"] = step_url(repo, key, step)
            return {**body, "embeds": embeds}

        return [Step(s.key, rekeyed(s.body, s.key) or s.body, rekeyed(s.fallback, s.key)) for s in steps]

    @staticmethod
    def _body(
        message: DiscordMessage, repo: str, delivery: str, step: str, *, thread: bool, title: str
    ) -> dict[str, Any]:
        body: dict[str, Any] = message.payload()
        if body["embeds"]:
            body["embeds"] = [dict(e) for e in body["embeds"]]
            body["embeds"][0]["url"] = step_url(repo, delivery, step)
        body["files"] = files_json(message.files)
        body["thread"] = thread
        body["title"] = title
        return body

    # -- posting -----------------------------------------------------------------------------

    async def send_step(
        self,
        channel: str,
        step: Step,
        *,
        lead: str | None,
        delivery: str,
        uploads: Sequence[dict[str, Any]] = (),
        on_uploads: OnUploads | None = None,
    ) -> Landed:
        """Post one message (into the lead's thread for a reply of the thread layout)."""
        body = step.body
        message = DiscordMessage(
            content=str(body.get("content") or ""),
            embeds=list(body.get("embeds") or []),
            files=files_from_json(body.get("files") or []),
        )
        try:
            target, can_attach = await self._checked(channel, thread=bool(body.get("thread")))
            if message.files and not can_attach:
                log.warning("discord: no Attach Files permission in %s; posting without the chart", channel)
                message = without_files(message)
            dest = target
            if body.get("thread") and lead is not None:
                dest = await self._thread(target, lead, str(body.get("title") or ""))
            await self.rate.wait()
            sent = await asyncio.wait_for(
                self._send(dest, message, step_nonce(channel, delivery, step.key)), self.timeout
            )
        except (*_ERRORS, TimeoutError) as exc:
            failure = explain(exc, channel)
            if failure.code == "50013" and body.get("thread"):  # name what the thread needs
                needs = t("en", "discord.needs", permission="Send Messages in Threads", channel=channel)
                failure = PermanentPostError(needs, code="50013")
            log.warning("discord post to %s failed: %s", channel, failure)
            raise failure from None
        return Landed(str(sent.id))

    async def _checked(self, channel: str, *, thread: bool) -> tuple[Any, bool]:
        """The channel and whether files may be attached, checked once per poster."""
        if (channel, thread) not in self._targets:
            found = await asyncio.wait_for(self.target(channel, "en", thread=thread), self.timeout)
            self._targets[(channel, thread)] = found
        return self._targets[(channel, thread)]

    async def _thread(self, target: Any, lead: str, title: str) -> Any:
        if lead not in self._threads:
            self._threads[lead] = await asyncio.wait_for(self.thread(target, int(lead), title), self.timeout)
        return self._threads[lead]

    async def delete_uploads(self, ids: Sequence[str]) -> None:
        """Nothing to delete: Discord's files travel inside their message."""

    # -- looking ---------------------------------------------------------------------------------

    async def find_step(self, channel: str, step: Step, *, lead: str | None, delivery: str) -> Landed | None:
        """This step's message if it is in the channel (the lead, a single layout's further
        messages) or the lead's thread; None when it is not; ``PostError`` when the history
        cannot be read (the bot lacks Read Message History: Discord then answers an empty list,
        which proves nothing)."""
        channel = channel.strip().removeprefix("#")
        where = lead if (lead is not None and step.body.get("thread")) else channel
        wanted = f"{delivery}/{step.key}"
        try:
            await self._checked(channel, thread=False)
            client = await self._client()
            me = str(client.user.id)
            before: int | None = None
            for _ in range(HISTORY_PAGES):
                await self.rate.wait()
                page = await asyncio.wait_for(
                    client.http.logs_from(int(where), HISTORY_PAGE, before=before), self.timeout
                )
                for message in page:  # our own messages only: another bot could copy a URL
                    if str((message.get("author") or {}).get("id")) == me and key_of(message) == wanted:
                        return Landed(str(message["id"]))
                if len(page) < HISTORY_PAGE:
                    return None
                before = int(page[-1]["id"])
        except discord.NotFound:
            return None  # the thread was never made: nothing of it was posted
        except (*_ERRORS, TimeoutError) as exc:
            raise explain(exc, channel) from None
        return None

    async def link(self, channel: str, lead: str) -> str | None:
        target = self._targets.get((channel, False)) or self._targets.get((channel, True))
        guild = getattr(getattr(target[0], "guild", None), "id", "@me") if target else "@me"
        return f"https://discord.com/channels/{guild}/{channel}/{lead}"


def poster(settings: Settings) -> DiscordSteps:
    """``bot.chat.steps``'s entry point (ConfigError without DISCORD_BOT_TOKEN)."""
    bot_token(settings)
    return DiscordSteps(settings)
