"""Fixtures for the sync tests: the loopback fake GitHub, a fake clock, a client, a fresh cache.

The client is the real ``bot.ingest.github.GitHubClient`` (httpx over a socket) whose ``sleep`` and
clock are the fake clock's, so waits for rate-limit resets and Retry-After take no real time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import pytest

from bot.ingest.github import GitHubClient
from bot.ingest.sync import Classifier, classifier_for
from classify.rules import load_profile
from storage.db import connect
from storage.prs import PRStore
from tests.fakes.github import TOKEN, FakeClock, FakeGitHub, fake_schema

REPO = "vllm-project/vllm"
# A fixed "now": Monday 2026-05-11 00:00 UTC; the synced week is the one before it.
NOW = datetime(2026, 5, 11, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=NOW.timestamp())


@pytest.fixture
def fake(clock: FakeClock) -> Iterator[FakeGitHub]:
    schema = fake_schema()
    with FakeGitHub(schema, clock=clock) as server:
        yield server


@pytest.fixture
def make_client(fake: FakeGitHub, clock: FakeClock) -> Iterator[Callable[..., GitHubClient]]:
    clients: list[GitHubClient] = []

    def build(**kwargs: object) -> GitHubClient:
        options: dict[str, object] = {"sleep": clock.sleep, "clock": clock.time, "timeout": 5.0}
        options.update(kwargs)
        client = GitHubClient(
            str(options.pop("token", TOKEN)), str(options.pop("api_url", fake.url)), **options
        )  # type: ignore[arg-type]
        clients.append(client)
        return client

    yield build
    for c in clients:
        c.close()


@pytest.fixture
def client(make_client: Callable[..., GitHubClient]) -> GitHubClient:
    return make_client()


@pytest.fixture
def store() -> PRStore:
    return PRStore(connect(":memory:"))


@pytest.fixture(scope="session")
def classifier() -> Classifier:
    return classifier_for(load_profile("vllm"))
