"""The sentence cache as the prose writer reads it: the SQLite cache (``storage.prose_cache``).

``DirectCache`` uses a connection of the calling thread: the CLI and the deliverer, which run
the writer on their own thread's event loop. ``LaneCache`` goes through the host's worker
threads: the chat front ends, whose event loop owns no connection.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from storage import prose_cache

if TYPE_CHECKING:
    import sqlite3

    import sqlite_utils

    from commands.registry import Context

T = TypeVar("T")


class DirectCache:
    def __init__(self, db: sqlite_utils.Database | sqlite3.Connection, model: str) -> None:
        self.db = db
        self.model = model

    async def load(self, keys: Sequence[str]) -> dict[str, str]:
        return prose_cache.load(self.db, keys)

    async def save(self, answers: Mapping[str, str]) -> None:
        prose_cache.save(self.db, answers, self.model)


class Lanes(Protocol):
    """What runs a function with a thread's own cache connection (``bot.host.runner``)."""

    async def call(self, fn: Callable[[Context], T]) -> T: ...


class LaneCache:
    """The cache read and written on the host's worker threads, each with its own connection: for
    the chat front ends, whose event loop holds none."""

    def __init__(self, lanes: Lanes, model: str) -> None:
        self.lanes = lanes
        self.model = model

    async def load(self, keys: Sequence[str]) -> dict[str, str]:
        wanted = list(keys)
        return await self.lanes.call(lambda ctx: prose_cache.load(ctx.store.db, wanted))

    async def save(self, answers: Mapping[str, str]) -> None:
        given = dict(answers)
        await self.lanes.call(lambda ctx: prose_cache.save(ctx.store.db, given, self.model))
