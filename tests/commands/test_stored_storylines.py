"""Closed periods' storylines stored in the cache (``commands.report.stored_themes``): read back
when nothing they depend on changed, found again when anything did — a PR of the week or of a
comparison window, a write by another process, another profile."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.ingest.demo import DEMO_REPO
from classify.engine import classify
from classify.periods import Period, week_of
from classify.rules import Profile, load_profile
from classify.title_keys import ProfileTitleKeys
from commands.report import stats as stats_module
from commands.report.stats import gather
from commands.report.stored_themes import dumps, loads
from storage.db import connect
from storage.prs import PRStore
from storage.storylines import stored_periods

NOW = datetime(2026, 5, 13, 9, 7, 41, tzinfo=UTC)
WEEK = week_of(datetime(2026, 4, 22, tzinfo=UTC), ZoneInfo("UTC"))  # closed, with four windows before it


@pytest.fixture
def cache(demo_db: Path) -> Path:
    return demo_db  # a private copy of the demo cache (tests/conftest.py)


class Finds:
    """Counts the calls of ``find_themes`` made by ``gather``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = stats_module.find_themes

        def counted(*args: object, **kwargs: object) -> object:
            self.calls += 1
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(stats_module, "find_themes", counted)


@pytest.fixture
def finds(monkeypatch: pytest.MonkeyPatch) -> Iterator[Finds]:
    yield Finds(monkeypatch)


def _digest(store: PRStore, profile: Profile, period: Period = WEEK) -> str:
    """The period's gathered storylines as comparable data (themes with their sentences)."""
    stats = gather(store, profile, DEMO_REPO, period, closed_at=NOW)
    return repr([(th.key, th.numbers, dict(th.summary), th.strength, th.before) for th in stats.themes])


def _plain(store: PRStore, profile: Profile) -> str:
    """``_digest`` without stored storylines: what the answer must be."""
    stats = gather(store, profile, DEMO_REPO, WEEK)
    return repr([(th.key, th.numbers, dict(th.summary), th.strength, th.before) for th in stats.themes])


def _retitle(store: PRStore, profile: Profile, when: datetime, prefix: str) -> int:
    """Give the first PR merged after ``when`` a new title (as a sync would); returns its number."""
    found = store.merged_between(DEMO_REPO, when, when + timedelta(days=2))[0]
    full = store.get(DEMO_REPO, found.pr.number)
    assert full is not None
    pr = dataclasses.replace(full.pr, title=prefix + full.pr.title)
    store.upsert([(pr, classify(pr, profile))])
    return pr.number


def test_stored_storylines_are_find_themes_own_result(cache: Path) -> None:
    from classify.storylines import find_themes

    profile = load_profile()
    store = PRStore(connect(cache))
    prs = store.merged_between(DEMO_REPO, WEEK.start, WEEK.end)
    found = find_themes(prs, profile, [], store.paths(DEMO_REPO, [s.pr.number for s in prs]))
    assert found and loads(dumps(found), prs) == found
    assert loads(dumps(found), prs[1:]) is None or all(prs[0] not in th.prs for th in found)


def test_a_closed_week_is_found_once_then_read(cache: Path, finds: Finds) -> None:
    profile = load_profile()
    store = PRStore(connect(cache))
    first = _digest(store, profile)
    assert (finds.calls, stored_periods(store.db, DEMO_REPO)) == (1, 1)
    assert _digest(PRStore(connect(cache)), profile) == first  # another connection reads it
    assert finds.calls == 1
    open_week = week_of(NOW, ZoneInfo("UTC"))  # not over: found every time, never stored
    _digest(store, profile, open_week)
    _digest(store, profile, open_week)
    assert (finds.calls, stored_periods(store.db, DEMO_REPO)) == (3, 1)


@pytest.mark.parametrize("where", [WEEK.start + timedelta(days=3), WEEK.start - timedelta(days=20)])
def test_a_changed_pr_of_the_week_or_of_a_comparison_window_finds_them_again(
    cache: Path, finds: Finds, where: datetime
) -> None:
    profile = load_profile()
    reader = PRStore(connect(cache))
    _digest(reader, profile)
    writer = PRStore(connect(cache), title_keys=ProfileTitleKeys(profile))
    _retitle(writer, profile, where, "[Quokka] quokka quokka ")
    after = _digest(reader, profile)
    assert finds.calls == 2
    assert after == _plain(reader, profile)
    assert finds.calls == 3  # the plain gather found them too
    _digest(reader, profile)
    assert finds.calls == 3  # stored again after the write: read


def test_a_write_outside_the_week_and_its_windows_keeps_them(cache: Path, finds: Finds) -> None:
    profile = load_profile()
    reader = PRStore(connect(cache))
    _digest(reader, profile)
    writer = PRStore(connect(cache), title_keys=ProfileTitleKeys(profile))
    _retitle(writer, profile, WEEK.end + timedelta(days=1), "[Quokka] ")
    _digest(reader, profile)
    assert finds.calls == 1


def test_another_process_write_is_seen_at_the_next_read(cache: Path, finds: Finds) -> None:
    profile = load_profile()
    reader = PRStore(connect(cache))
    _digest(reader, profile)
    code = (
        "import sys, dataclasses\n"
        "from datetime import datetime, UTC\n"
        "from classify.engine import classify\n"
        "from classify.rules import load_profile\n"
        "from classify.title_keys import ProfileTitleKeys\n"
        "from storage.db import connect\n"
        "from storage.prs import PRStore\n"
        "p = load_profile()\n"
        "s = PRStore(connect(sys.argv[1]), title_keys=ProfileTitleKeys(p))\n"
        "start = datetime.fromisoformat(sys.argv[2])\n"
        "rows = s.merged_between(sys.argv[3], start, datetime.fromisoformat(sys.argv[4]))\n"
        "full = s.get(sys.argv[3], rows[0].pr.number)\n"
        "pr = dataclasses.replace(full.pr, title='[Wombat] wombat wombat ' + full.pr.title)\n"
        "s.upsert([(pr, classify(pr, p))])\n"
    )
    args = [str(cache), WEEK.start.isoformat(), DEMO_REPO, WEEK.end.isoformat()]
    subprocess.run([sys.executable, "-c", code, *args], check=True, timeout=120)
    after = _digest(reader, profile)
    assert finds.calls == 2
    assert after == _plain(reader, profile)


def test_another_profile_finds_them_again(cache: Path, finds: Finds) -> None:
    reader = PRStore(connect(cache))
    _digest(reader, load_profile())
    generic = load_profile("generic")
    _digest(reader, generic)
    assert finds.calls == 2
    _digest(reader, generic)
    assert finds.calls == 2


def test_an_older_pr_that_lengthens_the_comparison_finds_them_again(cache: Path, finds: Finds) -> None:
    """A PR merged long before the cache's first one writes no day the entry read, but the cache
    now covers all four windows before the demo's second week instead of one."""
    profile = load_profile()
    reader = PRStore(connect(cache))
    span = reader.merged_range(DEMO_REPO)
    assert span is not None
    second = week_of(week_of(span[0], ZoneInfo("UTC")).end, ZoneInfo("UTC"))
    _digest(reader, profile, second)
    writer = PRStore(connect(cache), title_keys=ProfileTitleKeys(profile))
    full = writer.get(
        DEMO_REPO, reader.merged_between(DEMO_REPO, span[0], span[0] + timedelta(days=7))[0].pr.number
    )
    assert full is not None
    old = dataclasses.replace(full.pr, number=1, merged_at=span[0] - timedelta(days=200))
    writer.upsert([(old, classify(old, profile))])
    assert gather(reader, profile, DEMO_REPO, second).comparison.windows == 4
    calls = finds.calls
    stats = gather(reader, profile, DEMO_REPO, second, closed_at=NOW)
    assert finds.calls == calls + 1
    assert [th.before for th in stats.themes] == [
        th.before for th in gather(reader, profile, DEMO_REPO, second).themes
    ]


def test_a_reclassify_that_changes_scores_but_no_tag_finds_them_again(
    cache: Path, finds: Finds, tmp_path: Path
) -> None:
    """Scores are part of what storylines weigh; a reclassify that keeps every tag recounts no
    aggregate, yet the days of the rows it rewrote must still be marked written."""
    from bot.ingest.load import reclassify

    profile = load_profile()
    reader = PRStore(connect(cache))
    _digest(reader, profile)
    text = profile.source.read_text(encoding="utf-8")
    assert "\nhighlight = 2.0 " in text
    text = text.replace(f'version = "{profile.version}"', 'version = "scores"', 1)
    weighted = tmp_path / profile.source.name
    weighted.write_text(text.replace("\nhighlight = 2.0 ", "\nhighlight = 9.0 ", 1), "utf-8")
    writer = PRStore(connect(cache), title_keys=ProfileTitleKeys(profile))
    before = writer.db.execute("SELECT count(*) FROM pr_tags").fetchone()[0]
    assert reclassify(writer, load_profile(weighted), workers=1).changed > 0
    assert writer.db.execute("SELECT count(*) FROM pr_tags").fetchone()[0] == before
    after = _digest(reader, profile)  # the reader's profile is the old one: same key, new rows
    assert finds.calls == 2
    assert after == _plain(reader, profile)
