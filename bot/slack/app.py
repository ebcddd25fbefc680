"""The Slack app: slash commands in, the command registry's Replies out.

Flow for every command (Bolt lazy listener): acknowledge at once with an empty 200, then, off the
3-second clock, turn the payload into an ``Invocation``, run ``commands.registry.dispatch`` in a
worker thread (SQLite work must not block the event loop that keeps acknowledging other
requests), render the Reply and answer through ``respond`` (the response_url).

Answers are ephemeral unless the text contains the word ``public``; a public answer that needs
several messages is posted with the bot token as a lead message plus thread replies. Users never
see a traceback: bad input becomes the registry's one-line usage message, our own failures a
short apology, and the log gets the details (never the payload, which carries a token).
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.answer import answer
from bot.config import Settings
from bot.slack.post import DEFAULT_PACE, SlackPostError, post_messages_async
from bot.slack.render import SlackMessage, apology, escape, mrkdwn_text, render, render_notice, section
from commands.model import Invocation, Reply, UsageError
from commands.registry import REGISTRY, Context, load_all, split_args

log = logging.getLogger(__name__)

T = TypeVar("T")

COMMANDS = ("digest", "risks", "pr", "search", "help")
# "/digest", and "/prdigest-digest" for workspaces where "/digest" is taken (rename it in the manifest).
COMMAND_PATTERN = re.compile(r"^/(?:prdigest[-_])?(" + "|".join(COMMANDS) + r")$")
PUBLIC_WORD = "public"
# A response_url accepts five messages within 30 minutes.
MAX_RESPONSES = 5


# -- running commands off the event loop --------------------------------------------------------


class CommandRunner:
    """Runs registry commands in worker threads, each with its own Context.

    SQLite connections belong to the thread that opened them, so every worker builds its own
    Context (store + profile) on first use from ``factory``.
    """

    def __init__(
        self, factory: Callable[[], Context], *, workers: int = 2, settings: Settings | None = None
    ) -> None:
        self._factory = factory
        self._settings = settings  # enables on-demand GitHub fetches for `/pr` of uncached PRs
        self._local = threading.local()
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="prdigest-cmd")

    def _context(self) -> Context:
        ctx: Context | None = getattr(self._local, "ctx", None)
        if ctx is None:
            ctx = self._factory()
            self._local.ctx = ctx
        return ctx

    async def call(self, fn: Callable[[Context], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, lambda: fn(self._context()))

    async def dispatch(self, inv: Invocation) -> Reply:
        return await self.call(lambda ctx: answer(inv, ctx, self._settings))

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


# -- payload → Invocation ---------------------------------------------------------------------


@dataclass(frozen=True)
class SlashRequest:
    command: str
    text: str
    args: tuple[str, ...] = ()
    public: bool = False
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def command_name(slash: str) -> str:
    m = COMMAND_PATTERN.match(slash.strip())
    return m.group(1) if m else slash.strip().lstrip("/")


def parse_slash(slash: str, text: str) -> SlashRequest:
    """Split the command text; the unquoted word ``public`` asks for an in-channel answer.

    Quoting keeps it a plain word (``/search "public" api`` searches for "public").
    """
    name = command_name(slash)
    words = text.split()
    public = any(w.lower() == PUBLIC_WORD for w in words)
    rest = " ".join(w for w in words if w.lower() != PUBLIC_WORD)
    try:
        args = split_args(rest)
    except UsageError as exc:
        return SlashRequest(name, text, public=public, error=str(exc))
    return SlashRequest(name, text, args=args, public=public)


def usage_for(name: str) -> str:
    load_all()
    spec = REGISTRY.get(name)
    return f"/{spec.usage}" if spec else f"/{name}"


def slack_usage(reply: Reply) -> Reply:
    """The registry's ``— usage: pr NUMBER`` reads ``— usage: /pr NUMBER`` in Slack."""
    load_all()
    spec = REGISTRY.get(reply.command)
    if reply.status != "usage" or spec is None:
        return reply
    title = reply.title.replace(f"usage: {spec.usage}", f"usage: /{spec.usage}")
    return reply.model_copy(update={"title": title})


def invocation(req: SlashRequest, settings: Settings, user: str | None) -> Invocation:
    return Invocation(
        command=req.command,
        args=req.args,
        repo=settings.prdigest_repo,
        lang=settings.prdigest_lang,
        timezone=settings.prdigest_timezone,
        platform="slack",
        user=user,
    )


# -- answering --------------------------------------------------------------------------------


def overflow_notice(req: SlashRequest, parts: int) -> SlackMessage:
    shown = MAX_RESPONSES - 1
    text = (
        f":information_source: This answer has {parts} parts and a private reply can show {shown}. "
        f"Add the word `public` (`/{req.command} {mrkdwn_text(req.text)} public`) to post all of it in a "
        f"thread, or run `prdigest {req.command}` in a terminal."
    )
    fallback = f"This answer has {parts} parts; {shown} are shown."
    return SlackMessage(text=fallback, blocks=[section(text[:2900])])


async def _send(respond: AsyncRespond, message: SlackMessage, response_type: str) -> None:
    resp = await respond(text=message.text, blocks=message.blocks, response_type=response_type)
    if resp.status_code != 200:
        log.warning("response_url answered %s: %s", resp.status_code, (resp.body or "")[:200])


async def deliver(
    reply: Reply,
    req: SlashRequest,
    *,
    respond: AsyncRespond,
    client: AsyncWebClient,
    channel_id: str | None,
    pace: float = DEFAULT_PACE,
) -> None:
    """Send a Reply back: notices ephemeral; ``public`` in channel (threaded when long)."""
    if reply.status != "ok":
        await _send(respond, render_notice(slack_usage(reply)), "ephemeral")
        return
    # Rendering a big digest is pure CPU: keep it off the loop that acknowledges other requests.
    if req.public:
        messages = await asyncio.to_thread(render, reply, mode="thread")
        if len(messages) == 1 or not channel_id:
            for m in messages[:MAX_RESPONSES]:
                await _send(respond, m, "in_channel")
            return
        try:
            await post_messages_async(client, channel_id, messages, pace=pace)
        except SlackPostError as exc:
            text = f":warning: {escape(str(exc))}"  # our own sentence: keep its `code` formatting
            await _send(respond, SlackMessage(text=text, blocks=[section(text[:3000])]), "ephemeral")
        return
    messages = await asyncio.to_thread(render, reply, mode="compact")
    if len(messages) > MAX_RESPONSES:
        messages = [*messages[: MAX_RESPONSES - 1], overflow_notice(req, len(messages))]
    for m in messages:
        await _send(respond, m, "ephemeral")


class _OwnClientNotice(logging.Filter):
    """Bolt warns "As you gave `client` as well, `token` will be unused" whenever SLACK_BOT_TOKEN
    is in the environment; passing our own client (base URL, rate-limit handlers) is deliberate."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("As you gave `client` as well")


_bolt_log = logging.getLogger("slack_bolt.AsyncApp")
if not any(isinstance(f, _OwnClientNotice) for f in _bolt_log.filters):
    _bolt_log.addFilter(_OwnClientNotice())


def build_app(
    settings: Settings,
    runner: CommandRunner,
    *,
    client: AsyncWebClient,
    http: bool = True,
    pace: float = DEFAULT_PACE,
) -> AsyncApp:
    """The Bolt AsyncApp with one listener for the five commands.

    ``http=True`` verifies every request with SLACK_SIGNING_SECRET (Bolt's RequestVerification:
    HMAC of the raw body, timestamps older than 5 minutes refused with 401); Socket Mode
    requests come over an authenticated WebSocket and skip it.
    """
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else ""
    app = AsyncApp(
        name="prdigest",
        client=client,
        # The ack function returns at once, so running it inline (instead of as a task the runner
        # polls every 10 ms) answers Slack sooner; the real work is the lazy listener either way.
        process_before_response=True,
        signing_secret=secret if http else None,
        request_verification_enabled=http,
        url_verification_enabled=http,
        ssl_check_enabled=http,
    )

    async def acknowledge(ack: Any) -> None:
        await ack()

    async def answer(body: dict[str, Any], respond: AsyncRespond) -> None:
        # Posts go through ``client`` (ours, with the rate-limit handlers), not Bolt's per-request copy.
        req = parse_slash(str(body.get("command", "")), str(body.get("text", "") or ""))
        channel = body.get("channel_id")
        try:
            if req.error is not None:
                reply = Reply.usage(req.command, f"{req.error} — usage: {usage_for(req.command)}")
            else:
                reply = await runner.dispatch(invocation(req, settings, body.get("user_id")))
            await deliver(reply, req, respond=respond, client=client, channel_id=channel, pace=pace)
        except Exception:
            log.exception("/%s failed (user %s, channel %s)", req.command, body.get("user_id"), channel)
            try:
                await _send(respond, apology(), "ephemeral")
            except Exception:
                log.exception("could not send the apology for /%s", req.command)

    app.command(COMMAND_PATTERN)(ack=acknowledge, lazy=[answer])
    return app
