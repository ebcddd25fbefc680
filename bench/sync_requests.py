"""Benchmark: how many GraphQL requests a sync costs, counted by the loopback fake GitHub.

The bound: a week of N merged PRs costs at most ⌈N/100⌉ + (PRs with more than 100 files) + 1
requests. Each scenario runs the real client and ``bot.ingest.sync.sync_api`` against the fake (which
executes every query against GitHub's schema) and prints the requests used next to the bound.
Needs ../shared/github/schema.graphql (or PRDIGEST_GITHUB_SCHEMA).

    uv run --frozen python bench/sync_requests.py
"""

from __future__ import annotations

import math
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.ingest.github import GitHubClient  # noqa: E402
from bot.ingest.sync import classifier_for, sync_api  # noqa: E402
from classify.rules import load_profile  # noqa: E402
from storage.db import connect  # noqa: E402
from storage.prs import PRStore  # noqa: E402
from tests.fakes.github import TOKEN, FakeClock, FakeGitHub, load_schema, make_prs  # noqa: E402

REPO = "vllm-project/vllm"
NOW = datetime(2026, 5, 11, tzinfo=UTC)
WEEK = timedelta(days=7)


def _row(name: str, prs: int, big: int, used: int, bound: int | None, seconds: float) -> None:
    limit = "" if bound is None else f"{bound:>6}"
    ok = "" if bound is None else ("ok" if used <= bound else "OVER")
    print(f"{name:<52} {prs:>7} {big:>5} {used:>6} {limit:>6} {ok:>4} {seconds:>7.2f}s")


def main() -> None:
    schema = load_schema()
    if schema is None:
        sys.exit(
            "GitHub schema not found: set PRDIGEST_GITHUB_SCHEMA or provide ../shared/github/schema.graphql"
        )
    classifier = classifier_for(load_profile("vllm"))
    print(f"{'scenario':<52} {'fetched':>7} {'>100f':>5} {'reqs':>6} {'bound':>6} {'':>4} {'time':>8}")

    def scenario(
        name: str,
        prs: list,
        *,
        since: datetime | None,
        until: datetime | None,
        now: datetime = NOW,
        store: PRStore | None = None,
        fake: FakeGitHub | None = None,
        week_bound: bool = True,
    ) -> tuple[PRStore, FakeGitHub]:
        clock = fake.clock if fake is not None else FakeClock(start=now.timestamp())
        clock.now = max(clock.now, now.timestamp())
        fake = fake or FakeGitHub(schema, clock=clock).start()
        if prs:
            fake.add_prs(REPO, prs)
        store = store or PRStore(connect(":memory:"))
        client = GitHubClient(TOKEN, fake.url, sleep=clock.sleep, clock=clock.time)
        t0 = time.perf_counter()
        report = sync_api(store, client, classifier, REPO, since=since, until=until, now=now)
        took = time.perf_counter() - t0
        client.close()
        merged = [p for p in prs if p.merged_at is not None]
        big = sum(1 for p in merged if len(p.files) > 100)
        bound = math.ceil(len(merged) / 100) + big + 1 if week_bound else None
        _row(name, report.fetched, big, report.requests, bound, took)
        return store, fake

    store, fake = scenario("week, 200 PRs", make_prs(200, NOW - WEEK, NOW), since=NOW - WEEK, until=NOW)
    fake.stop()
    store, fake = scenario(
        "week, 200 PRs, 3 with 150/180/290 files",
        make_prs(200, NOW - WEEK, NOW, big={7: 150, 60: 180, 150: 290}),
        since=NOW - WEEK,
        until=NOW,
    )
    later = NOW + timedelta(hours=6)
    _store, _ = scenario(
        "same cache 6 h later, nothing new (watermark)",
        [],
        since=None,
        until=None,
        now=later,
        store=store,
        fake=fake,
    )
    fake.stop()
    _store, fake = scenario(
        "week, 250 PRs, 30 with 101-300 files",
        make_prs(250, NOW - WEEK, NOW, big={i * 8: 101 + i * 6 for i in range(30)}),
        since=NOW - WEEK,
        until=NOW,
    )
    fake.stop()
    _store, fake = scenario(
        "week, 2,500 PRs (search shows 1,000: sliced)",
        make_prs(2500, NOW - WEEK, NOW),
        since=NOW - WEEK,
        until=NOW,
        week_bound=False,
    )
    fake.stop()
    _store, fake = scenario(
        "first sync: 12 weeks x ~200 PRs",
        make_prs(2400, NOW - 12 * WEEK, NOW),
        since=None,
        until=None,
        week_bound=False,
    )
    fake.stop()
    print(
        "bound = ceil(N/100) + (PRs with more than 100 files) + 1; sliced windows add one "
        "probe per overflowing slice"
    )


if __name__ == "__main__":
    main()
