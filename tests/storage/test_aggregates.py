"""Write-time aggregates read for any range: whole quarter-hours from ``pr_aggregates``, partial
ones at the ends from the rows — the same counts as counting the rows (storage.aggregates)."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from storage.aggregates import bucket_of, split, window_counts
from storage.db import connect
from storage.prs import PRStore

REPO = "vllm-project/vllm"


def test_split_covers_a_range_exactly_once() -> None:
    rng = random.Random(3)
    base = datetime(2026, 4, 1, tzinfo=UTC)
    for _ in range(2000):
        start = base + timedelta(seconds=rng.randint(0, 40 * 86400))
        end = start + timedelta(
            seconds=rng.choice([0, 1, 59, 899, 900, 901, 1800, rng.randint(0, 20 * 86400)])
        )
        part = split(start, end)
        pieces = sorted([*part.edges, *([(part.lo + ":00Z", part.hi + ":00Z")] if part.lo else [])])
        iso = lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
        if start == end:
            assert not pieces
            continue
        assert pieces[0][0] == iso(start) and pieces[-1][1] == iso(end)
        assert all(a[1] == b[0] for a, b in itertools.pairwise(pieces))
        for lo, hi in part.edges:  # the rows read are less than two quarter-hours' worth
            length = datetime.fromisoformat(hi) - datetime.fromisoformat(lo)
            assert length < timedelta(minutes=30)
            if part.lo:  # beside whole buckets, an edge lies within one quarter-hour
                assert bucket_of(lo) == bucket_of(hi) or hi.endswith(("00:00Z", "15:00Z", "30:00Z", "45:00Z"))


def test_counts_of_any_range_equal_counting_the_rows(demo_db: Path) -> None:
    store = PRStore(connect(demo_db))
    rng = random.Random(11)
    first, last = store.merged_range(REPO)  # type: ignore[misc]
    span = int((last - first).total_seconds())
    for _ in range(150):
        start = first + timedelta(seconds=rng.randint(-3600, span))
        end = start + timedelta(
            seconds=rng.choice([30, 600, 3600, 86400, 7 * 86400, rng.randint(1, 9 * 86400)])
        )
        [merged] = window_counts(store.db, REPO, [(start, end)], "merged")
        [flags] = window_counts(store.db, REPO, [(start, end)], "flag:")
        [modules] = window_counts(store.db, REPO, [(start, end)], "module:")
        assert merged == {"merged": store.merged_count(REPO, start, end)}
        assert flags == store.tag_counts(REPO, "flag", start, end)
        assert modules == store.tag_counts(REPO, "module", start, end)


def test_several_windows_in_one_call_are_each_counted_as_alone(demo_db: Path) -> None:
    """A digest asks for its comparison windows together (one statement per kind): each window's
    counts are its own, whatever the others are — consecutive weeks, gaps, overlaps, windows too
    short to hold a whole quarter-hour, and windows outside the cache's data."""
    store = PRStore(connect(demo_db))
    rng = random.Random(5)
    first, last = store.merged_range(REPO)  # type: ignore[misc]
    span = int((last - first).total_seconds())
    for _ in range(40):
        start = first + timedelta(seconds=rng.randint(-86400, span))
        week = timedelta(days=7)
        windows = [(start + k * week, start + (k + 1) * week) for k in range(4)]  # consecutive
        windows.append((start + timedelta(days=3), start + timedelta(days=10)))  # overlaps two
        windows.append((start + timedelta(seconds=61), start + timedelta(seconds=400)))  # rows only
        windows.append((first - 30 * week, first - 20 * week))  # before the data
        rng.shuffle(windows)
        for prefix, expected in (
            ("merged", lambda s, e: {"merged": store.merged_count(REPO, s, e)}),
            ("flag:", lambda s, e: store.tag_counts(REPO, "flag", s, e)),
            ("module:", lambda s, e: store.tag_counts(REPO, "module", s, e)),
        ):
            got = window_counts(store.db, REPO, windows, prefix)
            assert got == [expected(s, e) for s, e in windows], prefix
