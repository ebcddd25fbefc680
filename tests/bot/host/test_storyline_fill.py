"""``serve`` stores closed weeks' storylines in the background (``bot.host.storyline_fill``) and stores
them again after a write it did not make."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import time
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from bot.config.settings import Settings
from bot.host.runner import Lane
from bot.host.serve import context_factory
from bot.host.storyline_fill import StorylineFill
from bot.ingest.demo import DEMO_REPO, demo_data_path
from bot.ingest.load import import_file
from classify.engine import classify
from classify.rules import load_profile
from classify.title_keys import ProfileTitleKeys
from commands.report.fill import closed_weeks, is_current
from storage.db import connect
from storage.prs import PRStore
from storage.storylines import stored_periods


def _unstored(store: PRStore) -> int:
    profile = load_profile()
    weeks = closed_weeks(store, DEMO_REPO, ZoneInfo("UTC"), datetime.now(UTC))
    assert len(weeks) >= 6
    return sum(not is_current(store, profile, DEMO_REPO, w) for w in weeks)


async def _until(check: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the fill did not finish in time"
        await asyncio.sleep(0.05)


def test_serve_stores_closed_weeks_and_stores_them_again_after_a_write(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    profile = load_profile()
    writer = PRStore(connect(path, create=True), title_keys=ProfileTitleKeys(profile))
    import_file(writer, profile, demo_data_path())
    reader = PRStore(connect(path))
    assert _unstored(reader) >= 6 and stored_periods(reader.db, DEMO_REPO) == 0
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    fill = StorylineFill(settings, batch=3, pause=0.01, watch=0.05)

    async def main() -> None:
        host = SimpleNamespace(
            settings=settings, lane=lambda name: Lane(name, context_factory(settings, path), workers=1)
        )
        await fill.start(host)  # type: ignore[arg-type]
        try:
            # the first pass is over (not only its last week stored: its count comes after)
            await _until(lambda: fill.health()["passes"] >= 1)
            assert _unstored(reader) == 0
            found = fill.found
            # another connection's write to one week: that week and the four after it are stale
            span = reader.merged_range(DEMO_REPO)
            assert span is not None
            row = reader.merged_between(DEMO_REPO, span[0] + timedelta(days=1), span[1])[
                0
            ]  # in the first week
            full = writer.get(DEMO_REPO, row.pr.number)
            assert full is not None
            pr = dataclasses.replace(full.pr, title="[Quokka] " + full.pr.title)
            writer.upsert([(pr, classify(pr, profile))])
            # the fill may already be storing them again (it watches every 50 ms): no more than the
            # five are stale now, and the pass the write started stores exactly those five
            assert _unstored(reader) <= 5
            await _until(lambda: fill.health()["passes"] >= 2)
            assert _unstored(reader) == 0
            assert fill.found == found + 5
        finally:
            await fill.stop()

    asyncio.run(main())


def test_the_cli_stores_the_storylines_it_found_and_reads_them_back(demo_db: Path) -> None:
    from tests.bot.cli.test_cli import cli

    first = cli("digest", "2026-W17", "--db", str(demo_db))
    assert first.returncode == 0, first.stderr
    with closing(sqlite3.connect(demo_db)) as conn:
        starts = conn.execute("SELECT start, end FROM stored_storylines").fetchall()
    assert starts == [("2026-04-20T00:00:00+00:00", "2026-04-27T00:00:00+00:00")]
    again = cli("digest", "2026-W17", "--db", str(demo_db))
    assert again.returncode == 0 and again.stdout == first.stdout
    still_open = cli("digest", "week", "--db", str(demo_db))  # the week in progress is not stored
    assert still_open.returncode == 0
    with closing(sqlite3.connect(demo_db)) as conn:
        assert conn.execute("SELECT count(*) FROM stored_storylines").fetchone()[0] == 1
