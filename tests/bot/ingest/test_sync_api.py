"""API sync against the fake GitHub: completeness, request counts, slicing, watermarks, resumption."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timedelta

import pytest

from bot.ingest.github import GitHubClient, GitHubError, GraphQLErrors, fetch_pr
from bot.ingest.sync import Classifier, fetch_and_store, sync_api
from classify.models import FileChange, PullRequest
from storage import fts, sync_state
from storage.db import connect
from storage.prs import PRStore
from tests.fakes.github import TOKEN, FakeGitHub, FakePR, make_prs

from .conftest import NOW, REPO
from .helpers import assert_same_rows

WEEK_START = NOW - timedelta(days=7)
ClientFactory = Callable[..., GitHubClient]


def _numbers(store: PRStore) -> list[int]:
    return [r[0] for r in store.db.execute("SELECT number FROM prs ORDER BY number").fetchall()]


def _week(store: PRStore, client: GitHubClient, classifier: Classifier, **kw: object):
    return sync_api(store, client, classifier, REPO, since=WEEK_START, until=NOW, now=NOW, **kw)  # type: ignore[arg-type]


def test_a_week_is_fetched_completely_within_the_request_bound(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier
) -> None:
    prs = make_prs(200, WEEK_START, NOW, big={7: 150, 60: 180, 150: 290}, unmerged=6)
    fake.add_prs(REPO, prs)
    report = _week(store, client, classifier)
    merged = [p for p in prs if p.merged]
    big = sum(1 for p in merged if len(p.files) > 100)
    assert report.requests == fake.requests
    assert report.requests <= math.ceil(len(merged) / 100) + big + 1
    assert _numbers(store) == sorted(p.number for p in merged)
    assert (report.fetched, report.new, report.updated) == (200, 200, 0)
    assert report.complete and report.rate_remaining == 5000 - fake.requests
    for p in merged:
        got = store.get(REPO, p.number)
        assert got is not None
        assert [(f.path, f.additions, f.deletions) for f in got.pr.files] == [
            (f[0], f[1], f[2]) for f in p.files
        ]
        assert got.pr.source == "api"
        assert got.pr.labels == p.labels
        assert got.pr.author == (p.author or "ghost")
        assert got.pr.created_at == p.created_at and got.pr.merged_at == p.merged_at
        assert got.pr.changed_files == len(p.files)
        assert got.cls.profile == "vllm"


@pytest.mark.parametrize("count", [1, 99, 100, 101, 250])
def test_request_count_is_pages_plus_nothing(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier, count: int
) -> None:
    fake.add_prs(REPO, make_prs(count, WEEK_START, NOW))
    report = _week(store, client, classifier)
    assert report.requests == math.ceil(count / 100)
    assert len(_numbers(store)) == count


def test_change_types_map_to_the_model(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier
) -> None:
    pr = FakePR(
        number=7,
        title="[Core] Rename things",
        merged_at=NOW - timedelta(days=1),
        created_at=NOW - timedelta(days=2),
        files=[
            ("a.py", 1, 0, "ADDED"),
            ("b.py", 0, 3, "DELETED"),
            ("c.py", 2, 2, "RENAMED"),
            ("d.py", 1, 1, "MODIFIED"),
            ("e.sh", 0, 0, "CHANGED"),
            ("f.py", 4, 0, "COPIED"),
        ],
    )
    fake.add_prs(REPO, [pr])
    _week(store, client, classifier)
    got = store.get(REPO, 7)
    assert got is not None
    assert [f.change_type for f in got.pr.files] == [
        "added",
        "removed",
        "renamed",
        "modified",
        "changed",
        "copied",
    ]


def test_a_window_over_1000_results_is_sliced_and_complete(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier
) -> None:
    prs = make_prs(1800, WEEK_START, NOW)
    fake.add_prs(REPO, prs)
    report = _week(store, client, classifier)
    assert _numbers(store) == sorted(p.number for p in prs)
    assert report.fetched == 1800 and report.new == 1800
    assert report.wasted >= 1 and report.slices >= 2
    searches = [r for r in fake.log if r.operation == "SearchMergedPRs"]
    assert len(searches) == report.requests
    assert report.requests <= math.ceil(1800 / 100) + report.slices + report.wasted


@pytest.mark.parametrize("merged", [True, False])
def test_a_sync_ends_with_the_full_text_index_merged(
    fake: FakeGitHub,
    client: GitHubClient,
    store: PRStore,
    classifier: Classifier,
    monkeypatch: pytest.MonkeyPatch,
    merged: bool,
) -> None:
    """Each page commits on its own, adding a segment to the index; the run ends by merging them
    (past ``fts.MAX_SEGMENTS``, here set to one; ``merged=False`` shows what the pages leave)."""
    monkeypatch.setattr(fts, "MAX_SEGMENTS", 1)
    if not merged:
        monkeypatch.setattr(fts, "keep_merged", lambda db, **kw: 0)
    store.upsert([])  # the cache exists; the sync's pages are its writes
    fake.add_prs(REPO, make_prs(700, WEEK_START, NOW))
    report = _week(store, client, classifier)
    assert report.pages >= 7 and len(_numbers(store)) == 700
    assert (fts.segments(store.db) == 1) is merged
    found = store.search(REPO, "fix OR add OR the", None, None, limit=5)[1]
    assert found > 0


def test_uneven_density_is_still_complete(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier
) -> None:
    burst = make_prs(1150, NOW - timedelta(days=2), NOW - timedelta(days=2) + timedelta(hours=3), seed=3)
    calm = make_prs(120, WEEK_START, NOW, seed=4, first_number=5000)
    fake.add_prs(REPO, burst + calm)
    report = _week(store, client, classifier)
    assert _numbers(store) == sorted(p.number for p in burst + calm)
    assert report.fetched == len(burst) + len(calm)


def test_prs_with_more_than_100_files_are_paged_in_batches(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier
) -> None:
    big = {i: 150 for i in range(30)}
    big[40] = 3000  # GitHub's per-PR maximum
    prs = make_prs(60, WEEK_START, NOW, big=big)
    fake.add_prs(REPO, prs)
    report = _week(store, client, classifier)
    for p in prs:
        got = store.get(REPO, p.number)
        assert got is not None and [f.path for f in got.pr.files] == [f[0] for f in p.files]
    follow_ups = [r for r in fake.log if r.operation == "MoreFiles"]
    # 30 PRs of 150 files: two batched requests (25 + 5); the 3000-file PR: 15 rounds of 200.
    assert len(follow_ups) == 15
    assert report.requests == 1 + 15


def test_second_run_with_nothing_new_costs_one_request(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier
) -> None:
    fake.add_prs(REPO, make_prs(180, WEEK_START, NOW))
    _week(store, client, classifier)
    state = sync_state.get(store.db, REPO, "api")
    assert state is not None and state.watermark == NOW and not state.in_progress
    before = fake.requests
    again = sync_api(store, client, classifier, REPO, now=NOW + timedelta(hours=2))
    assert fake.requests - before == 1 and again.requests == 1
    assert again.new == 0 and again.updated == 0
    # New merges after the watermark are picked up by the next run.
    fake.add_prs(REPO, make_prs(5, NOW + timedelta(hours=3), NOW + timedelta(hours=4), first_number=9000))
    later = sync_api(store, client, classifier, REPO, now=NOW + timedelta(hours=5))
    assert later.new == 5 and later.requests == 1


def test_first_sync_takes_the_last_12_weeks(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier
) -> None:
    prs = make_prs(300, NOW - timedelta(weeks=20), NOW)
    fake.add_prs(REPO, prs)
    report = sync_api(store, client, classifier, REPO, now=NOW)
    cutoff = NOW - timedelta(weeks=12)
    assert report.since == cutoff
    assert _numbers(store) == sorted(p.number for p in prs if p.merged_at and p.merged_at >= cutoff)


def test_api_sync_upgrades_git_rows_and_git_never_overwrites_api(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier
) -> None:
    prs = make_prs(10, WEEK_START, NOW)
    fake.add_prs(REPO, prs)
    git_rows = [
        PullRequest(
            repo=REPO,
            number=p.number,
            title=p.title,
            author="Git Name",
            merged_at=p.merged_at,
            files=[FileChange(path="x.py", additions=1)],
            additions=1,
            source="git",
        )
        for p in prs[:6]
    ]
    store.upsert([(pr, classifier(pr)) for pr in git_rows])
    report = _week(store, client, classifier)
    assert (report.new, report.updated) == (4, 6)
    assert store.count(REPO) == 10
    for p in prs[:6]:
        got = store.get(REPO, p.number)
        assert got is not None
        assert got.pr.source == "api" and got.pr.labels == p.labels and got.pr.created_at == p.created_at
        assert got.pr.author == (p.author or "ghost")
    counts = store.upsert([(pr, classifier(pr)) for pr in git_rows])
    assert counts.kept_richer == 6 and counts.updated == 0
    got = store.get(REPO, prs[0].number)
    assert got is not None and got.pr.source == "api"


def test_interrupted_sync_resumes_from_the_last_stored_page(
    fake: FakeGitHub, make_client: ClientFactory, classifier: Classifier, tmp_path
) -> None:
    prs = make_prs(550, WEEK_START, NOW, big={20: 150, 300: 220})
    fake.add_prs(REPO, prs)
    clean = PRStore(connect(tmp_path / "clean.db", create=True))
    _week(clean, make_client(), classifier)
    clean_requests = fake.requests

    store = PRStore(connect(tmp_path / "broken.db", create=True))
    fail_at = clean_requests + 4
    fake.inject_at(fail_at, "forbidden")  # a hard failure in the middle of the run
    with pytest.raises(GraphQLErrors):
        _week(store, make_client(), classifier)
    done = fail_at - 1 - clean_requests  # requests of the broken run that were stored
    state = sync_state.get(store.db, REPO, "api")
    assert state is not None and state.in_progress
    stored = store.count(REPO)
    assert 0 < stored < 550 and stored % 100 == 0  # whole pages only
    before = fake.requests
    resumed = _week(store, make_client(), classifier)
    assert resumed.resumed
    assert fake.requests - before == clean_requests - done  # nothing fetched twice
    final = sync_state.get(store.db, REPO, "api")
    assert final is not None and not final.in_progress and final.watermark == NOW
    assert_same_rows(store.db, clean.db)


def test_a_plain_run_continues_an_interrupted_one_up_to_now(
    fake: FakeGitHub, make_client: ClientFactory, classifier: Classifier
) -> None:
    fake.add_prs(REPO, make_prs(350, WEEK_START, NOW))
    store = PRStore(connect(":memory:"))
    fake.inject_at(3, "forbidden")
    with pytest.raises(GraphQLErrors):
        _week(store, make_client(), classifier)
    assert store.count(REPO) == 200
    later = NOW + timedelta(hours=1)
    fake.add_prs(REPO, make_prs(3, NOW, later, first_number=8000))
    report = sync_api(store, make_client(), classifier, REPO, now=later)
    assert report.resumed and report.since == WEEK_START and report.until == later
    assert store.count(REPO) == 353
    assert report.requests == 2 + 1  # the rest of the week, then the new hour


def test_ctrl_c_mid_page_leaves_no_partial_page(
    fake: FakeGitHub, make_client: ClientFactory, classifier: Classifier, tmp_path
) -> None:
    fake.add_prs(REPO, make_prs(330, WEEK_START, NOW))
    clean = PRStore(connect(tmp_path / "clean.db", create=True))
    _week(clean, make_client(), classifier)

    seen = 0

    def interrupting(pr: PullRequest):
        nonlocal seen
        seen += 1
        if seen == 250:
            raise KeyboardInterrupt
        return classifier(pr)

    store = PRStore(connect(tmp_path / "cut.db", create=True))
    with pytest.raises(KeyboardInterrupt):
        _week(store, make_client(), interrupting)
    assert store.count(REPO) == 200
    _week(store, make_client(), classifier)
    assert_same_rows(store.db, clean.db)


def test_unknown_repository_is_an_error(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier
) -> None:
    fake.add_prs(REPO, [])
    with pytest.raises(GraphQLErrors, match="cannot be searched"):
        sync_api(store, client, classifier, "nobody/nothing", now=NOW)
    assert store.count() == 0


def test_empty_range_costs_nothing(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier
) -> None:
    fake.add_prs(REPO, [])
    report = sync_api(store, client, classifier, REPO, since=NOW, until=NOW, now=NOW)
    assert report.requests == 0 and report.complete


def test_fetch_pr_on_demand(
    fake: FakeGitHub, client: GitHubClient, store: PRStore, classifier: Classifier
) -> None:
    prs = make_prs(3, WEEK_START, NOW, big={1: 250}, unmerged=1)
    fake.add_prs(REPO, prs)
    one = fetch_pr(client, REPO, prs[1].number)
    assert one is not None and one.source == "api"
    assert [f.path for f in one.files] == [f[0] for f in prs[1].files]
    assert fake.operations() == ["OnePR", "MoreFiles"]
    assert fetch_pr(client, REPO, 424242) is None
    assert fetch_pr(client, REPO, prs[-1].number) is None  # closed without merge
    with pytest.raises(GitHubError, match="not found"):
        fetch_pr(client, "nobody/nothing", 1)
    stored = fetch_and_store(store, client, classifier, REPO, prs[0].number)
    assert stored is not None and stored.pr.number == prs[0].number and stored.cls.profile == "vllm"
    assert store.get(REPO, prs[0].number) is not None
    assert fetch_and_store(store, client, classifier, REPO, 424242) is None


def test_sync_waits_out_faults_and_still_matches(
    fake: FakeGitHub, make_client: ClientFactory, classifier: Classifier, tmp_path
) -> None:
    prs = make_prs(320, WEEK_START, NOW, big={5: 140})
    fake.add_prs(REPO, prs)
    clean = PRStore(connect(tmp_path / "clean.db", create=True))
    _week(clean, make_client(), classifier)
    fake.inject("502")
    fake.inject("secondary", retry_after=5)
    fake.inject("truncated")
    fake.inject("primary", reset_in=60)
    fake.inject("graphql_error")
    store = PRStore(connect(tmp_path / "faulty.db", create=True))
    report = _week(store, make_client(), classifier)
    assert report.complete
    assert_same_rows(store.db, clean.db)


def test_on_demand_fetcher_for_the_pr_command(fake: FakeGitHub, store: PRStore) -> None:
    from types import SimpleNamespace

    from bot.config.settings import Secret
    from bot.ingest.sync import on_demand_fetcher
    from classify.rules import load_profile

    prs = make_prs(2, WEEK_START, NOW)
    fake.add_prs(REPO, prs)
    profile = load_profile("vllm")
    settings = SimpleNamespace(github_token=None, prdigest_github_api_url=fake.url)
    assert on_demand_fetcher(settings, store, profile) is None
    settings.github_token = Secret(TOKEN)
    fetch = on_demand_fetcher(settings, store, profile)
    assert fetch is not None
    got = fetch(REPO, prs[1].number)
    assert got is not None and got.pr.title == prs[1].title and store.get(REPO, prs[1].number) is not None
    assert fetch(REPO, 31337) is None
    settings.github_token = Secret("ghp_revoked")
    rejected = on_demand_fetcher(settings, store, profile)
    assert rejected is not None
    with pytest.raises(RuntimeError, match="GITHUB_TOKEN was rejected by GitHub"):
        rejected(REPO, prs[0].number)


def test_the_page_size_grows_back_after_a_gateway_timeout(
    fake: FakeGitHub, make_client: ClientFactory, classifier: Classifier, tmp_path
) -> None:
    fake.add_prs(REPO, make_prs(900, WEEK_START, NOW))
    clean = PRStore(connect(tmp_path / "clean.db", create=True))
    clean_requests = _week(clean, make_client(), classifier).requests
    assert clean_requests == 9

    fake.log.clear()
    fake.inject("502")
    store = PRStore(connect(tmp_path / "faulty.db", create=True))
    report = _week(store, make_client(), classifier)
    sizes = [r.variables["first"] for r in fake.log if r.operation == "SearchMergedPRs"]
    # One 502 halves one page; every later page asks for 100 again (it used to stay at 50: 19 requests).
    assert sizes == [100, 50, 100, 100, 100, 100, 100, 100, 100, 100, 100]
    assert report.requests == clean_requests + 2
    assert_same_rows(store.db, clean.db)
