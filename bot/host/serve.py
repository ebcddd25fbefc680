"""``prdigest serve``: the host every front end runs in.

The host owns the process: one asyncio loop, the shared command runner (``bot.host.runner``), one
HTTP server with ``GET /healthz``, signal handling and a graceful stop. Each front end — Slack,
Discord — is a component with ``async start(host)`` and ``async stop()``, started when its
settings are present (``FRONT_ENDS``); the Monday scheduler joins them whenever a platform can
post (``scheduled``). A component may add
routes to the host's HTTP server (Slack's ``POST /slack/events``), answers through
``host.runner`` and reports its state in ``/healthz``.

The HTTP port belongs to the host (``PRDIGEST_PORT``, default 3000), so a bot without any HTTP
endpoint of its own still serves ``/healthz``. Every failure to start — nothing configured, a
setting missing, a token refused, the port taken, an address that is not this machine's — is one
line on stderr and exit code 2, before anything answers.
"""

from __future__ import annotations

import asyncio
import errno
import importlib
import logging
import signal
import socket
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import click
from aiohttp import web

from bot.config.errors import UserError
from bot.config.profile_cache import active_profile
from bot.config.runtime import settle_heap
from bot.config.settings import ConfigError, Settings, load_settings, secret
from bot.host import logs
from bot.host.http_guard import ConnectionGuard, HttpLimits
from bot.host.runner import CommandRunner, ContextFactory
from classify.rules import ProfileError
from commands.digest_cache import DigestCache
from commands.registry import Context, load_all
from commands.title_keys import ProfileTitleKeys
from storage.db import StoreError, connect, schema_status
from storage.prs import PRStore, iso

log = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class ServeOptions:
    """What the command line may change for the front ends (each takes what concerns it)."""

    socket_mode: bool | None = None  # Slack: force Socket Mode (True) or HTTP (False)
    pace: float | None = None  # seconds between the messages of one post (tests use 0)


class Component(Protocol):
    """A front end (or the scheduler) living in the host."""

    name: str

    async def start(self, host: Host) -> None:
        """Check tokens, connect, add routes (``host.route``); raise ConfigError to refuse."""

    async def stop(self) -> None:
        """Disconnect; called once, also after a failed start."""

    def health(self) -> dict[str, Any]:
        """What ``/healthz`` shows about this component."""


@dataclass(frozen=True)
class FrontEnd:
    """A kind of component: the module that builds it (imported only when configured), whether
    the settings ask for it, and the variables that turn it on (named when nothing is set)."""

    name: str
    module: str
    configured: Callable[[Settings], bool]
    variables: str


FRONT_ENDS: tuple[FrontEnd, ...] = (
    FrontEnd(
        "slack",
        "bot.chat.slack.component",
        lambda s: bool(
            secret(s.slack_bot_token) or secret(s.slack_app_token) or secret(s.slack_signing_secret)
        ),
        "SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) for Slack",
    ),
    FrontEnd(
        "discord",
        "bot.chat.discord.component",
        lambda s: bool(secret(s.discord_bot_token)),
        "DISCORD_BOT_TOKEN for Discord",
    ),
)


# the token a platform posts with (Slack's app-level and signing secrets cannot post)
POSTING_TOKENS: dict[str, Callable[[Settings], bool]] = {
    "slack": lambda s: bool(secret(s.slack_bot_token)),
    "discord": lambda s: bool(secret(s.discord_bot_token)),
}


def posting_platforms(settings: Settings) -> list[str]:
    """The platforms prdigest can post to with these settings."""
    return [name for name, has_token in POSTING_TOKENS.items() if has_token(settings)]


def scheduled(settings: Settings) -> bool:
    """Scheduled delivery (``bot.delivery.clock``) joins the host wherever a platform can post: a Slack
    bot token, a Discord bot token, or both (a subscription of the other platform then fails
    with the missing token named)."""
    return bool(posting_platforms(settings))


def components_for(settings: Settings, options: ServeOptions = ServeOptions()) -> list[Component]:
    """The configured components (ConfigError names what is missing or wrong)."""
    chosen = [fe for fe in FRONT_ENDS if fe.configured(settings)]
    if not chosen:
        wanted = "; or ".join(fe.variables for fe in FRONT_ENDS)
        raise ConfigError(f"nothing to serve: set {wanted} (see .env.example)")
    built: list[Component] = [
        importlib.import_module(fe.module).component(settings, options) for fe in chosen
    ]
    if scheduled(settings):  # scheduled digests run beside the front ends that can post
        built.append(importlib.import_module("bot.delivery.clock").component(settings, options))
    # closed weeks' storylines stored in the background, so past weeks' digests read them
    built.append(importlib.import_module("bot.host.storyline_fill").component(settings, options))
    return built


def _waiting(message: str) -> None:
    log.warning("%s", message)


def context_factory(settings: Settings, db: Path) -> ContextFactory:
    """Builds a Context (own SQLite connection + rule profile) for one worker thread."""

    def build() -> Context:
        from bot.config.repo_profiles import RepoProfiles

        profile = active_profile(settings)  # `pr` may fetch and store a PR: its writes count title topics
        cache = connect(db, lock_timeout=settings.prdigest_lock_timeout, on_wait=_waiting)
        store = PRStore(cache, title_keys=ProfileTitleKeys(profile))
        profiles = RepoProfiles(settings, store.db)  # each repository's own, chosen once per thread
        return Context(store=store, profile=profile, digests=DigestCache(), profiles=profiles)

    return build


def cache_state(ctx: Context) -> dict[str, Any]:
    """The cache's part of /healthz: repositories, PR counts, newest merge, and whether its schema
    is this prdigest's (not ok: migrations pending, or a cache made by a newer prdigest)."""
    store = ctx.store
    repos = []
    for repo in store.repos():
        span = store.merged_range(repo)
        newest = iso(span[1]) if span else None
        used = ctx.for_repo(repo).profile
        repos.append(
            {
                "repo": repo,
                "prs": store.count(repo),
                "newest_merged_at": newest,
                "profile": {"name": used.name, "version": used.version},
            }
        )
    status = schema_status(store.db)
    state: dict[str, Any] = {
        "ok": status.ok,
        "schema_ok": status.ok,
        "pending_migrations": list(status.pending),
        "repos": repos,
        "prs": sum(r["prs"] for r in repos),
        "profile": {"name": ctx.profile.name, "version": ctx.profile.version},
    }
    if status.problem:
        state["schema_problem"] = f"the cache {status.problem}"
        state["unknown_migrations"] = list(status.unknown)
    return state


def bind(host: str, port: int, backlog: int = HttpLimits.backlog) -> socket.socket:
    """A listening socket on host:port (0 picks a free port), or UserError in one line."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, socket.gaierror) else str(exc)
        raise UserError(f"--host {host!r} is not an address this machine can listen on ({reason})") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UserError(
                f"port {port} on {host} is already in use: stop the other server or choose another "
                "port with PRDIGEST_PORT or --port"
            ) from None
        raise UserError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    sock.setblocking(False)
    return sock


class Host:
    """One process serving every configured component; see the module docstring."""

    def __init__(
        self,
        settings: Settings,
        runner: CommandRunner,
        components: Sequence[Component],
        *,
        host: str = "0.0.0.0",
        port: int = 3000,
        limits: HttpLimits = HttpLimits(),
        db: Path | None = None,
    ) -> None:
        self.settings = settings
        self.db = db  # the cache's path, for components with a connection of their own (scheduler)
        self.runner = runner
        self.components = list(components)
        self.host = host
        self.port = port
        self.limits = limits
        self.guard = ConnectionGuard(limits)
        self.web = web.Application(client_max_size=limits.max_body, middlewares=[self.guard.middleware])
        self.web.router.add_get(HEALTH_PATH, self._health)
        self._started: list[Component] = []

    def route(self, method: str, path: str, handler: Handler) -> None:
        """Add an HTTP route (only while components start, before the server listens)."""
        self.web.router.add_route(method, path, handler)

    async def _health(self, request: web.Request) -> web.Response:
        """The cache's state, read in the runner's own health lane (never behind commands),
        each component's, and the HTTP server's connection counts."""
        try:
            state = await self.runner.health.call(cache_state)
        except Exception as exc:  # a health check reports, it does not crash
            log.warning("health check failed: %s", exc)
            return web.json_response({"ok": False, "error": str(exc)}, status=503)
        state["components"] = {c.name: c.health() for c in self._started}
        state["http"] = self.guard.health()
        # a component that cannot work (scheduled delivery on a read-only cache) makes the whole
        # not ok, with its reason; the others keep their own "ok"
        broken = {
            n: h.get("reason", "not ok") for n, h in state["components"].items() if h.get("ok") is False
        }
        if broken:
            state["ok"] = False
            state["problems"] = [f"{name}: {why}" for name, why in broken.items()]
        return web.json_response(state, status=200 if state["ok"] else 503)

    async def run(
        self, *, stop: asyncio.Event | None = None, on_ready: Callable[[int], None] | None = None
    ) -> None:
        """Serve until ``stop`` is set (or SIGINT/SIGTERM); ``on_ready`` gets the bound port.

        Order: take the port (fail fast), start the components (each may refuse with
        ConfigError), then listen; on the way out everything is stopped in reverse and the
        runner's threads close their connections.
        """
        sock = bind(self.host, self.port, self.limits.backlog)
        app_runner: web.AppRunner | None = None
        server: asyncio.Server | None = None
        try:
            for component in self.components:
                self._started.append(component)
                await component.start(self)
            app_runner = web.AppRunner(
                self.web,
                access_log=None,
                keepalive_timeout=self.limits.keepalive_timeout,
                shutdown_timeout=self.limits.shutdown_timeout,
            )
            await app_runner.setup()
            self.guard.factory = app_runner.server
            loop = asyncio.get_running_loop()
            server = await loop.create_server(self.guard, sock=sock, backlog=self.limits.backlog)
            port = int(sock.getsockname()[1])
            names = ", ".join(c.name for c in self.components)
            log.info("prdigest serving %s; /healthz on http://%s:%s%s", names, self.host, port, HEALTH_PATH)
            if on_ready:
                on_ready(port)
            stop = stop or asyncio.Event()
            self._on_signals(stop)
            await stop.wait()
        finally:
            for component in reversed(self._started):
                try:
                    await component.stop()
                except Exception:
                    log.exception("stopping %s failed", component.name)
            if server is not None:
                server.close()  # no new connections; aiohttp's cleanup ends the open ones
            if app_runner is not None:
                await app_runner.cleanup()
            sock.close()
            self.runner.close()

    @staticmethod
    def _on_signals(stop: asyncio.Event) -> None:
        # Signal handlers can only be set from the main thread of a POSIX process; tests (and any
        # embedding application) run the host in another thread and stop it with ``stop``.
        if sys.platform != "win32" and threading.current_thread() is threading.main_thread():
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)


def build_host(
    settings: Settings,
    *,
    db: Path | None = None,
    host: str = "0.0.0.0",
    port: int | None = None,
    options: ServeOptions = ServeOptions(),
    runner: CommandRunner | None = None,
    limits: HttpLimits = HttpLimits(),
) -> Host:
    """Everything ``serve`` starts, validated: ConfigError/StoreError/ProfileError otherwise."""
    components = components_for(settings, options)
    path = db or settings.prdigest_db
    factory = context_factory(settings, path)
    factory().store.db.close()  # fail fast on a bad cache or profile
    runner = runner or CommandRunner(factory, settings=settings)
    return Host(
        settings,
        runner,
        components,
        host=host,
        port=settings.prdigest_port if port is None else port,
        db=path,
        limits=limits,
    )


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
    help="HTTP port for /healthz and Slack's /slack/events (default: PRDIGEST_PORT, 3000).",
)
@click.option(
    "--socket-mode/--http",
    "socket_mode",
    default=None,
    help="Slack: force a mode (default: Socket Mode when SLACK_APP_TOKEN is set, else HTTP).",
)
def serve(db: Path | None, host: str, port: int | None, socket_mode: bool | None) -> None:
    """Run the configured chat front ends (Slack, Discord) with their slash commands, the scheduled
    digests of the subscriptions and /healthz, until stopped."""
    logs.configure()
    try:
        settings = load_settings()
        server = build_host(
            settings, db=db, host=host, port=port, options=ServeOptions(socket_mode=socket_mode)
        )
    except (ConfigError, StoreError, ProfileError) as exc:
        raise UserError(str(exc), where="serve") from None
    load_all()
    settle_heap()
    try:
        asyncio.run(server.run())
    except ConfigError as exc:
        raise UserError(str(exc), where="serve") from None
    except UserError as exc:
        exc.where = "serve"
        raise
    except KeyboardInterrupt:
        pass
