"""Discord as a component of the host (``bot.host.serve``): one gateway session in the host's loop.

``start`` logs in over REST first (``async with``-style: ``client.login``), so a rejected token
stops ``serve`` with one line before anything else happens, then runs ``client.connect()`` — the
second half of ``client.start()`` — as a task of the host's loop, next to Slack and the
scheduler (never ``client.run()``, which would own the loop). discord.py reconnects and resumes
the session itself. Application commands are not registered here: that is
``prdigest discord sync-commands``, run once (Discord allows 200 creates a day per guild).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from bot.chat.discord.app import Interactions
from bot.chat.discord.client import bot_token, discord, login, make_client
from bot.chat.discord.post import DiscordPoster
from bot.config.profile_cache import active_profile
from bot.config.settings import Settings
from bot.prose.setup import chat_writer

if TYPE_CHECKING:
    from bot.host.serve import Host, ServeOptions

log = logging.getLogger(__name__)


class PrdigestClient(discord.Client):
    """A plain client whose interactions go to ``Interactions`` (no CommandTree: the commands
    are generated from the registry, see ``bot.chat.discord.commands``)."""

    interactions: Interactions | None = None

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if self.interactions is not None:
            await self.interactions.handle(interaction)


class DiscordComponent:
    """Discord's slash commands, answered through the host's runner."""

    name = "discord"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.client: Any = None
        self.interactions: Interactions | None = None
        self.drain_timeout = 30.0
        self._task: asyncio.Task[None] | None = None

    async def start(self, host: Host) -> None:
        self.client = make_client(self.settings, PrdigestClient)
        await self.client.__aenter__()
        await login(self.client, self.settings)  # ConfigError for a rejected token
        repos = tuple(await host.runner.call(lambda ctx: ctx.store.repos()))
        self.interactions = Interactions(
            self.settings,
            host.runner,
            active_profile(self.settings),
            poster=DiscordPoster(self.settings, client=self.client),
            repos=repos,
            prose=chat_writer(self.settings, host.runner),
        )
        self.client.interactions = self.interactions
        self._task = asyncio.create_task(self._connect(), name="discord-gateway")
        log.info("Discord logged in as %s; connecting to the gateway", self.client.user)

    async def _connect(self) -> None:
        try:
            await self.client.connect(reconnect=True)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the Discord gateway connection ended")

    async def stop(self) -> None:
        """Stop taking interactions, let the answers in flight finish, then close the session."""
        if self.client is None:
            return
        if self.interactions is not None:
            left = await self.interactions.drain(self.drain_timeout)
            if left:
                log.warning("stopped with %d Discord answers unfinished", left)
        await self.client.close()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._task, 10)
        self.client = None

    def health(self) -> dict[str, Any]:
        client = self.client
        ready = bool(client is not None and client.is_ready() and not client.is_closed())
        return {"connected": ready, "latency_ms": round(client.latency * 1000) if ready else None}


def component(settings: Settings, options: ServeOptions) -> DiscordComponent:
    """``bot.host.serve``'s entry point for Discord (ConfigError without DISCORD_BOT_TOKEN)."""
    bot_token(settings)
    return DiscordComponent(settings)
