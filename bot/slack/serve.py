"""``prdigest serve``: run the Slack app (HTTP or Socket Mode) plus a health endpoint.

HTTP mode serves ``POST /slack/events`` (every request verified with SLACK_SIGNING_SECRET by
Bolt) and ``GET /healthz`` on PRDIGEST_SLACK_PORT. With SLACK_APP_TOKEN set, the app talks to
Slack over Socket Mode (no public URL needed) and the port serves only ``/healthz``.

A missing or wrong setting, a bad cache path or a broken rule profile is one line on stderr and
exit code 2 — before anything listens, so a supervisor sees the failure at once.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import ConfigError, Settings, active_profile, load_settings
from bot.runtime import settle_heap
from bot.slack.app import CommandRunner, build_app
from bot.slack.post import DEFAULT_PACE, async_web_client, bot_token, explain
from classify.rules import ProfileError
from commands.registry import Context, load_all
from storage.db import StoreError, connect
from storage.migrations import MIGRATIONS
from storage.prs import PRStore, iso

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"


@dataclass(frozen=True)
class ServePlan:
    """What ``serve`` will do, decided (and validated) before anything starts."""

    settings: Settings
    db: Path
    host: str
    port: int
    socket_mode: bool

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        db: Path | None = None,
        host: str = "0.0.0.0",
        port: int | None = None,
        socket_mode: bool | None = None,
    ) -> ServePlan:
        bot_token(settings)  # raises ConfigError naming SLACK_BOT_TOKEN
        app_token = settings.slack_app_token.get_secret_value().strip() if settings.slack_app_token else ""
        socket = bool(app_token) if socket_mode is None else socket_mode
        if socket:
            if not app_token:
                raise ConfigError(
                    "SLACK_APP_TOKEN is not set: Socket Mode needs an app-level token (xapp-…) "
                    "with the connections:write scope (Basic Information › App-Level Tokens)"
                )
            if not app_token.startswith("xapp-"):
                raise ConfigError("SLACK_APP_TOKEN must be an app-level token starting with xapp-")
        elif not (settings.slack_signing_secret and settings.slack_signing_secret.get_secret_value().strip()):
            raise ConfigError(
                "SLACK_SIGNING_SECRET is not set: HTTP mode verifies every request with it "
                "(Basic Information › App Credentials); or set SLACK_APP_TOKEN for Socket Mode"
            )
        return cls(
            settings=settings,
            db=db or settings.prdigest_db,
            host=host,
            port=settings.prdigest_slack_port if port is None else port,
            socket_mode=socket,
        )


def context_factory(settings: Settings, db: Path) -> Callable[[], Context]:
    """Builds a Context (own SQLite connection + rule profile) for one worker thread."""

    def build() -> Context:
        return Context(
            store=PRStore(connect(db)),
            profile=active_profile(settings),
        )

    return build


def cache_state(ctx: Context) -> dict[str, Any]:
    """What /healthz reports: repositories, PR counts, newest merge, schema up to date."""
    store = ctx.store
    repos = []
    for repo in store.repos():
        span = store.merged_range(repo)
        newest = iso(span[1]) if span else None
        repos.append({"repo": repo, "prs": store.count(repo), "newest_merged_at": newest})
    pending = [m.name for m in MIGRATIONS.pending(store.db)]
    return {
        "ok": not pending,
        "schema_ok": not pending,
        "pending_migrations": pending,
        "repos": repos,
        "prs": sum(r["prs"] for r in repos),
        "profile": {"name": ctx.profile.name, "version": ctx.profile.version},
    }


def build_web_app(runner: CommandRunner, bolt_app: AsyncApp | None) -> web.Application:
    """aiohttp routes: Slack's events endpoint (HTTP mode only) and the health check."""

    async def events(request: web.Request) -> web.Response:
        bolt_req = await to_bolt_request(request)
        stamp = request.headers.get("X-Slack-Request-Timestamp", "")
        if not stamp.strip().lstrip("-").isdigit():  # Bolt would choke on int("")
            return web.json_response({"error": "invalid request"}, status=401)
        assert bolt_app is not None
        return await to_aiohttp_response(await bolt_app.async_dispatch(bolt_req))

    async def health(request: web.Request) -> web.Response:
        try:
            state = await runner.call(cache_state)
        except Exception as exc:  # a health check reports, it does not crash
            log.warning("health check failed: %s", exc)
            return web.json_response({"ok": False, "error": str(exc)}, status=503)
        return web.json_response(state, status=200 if state["ok"] else 503)

    web_app = web.Application()
    web_app.router.add_get(HEALTH_PATH, health)
    if bolt_app is not None:
        web_app.router.add_post(EVENTS_PATH, events)
    return web_app


async def start_site(web_app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Listen on host:port (0 picks a free port); returns the runner and the bound port."""
    app_runner = web.AppRunner(web_app, access_log=None)
    await app_runner.setup()
    site = web.TCPSite(app_runner, host, port)
    await site.start()
    addresses = app_runner.addresses
    return app_runner, int(addresses[0][1]) if addresses else port


async def check_token(client: AsyncWebClient) -> None:
    """auth.test once at start: a wrong token is a startup error, not a silent failure later."""
    try:
        await client.auth_test()
    except (SlackApiError, SlackClientError, OSError) as exc:
        raise ConfigError(explain(exc, "-")[0]) from None


async def check_app_token(client: AsyncWebClient, app_token: str) -> None:
    """apps.connections.open once at start: the Socket Mode client would otherwise retry a bad
    app-level token forever, logging a traceback every few seconds."""
    try:
        await client.apps_connections_open(app_token=app_token)
    except SlackApiError as exc:
        code = exc.response.get("error", "?") if exc.response is not None else "?"
        raise ConfigError(
            f"Slack rejected SLACK_APP_TOKEN ({code}): generate an app-level token with the "
            "connections:write scope (Basic Information › App-Level Tokens) and enable "
            "Socket Mode for the app"
        ) from None
    except (SlackClientError, OSError) as exc:
        raise ConfigError(explain(exc, "-")[0]) from None


async def run(
    plan: ServePlan,
    *,
    stop: asyncio.Event | None = None,
    on_ready: Callable[[int], None] | None = None,
    runner: CommandRunner | None = None,
    pace: float = DEFAULT_PACE,
) -> None:
    """Serve until ``stop`` is set (or SIGINT/SIGTERM); ``on_ready`` gets the bound port.

    Tokens are checked with Slack before anything listens (ConfigError when Slack refuses them).
    """
    settings = plan.settings
    client = async_web_client(settings)
    await check_token(client)
    app_token = settings.slack_app_token.get_secret_value().strip() if settings.slack_app_token else ""
    if plan.socket_mode:
        await check_app_token(client, app_token)
    runner = runner or CommandRunner(context_factory(settings, plan.db), settings=settings)
    bolt_app = build_app(settings, runner, client=client, http=not plan.socket_mode, pace=pace)
    app_runner, port = await start_site(
        build_web_app(runner, None if plan.socket_mode else bolt_app), plan.host, plan.port
    )
    socket_handler = None
    try:
        if plan.socket_mode:
            from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

            socket_handler = AsyncSocketModeHandler(bolt_app, app_token, web_client=client)
            await socket_handler.connect_async()  # type: ignore[no-untyped-call]
            log.info("prdigest Slack app connected over Socket Mode; /healthz on %s:%s", plan.host, port)
        else:
            log.info("prdigest Slack app listening on http://%s:%s%s", plan.host, port, EVENTS_PATH)
        if on_ready:
            on_ready(port)
        stop = stop or asyncio.Event()
        loop = asyncio.get_running_loop()
        # Signal handlers can only be set from the main thread of a POSIX process; tests (and any
        # embedding application) run the server in another thread and stop it with ``stop``.
        if sys.platform != "win32" and threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        if socket_handler is not None:
            await socket_handler.close_async()  # type: ignore[no-untyped-call]
        await app_runner.cleanup()
        runner.close()


def fail(message: str) -> None:
    click.echo(f"prdigest serve: {message}", err=True)
    sys.exit(2)


@click.command("serve")
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="SQLite cache (default: PRDIGEST_DB, else ./prdigest.db).",
)
@click.option("--host", default="0.0.0.0", show_default=True, help="Interface to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="HTTP port for /slack/events and /healthz (default: PRDIGEST_SLACK_PORT, 3000).",
)
@click.option(
    "--socket-mode/--http",
    "socket_mode",
    default=None,
    help="Force a mode (default: Socket Mode when SLACK_APP_TOKEN is set, else HTTP).",
)
def serve(db: Path | None, host: str, port: int | None, socket_mode: bool | None) -> None:
    """Run the Slack app: /digest /risks /pr /search /help."""
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True
    )
    try:
        plan = ServePlan.from_settings(load_settings(), db=db, host=host, port=port, socket_mode=socket_mode)
        context_factory(plan.settings, plan.db)().store.db.close()  # fail fast on a bad cache or profile
    except (ConfigError, StoreError, ProfileError) as exc:
        fail(str(exc))
        return
    load_all()
    settle_heap()
    try:
        asyncio.run(run(plan))
    except ConfigError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        pass
