"""Posting a Reply to a channel, the same way for every platform.

The contract is ``Poster``: ``await poster.post(reply, channel) -> PostResult`` (where it landed),
raising ``TransientPostError`` (rate limited, the platform or the network down: try again later)
or ``PermanentPostError`` (unknown channel, bot not in it, token revoked: a person must act),
each with a one-line reason. ``--post PLATFORM:CHANNEL`` on the CLI uses it. Platform modules
implement it (a ``typing.Protocol``) and raise these errors; ``bot.chat.platforms`` maps a platform
name to its poster, importing the platform only when it is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.config.errors import UserError
from commands.model import Reply

PLATFORMS = ("slack", "discord")  # what a target names before its colon (``slack:C0123456789``)


@dataclass(frozen=True)
class PostResult:
    """Where a Reply landed: the platform, the channel, the id of every message (lead first) and,
    when the platform gives one, a link to the lead message."""

    platform: str
    channel: str
    ids: tuple[str, ...]
    permalink: str | None = None

    @property
    def lead(self) -> str:
        return self.ids[0]

    @property
    def replies(self) -> tuple[str, ...]:
        return self.ids[1:]


class PostError(Exception):
    """Posting failed; ``str(exc)`` is one line saying what happened and what to do.

    ``code`` is the platform's own error code (``not_in_channel``, ``50013``), ``posted`` how many
    messages of the reply went out before the failure (a retry must not repeat them blindly),
    ``uncertain`` whether the failed request got no clear answer (the network, a 5xx): the
    message may have landed all the same. ``retry_after`` is the wait the platform asked for (a
    429's Retry-After), when it named one: nothing is sent again before it has passed.
    """

    transient = False

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        posted: int = 0,
        uncertain: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.posted = posted
        self.uncertain = uncertain
        self.retry_after = retry_after

    @property
    def token_rejected(self) -> bool:
        """The platform refused the token: a setting to fix (exit 2), like every other rejected
        token, not a failure of the platform (exit 1)."""
        return self.code in TOKEN_REJECTED


# Slack's error codes for a token it will not take, and Discord's HTTP status for one.
TOKEN_REJECTED = frozenset(
    {"invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive", "401"}
)


class TransientPostError(PostError):
    """Worth retrying later: a rate limit longer than we wait, a 5xx, the network."""

    transient = True


class PermanentPostError(PostError):
    """Retrying will not help until someone acts: a bad channel, a missing scope, a revoked token."""


class Poster(Protocol):
    """One platform's way to post (``bot.chat.slack.post.SlackPoster``; Discord's next)."""

    platform: str

    async def post(self, reply: Reply, channel: str) -> PostResult: ...

    async def close(self) -> None: ...


def parse_target(target: str) -> tuple[str, str]:
    """``slack:C0123456789`` → ("slack", "C0123456789"); one line naming the forms otherwise."""
    platform, _, channel = target.partition(":")
    platform = platform.strip().lower()
    channel = channel.strip().removeprefix("#")
    if platform not in PLATFORMS or not channel:
        forms = ", ".join(f"{name}:CHANNEL_ID" for name in PLATFORMS)
        raise UserError(f"--post {target!r}: use {forms}, e.g. slack:C0123456789")
    return platform, channel
