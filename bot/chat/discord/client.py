"""The discord.py client, configured once: token, endpoints, mentions off, bounded rate limits.

discord.py reads its REST base (``Route.BASE``) and gateway (``DiscordWebSocket.DEFAULT_GATEWAY``)
from class attributes, so ``use_endpoints`` sets them from PRDIGEST_DISCORD_API_URL and
PRDIGEST_DISCORD_GATEWAY_URL (Discord-compatible servers, the test fake). Every client is made
with ``AllowedMentions.none()``: whatever a PR title says, no message of ours pings anyone. A
rate limit longer than ``MAX_RETRY_AFTER`` raises ``discord.RateLimited`` instead of sleeping
(a command sync at the daily limit would otherwise wait a day).
"""

from __future__ import annotations

import warnings
from typing import Any

import yarl

from bot.config.settings import ConfigError, Settings, secret

with warnings.catch_warnings():  # discord.py imports audioop (voice), deprecated since 3.11
    warnings.filterwarnings("ignore", message="'audioop' is deprecated", category=DeprecationWarning)
    import discord
    import discord.gateway
    import discord.http

MAX_RETRY_AFTER = 60.0
# discord.py waits this long after the last GUILD_CREATE before on_ready (2 s by default);
# interactions are answered before it anyway, so there is no reason to wait long.
GUILD_READY_TIMEOUT = 0.5


class Unreachable(ConfigError):
    """Discord could not be reached at login: a configuration error for ``serve`` and the CLI,
    a transient failure for a post (``bot.chat.discord.post.explain``)."""


class TokenRejected(ConfigError):
    """Discord answered 401 to the token: a configuration error for ``serve`` and the CLI, a
    permanent failure (code 401) for a post, which holds that platform's deliveries."""


def bot_token(settings: Settings) -> str:
    token = secret(settings.discord_bot_token)
    if not token:
        raise ConfigError(
            "DISCORD_BOT_TOKEN is not set: copy the bot's token (Developer Portal › your application "
            "› Bot › Reset Token) into .env"
        )
    return token


def use_endpoints(settings: Settings) -> None:
    """Point discord.py at the configured REST and gateway URLs (process-wide, as discord.py is)."""
    discord.http.Route.BASE = settings.prdigest_discord_api_url.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.prdigest_discord_gateway_url)


def intents() -> discord.Intents:
    """Only the guilds intent: channels and roles for permissions and threads; no privileged one."""
    return discord.Intents(guilds=True)


def make_client(settings: Settings, cls: type[discord.Client] = discord.Client, **options: Any) -> Any:
    """A client on the configured endpoints that never pings and never sleeps through long limits."""
    use_endpoints(settings)
    # prdigest has no voice: discord.py's warnings about missing voice libraries are noise here
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False
    options.setdefault("intents", intents())
    return cls(
        allowed_mentions=discord.AllowedMentions.none(),
        max_ratelimit_timeout=MAX_RETRY_AFTER,
        guild_ready_timeout=GUILD_READY_TIMEOUT,
        **options,
    )


async def login(client: discord.Client, settings: Settings) -> None:
    """REST login (GET /users/@me, /oauth2/applications/@me), no gateway session; a rejected
    token is a ConfigError in one line."""
    try:
        await client.login(bot_token(settings))
    except discord.LoginFailure:
        raise TokenRejected(
            "Discord rejected DISCORD_BOT_TOKEN: reset the token (Developer Portal › Bot › Reset Token) "
            "and put the new one in .env"
        ) from None
    except (discord.HTTPException, OSError) as exc:
        raise Unreachable(
            f"cannot reach Discord at {settings.prdigest_discord_api_url} ({type(exc).__name__}: {exc}); "
            "check PRDIGEST_DISCORD_API_URL and the network"
        ) from None
