"""The Slack app's listeners: slash commands in, the command registry's Replies out.

Flow for every command (Bolt lazy listener): acknowledge at once with an empty 200, then, off the
3-second clock, split the text against the command's declared parameters, run it through the
host's runner (SQLite work must not block the event loop that keeps acknowledging other
requests), render the Reply and answer through ``respond`` (the response_url).

Answers are ephemeral unless the text carries the flag ``public``; a public answer that needs
several messages is posted with the bot token as a lead message plus thread replies (the Slack
``Poster``). Users never see a traceback: bad input becomes the registry's one-line usage
message, our own failures a short apology, and the log gets the details (never the payload,
which carries a token).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.errors import SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.chat.post import PostError, PostResult
from bot.chat.slack.post import SlackPoster
from bot.chat.slack.render import SlackMessage, apology, escape, mrkdwn_text, render, render_notice, section
from bot.chat.throttle import ChangeLimiter, charge, refuse_if_busy
from bot.config.components import Runner
from bot.config.settings import Settings
from bot.prose.chat import stage
from bot.prose.writer import ProseWriter
from commands.invocations import invocation as make_invocation
from commands.locale import t
from commands.model import Invocation, Lang, Reply
from commands.registry import REGISTRY, load_all

log = logging.getLogger(__name__)

# A response_url accepts five messages within 30 minutes.
MAX_RESPONSES = 5


@functools.cache
def command_pattern() -> re.Pattern[str]:
    """``/digest``, and ``/prdigest-digest`` for workspaces where ``/digest`` is taken."""
    load_all()
    return re.compile(r"^/(?:prdigest[-_])?(" + "|".join(map(re.escape, REGISTRY)) + r")$")


# -- payload → Invocation ---------------------------------------------------------------------


@dataclass(frozen=True)
class SlashRequest:
    """A slash command as Slack sends it: the command's name and the text typed after it (parsed
    by the registry, once, with the command's declared parameters)."""

    command: str
    text: str


def command_name(slash: str) -> str:
    m = command_pattern().match(slash.strip())
    return m.group(1) if m else slash.strip().lstrip("/")


def invocation(
    req: SlashRequest, settings: Settings, user: str | None, channel: str | None = None
) -> Invocation:
    return make_invocation(
        req.command,
        platform="slack",
        defaults=settings.command_defaults(chat=True),
        text=req.text,
        user=user,
        channel=channel,
    )


def configured_admins(settings: Settings) -> frozenset[str]:
    return frozenset(u.strip() for u in settings.prdigest_admins.split(",") if u.strip())


async def is_admin(client: AsyncWebClient, settings: Settings, user: str | None) -> bool:
    """Checked at run time, for admin-only commands only: a PRDIGEST_ADMINS id, or a workspace
    admin or owner according to users.info (scope users:read). Any failure means no."""
    if not user:
        return False
    if user in configured_admins(settings):
        return True
    try:
        resp = await client.users_info(user=user)
    except (SlackClientError, OSError) as exc:
        log.info("users.info for %s failed: %s", user, type(exc).__name__)
        return False
    info = resp.get("user") or {}
    return bool(info.get("is_admin") or info.get("is_owner") or info.get("is_primary_owner"))


async def prepare(
    inv: Invocation,
    *,
    client: AsyncWebClient,
    poster: SlackPoster,
    settings: Settings,
    limiter: ChangeLimiter | None = None,
) -> tuple[Invocation, Reply | None]:
    """What the edge decides before an admin-only command runs: whether its user has changed
    subscriptions too often just now (``limiter``), who is asking, and (for ``subscribe``)
    whether the bot can use the channel — it joins it, so that it can post and read back its own
    posts; a channel it cannot use is answered now and nothing is stored."""
    spec = REGISTRY.get(inv.command)
    if spec is None or not spec.admin_only:
        return inv, None
    busy = refuse_if_busy(limiter, inv)
    if busy is not None:
        return inv, busy
    inv = replace(inv, is_admin=await is_admin(client, settings, inv.user))
    if inv.is_admin and inv.command == "subscribe" and inv.channel:
        try:
            await poster.join(inv.channel)
        except PostError as exc:
            return inv, Reply.usage("subscribe", t(inv.lang, "sub.cannot_use", reason=str(exc)))
    return inv, None


# -- answering --------------------------------------------------------------------------------


def overflow_notice(req: SlashRequest, parts: int, lang: str) -> SlackMessage:
    shown = MAX_RESPONSES - 1
    example = f"/{req.command} {mrkdwn_text(req.text)} public".replace("  ", " ")
    text = ":information_source: " + t(
        lang, "chat.overflow", parts=parts, shown=shown, example=example, command=req.command
    )
    fallback = t(lang, "chat.overflow_fallback", parts=parts, shown=shown)
    return SlackMessage(text=fallback, blocks=[section(text[:2900])])


async def _send(respond: AsyncRespond, message: SlackMessage, response_type: str) -> None:
    resp = await respond(text=message.text, blocks=message.blocks, response_type=response_type)
    if resp.status_code != 200:
        log.warning("response_url answered %s", resp.status_code)


@dataclass
class Sent:
    """Where an answer went, so that its worded form can take its place (``revise``): posted
    with the bot token (lead and thread), or this many messages through the response_url."""

    posted: PostResult | None = None
    responses: int = 0
    response_type: str = "ephemeral"


async def _warn(respond: AsyncRespond, exc: PostError) -> None:
    text = f":warning: {escape(str(exc))}"  # our own sentence: keep its `code` formatting
    await _send(respond, SlackMessage(text=text, blocks=[section(text[:3000])]), "ephemeral")


async def _messages(reply: Reply, req: SlashRequest, public: bool) -> list[SlackMessage]:
    """The answer's messages: threaded when public, packed (with the overflow notice) when not.
    Rendering a big digest is pure CPU: it runs off the loop that acknowledges other requests."""
    if public:
        return await asyncio.to_thread(render, reply, mode="thread")
    messages = await asyncio.to_thread(render, reply, mode="compact")
    if len(messages) > MAX_RESPONSES:
        messages = [*messages[: MAX_RESPONSES - 1], overflow_notice(req, len(messages), reply.lang)]
    return messages


async def deliver(
    reply: Reply,
    req: SlashRequest,
    *,
    public: bool,
    respond: AsyncRespond,
    poster: SlackPoster,
    channel_id: str | None,
) -> Sent:
    """Send a Reply back: notices ephemeral; ``public`` in channel (threaded when long)."""
    if reply.status != "ok":
        await _send(respond, render_notice(reply), "ephemeral")
        return Sent(responses=1)
    messages = await _messages(reply, req, public)
    if public and len(messages) > 1 and channel_id:
        try:
            return Sent(posted=await poster.post_messages(channel_id, messages, lang=reply.lang))
        except PostError as exc:
            await _warn(respond, exc)
            return Sent()
    kind = "in_channel" if public else "ephemeral"
    for m in messages[:MAX_RESPONSES]:
        await _send(respond, m, kind)
    return Sent(responses=min(len(messages), MAX_RESPONSES), response_type=kind)


async def revise(
    sent: Sent, worded: Reply, req: SlashRequest, *, public: bool, respond: AsyncRespond, poster: SlackPoster
) -> None:
    """Put the worded answer in place of the computed one sent before: the posted messages
    updated (``chat.update``; extra ones in the thread, surplus ones deleted), or the one
    response_url message replaced (``replace_original``; extra ones follow while the
    response_url's five messages last). A computed answer of several response_url messages
    stays as it was: a response_url replaces only its last message."""
    messages = await _messages(worded, req, public)
    if sent.posted is not None:
        try:
            await poster.revise(sent.posted, messages, lang=worded.lang)
        except PostError as exc:
            log.warning("/%s: the worded answer could not replace the computed one: %s", req.command, exc)
        return
    if sent.responses != 1:
        log.info(
            "/%s: %d computed messages cannot be replaced; the worded answer is not sent",
            req.command,
            sent.responses,
        )
        return
    first, *rest = messages
    resp = await respond(
        text=first.text, blocks=first.blocks, response_type=sent.response_type, replace_original=True
    )
    if resp.status_code != 200:
        log.warning("response_url answered %s to the replacement", resp.status_code)
        return
    for m in rest[: MAX_RESPONSES - 2]:
        await _send(respond, m, sent.response_type)


class Inflight:
    """The answers still being worked on, so that a stop lets them finish instead of cutting
    them off (Bolt starts each lazy listener as a task it does not keep)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    @contextlib.contextmanager
    def track(self) -> Iterator[None]:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            yield
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def drain(self, timeout: float) -> int:
        """Wait up to ``timeout`` seconds for the answers in flight; returns how many remain."""
        pending = {t for t in self._tasks if t is not asyncio.current_task()}
        if pending:
            _, pending = await asyncio.wait(pending, timeout=timeout)
        return len(pending)


class _OwnClientNotice(logging.Filter):
    """Bolt warns "As you gave `client` as well, `token` will be unused" whenever SLACK_BOT_TOKEN
    is in the environment; passing our own client (base URL, retry handlers) is deliberate."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("As you gave `client` as well")


def build_app(
    settings: Settings,
    runner: Runner,
    *,
    client: AsyncWebClient,
    poster: SlackPoster,
    http: bool = True,
    inflight: Inflight | None = None,
    prose: ProseWriter | None = None,
) -> AsyncApp:
    """The Bolt AsyncApp with one listener for every registered command.

    Requests reach Bolt verified once, by us: over HTTP the component checks the signature on
    the raw bytes before anything decodes them (``bot.chat.slack.verify``: counted, logged
    without the body), so Bolt's own RequestVerification is off; Socket Mode requests come over
    an authenticated WebSocket. ``http=True`` keeps Bolt's answers to Slack's URL verification
    and SSL checks. Bolt logs through a logger of ours, so the one notice above is filtered
    there and nowhere else. ``prose`` words digests
    with a language model (``bot.prose.chat``), when one is configured.
    """
    writer = prose
    bolt_log = log.getChild("bolt")
    if not any(isinstance(f, _OwnClientNotice) for f in bolt_log.filters):
        bolt_log.addFilter(_OwnClientNotice())
    app = AsyncApp(
        name="prdigest",
        client=client,
        logger=bolt_log,
        # The ack function returns at once, so running it inline (instead of as a task the runner
        # polls every 10 ms) answers Slack sooner; the real work is the lazy listener either way.
        process_before_response=True,
        signing_secret="",  # verified before Bolt sees the request (``bot.chat.slack.verify``)
        request_verification_enabled=False,
        url_verification_enabled=http,
        ssl_check_enabled=http,
    )

    async def acknowledge(ack: Any) -> None:
        await ack()

    tracker = inflight or Inflight()
    limiter = ChangeLimiter()  # subscription changes per user (bot.chat.throttle)

    async def answer(body: dict[str, Any], respond: AsyncRespond) -> None:
        with tracker.track():
            await _answer(body, respond)

    async def _answer(body: dict[str, Any], respond: AsyncRespond) -> None:
        req = SlashRequest(command_name(str(body.get("command", ""))), str(body.get("text", "") or ""))
        channel = body.get("channel_id")
        inv = invocation(req, settings, body.get("user_id"), channel)
        lang: Lang = inv.lang
        try:
            inv, refused = await prepare(
                inv, client=client, poster=poster, settings=settings, limiter=limiter
            )
            reply = refused or await runner.dispatch(inv)
            charge(limiter, inv, reply)
            reply.lang = lang
            public = "public" in reply.flags
            staged = await stage(writer, reply)
            sent = await deliver(
                staged.now, req, public=public, respond=respond, poster=poster, channel_id=channel
            )
            worded = await staged.revision()
            if worded is not None:
                await revise(sent, worded, req, public=public, respond=respond, poster=poster)
        except Exception:
            log.exception("/%s failed (user %s, channel %s)", req.command, body.get("user_id"), channel)
            try:
                await _send(respond, apology(lang), "ephemeral")
            except Exception:
                log.exception("could not send the apology for /%s", req.command)

    app.command(command_pattern())(ack=acknowledge, lazy=[answer])
    return app
