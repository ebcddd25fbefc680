"""The HTTP server's defences: header and body timeouts, a connection cap, bounded bodies.

aiohttp parses requests well but leaves three doors open to anyone who can connect: a connection
may take as long as it likes to send its headers (only the 75 s keep-alive timer ends it), a body
may trickle in forever, and nothing caps the number of connections, so 20,000 slow-header
connections exhaust the file descriptors and nobody else gets in.

``ConnectionGuard`` wraps aiohttp's protocol factory (plain ``asyncio.Protocol`` delegation, no
aiohttp internals) and keeps every connection's state:

* **header timeout** — a connection must deliver a complete request head within
  ``header_timeout`` seconds of opening, or of its previous answer (keep-alive), else it is
  closed;
* **cap** — at most ``max_connections`` at once; a new connection at the cap pushes out the
  oldest connection that is not being answered (still sending its headers or its body, or idle
  between requests), so ``/healthz`` and Slack always get in while such connections exist;
  only when every connection is busy answering is the newcomer refused;
* ``guard_middleware`` — reads each body under ``body_timeout`` (408) and ``max_body`` (413)
  before any handler runs, and marks the connection busy while it is answered.

The counts go to ``/healthz`` (``http``).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class HttpLimits:
    """The HTTP server's limits, in one place: request body size and the time it may take, the
    time a connection gets to send a request head, the connection cap, how long an idle
    keep-alive connection is kept (at most ``header_timeout``: waiting for the next request is
    waiting for headers), how long a stop waits for requests in flight, the listen backlog."""

    max_body: int = 1024 * 1024
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    max_connections: int = 1000
    keepalive_timeout: float = 75.0
    shutdown_timeout: float = 5.0
    backlog: int = 128

    def connection_cap(self) -> int:
        """``max_connections``, lowered to leave 64 file descriptors of the process's limit free."""
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            return self.max_connections
        return max(8, min(self.max_connections, soft - 64))


@dataclass(eq=False)
class _Conn:
    transport: asyncio.Transport
    busy: bool = False
    timer: asyncio.TimerHandle | None = None
    opened: float = field(default_factory=time.monotonic)


@dataclass
class GuardStats:
    accepted: int = 0
    evicted: int = 0
    refused: int = 0
    header_timeouts: int = 0
    body_timeouts: int = 0
    too_large: int = 0


class ConnectionGuard:
    """A protocol factory around aiohttp's server (``AppRunner.server``); see the module doc."""

    def __init__(self, limits: HttpLimits) -> None:
        self.factory: Callable[[], asyncio.Protocol] | None = None  # aiohttp's, once set up
        self.limits = limits
        self.cap = limits.connection_cap()
        self.stats = GuardStats()
        self._open: dict[asyncio.BaseTransport, _Conn] = {}  # oldest first

    def __call__(self) -> asyncio.Protocol:
        assert self.factory is not None, "set the guard's factory to the AppRunner's server"
        return _Guarded(self, self.factory())

    # -- connection states --------------------------------------------------------------------

    def admit(self, transport: asyncio.Transport) -> bool:
        if len(self._open) >= self.cap:
            victim = next((c for c in self._open.values() if not c.busy), None)
            if victim is None:
                self.stats.refused += 1
                return False
            self._drop(victim)
            self.stats.evicted += 1
        conn = _Conn(transport)
        self._open[transport] = conn
        self.stats.accepted += 1
        self._arm(conn)
        return True

    def forget(self, transport: asyncio.BaseTransport) -> None:
        conn = self._open.pop(transport, None)
        if conn is not None and conn.timer is not None:
            conn.timer.cancel()

    def _drop(self, conn: _Conn) -> None:
        self.forget(conn.transport)
        conn.transport.abort()

    def _arm(self, conn: _Conn) -> None:
        if conn.timer is not None:
            conn.timer.cancel()
        loop = asyncio.get_running_loop()
        conn.timer = loop.call_later(self.limits.header_timeout, self._expire, conn)

    def _expire(self, conn: _Conn) -> None:
        conn.timer = None
        if not conn.busy and conn.transport in self._open:
            self.stats.header_timeouts += 1
            self.forget(conn.transport)
            conn.transport.close()

    def head_received(self, transport: asyncio.BaseTransport | None) -> _Conn | None:
        """A request head arrived: stop the header clock (the body has its own)."""
        conn = self._open.get(transport) if transport is not None else None
        if conn is not None and conn.timer is not None:
            conn.timer.cancel()
            conn.timer = None
        return conn

    def answered(self, conn: _Conn | None) -> None:
        """The request was answered: the connection waits for the next head (keep-alive)."""
        if conn is not None and conn.transport in self._open:
            conn.busy = False
            self._arm(conn)

    def health(self) -> dict[str, Any]:
        waiting = sum(1 for c in self._open.values() if not c.busy)
        return {
            "connections": len(self._open),
            "connections_waiting": waiting,
            "connection_cap": self.cap,
            **self.stats.__dict__,
        }

    # -- the middleware -----------------------------------------------------------------------

    @property
    def middleware(self) -> Any:
        @web.middleware
        async def guard_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
            conn = self.head_received(request.transport)
            try:
                if request.can_read_body:
                    refused = await self._read_body(request)
                    if refused is not None:
                        return refused
                if conn is not None:
                    conn.busy = True
                return await handler(request)
            finally:
                self.answered(conn)

        return guard_middleware

    async def _read_body(self, request: web.Request) -> web.StreamResponse | None:
        """Read (and cache) the whole body within the limits; a response when it is refused."""
        length = request.content_length
        if length is not None and length > self.limits.max_body:
            self.stats.too_large += 1
            return _closing(web.json_response({"error": "request body too large"}, status=413))
        try:
            async with asyncio.timeout(self.limits.body_timeout):  # no extra task, unlike wait_for
                await request.read()
        except TimeoutError:
            self.stats.body_timeouts += 1
            return _closing(web.json_response({"error": "request body too slow"}, status=408))
        except web.HTTPRequestEntityTooLarge:
            self.stats.too_large += 1
            return _closing(web.json_response({"error": "request body too large"}, status=413))
        return None


def _closing(response: web.Response) -> web.Response:
    response.force_close()  # the rest of the body is never read: the connection cannot be reused
    return response


class _Guarded(asyncio.Protocol):
    """Delegates to aiohttp's protocol, telling the guard when a connection opens and closes."""

    def __init__(self, guard: ConnectionGuard, inner: asyncio.Protocol) -> None:
        self._guard = guard
        self._inner: asyncio.Protocol | None = inner
        self._transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        if not self._guard.admit(transport):
            self._inner = None
            transport.abort()
            return
        self._transport = transport
        assert self._inner is not None
        self._inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._transport is not None:
            self._guard.forget(self._transport)
        if self._inner is not None:
            self._inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._inner is not None:
            self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received() if self._inner is not None else None

    def pause_writing(self) -> None:
        if self._inner is not None:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._inner is not None:
            self._inner.resume_writing()
