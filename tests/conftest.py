"""Shared fixtures: the demo history classified once per session, and command helpers."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

from bot.ingest.demo import demo_data_path
from bot.ingest.load import import_file
from classify.rules import Profile, load_profile
from commands.model import Invocation, Reply
from commands.registry import Context, dispatch
from storage.db import connect
from storage.prs import PRStore

# Hypothesis keeps no example database, and its caches go to a temporary directory: tests never
# write into the source tree.
settings.register_profile("prdigest", database=None)
settings.load_profile("prdigest")
_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="prdigest-hypothesis-")
set_hypothesis_home_dir(_HYPOTHESIS_HOME)
atexit.register(shutil.rmtree, _HYPOTHESIS_HOME, ignore_errors=True)
# The compiled profile and the remembered schema shape (classify.profile_cache, storage.schema) go to
# a temporary cache directory, inherited by every prdigest a test starts: not the user's ~/.cache.
_CACHE_HOME = tempfile.mkdtemp(prefix="prdigest-xdg-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, ignore_errors=True)

DEMO_NOW = datetime(2026, 5, 11, 9, 0, tzinfo=UTC)  # Monday after the demo's last full week


@pytest.fixture(scope="session")
def profile() -> Profile:
    return load_profile()


@pytest.fixture(scope="session")
def demo_db_template(tmp_path_factory: pytest.TempPathFactory, profile: Profile) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    store = PRStore(connect(path, create=True))
    import_file(store, profile, demo_data_path())
    store.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.db.conn.close()
    return path


@pytest.fixture
def demo_db(demo_db_template: Path, tmp_path: Path) -> Path:
    """A private copy of the classified demo cache (tests may write to it)."""
    path = tmp_path / "demo.db"
    shutil.copy(demo_db_template, path)
    return path


@pytest.fixture(scope="session")
def demo_ctx(demo_db_template: Path, profile: Profile) -> Context:
    return Context(store=PRStore(connect(demo_db_template)), profile=profile)


RunFn = Callable[..., Reply]


@pytest.fixture
def run(demo_ctx: Context) -> RunFn:
    """Run a command against the demo cache as if typed: run("digest", "2026-W19", lang="zh")."""

    def _run(
        command: str,
        *args: str,
        lang: str = "en",
        repo: str | None = None,
        now: datetime = DEMO_NOW,
        timezone: str = "UTC",
    ) -> Reply:
        inv = Invocation(command=command, args=args, repo=repo, lang=lang, now=now, timezone=timezone)  # type: ignore[arg-type]
        return dispatch(inv, demo_ctx)

    return _run
