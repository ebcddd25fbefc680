"""Which module posts for a platform: the one place that maps a platform's name to its posters.

Each platform is imported only when it is used, so a terminal command that posts to Slack does not
load discord.py. The imports are written out, one per platform, rather than looked up by module
name: the import graph then shows every dependency (and that the platforms' modules, which import
``bot.chat.post`` and ``bot.chat.steps`` for their contracts, are never imported back by them).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from bot.chat.post import Poster, PostError, PostResult, parse_target
from bot.config.errors import EXIT_FAILED, EXIT_USAGE, UserError
from bot.config.settings import ConfigError, Settings

if TYPE_CHECKING:
    from bot.chat.steps import StepPoster
    from commands.model import Reply


def poster_for(platform: str, settings: Settings) -> Poster:
    """The platform's poster, configured from settings (ConfigError names a missing token)."""
    if platform == "slack":
        from bot.chat.slack.post import poster as slack

        return slack(settings)
    if platform == "discord":
        from bot.chat.discord.post import poster as discord

        return discord(settings)
    raise ValueError(f"no poster for {platform!r}")


def step_poster_for(platform: str, settings: Settings) -> StepPoster:
    """The platform's step poster for scheduled deliveries (ConfigError names a missing token)."""
    if platform == "slack":
        from bot.chat.slack.steps import poster as slack

        return slack(settings)
    if platform == "discord":
        from bot.chat.discord.steps import poster as discord

        return discord(settings)
    raise ValueError(f"no step poster for {platform!r}")


async def post_async(reply: Reply, target: str, settings: Settings) -> PostResult:
    platform, channel = parse_target(target)
    poster = poster_for(platform, settings)
    try:
        return await poster.post(reply, channel)
    finally:
        await poster.close()


def post_from_cli(reply: Reply, target: str, settings: Settings) -> PostResult:
    """``--post PLATFORM:CHANNEL``: post and return where it landed; UserError otherwise
    (exit 2 for configuration — a rejected token included — 1 when the platform refused the post
    or could not be reached)."""
    parse_target(target)  # a bad target is a usage error before anything else happens
    try:
        return asyncio.run(post_async(reply, target, settings))
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    except PostError as exc:
        raise UserError(str(exc), exit_code=EXIT_USAGE if exc.token_rejected else EXIT_FAILED) from None
