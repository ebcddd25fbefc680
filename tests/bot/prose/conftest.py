"""The fake model on loopback, and a digest of the demo week ready to be worded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.prose.cache import DirectCache
from bot.prose.config import ProseConfig
from bot.prose.writer import ProseWriter
from classify.rules import Profile
from commands.model import Invocation, Reply
from commands.registry import Context, dispatch
from storage.db import connect
from storage.prs import PRStore
from tests.conftest import DEMO_NOW
from tests.fakes.llm import KEY, MODEL, FakeLLM

WEEK = "2026-W19"


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        yield fake


def config_for(fake: FakeLLM, **changes: object) -> ProseConfig:
    values: dict[str, object] = {"url": fake.url, "model": MODEL, "key": KEY, "timeout": 20.0}
    values.update(changes)
    return ProseConfig(**values)  # type: ignore[arg-type]


def digest(db: Path, profile: Profile, lang: str = "zh", *words: str) -> Reply:
    ctx = Context(store=PRStore(connect(db)), profile=profile)
    inv = Invocation(command="digest", args=(WEEK, *words), lang=lang, now=DEMO_NOW)  # type: ignore[arg-type]
    return dispatch(inv, ctx)


def writer_for(fake: FakeLLM, db: Path, **changes: object) -> ProseWriter:
    config = config_for(fake, **changes)
    return ProseWriter(config, DirectCache(connect(db), config.model))


def only(reply: Reply, n: int) -> Reply:
    """``reply`` with its first ``n`` parts left for the model (a smaller, faster exchange)."""
    parts = reply.prose
    assert parts is not None
    reply.prose = lambda: parts()[:n]
    return reply
