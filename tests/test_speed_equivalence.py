"""Speed changes no answer (issue 14, point 6).

The digest, risks and search JSON of every demo week are computed twice: the fast way (the
write-time aggregates of ``storage.aggregates``, the server's closed-period ``DigestCache`` and
closed weeks' stored storylines, each digest asked twice so the second answer comes from the
cache; and each digest twice more through the stored storylines alone) and the plain way
(aggregates switched off, no cache, no stored storylines: every count read from the rows, every
title re-read, every storyline found again). Both must be
identical — after loading the demo, after a sync from the loopback GitHub fake, after an import
that changes PRs and after a reclassify with another profile.

Reads and writes go through three connections to one cache file: the writes reach the readers as
they would from another process (the cache's ``PRAGMA data_version``), so a stale cached digest or
a stale aggregate would show up as a difference.
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
from classify.rules import Profile, load_profile
from commands.digest_cache import DigestCache
from commands.model import Invocation
from commands.period import week_of
from commands.registry import Context, dispatch
from commands.render import render
from commands.title_keys import ProfileTitleKeys, title_stamp
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
    assert fast.store.use_aggregates and fast.digests is not None
    assert (terms_stamp(fast.store.db, DEMO_REPO) == title_stamp(fast.profile)) is stored
    plain.store.use_aggregates = False
    assert fast.stored_storylines and not plain.stored_storylines
    # the stored storylines alone (no digest cache): each digest asked twice, so a closed week's
    # second answer reads what its first stored (or what an earlier pass stored, if still current)
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
    fast = Context(
        store=PRStore(connect(path)), profile=profile, digests=DigestCache(max_entries=1000, recent=None)
    )
    plain = Context(store=PRStore(connect(path)), profile=profile, stored_storylines=False)
    return fast, plain


def _writer(path: Path, profile: Profile) -> PRStore:
    return PRStore(connect(path), title_keys=ProfileTitleKeys(profile))


def test_the_aggregates_and_the_digest_cache_change_no_answer(cache: Path) -> None:
    profile = load_profile()
    fast, plain = _contexts(cache, profile)
    uses = fast.store.title_counts
    stored = []
    fast.store.title_counts = lambda *a, **k: stored.append(uses(*a, **k)) or stored[-1]  # type: ignore[method-assign]
    assert _assert_same(fast, plain) > 50
    assert any(s is not None for s in stored)  # the title topics really came from the aggregates
    assert fast.digests is not None and fast.digests.hits > 0


def test_counts_made_by_other_theme_code_are_not_read_and_the_next_write_recounts_them(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new prdigest whose theme code reads titles differently (same profile) must not use the title
    topics an older one counted: the stamp covers the code's source, not the profile alone."""
    import commands.title_keys as title_keys

    profile = load_profile()
    old = title_stamp(profile)
    changed = tmp_path / "themes.py"
    changed.write_bytes(title_keys.THEMES_SOURCE.read_bytes() + b"\n# reads titles differently\n")
    monkeypatch.setattr(title_keys, "THEMES_SOURCE", changed)
    title_keys._themes_code_hash.cache_clear()
    try:
        assert title_stamp(profile) != old and title_stamp(profile).startswith(profile.content_hash)
        fast, plain = _contexts(cache, profile)
        assert _assert_same(fast, plain, stored=False) > 50  # read from the titles, same answers
        writer = _writer(cache, profile)
        writer.count_title_topics(DEMO_REPO)  # what the next import, sync or reclassify does
        writer.db.close()
        assert _assert_same(fast, _contexts(cache, profile)[1]) > 50  # counted again, read again
    finally:
        title_keys._themes_code_hash.cache_clear()


def test_an_import_that_changes_prs_is_seen_by_the_aggregates_and_the_cache(
    cache: Path, tmp_path: Path
) -> None:
    profile = load_profile()
    fast, plain = _contexts(cache, profile)
    _assert_same(fast, plain)  # warms the digest cache with the demo as loaded
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
    fast_generic = Context(store=fast.store, profile=generic, digests=fast.digests)
    _, plain_generic = _contexts(cache, generic)
    assert fast.store.title_counts(DEMO_REPO, [(NOW - timedelta(days=7), NOW)], title_stamp(generic), [1])
    assert _assert_same(fast_generic, plain_generic) > 50
    # and a reader whose profile no longer matches the stored topics counts them from the titles
    assert not fast.store.title_counts(DEMO_REPO, [(NOW - timedelta(days=7), NOW)], title_stamp(vllm), [1])
    assert _assert_same(fast, _contexts(cache, vllm)[1], stored=False) > 50


def test_a_sync_from_github_is_seen_by_the_aggregates_and_the_cache(cache: Path) -> None:
    from bot.ingest.github import GitHubClient
    from bot.ingest.sync import classifier_for, sync_api
    from tests.fakes.github import TOKEN, FakeClock, FakeGitHub, fake_schema, make_prs

    schema = fake_schema()  # GitHub's, or without it the part of it the fake serves
    profile = load_profile()
    fast, plain = _contexts(cache, profile)
    _assert_same(fast, plain)
    week_start = datetime(2026, 5, 4, tzinfo=UTC)  # the demo's last week: its digest is cached now
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


def test_the_server_keeps_recent_closed_weeks_only(cache: Path) -> None:
    """``serve``'s cache (the default ``DigestCache``) keeps last week's digest, not one from two
    months back (asked once while paging through history; see ``commands.digest_cache``), and
    both answers are those computed without it."""
    profile = load_profile()
    plain = Context(store=PRStore(connect(cache)), profile=profile, stored_storylines=False)
    served = Context(store=PRStore(connect(cache)), profile=profile, digests=DigestCache())
    assert served.digests is not None
    old_week = (NOW - timedelta(weeks=9)).strftime("%G-W%V")
    for args in (("last-week",), (old_week,)):
        want = _answer(plain, "digest", args, "UTC")
        assert _answer(served, "digest", args, "UTC") == want
        assert _answer(served, "digest", args, "UTC") == want
    assert (served.digests.hits, served.digests.misses, len(served.digests)) == (1, 1, 1)
    assert served.digests.admits(NOW - timedelta(weeks=4), NOW)
    assert not served.digests.admits(NOW - timedelta(weeks=5), NOW)
    assert not served.digests.admits(NOW + timedelta(hours=1), NOW)  # not closed yet
