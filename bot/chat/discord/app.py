"""Discord interactions in, the command registry's Replies out.

Flow for a slash command: defer at once (Discord allows 3 s for the first answer; the deferral
says "prdigest is thinking…" and decides, once and for all, whether the answer is ephemeral — so
``public`` is read from the options before anything else), run the command through the host's
runner off the event loop, render the Reply as embeds and complete the interaction with
followups. A long public answer becomes the followup plus a thread of the rest, posted with the
bot token (``DiscordPoster``); a long private one shows its first parts and says how to see all.
The interaction token lives 15 minutes: anything later (a slow on-demand GitHub fetch) is posted
with the bot token instead.

Autocomplete cannot be deferred: it is answered from memory (the profile's modules, the weeks
around now, the repositories read at start), never from the database.

Users never see a traceback: bad input becomes the registry's one-line usage message (always
private: a ``public`` deferral is deleted first), our own failures a short apology, and the log
gets the details.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from bot.chat.discord.client import discord
from bot.chat.discord.post import BASE_PERMISSIONS, THREAD_PERMISSIONS, DiscordPoster, nonce, to_embeds
from bot.chat.discord.render import DiscordMessage, apology, render, render_notice, text_message
from bot.chat.post import PostError
from bot.chat.throttle import ChangeLimiter, charge, refuse_if_busy
from bot.config.components import Runner
from bot.config.settings import Settings
from bot.prose.chat import stage
from bot.prose.writer import ProseWriter
from classify.rules import Profile
from commands.invocations import invocation as make_invocation
from commands.locale import t
from commands.model import Invocation, Reply
from commands.params import Scope, suggestions
from commands.registry import REGISTRY, load_all

log = logging.getLogger(__name__)

# A private answer shows at most this many messages (each up to 10 embeds, 6,000 characters).
MAX_PRIVATE_MESSAGES = 5
# The interaction token expires after 15 minutes; keep a margin for the request itself.
TOKEN_TTL = 15 * 60.0 - 30.0
MAX_CHOICE = 100  # characters of an autocomplete choice's name and value
EXPIRED_CODES = {50027, 10015}  # invalid webhook token, unknown webhook


@dataclass
class Sent:
    """The messages of an answer as sent (each can be edited and deleted; None where the
    interaction token had expired and the bot token posted it), and the thread holding the rest
    of a long public answer: what its worded form edits (``Interactions.revise``)."""

    messages: list[Any] = field(default_factory=list)
    thread: Any = None
    public: bool = False


@dataclass(frozen=True)
class Request:
    """A slash command's name and typed options, as the registry takes them."""

    command: str
    options: dict[str, object]
    public: bool


def options_of(data: dict[str, Any] | None) -> dict[str, object]:
    """``data.options`` as name → value (subcommand groups are not used by prdigest)."""
    return {str(o.get("name")): o.get("value") for o in (data or {}).get("options", []) if "value" in o}


def request_of(data: dict[str, Any] | None) -> Request:
    options = options_of(data)
    public = options.pop("public", False) is True
    return Request(str((data or {}).get("name", "")), options, public)


def typed_example(req: Request) -> str:
    """The same command as typed in Discord, with ``public:True`` (for the overflow notice's code
    span: no backticks, short)."""
    given = " ".join(f"{name}:{value}" for name, value in req.options.items())
    text = f"/{req.command} {given} public:True".replace("`", "'").replace("  ", " ")
    return text if len(text) <= 120 else f"/{req.command} … public:True"


def invocation(req: Request, settings: Settings, user: str | None, channel: str | None = None) -> Invocation:
    return make_invocation(
        req.command,
        platform="discord",
        defaults=settings.command_defaults(chat=True),
        options=req.options,
        flags=frozenset({"public"}) if req.public else frozenset(),
        user=user,
        channel=channel,  # a subscription belongs to the channel the command is typed in
    )


def configured_admins(settings: Settings) -> frozenset[str]:
    return frozenset(u.strip() for u in settings.prdigest_admins.split(",") if u.strip())


# Manage Server or Administrator, in the invoking member's permissions bitfield
ADMIN_BITS = (1 << 5) | (1 << 3)


def is_admin(settings: Settings, user: str | None, member_permissions: int | None) -> bool:
    """Checked at run time, for admin-only commands only: a PRDIGEST_ADMINS id, or a member whose
    permissions in this interaction (``member.permissions``, computed by Discord with roles and
    overwrites) include Manage Server or Administrator. The command's ``default_permissions`` is a
    hint a server can change, never the check. Outside a server (a DM) only PRDIGEST_ADMINS."""
    if not user:
        return False
    if user in configured_admins(settings):
        return True
    return bool(member_permissions and member_permissions & ADMIN_BITS)


def member_permissions(ix: Any) -> int | None:
    """The invoking member's permissions bitfield; None outside a server."""
    if ix.guild_id is None:
        return None
    return int(ix.permissions.value)


def cannot_post(ix: Any, req: Request) -> str | None:
    """For ``/subscribe``: the first permission the bot lacks in this channel for a scheduled
    digest (``app_permissions``, as Discord computed them), or None. The thread permissions count
    only for the thread layout."""
    if ix.guild_id is None:
        return None
    perms = ix.app_permissions
    needed = [*BASE_PERMISSIONS]
    if str(req.options.get("layout") or "thread").strip().lower() != "single":
        needed += THREAD_PERMISSIONS
    return next((label for attr, label in needed if not getattr(perms, attr)), None)


class Interactions:
    """Answers every interaction a client receives; ``handle`` is the client's ``on_interaction``."""

    def __init__(
        self,
        settings: Settings,
        runner: Runner,
        profile: Profile,
        *,
        poster: DiscordPoster,
        repos: tuple[str, ...] = (),
        prose: ProseWriter | None = None,
    ) -> None:
        self.settings = settings
        self.runner = runner
        self.profile = profile
        self.poster = poster
        self.repos = repos
        self.prose = prose  # words digests with a language model, when one is configured
        self.tasks: set[asyncio.Task[Any]] = set()
        self.limiter = ChangeLimiter()  # subscription changes per user (bot.chat.throttle)
        load_all()

    async def handle(self, ix: discord.Interaction) -> None:
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)
        try:
            if ix.type == discord.InteractionType.autocomplete:
                await self.autocomplete(ix)
            elif ix.type == discord.InteractionType.application_command:
                await self.command(ix)
        finally:
            if task is not None:
                self.tasks.discard(task)

    async def drain(self, timeout: float) -> int:
        """Wait up to ``timeout`` seconds for the answers in flight; returns how many remain."""
        pending = {t for t in self.tasks if t is not asyncio.current_task()}
        if pending:
            _, pending = await asyncio.wait(pending, timeout=timeout)
        return len(pending)

    # -- autocomplete ----------------------------------------------------------------------------

    def choices(self, data: dict[str, Any] | None) -> list[str]:
        """The suggestions for the focused option (from memory: profile, clock, known repos)."""
        name = str((data or {}).get("name", ""))
        spec = REGISTRY.get(name)
        focused = next((o for o in (data or {}).get("options", []) if o.get("focused")), None)
        if spec is None or focused is None:
            return []
        param = next((p for p in spec.params if p.name == focused.get("name")), None)
        if param is None:
            return []
        scope = Scope(
            now=datetime.now(UTC),
            timezone=self.settings.prdigest_timezone,
            profile=self.profile,
            commands=tuple(REGISTRY),
            repos=self.repos,
        )
        return [v for v in suggestions(param, scope, str(focused.get("value") or "")) if len(v) <= MAX_CHOICE]

    async def autocomplete(self, ix: discord.Interaction) -> None:
        try:
            values = self.choices(ix.data)  # type: ignore[arg-type]
            await ix.response.autocomplete([discord.app_commands.Choice(name=v, value=v) for v in values])
        except Exception:
            log.exception("autocomplete failed")

    # -- slash commands --------------------------------------------------------------------------

    async def command(self, ix: discord.Interaction) -> None:
        started = time.monotonic()
        req = request_of(ix.data)  # type: ignore[arg-type]
        channel = str(ix.channel_id) if ix.channel_id is not None else None
        inv = invocation(req, self.settings, str(ix.user.id) if ix.user else None, channel)
        try:
            await ix.response.defer(ephemeral=not req.public, thinking=True)
        except discord.HTTPException as exc:  # too late (10062) or already answered: nothing to add
            log.warning("/%s: could not defer (%s)", req.command, exc)
            return
        try:
            inv, refused = self.prepare(ix, req, inv)
            reply = refused or await self.runner.dispatch(inv)
            charge(self.limiter, inv, reply)
            reply.lang = inv.lang
            staged = await stage(self.prose, reply)
            sent = await self.deliver(ix, staged.now, req, started)
            worded = await staged.revision()
            if worded is not None:
                await self.revise(ix, sent, worded, req, started)
        except Exception:
            log.exception("/%s failed (user %s, channel %s)", req.command, inv.user, ix.channel_id)
            with contextlib.suppress(Exception):
                await self.send(ix, apology(inv.lang), ephemeral=True, started=started)

    def prepare(self, ix: Any, req: Request, inv: Invocation) -> tuple[Invocation, Reply | None]:
        """What the edge decides before an admin-only command runs: whether its user has changed
        subscriptions too often just now, who is asking (``is_admin``; the registry refuses the
        rest), and for ``/subscribe`` whether the bot can post here — a channel it cannot use is
        answered now and nothing is stored."""
        spec = REGISTRY.get(inv.command)
        if spec is None or not spec.admin_only:
            return inv, None
        busy = refuse_if_busy(self.limiter, inv)
        if busy is not None:
            return inv, busy
        inv = replace(inv, is_admin=is_admin(self.settings, inv.user, member_permissions(ix)))
        if inv.is_admin and inv.command == "subscribe":
            missing = cannot_post(ix, req)
            if missing is not None:
                name = getattr(ix.channel, "name", None)
                where = f"#{name}" if name else str(inv.channel)
                reason = t(inv.lang, "discord.needs", permission=missing, channel=where)
                return inv, Reply.usage("subscribe", t(inv.lang, "sub.cannot_use", reason=reason))
        return inv, None

    async def deliver(self, ix: discord.Interaction, reply: Reply, req: Request, started: float) -> Sent:
        """Notices privately; ``public`` answers for everyone (the rest in a thread when long)."""
        if reply.status != "ok":
            if req.public:  # the deferral is public: remove it so the notice can be private
                with contextlib.suppress(discord.HTTPException):
                    await ix.delete_original_response()
            await self.send(ix, render_notice(reply), ephemeral=True, started=started)
            return Sent()
        messages = await self.messages(reply, req)
        if req.public:
            lead = await self.send(ix, messages[0], ephemeral=False, started=started, reply=reply)
            sent = Sent([lead], public=True)
            if len(messages) > 1 and lead is not None:
                sent.thread, rest = await self.thread_rest(ix, lead, messages, reply, started)
                sent.messages += rest
            return sent
        return Sent([await self.send(ix, m, ephemeral=True, started=started) for m in messages])

    async def messages(self, reply: Reply, req: Request) -> list[DiscordMessage]:
        """The answer's messages: threaded when public; packed, at most ``MAX_PRIVATE_MESSAGES``
        with the overflow notice, when private. Rendering is CPU: off the event loop."""
        if req.public:
            return await asyncio.to_thread(render, reply, mode="thread")
        messages = await asyncio.to_thread(render, reply, mode="compact")
        if len(messages) > MAX_PRIVATE_MESSAGES:
            shown = MAX_PRIVATE_MESSAGES - 1
            example = typed_example(req)
            notice = t(
                reply.lang,
                "chat.overflow",
                parts=len(messages),
                shown=shown,
                example=example,
                command=req.command,
            )
            messages = [*messages[:shown], text_message(notice, "ℹ️")]
        return messages

    async def revise(
        self, ix: discord.Interaction, sent: Sent, worded: Reply, req: Request, started: float
    ) -> None:
        """Put the worded answer in place of the computed one: each message sent edited where it
        is (the deferred response and its followups with the interaction token, the thread's
        messages with the bot token); extra messages follow in the thread (public) or as
        followups; surplus ones are deleted. Messages the token could no longer reach stay."""
        messages = await self.messages(worded, req)
        try:
            for i, m in enumerate(messages):
                if i < len(sent.messages):
                    handle = sent.messages[i]
                    if handle is not None and hasattr(handle, "edit"):
                        await handle.edit(content=m.content or None, embeds=to_embeds(m))
                elif sent.thread is not None:
                    await sent.thread.send(content=m.content or None, embeds=to_embeds(m))
                else:
                    await self.send(ix, m, ephemeral=not sent.public, started=started, reply=worded)
            for handle in sent.messages[len(messages) :]:
                if handle is not None and hasattr(handle, "delete"):
                    await handle.delete()
        except (discord.DiscordException, PostError) as exc:
            log.warning("/%s: the worded answer could not replace the computed one: %s", req.command, exc)

    async def send(
        self,
        ix: discord.Interaction,
        message: DiscordMessage,
        *,
        ephemeral: bool,
        started: float,
        reply: Reply | None = None,
    ) -> Any:
        """A followup while the interaction token lives; after that (or when Discord says it
        expired) a public answer is posted with the bot token, a private one cannot be."""
        if time.monotonic() - started < TOKEN_TTL:
            try:
                return await ix.followup.send(
                    content=message.content or discord.utils.MISSING,
                    embeds=to_embeds(message),
                    ephemeral=ephemeral,
                    wait=True,
                )
            except discord.HTTPException as exc:
                if exc.code not in EXPIRED_CODES:
                    raise
        if ephemeral or ix.channel_id is None:
            log.warning("interaction token expired: a private answer for %s was not delivered", ix.user)
            return None
        lang = reply.lang if reply is not None else "en"
        result = await self.poster.post_messages(str(ix.channel_id), [message], lang=lang)
        return SimpleNamespace(id=int(result.lead))

    async def thread_rest(
        self, ix: discord.Interaction, lead: Any, messages: list[DiscordMessage], reply: Reply, started: float
    ) -> tuple[Any, list[Any]]:
        """The rest of a long public answer in a thread started from the lead, with the bot token;
        the thread (None: none could be made) and the messages sent."""
        channel = ix.channel
        perms = ix.app_permissions
        if not (
            isinstance(channel, discord.TextChannel)
            and perms.create_public_threads
            and perms.send_messages_in_threads
        ):  # no thread possible here (a DM, or the bot may not make one): more followups
            return None, [await self.send(ix, m, ephemeral=False, started=started) for m in messages[1:]]
        sent: list[Any] = []
        thread = None
        try:
            thread = await self.poster.thread(channel, lead.id, reply.title)
            for i, m in enumerate(messages[1:], 1):
                sent.append(
                    await thread.send(
                        content=m.content or None, embeds=to_embeds(m), nonce=nonce(str(lead.id), m, i)
                    )
                )
        except (discord.DiscordException, PostError) as exc:
            log.warning("/%s: the thread could not be completed: %s", reply.command, exc)
            text = t(reply.lang, "discord.partial", done=1, total=len(messages), reason=type(exc).__name__)
            with contextlib.suppress(Exception):
                await ix.followup.send(text_message(text, "⚠️").content, ephemeral=True)
        return thread, sent
