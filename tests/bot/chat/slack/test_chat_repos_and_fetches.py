"""Through the running server: chat users act only on the configured
repositories, on-demand fetches are rate-limited, and hanging GitHub lookups hold nobody else.

Every request is a signed slash command over HTTP to the host as ``prdigest serve`` runs it; the
answers arrive at the fake Slack's response_url; GitHub is the loopback fake (or a server that
accepts and never answers).
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from bot.chat.fetch_limit import FetchLimits
from bot.host.runner import CommandRunner
from bot.host.serve import context_factory
from tests.bot.chat.slack.conftest import REPO, WEEK, slack_settings
from tests.fakes.github import TOKEN, FakeClock, FakeGitHub, fake_schema, make_prs
from tests.fakes.slack import FakeSlack, Posted, RunningApp, signed_headers, slash_body
from tests.fakes.sockets import HangingServer

OTHER = "octo/extra"


def post(app: RunningApp, slack: FakeSlack, command: str, text: str, user: str = "U1") -> str:
    """Send a signed command; return its response_url key (the acknowledgement must be a 200)."""
    key = uuid.uuid4().hex
    body = slash_body(command, text, slack.response_url(key), user_id=user)
    resp = httpx.post(app.url, content=body, headers=signed_headers(body), timeout=10)
    assert resp.status_code == 200, resp.text
    return key


def text_of(slack: FakeSlack, key: str, timeout: float = 30) -> str:
    posted = slack.wait_posted(key, 1, timeout=timeout)
    assert posted, f"no answer for {key}"
    return "\n".join(_texts(p) for p in posted)


def _texts(p: Posted) -> str:
    body = p.body
    parts = [body.get("text", "")]
    for block in body.get("blocks", []):
        if isinstance(block.get("text"), dict):
            parts.append(block["text"]["text"])
        parts += [e.get("text", "") for e in block.get("elements", []) if isinstance(e, dict)]
    return "\n".join(parts)


def repos_in(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute("SELECT DISTINCT repo FROM prs ORDER BY repo")]


@pytest.fixture
def own_cache(cache_db: Path, tmp_path: Path) -> Path:
    """A private copy of the Slack tests' cache (these tests write to it)."""
    path = tmp_path / "cache.db"
    src = sqlite3.connect(cache_db)
    dst = sqlite3.connect(path)
    src.backup(dst)
    src.close()
    dst.close()
    return path


@pytest.fixture
def hanging() -> Iterator[HangingServer]:
    with HangingServer() as server:
        yield server


def test_a_pr_of_another_repository_is_refused_and_nothing_changes(
    slack: FakeSlack, own_cache: Path, hanging: HangingServer
) -> None:
    """Defect 1: with PRDIGEST_REPO unset, `/pr` of another repository's PR used to fetch and cache
    it, after which every command asked for --repo. Now: one line, no GitHub request, and the
    other commands still answer for the cache's repository."""
    settings = slack_settings(
        slack, prdigest_repo=None, github_token=TOKEN, prdigest_github_api_url=hanging.url
    )
    with RunningApp(settings, own_cache) as app:
        key = post(app, slack, "/pr", "https://github.com/other/repo/pull/1")
        refused = text_of(slack, key)
        by_url = text_of(slack, post(app, slack, "/pr", "https://github.com/other/private/pull/7 public"))
        digest = text_of(slack, post(app, slack, "/digest", WEEK))
    assert f"other/repo is not a repository this bot answers for (it answers for: {REPO})" in refused
    assert "other/private is not a repository" in by_url
    (message,) = slack.posted_to(key)
    assert "\n" not in message.body["text"] and message.body["response_type"] == "ephemeral"
    assert hanging.accepted == 0, "nothing was asked of GitHub"
    assert f"{REPO} weekly digest · {WEEK}" in digest and "several repositories" not in digest
    assert repos_in(own_cache) == [REPO]


def test_on_demand_fetches_are_limited_per_user_and_in_total(slack: FakeSlack, own_cache: Path) -> None:
    """Defect 1: fetches were unlimited. Now at most `per_user` per user and `total` overall in a
    window; a refused fetch never reaches GitHub; a fetched PR of a second configured repository
    does not change which repository the other commands answer for."""
    schema = fake_schema()
    end = datetime.now(UTC).replace(microsecond=0)
    extra = make_prs(4, end - timedelta(days=3), end, first_number=500)
    with FakeGitHub(schema, clock=FakeClock(start=time.time())) as github:
        github.add_prs(OTHER, extra)
        settings = slack_settings(
            slack,
            prdigest_repo=f"{REPO},{OTHER}",
            github_token=TOKEN,
            prdigest_github_api_url=github.url,
        )
        limits = FetchLimits(per_user=2, total=3, window=600)
        runner = CommandRunner(context_factory(settings, own_cache), settings=settings, fetch_limits=limits)
        url = f"https://github.com/{OTHER}/pull/"
        with RunningApp(settings, own_cache, runner=runner) as app:
            first = text_of(slack, post(app, slack, "/pr", f"{url}500", user="U1"))
            missing = text_of(slack, post(app, slack, "/pr", f"{url}99999", user="U1"))
            asked = github.requests
            third = text_of(slack, post(app, slack, "/pr", f"{url}501", user="U1"))
            assert github.requests == asked, "a refused fetch never reaches GitHub"
            other_user = text_of(slack, post(app, slack, "/pr", f"{url}501", user="U2"))
            asked = github.requests
            over_total = text_of(slack, post(app, slack, "/pr", f"{url}502", user="U3"))
            assert github.requests == asked
            cached = text_of(slack, post(app, slack, "/pr", f"{url}500", user="U1"))  # no fetch: allowed
            digest = text_of(slack, post(app, slack, "/digest", WEEK, user="U3"))
            foreign = text_of(slack, post(app, slack, "/pr", "https://github.com/else/where/pull/3"))
            health = httpx.get(f"{app.base}/healthz", timeout=10).json()
    assert extra[0].title in first
    assert "has no merged PR #99999" in missing
    assert "on-demand fetches are limited: try again in" in third
    assert extra[1].title in other_user
    assert "on-demand fetches are limited" in over_total
    assert extra[0].title in cached
    assert (
        f"{REPO} weekly digest · {WEEK}" in digest and "several repositories" not in digest
    )  # still the first configured
    assert "else/where is not a repository this bot answers for" in foreign
    assert repos_in(own_cache) == sorted([REPO, OTHER])
    assert {r["repo"] for r in health["repos"]} == {REPO, OTHER}


def test_hanging_fetches_do_not_delay_other_commands_or_healthz(
    slack: FakeSlack, own_cache: Path, hanging: HangingServer
) -> None:
    """Defect 3: two `/pr` lookups against an unreachable GitHub used to delay every command by
    ~31 s. Now they hang in their own bounded lane: a third fetch is turned away at once, and ten
    ordinary commands and /healthz are all answered before either hanging fetch is (an ordering
    assertion: the answers' arrival order at the fake Slack, no clock limits)."""
    settings = slack_settings(slack, github_token=TOKEN, prdigest_github_api_url=hanging.url)
    limits = FetchLimits(workers=2, waiting=0, deadline=120)
    runner = CommandRunner(context_factory(settings, own_cache), settings=settings, fetch_limits=limits)
    ordinary = [
        ("/digest", WEEK),
        ("/risks", f"core-path {WEEK}"),
        ("/search", "scheduler"),
        ("/pr", "1001"),
        ("/help", ""),
    ] * 2
    with RunningApp(settings, own_cache, runner=runner) as app:
        stuck = [post(app, slack, "/pr", "77001", user="UA"), post(app, slack, "/pr", "77002", user="UB")]
        assert hanging.wait_accepted(2), "both fetches reached the (hanging) GitHub"
        turned_away = text_of(slack, post(app, slack, "/pr", "77003", user="UC"))
        keys = [post(app, slack, command, text, user=f"U{i}") for i, (command, text) in enumerate(ordinary)]
        health = httpx.get(f"{app.base}/healthz", timeout=10)
        answered = [slack.wait_posted(key, 1, timeout=30) for key in keys]
        assert all(answered), "every ordinary command was answered"
        assert all(slack.posted_to(key) == [] for key in stuck), "…while both fetches still hang"
        hanging.release()  # GitHub "comes back" by closing every connection: the fetches fail
        failed = [text_of(slack, key) for key in stuck]
    assert health.status_code == 200 and health.json()["ok"] is True
    assert "too many fetches are waiting for GitHub" in turned_away
    last_ordinary = max(p[0].at for p in answered)
    first_stuck = min(p.at for key in stuck for p in slack.posted_to(key))
    assert last_ordinary < first_stuck
    for text in failed:
        assert "fetching it from GitHub failed" in text
