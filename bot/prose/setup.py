"""The prose writer a process uses, from its settings: None when no model is configured."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.prose.config import prose_config

if TYPE_CHECKING:
    import sqlite3

    import sqlite_utils

    from bot.config.read_settings import ReadSettings
    from bot.config.settings import Settings
    from bot.prose.cache import Lanes
    from bot.prose.writer import ProseWriter


def prose_writer(
    settings: Settings | ReadSettings, db: sqlite_utils.Database | sqlite3.Connection
) -> ProseWriter | None:
    """A writer over the cache ``db`` (used from the thread that owns it), or None when
    ``PRDIGEST_LLM_URL`` is not set. httpx is imported only when a model is configured."""
    config = prose_config(settings)
    if config is None:
        return None
    from bot.prose.cache import DirectCache
    from bot.prose.writer import ProseWriter

    return ProseWriter(config, DirectCache(db, config.model))


def chat_writer(settings: Settings, lanes: Lanes) -> ProseWriter | None:
    """A writer for the chat front ends (the cache through the host's worker threads), or None."""
    config = prose_config(settings)
    if config is None:
        return None
    from bot.prose.cache import LaneCache
    from bot.prose.writer import ProseWriter

    return ProseWriter(config, LaneCache(lanes, config.model))
