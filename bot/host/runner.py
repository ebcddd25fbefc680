"""Running commands off the event loop: bounded lanes of worker threads, each with its own cache
connection, all closed on shutdown.

SQLite connections belong to the thread that opened them, and a command (a digest is ~50 ms of
CPU) must not block the loop that acknowledges chat requests and answers ``/healthz``. A
``Lane`` is a fixed number of threads fed from one queue; each thread builds its own ``Context``
(connection + profile) on first use and closes it itself when the lane stops. The runner has
three lanes: ``commands`` for answers from the cache; ``fetches`` for on-demand GitHub lookups
(``/pr`` of an uncached PR), so a slow or unreachable GitHub holds at most the fetch lane's
threads and never the commands of everyone else — and its queue is bounded, and chat users'
fetches are rate-limited (``bot.chat.fetch_limit``); and ``health``, one thread of its own, so
``/healthz`` never waits behind command work.

A command that changes subscriptions (the admin-only ones: ``/subscribe``, ``/unsubscribe``)
tells the runner's ``subscriptions_changed`` listeners once it has succeeded, so the scheduler
re-arms at once instead of at its next periodic check."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from bot.chat.fetch_limit import FetchLimiter, FetchLimits
from bot.config.settings import Settings
from bot.ingest.on_demand import fetch_missing
from commands.locale import t
from commands.model import Invocation, Reply
from commands.registry import REGISTRY, Context, dispatch

log = logging.getLogger(__name__)

T = TypeVar("T")
ContextFactory = Callable[[], Context]
_STOP = object()


def _resolve(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


class LaneFull(Exception):
    """More jobs are already waiting for the lane than it accepts."""


class Lane:
    """``workers`` threads named ``prdigest-NAME-N`` that run jobs ``fn(context)``; with
    ``max_waiting``, a job that would have to wait behind that many others for a free thread
    is refused with ``LaneFull``."""

    def __init__(
        self, name: str, factory: ContextFactory, *, workers: int, max_waiting: int | None = None
    ) -> None:
        self.name = name
        self._factory = factory
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.max_waiting = max_waiting
        self._load = 0  # jobs queued or running
        self._count = threading.Lock()
        self._threads = [
            threading.Thread(target=self._work, name=f"prdigest-{name}-{i}", daemon=True)
            for i in range(max(1, workers))
        ]
        self._closed = False
        for thread in self._threads:
            thread.start()

    @property
    def workers(self) -> int:
        return len(self._threads)

    def _work(self) -> None:
        ctx: Context | None = None
        try:
            while True:
                job = self._jobs.get()
                if job is _STOP:
                    return
                fn, loop, future = job
                value: Any = None
                error: BaseException | None = None
                try:
                    if ctx is None:
                        ctx = self._factory()
                    value = fn(ctx)
                except BaseException as exc:  # handed to the awaiting coroutine, not lost
                    error = exc
                with self._count:
                    self._load -= 1
                with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
                    loop.call_soon_threadsafe(_resolve, future, value, error)
        finally:
            if ctx is not None:
                ctx.store.db.close()

    async def call(self, fn: Callable[[Context], T]) -> T:
        """Run ``fn(context)`` on one of the lane's threads and await its result."""
        if self._closed:
            raise RuntimeError(f"the {self.name} lane is closed")
        with self._count:
            if self.max_waiting is not None and self._load >= self.workers + self.max_waiting:
                raise LaneFull(f"{self.waiting} jobs are waiting for the {self.name} lane")
            self._load += 1
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put((fn, loop, future))
        return await future

    @property
    def waiting(self) -> int:
        """Jobs queued behind busy threads."""
        return max(0, self._load - self.workers)

    def close(self, timeout: float = 30.0) -> None:
        """Let queued jobs finish, then stop every thread (each closes its own connection)."""
        if self._closed:
            return
        self._closed = True
        for _ in self._threads:
            self._jobs.put(_STOP)
        for thread in self._threads:
            thread.join(timeout)
            if thread.is_alive():
                log.warning("%s did not stop within %.0f s", thread.name, timeout)


def _log_abandoned(job: asyncio.Future[Any]) -> None:
    """A fetch's failure is reported to the user who waited; once nobody waits, it is logged."""
    if (
        not job.cancelled()
        and isinstance(job.exception(), Exception)
        and not isinstance(job.exception(), LaneFull)
    ):
        log.warning("an on-demand fetch failed: %s", type(job.exception()).__name__)


class CommandRunner:
    """The host's shared runner: every front end answers through ``dispatch``."""

    def __init__(
        self,
        factory: ContextFactory,
        *,
        workers: int = 2,
        fetch_workers: int | None = None,
        settings: Settings | None = None,
        fetch_limits: FetchLimits = FetchLimits(),
    ) -> None:
        self.factory = factory  # how each worker thread makes its Context (also for the host's lanes)
        self.settings = settings  # with GITHUB_TOKEN: `/pr` of an uncached PR is fetched on demand
        self.fetch_limits = fetch_limits
        self.limiter = FetchLimiter(fetch_limits)
        self.commands = Lane("cmd", factory, workers=workers)
        self.fetches = Lane(
            "fetch",
            factory,
            workers=fetch_limits.workers if fetch_workers is None else fetch_workers,
            max_waiting=fetch_limits.waiting,
        )
        self.health = Lane("health", factory, workers=1)
        # called (on the loop, with no arguments) after a command changed subscriptions
        self.subscriptions_changed: list[Callable[[], None]] = []

    async def call(self, fn: Callable[[Context], T]) -> T:
        """Run ``fn(context)`` in the commands lane."""
        return await self.commands.call(fn)

    async def dispatch(self, inv: Invocation) -> Reply:
        """Answer ``inv`` from the cache; a PR the cache lacks is fetched in the fetch lane and the
        command answered again. Chat users' fetches are rate-limited and bounded in time."""
        reply = await self.commands.call(lambda ctx: dispatch(inv, ctx))
        spec = REGISTRY.get(inv.command)
        if reply.ok and spec is not None and spec.admin_only:
            self._changed()
        if reply.not_cached is None or self.settings is None:
            return reply
        settings = self.settings
        missing = reply.not_cached
        limited = inv.platform != "cli" and self.settings.github_token is not None
        if limited:
            wait = self.limiter.take(inv.user)
            if wait:
                text = t(inv.lang, "pr.fetch_limited", number=missing.number, wait=round(wait))
                return self._refusal(reply, text)
        job = asyncio.ensure_future(
            self.fetches.call(lambda ctx: fetch_missing(missing, reply, ctx, settings))
        )
        job.add_done_callback(_log_abandoned)
        try:
            # shield: at the deadline the user is answered; the thread ends with its own timeouts
            fetched = await asyncio.wait_for(asyncio.shield(job), self.fetch_limits.deadline)
        except LaneFull:
            if limited:
                self.limiter.refund(inv.user)
            return self._refusal(reply, t(inv.lang, "pr.fetch_busy", number=missing.number))
        except TimeoutError:
            reason = t(inv.lang, "pr.fetch_timeout", seconds=round(self.fetch_limits.deadline))
            return self._refusal(reply, t(inv.lang, "pr.fetch_failed", number=missing.number, reason=reason))
        if fetched is not None:
            return fetched
        return await self.commands.call(lambda ctx: dispatch(inv, ctx))

    def _changed(self) -> None:
        for listener in self.subscriptions_changed:
            try:
                listener()
            except Exception:  # a listener's trouble is not the user's: the answer stands
                log.exception("a subscriptions-changed listener failed")

    @staticmethod
    def _refusal(reply: Reply, text: str) -> Reply:
        return replace(Reply.not_found("pr", text), lang=reply.lang)

    def close(self) -> None:
        self.commands.close()
        self.fetches.close()
        self.health.close()
