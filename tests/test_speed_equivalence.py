"""Speed changes no answer.

The digest, risks and search JSON of every demo week are computed twice: the fast way (the two
layers under a digest: the write-time aggregates of ``storage.aggregates`` and closed weeks'
stored storylines, each digest asked twice so the second answer reads what the first stored,
and twice more through a second connection) and the plain way (aggregates switched off, no
stored storylines: every count read from the rows, every title re-read, every storyline found
again). Both must be identical — after loading the demo, after a sync from the loopback GitHub
fake, after an import that changes PRs and after a reclassify with another profile.

Reads and writes go through separate connections to one cache file: the writes reach the readers
as they would from another process, so a stale stored storyline or a stale aggregate would show
up as a difference.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.ingest.demo import DEMO_REPO, demo_data_path
from bot.ingest.load import import_file, reclassify
from classify.periods import week_of
from classify.rules import Profile, load_profile
from classify.title_keys import ProfileTitleKeys
from commands.model import Invocation
from commands.registry import Context, dispatch
from commands.render import render
from storage.aggregates import terms_stamp
from storage.db import connect
from storage.prs import PRStore

NOW = datetime(2026, 5, 13, 9, 7, 41, tzinfo=UTC)  # inside the synced PRs' span, not on a quarter-hour
ZONES = ("UTC", "Asia/Kathmandu")  # +05:45: its weeks start on a quarter-hour of UTC
WORDS = (("fp8",), ("ROCm", "kernel"), ("fix",))


def _weeks(store: PRStore, zone: str) -> list[str]:
    from zoneinfo import ZoneInfo

    span = store.merged_range(DEMO_REPO)
    assert span is not None
    first, last = week_of(span[0], ZoneInfo(zone)), week_of(span[1], ZoneInfo(zone))
    labels, week = [], first
    while week.start <= last.start:
        labels.append(week.label)
        week = week_of(week.end, ZoneInfo(zone))
    return labels


def _asks(store: PRStore, profile: Profile) -> Iterator[tuple[str, tuple[str, ...], str]]:
    module = "rocm" if "rocm" in profile.modules else "core"
    for zone in ZONES:
        for week in _weeks(store, zone):
            yield "digest", (week,), zone
            yield "digest", (week, module), zone  # a filter: read from the rows either way
            yield "risks", ("all", week), zone
            yield "risks", ("core-path", week), zone
            for words in WORDS:
                yield "search", (*words, week), zone
    yield "digest", ("last-week",), "UTC"
    for zone in ZONES:  # the last 7 days end at the current second: partial quarter-hours at both ends
        yield "digest", (), zone
        yield "digest", ("week",), zone
    for words in WORDS:
        yield "search", words, "UTC"


def _answer(ctx: Context, command: str, args: tuple[str, ...], zone: str) -> str:
    inv = Invocation(command=command, args=args, repo=DEMO_REPO, now=NOW, timezone=zone)
    reply = dispatch(inv, ctx)
    assert reply.status in ("ok", "not_found"), (command, args, reply.title)
    return render(reply, "json")


def _assert_same(fast: Context, plain: Context, *, stored: bool = True) -> int:
    """Every answer the fast way equals the plain way; returns how many were compared.

    ``stored``: the fast way must really read the title topics from the aggregates (they were
    counted with the reader's profile), not fall back to the titles as the plain way does."""
    assert fast.store.use_aggregates
    assert (terms_stamp(fast.store.db, DEMO_REPO) == fast.profile.content_hash) is stored
    plain.store.use_aggregates = False
    assert fast.stored_storylines and not plain.stored_storylines
    # another connection: each digest asked twice, so a closed week's second answer reads what its
    # first stored (or what an earlier pass stored, if still current)
    kept = Context(store=PRStore(connect(_path(fast.store))), profile=fast.profile)
    reads = _count_stored_reads()
    asked = 0
    for command, args, zone in _asks(plain.store, plain.profile):
        want = _answer(plain, command, args, zone)
        assert _answer(fast, command, args, zone) == want, (command, args, zone)
        assert _answer(fast, command, args, zone) == want, ("again", command, args, zone)
        if command == "digest":
            assert _answer(kept, command, args, zone) == want, ("stored", command, args, zone)
            assert _answer(kept, command, args, zone) == want, ("stored again", command, args, zone)
        asked += 1
    assert reads() > 20  # closed weeks' storylines really were read back
    kept.store.db.close()
    return asked


def _path(store: PRStore) -> Path:
    return Path(store.db.execute("PRAGMA database_list").fetchone()[2])


def _count_stored_reads() -> Callable[[], int]:
    """How many stored storylines were read back (``storage.storylines.load`` found one) from now."""
    from storage import storylines

    found = []
    real = storylines.load

    def counted(*args: Any, **kwargs: Any) -> str | None:
        text = real(*args, **kwargs)
        found.append(text is not None)
        return text

    storylines.load = counted  # type: ignore[assignment]

    def reads() -> int:
        storylines.load = real  # type: ignore[assignment]
        return sum(found)

    return reads


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    path = tmp_path / "cache.db"
    profile = load_profile()
    writer = PRStore(connect(path, create=True), title_keys=ProfileTitleKeys(profile))
    import_file(writer, profile, demo_data_path())
    writer.db.close()
    return path


def _contexts(path: Path, profile: Profile) -> tuple[Context, Context]:
    fast = Context(store=PRStore(connect(path)), profile=profile)
    plain = Context(store=PRStore(connect(path)), profile=profile, stored_storylines=False)
    return fast, plain


def _writer(path: Path, profile: Profile) -> PRStore:
    return PRStore(connect(path), title_keys=ProfileTitleKeys(profile))


def test_the_aggregates_and_the_stored_storylines_change_no_answer(cache: Path) -> None:
    profile = load_profile()
    fast, plain = _contexts(cache, profile)
    uses = fast.store.title_counts
    stored = []
    fast.store.title_counts = lambda *a, **k: stored.append(uses(*a, **k)) or stored[-1]  # type: ignore[method-assign]
    assert _assert_same(fast, plain) > 50
    assert any(s is not None for s in stored)  # the title topics really came from the aggregates


def test_counts_made_by_other_code_are_not_read_and_the_next_write_recounts_them(cache: Path) -> None:
    """Title topics counted by an older prdigest (same profile file, other code: another content
    hash) must not be used: readers count from the titles until the next write recounts them."""
    profile = load_profile()
    older = connect(cache)  # what an older prdigest left: its own stamp on the counts
    older.execute("UPDATE aggregate_state SET terms_stamp = 'an older prdigest' WHERE repo = ?", (DEMO_REPO,))
    older.close()
    fast, plain = _contexts(cache, profile)
    assert _assert_same(fast, plain, stored=False) > 50  # read from the titles, same answers
    writer = _writer(cache, profile)
    writer.count_title_topics(DEMO_REPO)  # what the next import, sync or reclassify does
    writer.db.close()
    assert _assert_same(fast, _contexts(cache, profile)[1]) > 50  # counted again, read again


def test_an_import_that_changes_prs_is_seen_by_the_aggregates_and_the_cache(
    cache: Path, tmp_path: Path
) -> None:
    profile = load_profile()
    fast, plain = _contexts(cache, profile)
    _assert_same(fast, plain)  # stores the closed weeks' storylines of the demo as loaded
    changed = tmp_path / "changed.jsonl"
    with gzip.open(demo_data_path(), "rt", encoding="utf-8") as fh, changed.open("w") as out:
        for i, line in enumerate(fh):
            record = json.loads(line)
            if i % 7 == 0:  # another title and another merge time: old and new buckets change
                record["title"] = "[ROCm][Kernel] " + record["title"]
                merged = datetime.fromisoformat(record["merged_at"].replace("Z", "+00:00"))
                record["merged_at"] = (merged + timedelta(hours=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
            out.write(json.dumps(record) + "\n")
    writer = _writer(cache, profile)
    counts = import_file(writer, profile, changed).counts
    writer.db.close()
    assert counts.updated > 100
    assert _assert_same(fast, plain) > 50


def test_a_reclassify_with_another_profile_is_seen_by_the_aggregates_and_the_cache(
    cache: Path, tmp_path: Path
) -> None:
    vllm = load_profile()
    fast, _ = _contexts(cache, vllm)
    _assert_same(fast, _contexts(cache, vllm)[1])
    generic = load_profile("generic")
    writer = _writer(cache, generic)
    result = reclassify(writer, generic, workers=1)
    writer.db.close()
    assert result.changed > 100
    # the readers now answer with the profile the cache was classified with: its title topics
    # were recounted by the reclassify, so the aggregates are used again (and must agree)
    fast_generic = Context(store=fast.store, profile=generic)
    _, plain_generic = _contexts(cache, generic)
    assert fast.store.title_counts(DEMO_REPO, [(NOW - timedelta(days=7), NOW)], generic.content_hash, [1])
    assert _assert_same(fast_generic, plain_generic) > 50
    # and a reader whose profile no longer matches the stored topics counts them from the titles
    assert not fast.store.title_counts(DEMO_REPO, [(NOW - timedelta(days=7), NOW)], vllm.content_hash, [1])
    assert _assert_same(fast, _contexts(cache, vllm)[1], stored=False) > 50


def test_a_sync_from_github_is_seen_by_the_aggregates_and_the_cache(cache: Path) -> None:
    from bot.ingest.github import GitHubClient
    from bot.ingest.sync import classifier_for, sync_api
    from tests.fakes.github import TOKEN, FakeClock, FakeGitHub, fake_schema, make_prs

    schema = fake_schema()  # GitHub's, or without it the part of it the fake serves
    profile = load_profile()
    fast, plain = _contexts(cache, profile)
    _assert_same(fast, plain)
    week_start = datetime(2026, 5, 4, tzinfo=UTC)  # the demo's last week: its storylines are stored now
    clock = FakeClock(start=NOW.timestamp())
    with FakeGitHub(schema, clock=clock) as server:
        server.add_prs(
            DEMO_REPO, make_prs(40, week_start, week_start + timedelta(days=9), first_number=90_000)
        )
        client = GitHubClient(TOKEN, server.url, sleep=clock.sleep, clock=clock.time, timeout=5.0)
        try:
            writer = _writer(cache, profile)
            report = sync_api(
                writer, client, classifier_for(profile), DEMO_REPO, since=week_start, until=NOW, now=NOW
            )
            writer.db.close()
        finally:
            client.close()
    assert report.new == 40
    assert _assert_same(fast, plain) > 50
