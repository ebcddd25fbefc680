"""A scheduled digest syncs its repository first (the fake GitHub over real HTTP), and says how
fresh the cache is when it cannot: no token, GitHub down — with nothing of an error in the channel."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.chat.slack.post import web_client
from bot.chat.slack.steps import SlackSteps
from bot.config.settings import Settings
from bot.delivery.deliverer import Deliverer, Outcome
from bot.ingest.refresh import github_refresh
from classify.rules import Profile
from classify.schedule import first_anchor, owed
from storage.db import connect
from storage.prs import PRStore
from storage.subscriptions import Subscription, SubscriptionStore
from tests.fakes.github import TOKEN, FakeClock, FakeGitHub, fake_schema, make_prs
from tests.fakes.slack import BOT_TOKEN, FakeSlack

REPO = "octo/repo"


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


def setup(
    tmp_path: Path, db: Path | None = None, repo: str = REPO
) -> tuple[Path, Subscription, datetime, datetime, datetime]:
    """A cache (empty unless given) and a UTC Monday-09:00 subscription whose latest period is the
    last full week before now (the sync fetches up to the real now)."""
    if db is None:
        db = tmp_path / "cache.db"
        connect(db, create=True).conn.close()
    real_now = datetime.now(UTC)
    probe = Subscription(
        platform="slack",
        channel="C0DIGEST",
        repo=repo,
        anchor=first_anchor(real_now - timedelta(days=30), ZoneInfo("UTC")),
        since=real_now - timedelta(days=30),
        layout="single",
    )
    last, _ = owed(probe, real_now, timedelta(days=60))[-1]
    since = last.due - timedelta(minutes=1)  # owed exactly the latest period
    sub = replace(probe, since=since)
    stored = SubscriptionStore(connect(db)).add(sub, now=since)
    due, _ = owed(stored, real_now, timedelta(days=30))[-1]
    period = due.period("UTC")
    return db, stored, due.due + timedelta(minutes=1), period.start, period.end


def run(
    db: Path, profile: Profile, slack: FakeSlack, now: datetime, github_url: str, token: str | None
) -> list[Outcome]:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        slack_bot_token=BOT_TOKEN,
        prdigest_slack_api_url=slack.api_url,
        github_token=token,
        prdigest_github_api_url=github_url,
    )
    database = connect(db)
    deliverer = Deliverer(
        database,
        profile,
        lambda platform: SlackSteps(web_client(settings), pace=0),
        refresh=github_refresh(
            settings, database, profile, max_wait=1.0, client_options={"sleep": lambda s: None}
        ),
    )
    return asyncio.run(deliverer.run(now))


def lead_text(slack: FakeSlack) -> str:
    calls = slack.calls_to("chat.postMessage")
    return "\n".join(str(c.params.get("text", "")) + str(c.params.get("blocks", "")) for c in calls)


def test_the_digest_syncs_first_and_includes_what_was_just_merged(
    tmp_path: Path, profile: Profile, slack: FakeSlack
) -> None:
    db, _, now, start, end = setup(tmp_path)
    with FakeGitHub(fake_schema(), clock=FakeClock(start=time.time())) as github:
        github.add_prs(REPO, make_prs(6, start, end))
        [outcome] = run(db, profile, slack, now, github.url, TOKEN)
        assert len(github.log) >= 1
    assert outcome.state == "posted"
    assert PRStore(connect(db)).count(REPO) == 6
    text = lead_text(slack)
    assert "6" in text and "Data as of" not in text  # fresh: no staleness note


def test_without_a_token_it_posts_from_the_cache_and_says_so(
    tmp_path: Path, demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    db, _, now, _, _ = setup(tmp_path, demo_db, "vllm-project/vllm")
    [outcome] = run(db, profile, slack, now, "http://127.0.0.1:9", None)
    assert outcome.state == "posted"
    text = lead_text(slack).replace("\u200b", "")  # Slack's renderer keeps _ from italicising
    assert "(not synced: GITHUB_TOKEN is not set)." in text and "Data as of 2026-" in text


def test_a_repository_missing_from_the_cache_fails_without_posting(
    tmp_path: Path, profile: Profile, slack: FakeSlack
) -> None:
    db, _, now, _, _ = setup(tmp_path)
    [outcome] = run(db, profile, slack, now, "http://127.0.0.1:9", None)
    assert outcome.state == "failed" and "the cache holds no PRs of octo/repo" in outcome.reason
    assert slack.calls_to("chat.postMessage") == []


def test_github_down_still_posts_with_a_fixed_note_and_no_error_text(
    tmp_path: Path, demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    db, _, now, _, _ = setup(tmp_path, demo_db, "vllm-project/vllm")
    with FakeGitHub(fake_schema(), clock=FakeClock(start=time.time())) as github:
        github.inject("502", times=20)
        [outcome] = run(db, profile, slack, now, github.url, TOKEN)
    assert outcome.state == "posted"
    text = lead_text(slack)
    assert "GitHub could not be reached" in text
    assert "502" not in text and "Error" not in text and "Traceback" not in text
