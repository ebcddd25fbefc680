"""Posting a Reply to a Slack channel: a lead message, then its sections as thread replies.

Used by ``prdigest digest … --post slack:CHANNEL_ID`` (through ``post_reply``), by the Slack app
for ``public`` answers too long for one message, and later by the scheduled delivery.

Why the care: Slack answers bursts with 429 and a Retry-After header, which slack_sdk's default
handlers treat as fatal; a misconfigured app answers ``not_in_channel`` or ``invalid_auth``,
which a user should read as "what to do next", not as a stack trace. Tokens are read from
``SecretStr`` settings at the last moment and never logged.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler, RetryHandler
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import ConfigError, Settings
from bot.slack.render import SlackMessage, render, violations
from commands.model import Reply

log = logging.getLogger(__name__)

# How many times a 429 is retried, and the longest Retry-After we are willing to sleep through
# (a longer one fails with a clear message instead of hanging a CLI or a scheduled job).
RATE_LIMIT_RETRIES = 3
MAX_RETRY_AFTER = 60.0
# chat.postMessage allows about one message per second per channel (short bursts are fine).
DEFAULT_PACE = 1.0


class SlackPostError(Exception):
    """Posting failed; the message is one line saying what Slack said and what to do."""

    def __init__(self, message: str, *, error: str | None = None, posted: int = 0) -> None:
        super().__init__(message)
        self.error = error
        self.posted = posted


@dataclass(frozen=True)
class PostResult:
    """Where the Reply landed: the lead message's ts and the ts of each thread reply."""

    channel: str
    ts: str
    replies: tuple[str, ...] = ()

    @property
    def messages(self) -> int:
        return 1 + len(self.replies)


# -- rate limits ------------------------------------------------------------------------------


def retry_after(response: HttpResponse | None) -> float | None:
    """The Retry-After header in seconds (None when absent or not a number)."""
    if response is None:
        return None
    for name, values in response.headers.items():
        if name.lower() == "retry-after" and values:
            try:
                return max(0.0, float(values[0]))
            except ValueError:
                return None
    return None


def should_retry(response: HttpResponse | None, max_wait: float) -> bool:
    """A 429 whose Retry-After (1 s when absent) is at most ``max_wait`` seconds."""
    if response is None or response.status_code != 429:
        return False
    wait = retry_after(response)
    return (wait if wait is not None else 1.0) <= max_wait


class BoundedRateLimitRetryHandler(RateLimitErrorRetryHandler):
    """slack_sdk's 429 handler, sleeping exactly Retry-After (1 s when absent) and giving up
    when Slack asks for more than ``max_wait`` seconds."""

    def __init__(self, max_retry_count: int = RATE_LIMIT_RETRIES, max_wait: float = MAX_RETRY_AFTER) -> None:
        super().__init__(max_retry_count=max_retry_count)
        self.max_wait = max_wait

    def _can_retry(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        return should_retry(response, self.max_wait)

    def prepare_for_next_attempt(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> None:
        wait = retry_after(response)
        state.next_attempt_requested = True
        time.sleep(1.0 if wait is None else wait)
        state.increment_current_attempt()


class AsyncBoundedRateLimitRetryHandler(AsyncRateLimitErrorRetryHandler):
    """The asyncio twin of ``BoundedRateLimitRetryHandler`` (for AsyncWebClient)."""

    def __init__(self, max_retry_count: int = RATE_LIMIT_RETRIES, max_wait: float = MAX_RETRY_AFTER) -> None:
        super().__init__(max_retry_count=max_retry_count)
        self.max_wait = max_wait

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        return should_retry(response, self.max_wait)

    async def prepare_for_next_attempt_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> None:
        wait = retry_after(response)
        state.next_attempt_requested = True
        await asyncio.sleep(1.0 if wait is None else wait)
        state.increment_current_attempt()


def retry_handlers() -> list[RetryHandler]:
    return [ConnectionErrorRetryHandler(max_retry_count=2), BoundedRateLimitRetryHandler()]


def async_retry_handlers() -> list[AsyncRetryHandler]:
    return [AsyncConnectionErrorRetryHandler(max_retry_count=2), AsyncBoundedRateLimitRetryHandler()]


# -- clients ----------------------------------------------------------------------------------


def bot_token(settings: Settings) -> str:
    token = settings.slack_bot_token.get_secret_value().strip() if settings.slack_bot_token else ""
    if not token:
        raise ConfigError(
            "SLACK_BOT_TOKEN is not set: put the app's xoxb-… Bot User OAuth Token in .env "
            "(api.slack.com/apps › your app › OAuth & Permissions)"
        )
    return token


def web_client(settings: Settings) -> WebClient:
    """A WebClient on PRDIGEST_SLACK_API_URL that waits out rate limits."""
    return WebClient(
        token=bot_token(settings),
        base_url=settings.prdigest_slack_api_url,
        retry_handlers=retry_handlers(),
        timeout=30,
    )


def async_web_client(settings: Settings) -> AsyncWebClient:
    return AsyncWebClient(
        token=bot_token(settings),
        base_url=settings.prdigest_slack_api_url,
        retry_handlers=async_retry_handlers(),
        timeout=30,
    )


# -- errors -----------------------------------------------------------------------------------

_AUTH_ERRORS = {"invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive"}


def explain(exc: Exception, channel: str) -> tuple[str, str | None]:
    """A Slack failure as one actionable line, plus Slack's error code when there is one."""
    if isinstance(exc, SlackApiError):
        data: Any = exc.response.data if exc.response is not None else {}
        code = str(data.get("error", "")) if isinstance(data, dict) else ""
        status = exc.response.status_code if exc.response is not None else 0
        if code == "not_in_channel":
            msg = (
                f"prdigest is not in channel {channel}: invite the app to the channel "
                "(type `/invite @prdigest` there) and try again"
            )
        elif code == "channel_not_found":
            msg = (
                f"channel {channel} not found: use the channel ID (channel details › About, at the "
                "bottom; it starts with C or G); for a private channel invite the app first"
            )
        elif code in _AUTH_ERRORS:
            msg = (
                f"Slack rejected SLACK_BOT_TOKEN ({code}): copy the Bot User OAuth Token (xoxb-…) from "
                "OAuth & Permissions into .env, and reinstall the app if it was revoked"
            )
        elif code == "missing_scope":
            needed = data.get("needed", "?") if isinstance(data, dict) else "?"
            msg = (
                f"the Slack app lacks the {needed} scope: add it under OAuth & Permissions "
                "(or recreate the app from slack/manifest.yml) and reinstall it"
            )
        elif code == "is_archived":
            msg = f"channel {channel} is archived: unarchive it or post to another channel"
        elif code == "ratelimited" or status == 429:
            wait = exc.response.headers.get("Retry-After", "?") if exc.response is not None else "?"
            msg = f"Slack is rate-limiting posts to {channel} (retry after {wait} s): try again later"
        elif code in {"msg_too_long", "msg_blocks_too_long", "invalid_blocks", "too_many_attachments"}:
            msg = f"Slack refused the message layout ({code}); please report this as a prdigest bug"
        else:
            msg = (
                f"Slack API error {code or status}: see https://api.slack.com/methods/chat.postMessage#errors"
            )
        return msg, code or None
    if isinstance(exc, SlackClientError | OSError):
        return f"cannot reach the Slack API ({type(exc).__name__}: {exc}); check PRDIGEST_SLACK_API_URL", None
    return f"posting to Slack failed ({type(exc).__name__})", None


# -- posting ----------------------------------------------------------------------------------


def _kwargs(channel: str, message: SlackMessage, thread_ts: str | None) -> dict[str, Any]:
    problems = violations(message)
    if problems:  # the renderer guarantees this; refuse rather than let Slack half-post
        raise SlackPostError(f"refusing to post a message that breaks Slack's limits: {problems[0]}")
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


def _result(channel: str, done: list[str]) -> PostResult:
    return PostResult(channel=channel, ts=done[0], replies=tuple(done[1:]))


def _failure(exc: Exception, channel: str, done: list[str], total: int) -> SlackPostError:
    msg, code = explain(exc, channel)
    if done:
        msg = f"posted {len(done)} of {total} messages, then: {msg}"
    log.warning("slack post to %s failed: %s", channel, msg)
    return SlackPostError(msg, error=code, posted=len(done))


def post_messages(
    client: WebClient, channel: str, messages: Sequence[SlackMessage], *, pace: float = DEFAULT_PACE
) -> PostResult:
    """Post ``messages[0]`` to the channel and the rest in its thread, in order."""
    if not messages:
        raise SlackPostError("nothing to post")
    done: list[str] = []
    for i, message in enumerate(messages):
        if i and pace > 0:
            time.sleep(pace)
        try:
            resp = client.chat_postMessage(**_kwargs(channel, message, done[0] if done else None))
        except (SlackClientError, OSError) as exc:
            raise _failure(exc, channel, done, len(messages)) from None
        done.append(str(resp["ts"]))
        if i == 0:
            channel = str(resp.get("channel") or channel)
    return _result(channel, done)


async def post_messages_async(
    client: AsyncWebClient, channel: str, messages: Sequence[SlackMessage], *, pace: float = DEFAULT_PACE
) -> PostResult:
    """The asyncio twin of ``post_messages`` (used inside the Slack app)."""
    if not messages:
        raise SlackPostError("nothing to post")
    done: list[str] = []
    for i, message in enumerate(messages):
        if i and pace > 0:
            await asyncio.sleep(pace)
        try:
            resp = await client.chat_postMessage(**_kwargs(channel, message, done[0] if done else None))
        except (SlackClientError, OSError) as exc:
            raise _failure(exc, channel, done, len(messages)) from None
        done.append(str(resp["ts"]))
        if i == 0:
            channel = str(resp.get("channel") or channel)
    return _result(channel, done)


def post_reply(
    reply: Reply,
    channel: str,
    settings: Settings,
    *,
    client: WebClient | None = None,
    pace: float = DEFAULT_PACE,
) -> PostResult:
    """Post a Reply to ``channel``: the lead (summary + top highlights), sections in its thread.

    Raises ``ConfigError`` when SLACK_BOT_TOKEN is missing and ``SlackPostError`` (one line, with
    Slack's error code in ``.error``) when Slack refuses; both are for the user to read.
    """
    channel = channel.strip().removeprefix("#")
    if not channel:
        raise SlackPostError("no Slack channel given: use --post slack:CHANNEL_ID (e.g. slack:C0123456789)")
    client = client or web_client(settings)
    return post_messages(client, channel, render(reply, mode="thread"), pace=pace)
