"""Posting to Slack: one async Web API client, configured once, and the Slack ``Poster``.

A Reply is posted as a lead message (title, summary, top highlights) with every section as a
reply in its thread. Used by ``--post slack:CHANNEL`` (through ``bot.chat.post``), by the Slack app for
``public`` answers too long for one message, and by scheduled delivery later.

Retries live in one layer, slack_sdk's own retry handlers on the client: dropped connections are
retried twice for methods that may be repeated (reads, joins, deletes — never a post, which may
have been stored before the connection dropped), and a 429 is waited out for exactly its
Retry-After — unless Slack asks for longer than ``MAX_RETRY_AFTER``, which becomes a
``TransientPostError`` carrying the wait instead of a hung CLI or job.
Slack's error codes become one actionable line (``not_in_channel`` → invite the app), in the
caller's language. Tokens are read from ``SecretStr`` settings at the last moment, never logged.

A chart is uploaded once per delivery: a poster keeps the file ids it uploaded (by delivery key
and content), so the retries of a transient failure show the same file instead of uploading
another; when the poster is closed, a file that no posted lead shows is deleted again
(``files.delete``), so failed attempts leave no private files behind — unless a lead that used it
may have landed (no clear answer came back), when it is kept rather than broken.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

from bot.chat.post import PermanentPostError, PostError, PostResult, TransientPostError
from bot.chat.slack.render import SlackMessage, render, violations
from bot.config.retry_after import retry_after
from bot.config.settings import ConfigError, Settings
from commands.locale import t
from commands.model import Attachment, Image, Reply

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]

# How many times a 429 is retried, and the longest Retry-After we are willing to sleep through
# (a longer one fails with a clear message instead of hanging a CLI or a scheduled job).
RATE_LIMIT_RETRIES = 3
MAX_RETRY_AFTER = 60.0
# chat.postMessage allows about one message per second per channel (short bursts are fine).
DEFAULT_PACE = 1.0


# -- rate limits ------------------------------------------------------------------------------


def _wait(response: HttpResponse | None) -> float | None:
    if response is None:
        return None
    for name, values in response.headers.items():
        if name.lower() == "retry-after" and values:
            return retry_after(values[0])
    return None


class BoundedRateLimitRetryHandler(AsyncRateLimitErrorRetryHandler):
    """slack_sdk's 429 handler, sleeping exactly Retry-After (1 s when absent) and giving up
    when Slack asks for more than ``max_wait`` seconds. The methods in ``skip`` are left to the
    caller (the step poster paces those itself: every concurrent sender must wait, not one)."""

    def __init__(
        self,
        max_retry_count: int = RATE_LIMIT_RETRIES,
        max_wait: float = MAX_RETRY_AFTER,
        sleep: Sleep = asyncio.sleep,
        skip: frozenset[str] = frozenset(),
    ) -> None:
        super().__init__(max_retry_count=max_retry_count)
        self.max_wait = max_wait
        self._sleep = sleep  # injectable: tests check the wait without spending it
        self.skip = skip

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if response is None or response.status_code != 429 or api_method(request.url) in self.skip:
            return False
        wait = _wait(response)
        return (1.0 if wait is None else wait) <= self.max_wait

    async def prepare_for_next_attempt_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> None:
        wait = _wait(response)
        state.next_attempt_requested = True
        await self._sleep(1.0 if wait is None else wait)
        state.increment_current_attempt()


# Methods that change nothing, or nothing more when repeated: a dropped connection may be retried
# for these. chat.postMessage and files.completeUploadExternal are not among them: a connection
# that drops after Slack stored the message would have the library post it a second time, before
# anyone could look whether the first one landed.
IDEMPOTENT_METHODS = frozenset(
    {
        "auth.test",
        "chat.getPermalink",
        "conversations.history",
        "conversations.replies",
        "conversations.info",
        "conversations.join",
        "files.delete",
        "users.info",
    }
)


def api_method(url: str) -> str:
    """``https://slack.com/api/chat.postMessage?x=1`` → ``chat.postMessage``."""
    return url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]


class IdempotentRetryHandler(AsyncConnectionErrorRetryHandler):
    """slack_sdk's connection-error retry, for ``IDEMPOTENT_METHODS`` only."""

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if api_method(request.url) not in IDEMPOTENT_METHODS:
            return False
        return await super()._can_retry_async(state=state, request=request, response=response, error=error)


def retry_handlers(sleep: Sleep = asyncio.sleep) -> list[AsyncRetryHandler]:
    return [IdempotentRetryHandler(max_retry_count=2), BoundedRateLimitRetryHandler(sleep=sleep)]


# -- the client -------------------------------------------------------------------------------


def bot_token(settings: Settings) -> str:
    token = settings.slack_bot_token.get_secret_value().strip() if settings.slack_bot_token else ""
    if not token:
        raise ConfigError(
            "SLACK_BOT_TOKEN is not set: put the app's xoxb-… Bot User OAuth Token in .env "
            "(api.slack.com/apps › your app › OAuth & Permissions)"
        )
    return token


def web_client(settings: Settings, *, sleep: Sleep = asyncio.sleep) -> AsyncWebClient:
    """The Web API client on PRDIGEST_SLACK_API_URL with the retry handlers above, giving up on an
    answer after PRDIGEST_POST_TIMEOUT seconds."""
    return AsyncWebClient(
        token=bot_token(settings),
        base_url=settings.prdigest_slack_api_url,
        retry_handlers=retry_handlers(sleep),
        timeout=settings.prdigest_post_timeout,  # type: ignore[arg-type]  # aiohttp takes a float
    )


# -- errors -----------------------------------------------------------------------------------

_AUTH_ERRORS = {"invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive"}
_LAYOUT_ERRORS = {"msg_too_long", "msg_blocks_too_long", "invalid_blocks", "too_many_attachments"}
_TRANSIENT_ERRORS = {"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}


def explain(exc: Exception, channel: str, lang: str = "en") -> PostError:
    """A Slack failure as one actionable line, transient or permanent, with Slack's error code."""
    if isinstance(exc, SlackApiError):
        data: Any = exc.response.data if exc.response is not None else {}
        code = str(data.get("error", "")) if isinstance(data, dict) else ""
        status = exc.response.status_code if exc.response is not None else 0
        if code == "not_in_channel":
            msg = t(lang, "slack.not_in_channel", channel=channel)
        elif code == "channel_not_found":
            msg = t(lang, "slack.channel_not_found", channel=channel)
        elif code in _AUTH_ERRORS:
            msg = t(lang, "slack.auth", code=code)
        elif code == "missing_scope":
            needed = data.get("needed", "?") if isinstance(data, dict) else "?"
            msg = t(lang, "slack.missing_scope", needed=needed)
        elif code == "is_archived":
            msg = t(lang, "slack.archived", channel=channel)
        elif code == "ratelimited" or status == 429:
            header = exc.response.headers.get("Retry-After") if exc.response is not None else None
            seconds = retry_after(str(header)) if header is not None else None
            wait = f"{seconds:g}" if seconds is not None else "?"
            return TransientPostError(
                t(lang, "slack.rate_limited", channel=channel, wait=wait),
                code="ratelimited",
                retry_after=seconds,
            )
        elif code in _LAYOUT_ERRORS:
            msg = t(lang, "slack.layout", code=code)
        else:
            msg = t(lang, "slack.api_error", code=code or status)
            if code in _TRANSIENT_ERRORS or status >= 500:
                return TransientPostError(msg, code=code or str(status))
        return PermanentPostError(msg, code=code or None)
    if isinstance(exc, SlackClientError | OSError):
        error = f"{type(exc).__name__}: {exc}"
        return TransientPostError(t(lang, "slack.unreachable", error=error))
    return TransientPostError(t(lang, "slack.unreachable", error=type(exc).__name__))


def _answered(exc: Exception) -> bool:
    """Slack answered the request and said no (an error code, a 4xx): it did not take effect.
    Otherwise (the network, a timeout, a 5xx) nobody can tell whether it did."""
    return isinstance(exc, SlackApiError) and exc.response is not None and exc.response.status_code < 500


# -- posting ----------------------------------------------------------------------------------

METADATA_EVENT = "prdigest_delivery"
HISTORY_PAGE = 200
HISTORY_PAGES = 5  # the last 1,000 messages of a channel: far more than a digest's week brings


def delivery_metadata(key: str) -> dict[str, Any]:
    """Slack message metadata carrying a scheduled delivery's key."""
    return {"event_type": METADATA_EVENT, "event_payload": {"delivery": key}}


def without_images(reply: Reply, names: set[str]) -> Reply:
    """The reply without the pictures of the files ``names`` (a chart that could not go up)."""
    if not names:
        return reply
    keep = [b for b in reply.blocks if not (isinstance(b, Image) and b.name in names)]
    return replace(reply, blocks=keep, files=[f for f in reply.files if f.name not in names])


def _kwargs(channel: str, message: SlackMessage, thread_ts: str | None) -> dict[str, Any]:
    problems = violations(message)
    if problems:  # the renderer guarantees this; refuse rather than let Slack half-post
        raise PermanentPostError(f"refusing to post a message that breaks Slack's limits: {problems[0]}")
    kwargs: dict[str, Any] = {
        "channel": channel,
        "text": message.text,
        "blocks": message.blocks,
        "unfurl_links": False,
        "unfurl_media": False,
    }
    if thread_ts:
        kwargs["thread_ts"] = thread_ts
    return kwargs


class SlackPoster:
    """The Slack ``Poster``: lead message, then the rest in its thread, paced ~1 per second."""

    platform = "slack"

    def __init__(self, client: AsyncWebClient, *, pace: float = DEFAULT_PACE, permalink: bool = True) -> None:
        self.client = client
        self.pace = pace
        self.permalink = permalink
        # the Slack file ids this poster uploaded; a scheduled delivery's by (key, name, sha256)
        # for its retries; which of them a posted lead shows; which a lead may show that failed
        # without a clear answer
        self._uploaded: list[str] = []
        self._reuse: dict[tuple[str, str, str], str] = {}
        self._shown: set[str] = set()
        self._unsure: set[str] = set()

    async def post(self, reply: Reply, channel: str) -> PostResult:
        """Post ``reply`` to ``channel`` (its ID, e.g. C0123456789). A scheduled delivery's key
        goes into the lead's message metadata, where ``find_delivery`` looks for it."""
        metadata = delivery_metadata(reply.delivery_key) if reply.delivery_key else None
        files = await self.upload(reply.files, key=reply.delivery_key) if reply.files else {}
        plain = without_images(reply, set(f.name for f in reply.files) - set(files))
        messages = await asyncio.to_thread(render, plain, mode="thread", files=files)  # CPU, off the loop
        try:
            result = await self.post_messages(channel, messages, lang=reply.lang, metadata=metadata)
            self._shown.update(files.values())
            return result
        except PostError as exc:
            if exc.posted:
                self._shown.update(files.values())
            elif exc.uncertain:
                self._unsure.update(files.values())
            if not files or exc.code != "invalid_blocks" or exc.posted:
                raise
            # Slack did not take the uploaded file in the lead (still being processed, say):
            # the digest goes without its chart rather than not at all
            log.warning("slack refused the chart in the lead (%s); posting without it", exc.code)
            messages = await asyncio.to_thread(render, without_images(reply, set(files)), mode="thread")
            return await self.post_messages(channel, messages, lang=reply.lang, metadata=metadata)

    async def upload(self, attachments: Sequence[Attachment], *, key: str | None = None) -> dict[str, str]:
        """Upload each file with ``files_upload_v2`` (files.getUploadURLExternal, the upload URL,
        files.completeUploadExternal) without sharing it to a channel — the lead's image block
        shows it (``slack_file``), so the lead stays the one message with the delivery's metadata.
        Returns name → Slack file id for the files that went up; a failed upload is logged and
        left out (the digest posts without its chart). A file this poster already uploaded for
        the same delivery ``key`` with the same bytes is not uploaded again (a retry reuses it).
        Needs the ``files:write`` scope."""
        done: dict[str, str] = {}
        for f in attachments:
            known = (key, f.name, hashlib.sha256(f.data).hexdigest()) if key else None
            if known in self._reuse:
                done[f.name] = self._reuse[known]
                continue
            try:
                resp = await self.client.files_upload_v2(
                    filename=f.name,
                    content=f.data,
                    title=f.description or f.name,
                    alt_txt=f.description or None,
                )
                file_id = (resp.get("file") or {}).get("id")
            except (SlackClientError, OSError, TimeoutError, aiohttp.ClientError) as exc:
                log.warning("slack upload of %s failed (%s); posting without it", f.name, type(exc).__name__)
                continue
            if file_id:
                done[f.name] = str(file_id)
                self._uploaded.append(str(file_id))
                if known is not None:
                    self._reuse[known] = str(file_id)
        return done

    async def delete_unshown(self) -> list[str]:
        """Delete (``files.delete``, best effort) the files this poster uploaded that no posted
        lead shows — what failed or abandoned attempts left behind — except those a lead may
        show after all (its request got no clear answer). Returns the ids deleted."""
        deleted: list[str] = []
        for file_id in [f for f in self._uploaded if f not in self._shown and f not in self._unsure]:
            try:
                await self.client.files_delete(file=file_id)
            except (SlackClientError, OSError, TimeoutError, aiohttp.ClientError) as exc:
                log.warning("could not delete the unused upload %s (%s)", file_id, type(exc).__name__)
                continue
            deleted.append(file_id)
        for file_id in sorted(self._unsure - self._shown):
            log.warning("kept the upload %s: a lead that shows it may have been posted", file_id)
        self._uploaded = [f for f in self._uploaded if f not in deleted]
        self._reuse = {k: v for k, v in self._reuse.items() if v not in deleted}
        return deleted

    async def join(self, channel: str) -> None:
        """Join a public channel (channels:join), so that history and posting work; a private
        channel needs an invitation, reported as a PermanentPostError."""
        try:
            await self.client.conversations_join(channel=channel)
        except (SlackClientError, OSError, TimeoutError, aiohttp.ClientError) as exc:
            raise explain(exc, channel) from None

    async def post_messages(
        self,
        channel: str,
        messages: Sequence[SlackMessage],
        *,
        lang: str = "en",
        metadata: dict[str, Any] | None = None,
    ) -> PostResult:
        """Post ``messages[0]`` to the channel (with ``metadata``) and the rest in its thread."""
        channel = channel.strip().removeprefix("#")
        if not messages or not channel:
            raise PermanentPostError(t(lang, "slack.channel_not_found", channel=channel or "''"))
        done: list[str] = []
        for i, message in enumerate(messages):
            if i and self.pace > 0:
                await asyncio.sleep(self.pace)
            try:
                kwargs = _kwargs(channel, message, done[0] if done else None)
                if metadata and not done:
                    kwargs["metadata"] = metadata
                resp = await self.client.chat_postMessage(**kwargs)
            except (SlackClientError, OSError, TimeoutError, aiohttp.ClientError) as exc:
                failure = explain(exc, channel, lang)
                failure.uncertain = not _answered(exc)
                if done:
                    reason = t(lang, "slack.partial", done=len(done), total=len(messages), reason=failure)
                    failure = type(failure)(reason, code=failure.code, posted=len(done))
                log.warning("slack post to %s failed: %s", channel, failure)
                raise failure from None
            done.append(str(resp["ts"]))
            if i == 0:
                channel = str(resp.get("channel") or channel)
        return PostResult("slack", channel, tuple(done), await self._link(channel, done[0]))

    async def revise(
        self, posted: PostResult, messages: Sequence[SlackMessage], *, lang: str = "en"
    ) -> PostResult:
        """Put ``messages`` in place of a posted answer: each existing message updated where it is
        (``chat.update``), extra ones posted in the lead's thread, surplus ones deleted."""
        channel, ids = posted.channel, list(posted.ids)
        kept: list[str] = []
        try:
            for i, message in enumerate(messages):
                if i < len(ids):
                    kwargs = _kwargs(channel, message, None)
                    for unsent in ("unfurl_links", "unfurl_media"):
                        kwargs.pop(unsent)
                    await self.client.chat_update(ts=ids[i], **kwargs)
                    kept.append(ids[i])
                else:
                    resp = await self.client.chat_postMessage(**_kwargs(channel, message, ids[0]))
                    kept.append(str(resp["ts"]))
            for ts in ids[len(messages) :]:
                await self.client.chat_delete(channel=channel, ts=ts)
        except (SlackClientError, OSError) as exc:
            raise explain(exc, channel, lang) from None
        return PostResult("slack", channel, tuple(kept), posted.permalink)

    async def _link(self, channel: str, ts: str) -> str | None:
        """The lead message's permalink (best effort: a post that landed is not a failure)."""
        if not self.permalink:
            return None
        try:
            resp = await self.client.chat_getPermalink(channel=channel, message_ts=ts)
        except (SlackClientError, OSError, TimeoutError, aiohttp.ClientError) as exc:
            log.info("no permalink for %s/%s: %s", channel, ts, type(exc).__name__)
            return None
        link = resp.get("permalink")
        return str(link) if link else None

    async def close(self) -> None:
        """Delete the uploads no posted lead shows (``delete_unshown``); the client itself opens
        a session per request, so there is nothing else to release."""
        await self.delete_unshown()


def poster(settings: Settings) -> SlackPoster:
    """``bot.chat.post``'s entry point (ConfigError without SLACK_BOT_TOKEN)."""
    return SlackPoster(web_client(settings))
