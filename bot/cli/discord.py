"""``prdigest discord …``: registering the application commands, and the invite URL.

Registration is explicit, not repeated at every start: Discord allows 200 command creates a
day per guild, and a bulk overwrite of unchanged commands keeps their ids. ``sync-commands``
logs in over REST only (no gateway session) and overwrites the guild's commands (``--guild``:
instant, for one server) or the global ones (every server and DMs; Discord may take up to an
hour to show changes). ``--clear-guild`` empties a guild's commands — after moving from guild to
global registration, since a guild holding both shows every command twice.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from urllib.parse import urlencode

import click

from bot.chat.discord.client import discord, login, make_client
from bot.chat.discord.commands import commands_payload
from bot.chat.discord.post import invite_permissions
from bot.config.errors import EXIT_FAILED, UserError
from bot.config.settings import ConfigError, Settings, load_settings

SCOPES = ("bot", "applications.commands")


@dataclass(frozen=True)
class Synced:
    scope: str  # "guild 123" or "global"
    names: tuple[str, ...]
    cleared: str | None = None


async def sync_commands(
    settings: Settings, *, guild: int | None = None, clear_guild: int | None = None
) -> list[Synced]:
    """Bulk-overwrite the commands (guild or global) and optionally empty another guild's."""
    payload = commands_payload()
    out: list[Synced] = []
    async with make_client(settings) as client:
        await login(client, settings)
        app_id = client.application_id
        if clear_guild is not None:
            await client.http.bulk_upsert_guild_commands(app_id, clear_guild, [])
            out.append(Synced(f"guild {clear_guild}", (), cleared=str(clear_guild)))
        if guild is not None:
            done = await client.http.bulk_upsert_guild_commands(app_id, guild, payload)
            out.append(Synced(f"guild {guild}", tuple(c["name"] for c in done)))
        elif clear_guild is None:
            done = await client.http.bulk_upsert_global_commands(app_id, payload)
            out.append(Synced("global", tuple(c["name"] for c in done)))
    return out


def invite_url(application_id: str) -> str:
    """The OAuth2 URL that adds the bot with exactly the permissions it uses."""
    query = {"client_id": application_id, "scope": " ".join(SCOPES), "permissions": str(invite_permissions())}
    return "https://discord.com/oauth2/authorize?" + urlencode(query)


async def _application_id(settings: Settings) -> str:
    async with make_client(settings) as client:
        await login(client, settings)
        return str(client.application_id)


def _settings() -> Settings:
    try:
        return load_settings()
    except ConfigError as exc:
        raise UserError(str(exc), where="discord") from None


def _run(coro: object) -> object:
    try:
        return asyncio.run(coro)  # type: ignore[arg-type]
    except ConfigError as exc:
        raise UserError(str(exc), where="discord") from None
    except discord.RateLimited as exc:
        raise UserError(
            f"Discord rate-limits command registration (retry after {exc.retry_after:.0f} s; 200 creates "
            "a day per guild): sync again later, and only when the commands changed",
            exit_code=EXIT_FAILED,
            where="discord",
        ) from None
    except discord.HTTPException as exc:
        raise UserError(
            f"Discord refused ({exc.status}, code {exc.code}): {exc.text}",
            exit_code=EXIT_FAILED,
            where="discord",
        ) from None


@click.group("discord")
def discord_group() -> None:
    """Discord set-up: register the slash commands, print the invite URL."""


@discord_group.command("sync-commands")
@click.option(
    "--guild", type=int, default=None, help="Register in this server only (instant). Default: globally."
)
@click.option("--clear-guild", type=int, default=None, help="Remove every command registered in this server.")
def sync_commands_cmd(guild: int | None, clear_guild: int | None) -> None:
    """Register prdigest's slash commands with Discord: /digest /help /pr /risks /search /subscribe
    /unsubscribe /subscriptions /preview (a bulk overwrite; run after upgrades)."""
    settings = _settings()
    results = _run(sync_commands(settings, guild=guild, clear_guild=clear_guild))
    assert isinstance(results, list)
    for r in results:
        if r.cleared:
            click.echo(f"cleared the commands of guild {r.cleared}")
        else:
            click.echo(
                f"registered {len(r.names)} commands ({r.scope}): " + ", ".join(f"/{n}" for n in r.names)
            )


@discord_group.command("invite-url")
@click.option(
    "--application-id",
    default=None,
    help="The application ID (default: asked from Discord with DISCORD_BOT_TOKEN).",
)
def invite_url_cmd(application_id: str | None) -> None:
    """Print the URL that adds the bot to a server with the scopes and permissions it needs."""
    if application_id is None:
        application_id = str(_run(_application_id(_settings())))
    elif not application_id.isdigit():
        raise UserError(
            f"--application-id {application_id!r}: use the number from the Developer Portal", where="discord"
        )
    click.echo(invite_url(application_id))
