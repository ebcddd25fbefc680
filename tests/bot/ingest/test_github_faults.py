"""The client against every fault the fake GitHub can inject: retried, waited for, or refused.

Waits run on the fake clock (``clock.sleeps`` records them), so these tests take milliseconds.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from datetime import UTC, datetime

import httpx
import pytest

from bot.ingest import github_queries as Q
from bot.ingest.github import (
    GitHubClient,
    GitHubUnavailable,
    GraphQLErrors,
    RateLimitExceeded,
    TokenRejected,
    search_page,
    search_string,
)
from tests.fakes.github import FakeClock, FakeGitHub, make_prs

from .conftest import NOW, REPO

ClientFactory = Callable[..., GitHubClient]


def _rate(client: GitHubClient) -> dict:
    return client.query(Q.RATE_LIMIT_ONLY)["rateLimit"]


@pytest.mark.parametrize("status", ["502", "500", "504"])
def test_server_errors_are_retried_with_bounded_backoff(
    fake: FakeGitHub, client: GitHubClient, clock: FakeClock, status: str
) -> None:
    fake.inject(status, times=2)
    assert _rate(client)["limit"] == 5000
    assert fake.requests == 3 and client.requests == 3
    assert clock.sleeps == [1.0, 2.0]


def test_retries_are_capped(fake: FakeGitHub, make_client: ClientFactory, clock: FakeClock) -> None:
    fake.inject("502", times=10)
    client = make_client(max_retries=3)
    with pytest.raises(GitHubUnavailable, match="gave up after 4 attempts"):
        _rate(client)
    assert fake.requests == 4
    assert clock.sleeps == [1.0, 2.0, 4.0]


def test_timeout_is_retried(fake: FakeGitHub, make_client: ClientFactory) -> None:
    fake.inject("slow", delay=1.0)
    client = make_client(timeout=0.25)
    assert _rate(client)["remaining"] >= 0
    assert client.requests == 2


def test_gateway_timeout_shrinks_the_next_page(fake: FakeGitHub, client: GitHubClient) -> None:
    fake.add_prs(REPO, make_prs(30, datetime(2026, 5, 4, tzinfo=UTC), NOW))
    fake.inject("502")
    halves: list[int] = []

    def shrink(variables: dict) -> dict:
        halves.append(variables["first"] // 2)
        return {**variables, "first": variables["first"] // 2}

    page = search_page(client, search_string(REPO, datetime(2026, 5, 4, tzinfo=UTC), NOW), adapt=shrink)
    assert len(page.nodes) == 30
    assert [r.variables["first"] for r in fake.log] == [100, 50]
    assert halves == [50]


@pytest.mark.parametrize("kind", ["truncated", "garbled"])
def test_truncated_or_garbled_bodies_are_retried(fake: FakeGitHub, client: GitHubClient, kind: str) -> None:
    fake.inject(kind)
    assert _rate(client)["limit"] == 5000
    assert [r.fault for r in fake.log] == [kind, None]


def test_transient_graphql_error_is_retried(fake: FakeGitHub, client: GitHubClient) -> None:
    fake.inject("graphql_error")
    assert _rate(client)["limit"] == 5000
    assert fake.requests == 2


def test_graphql_errors_in_a_200_body_are_errors_not_data(fake: FakeGitHub, client: GitHubClient) -> None:
    fake.inject("forbidden")
    with pytest.raises(GraphQLErrors, match="Resource not accessible") as info:
        _rate(client)
    assert info.value.types == {"FORBIDDEN"}
    assert fake.requests == 1  # not retried


def test_schema_and_pagination_limits_are_enforced(client: GitHubClient) -> None:
    with pytest.raises(GraphQLErrors, match="Cannot query field"):
        client.query("query { rateLimit { nonsense } }")
    with pytest.raises(GraphQLErrors, match="exceeds the `first` limit of 100") as info:
        client.query(Q.SEARCH_MERGED_PRS, {"q": f"repo:{REPO} is:pr is:merged", "first": 101})
    assert "EXCESSIVE_PAGINATION" in info.value.types
    with pytest.raises(GraphQLErrors, match="must provide a `first` or `last`"):
        client.query('query { search(query: "is:pr", type: ISSUE) { issueCount } }')


@pytest.mark.parametrize(
    ("kind", "retry_after", "expected"),
    [
        ("secondary", 30, [30.0]),
        ("secondary", None, [60.0]),
        ("secondary429", 7, [7.0]),
        ("secondary429", None, [60.0]),
    ],
)
def test_secondary_limit_waits_retry_after_or_a_minute(
    fake: FakeGitHub,
    client: GitHubClient,
    clock: FakeClock,
    kind: str,
    retry_after: int | None,
    expected: list[float],
) -> None:
    fake.inject(kind, retry_after=retry_after)
    assert _rate(client)["limit"] == 5000
    assert clock.sleeps == expected
    assert fake.requests == 2


def test_secondary_limit_backs_off_exponentially_and_is_capped(
    fake: FakeGitHub, make_client: ClientFactory, clock: FakeClock
) -> None:
    fake.inject("secondary", times=3)
    client = make_client(max_wait=3600)
    assert _rate(client)["limit"] == 5000
    assert clock.sleeps == [60.0, 120.0, 240.0]
    fake.inject("secondary", times=20)
    capped = make_client(max_wait=10**6, max_rate_waits=4)
    with pytest.raises(GitHubUnavailable, match="rate-limiting"):
        _rate(capped)
    assert fake.requests == 4 + 5


def test_secondary_limit_longer_than_max_wait_stops_cleanly(
    fake: FakeGitHub, make_client: ClientFactory, clock: FakeClock
) -> None:
    fake.inject("secondary", retry_after=900)
    with pytest.raises(RateLimitExceeded, match="secondary rate limit") as info:
        _rate(make_client(max_wait=600))
    assert info.value.kind == "secondary"
    assert clock.sleeps == []


@pytest.mark.parametrize("kind", ["primary", "primary403"])
def test_primary_limit_waits_for_the_reset(
    fake: FakeGitHub, client: GitHubClient, clock: FakeClock, kind: str
) -> None:
    fake.inject(kind, reset_in=120)
    start = clock.time()
    assert _rate(client)["remaining"] == 4999  # a fresh window after the reset
    assert len(clock.sleeps) == 1 and 120 <= clock.sleeps[0] <= 122
    assert clock.time() - start >= 120
    assert fake.requests == 2


def test_primary_limit_beyond_max_wait_names_the_reset_time(
    fake: FakeGitHub, make_client: ClientFactory, clock: FakeClock
) -> None:
    fake.inject("primary", reset_in=3600)
    client = make_client(max_wait=600)
    with pytest.raises(RateLimitExceeded) as info:
        _rate(client)
    reset = datetime.fromtimestamp(clock.time() + 3600, UTC)
    assert abs((info.value.reset_at - reset).total_seconds()) <= 2
    assert reset.strftime("%Y-%m-%d %H:%M") in str(info.value)
    assert "longer than --max-wait" in str(info.value)
    assert clock.sleeps == [] and fake.requests == 1


def test_known_exhaustion_waits_before_sending(
    fake: FakeGitHub, make_client: ClientFactory, clock: FakeClock
) -> None:
    client = make_client(max_wait=7200)
    fake.remaining = 1  # this request spends the last point
    _rate(client)
    assert client.rate.remaining == 0
    _rate(client)
    assert fake.requests == 2  # no request wasted on a certain refusal
    assert len(clock.sleeps) == 1


def test_rate_limit_headers_are_read(fake: FakeGitHub, client: GitHubClient) -> None:
    for _ in range(3):
        _rate(client)
    assert client.rate.limit == 5000
    assert client.rate.remaining == 4997
    assert client.rate.reset_at == pytest.approx(fake.reset_at, abs=1)


def test_rejected_token(fake: FakeGitHub, make_client: ClientFactory) -> None:
    client = make_client(token="ghp_wrong")
    with pytest.raises(TokenRejected, match="GITHUB_TOKEN was rejected by GitHub"):
        _rate(client)
    assert fake.requests == 1


def test_fake_requires_auth(fake: FakeGitHub) -> None:
    resp = httpx.post(f"{fake.url}/graphql", json={"query": Q.RATE_LIMIT_ONLY})
    assert resp.status_code == 401
    assert "authenticated" in resp.json()["message"]


def test_ghes_style_base_url(fake: FakeGitHub, make_client: ClientFactory) -> None:
    client = make_client(api_url=f"{fake.url}/api/v3")
    assert client.endpoint.endswith("/api/graphql")
    assert _rate(client)["limit"] == 5000
    assert fake.log[-1].path == "/api/graphql"


def test_connection_refused_is_retried_then_reported(make_client: ClientFactory, clock: FakeClock) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = make_client(api_url=f"http://127.0.0.1:{port}", max_retries=2)
    with pytest.raises(GitHubUnavailable, match="connection to GitHub failed"):
        _rate(client)
    assert client.requests == 3 and clock.sleeps == [1.0, 2.0]


def test_fake_search_never_serves_past_1000(fake: FakeGitHub, client: GitHubClient) -> None:
    fake.add_prs(REPO, make_prs(1050, datetime(2026, 5, 4, tzinfo=UTC), NOW))
    q = search_string(REPO, datetime(2026, 5, 4, tzinfo=UTC), NOW)
    after, served = None, 0
    for _ in range(20):
        page = search_page(client, q, after=after)
        assert page.issue_count == 1050
        served += len(page.nodes)
        if not page.has_next:
            break
        after = page.end_cursor
    assert served == 1000
