"""What the host (``prdigest serve``, ``bot.host``) offers the components it runs, and what a
component is — the narrow interface between them.

Components (the Slack and Discord front ends, the Monday clock, the storyline fill) are given a
``Host`` when they start and use only what it declares here: the settings, the shared command
runner, HTTP routes, worker lanes of their own and a cache connection for the loop's thread. They
never import the host, so it can be changed (or faked in a test) without touching them, and no
import circle runs through it. What one component lends another (the chat front ends' live
connections, which the Monday clock posts through) the host wires when it builds them
(``bot.chat.steps.LivePosting``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from aiohttp import web

    from bot.config.settings import Settings
    from commands.context import Context
    from commands.model import Invocation, Reply

T = TypeVar("T")
RouteHandler = Callable[["web.Request"], Awaitable["web.StreamResponse"]]


@dataclass(frozen=True)
class ServeOptions:
    """What the command line may change for the front ends (each takes what concerns it)."""

    socket_mode: bool | None = None  # Slack: force Socket Mode (True) or HTTP (False)
    pace: float | None = None  # seconds between the messages of one post (tests use 0)


class Lane(Protocol):
    """Worker threads with a cache connection each, off the event loop."""

    async def call(self, fn: Callable[[Context], T]) -> T:
        """Run ``fn(context)`` on one of the lane's threads and await its result."""

    def close(self) -> None:
        """Let queued jobs finish, then stop the threads (each closes its own connection)."""


class Runner(Protocol):
    """The host's shared command runner."""

    subscriptions_changed: list[Callable[[], None]]
    """called (on the loop, with no arguments) after a command changed subscriptions"""

    async def dispatch(self, inv: Invocation) -> Reply:
        """Answer ``inv`` (a PR the cache lacks fetched on demand, rate-limited)."""

    async def call(self, fn: Callable[[Context], T]) -> T:
        """Run ``fn(context)`` in the commands' lane."""


class Host(Protocol):
    """What a component may use of the host it runs in."""

    settings: Settings
    runner: Runner

    def route(self, method: str, path: str, handler: RouteHandler) -> None:
        """Add an HTTP route to the host's server (only while components start)."""

    def lane(self, name: str) -> Lane:
        """A lane of one worker thread of the component's own, with its own cache connection (its
        work never waits behind chat commands, nor they behind it); the component closes it."""

    def context(self) -> Context:
        """A context whose cache connection belongs to the calling thread — the loop's, for a
        component's short ledger reads and writes between awaits; anything slow goes to a lane.
        The component closes it (``ctx.store.db.close()``)."""


class Component(Protocol):
    """A front end (or the clock, the fill) living in the host."""

    name: str

    async def start(self, host: Host) -> None:
        """Check tokens, connect, add routes; raise ConfigError to refuse."""

    async def stop(self) -> None:
        """Disconnect; called once, also after a failed start."""

    def health(self) -> dict[str, Any]:
        """What ``/healthz`` shows about this component."""
