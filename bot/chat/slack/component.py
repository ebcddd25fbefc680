"""Slack as a component of the host (``bot.host.serve``): HTTP mode or Socket Mode.

HTTP mode adds ``POST /slack/events`` to the host's server (every request verified with
SLACK_SIGNING_SECRET before it is decoded: ``bot.chat.slack.verify``). With SLACK_APP_TOKEN the app talks to Slack over Socket Mode (no
public URL needed) and adds no route. Tokens are checked with Slack when the component starts,
so a wrong one stops ``serve`` with one line instead of failing on the first command.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.chat.slack.app import Inflight, build_app
from bot.chat.slack.post import DEFAULT_PACE, SlackPoster, bot_token, explain, web_client
from bot.chat.slack.verify import SlackVerifier
from bot.config.settings import ConfigError, Settings, secret
from bot.prose.setup import chat_writer

if TYPE_CHECKING:
    from bot.host.serve import Host, ServeOptions

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"


@dataclass(frozen=True)
class SlackPlan:
    """The mode and tokens, validated from settings before anything connects."""

    socket_mode: bool
    app_token: str

    @classmethod
    def from_settings(cls, settings: Settings, socket_mode: bool | None = None) -> SlackPlan:
        bot_token(settings)  # raises ConfigError naming SLACK_BOT_TOKEN
        app_token = secret(settings.slack_app_token)
        socket = bool(app_token) if socket_mode is None else socket_mode
        if socket:
            if not app_token:
                raise ConfigError(
                    "SLACK_APP_TOKEN is not set: Socket Mode needs an app-level token (xapp-…) "
                    "with the connections:write scope (Basic Information › App-Level Tokens)"
                )
            if not app_token.startswith("xapp-"):
                raise ConfigError("SLACK_APP_TOKEN must be an app-level token starting with xapp-")
        elif not secret(settings.slack_signing_secret):
            raise ConfigError(
                "SLACK_SIGNING_SECRET is not set: HTTP mode verifies every request with it "
                "(Basic Information › App Credentials); or set SLACK_APP_TOKEN for Socket Mode"
            )
        return cls(socket_mode=socket, app_token=app_token)


async def check_token(client: AsyncWebClient) -> None:
    """auth.test once at start: a wrong token is a startup error, not a silent failure later."""
    try:
        await client.auth_test()
    except (SlackApiError, SlackClientError, OSError) as exc:
        raise ConfigError(str(explain(exc, "-"))) from None


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
        raise ConfigError(str(explain(exc, "-"))) from None


class SlackComponent:
    """Slack's slash commands, answered through the host's runner."""

    name = "slack"

    def __init__(self, settings: Settings, plan: SlackPlan, *, pace: float = DEFAULT_PACE) -> None:
        self.settings = settings
        self.plan = plan
        self.pace = pace
        self.app: AsyncApp | None = None
        self.inflight = Inflight()
        self.drain_timeout = 30.0
        self.verifier = SlackVerifier(secret(settings.slack_signing_secret))
        self._socket: Any = None

    async def start(self, host: Host) -> None:
        client = web_client(self.settings)
        await check_token(client)
        if self.plan.socket_mode:
            await check_app_token(client, self.plan.app_token)
        poster = SlackPoster(client, pace=self.pace, permalink=False)
        self.app = build_app(
            self.settings,
            host.runner,
            client=client,
            poster=poster,
            http=not self.plan.socket_mode,
            inflight=self.inflight,
            prose=chat_writer(self.settings, host.runner),
        )
        if self.plan.socket_mode:
            from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

            self._socket = AsyncSocketModeHandler(self.app, self.plan.app_token, web_client=client)
            await self._socket.connect_async()
            log.info("Slack connected over Socket Mode")
        else:
            host.route("POST", EVENTS_PATH, self._events)
            log.info("Slack commands at POST %s", EVENTS_PATH)

    async def _events(self, request: web.Request) -> web.Response:
        """Verify, decode, then hand to Bolt; every malformed request is a 4xx, never a 500.

        The body was read by the host (size and time capped); the signature is checked on the
        raw bytes before anything decodes them, so an unsigned request — whatever its bytes,
        charset or headers — is refused with 401, counted and logged without its body.
        """
        body = await request.read()
        if self.verifier.refusal(request.headers, body, request.remote) is not None:
            return web.json_response({"error": "invalid request"}, status=401)
        try:
            text = body.decode("utf-8")
            bolt_req = AsyncBoltRequest(
                body=text,
                query=request.query_string,
                headers={k.lower(): [v] for k, v in request.headers.items()},
                mode="http",
            )
        except Exception as exc:  # signed, yet not what Slack sends (bytes, JSON, shape)
            self.verifier.count(f"unreadable ({type(exc).__name__})", request.remote, len(body))
            return web.json_response({"error": "unreadable request"}, status=400)
        assert self.app is not None
        try:
            return await to_aiohttp_response(await self.app.async_dispatch(bolt_req))
        except Exception as exc:  # a signed payload of a shape Bolt cannot take
            log.warning("could not handle a signed Slack request (%s)", type(exc).__name__)
            return web.json_response({"error": "unreadable request"}, status=400)

    async def stop(self) -> None:
        """Stop taking commands (Socket Mode disconnects), then let the answers in flight finish."""
        if self._socket is not None:
            await self._socket.close_async()
            self._socket = None
        left = await self.inflight.drain(self.drain_timeout)
        if left:
            log.warning("stopped with %d Slack answers unfinished", left)

    def health(self) -> dict[str, Any]:
        if self.plan.socket_mode:
            return {"mode": "socket"}
        return {"mode": "http", **self.verifier.health()}


def component(settings: Settings, options: ServeOptions) -> SlackComponent:
    """``bot.host.serve``'s entry point for Slack (ConfigError when a setting is missing or wrong)."""
    plan = SlackPlan.from_settings(settings, options.socket_mode)
    pace = DEFAULT_PACE if options.pace is None else options.pace
    return SlackComponent(settings, plan, pace=pace)
