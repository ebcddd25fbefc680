"""Running commands off the event loop: bounded lanes of worker threads, each with its own cache
connection, all closed on shutdown.

SQLite connections belong to the thread that opened them, and a command (a digest is ~50 ms of
CPU) must not block the loop that acknowledges chat requests and answers ``/healthz``. A
``Lane`` is a fixed number of threads fed from one queue; each thread builds its own ``Context``
(connection + profile) on first use and closes it itself when the lane stops. The runner has
two lanes: ``commands`` for answers from the cache, and ``fetches`` for on-demand GitHub lookups
(``/pr`` of an uncached PR), so a slow or unreachable GitHub holds at most the fetch lane's
threads and never the commands of everyone else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from bot.answer import fetch_missing
from bot.config import Settings
from commands.model import Invocation, Reply
from commands.registry import Context, dispatch

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


class Lane:
    """``workers`` threads named ``prdigest-NAME-N`` that run jobs ``fn(context)``."""

    def __init__(self, name: str, factory: ContextFactory, *, workers: int) -> None:
        self.name = name
        self._factory = factory
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
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
                with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
                    loop.call_soon_threadsafe(_resolve, future, value, error)
        finally:
            if ctx is not None:
                ctx.store.db.close()

    async def call(self, fn: Callable[[Context], T]) -> T:
        """Run ``fn(context)`` on one of the lane's threads and await its result."""
        if self._closed:
            raise RuntimeError(f"the {self.name} lane is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put((fn, loop, future))
        return await future

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


class CommandRunner:
    """The host's shared runner: every front end answers through ``dispatch``."""

    def __init__(
        self,
        factory: ContextFactory,
        *,
        workers: int = 2,
        fetch_workers: int = 1,
        settings: Settings | None = None,
    ) -> None:
        self.settings = settings  # with GITHUB_TOKEN: `/pr` of an uncached PR is fetched on demand
        self.commands = Lane("cmd", factory, workers=workers)
        self.fetches = Lane("fetch", factory, workers=fetch_workers)

    async def call(self, fn: Callable[[Context], T]) -> T:
        """Run ``fn(context)`` in the commands lane."""
        return await self.commands.call(fn)

    async def dispatch(self, inv: Invocation) -> Reply:
        """Answer ``inv`` from the cache; a PR the cache lacks is fetched in the fetch lane and the
        command answered again."""
        reply = await self.commands.call(lambda ctx: dispatch(inv, ctx))
        if reply.not_cached is None or self.settings is None:
            return reply
        settings = self.settings
        missing = reply.not_cached
        fetched = await self.fetches.call(lambda ctx: fetch_missing(missing, reply, ctx, settings))
        if fetched is not None:
            return fetched
        return await self.commands.call(lambda ctx: dispatch(inv, ctx))

    def close(self) -> None:
        self.commands.close()
        self.fetches.close()
