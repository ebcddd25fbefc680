"""The sentence cache as the prose writer reads it: the SQLite cache (``storage.prose_cache``).

``DirectCache`` uses a connection of the calling thread: the CLI and the deliverer, which run
the writer on their own thread's event loop. (A front end whose event loop does not own a
connection reads the cache through its runner's worker threads instead.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from storage import prose_cache

if TYPE_CHECKING:
    import sqlite3

    import sqlite_utils


class DirectCache:
    def __init__(self, db: sqlite_utils.Database | sqlite3.Connection, model: str) -> None:
        self.db = db
        self.model = model

    async def load(self, keys: Sequence[str]) -> dict[str, str]:
        return prose_cache.load(self.db, keys)

    async def save(self, answers: Mapping[str, str]) -> None:
        prose_cache.save(self.db, answers, self.model)
