"""/subscribe and friends through the real Slack app (signed HTTP slash commands against the host)
and the fake Slack: who counts as an admin (PRDIGEST_ADMINS, users.info admins and owners),
joining the channel before storing, and a channel the bot cannot use refused with nothing stored."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from storage.db import connect
from storage.subscriptions import SubscriptionStore
from tests.bot.chat.slack.conftest import slack_settings
from tests.bot.chat.slack.test_slack_app import answer, mrkdwn_of, send
from tests.fakes.slack import FakeSlack, RunningApp, signed_headers, slash_body


@pytest.fixture
def own_slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        fake.users = {
            "U0ADMIN": {"id": "U0ADMIN", "is_admin": True},
            "U0OWNER": {"id": "U0OWNER", "is_owner": True},
            "U0USER": {"id": "U0USER", "is_admin": False},
        }
        yield fake


@pytest.fixture
def db(cache_db: Path, tmp_path: Path) -> Path:
    path = tmp_path / "cache.db"
    shutil.copy(cache_db, path)
    return path


def subscribe(app: RunningApp, slack: FakeSlack, user: str, text: str = "", channel: str = "C0TEAM") -> str:
    key = uuid.uuid4().hex
    body = slash_body("/subscribe", text, slack.response_url(key), channel_id=channel, user_id=user)
    resp = httpx.post(app.url, content=body, headers=signed_headers(body), timeout=10)
    assert resp.status_code == 200
    return "\n".join(mrkdwn_of(p.body) for p in answer(slack, key))


def stored(db: Path) -> list[str]:
    return [s.channel for s in SubscriptionStore(connect(db)).all()]


def test_admins_and_owners_subscribe_others_are_refused(own_slack: FakeSlack, db: Path) -> None:
    with RunningApp(slack_settings(own_slack, prdigest_admins="U0LISTED"), db) as app:
        refused = subscribe(app, own_slack, "U0USER")
        assert "for workspace admins only" in refused and stored(db) == []
        assert "Subscribed (#1)" in subscribe(app, own_slack, "U0ADMIN", 'at="fri 16:00" tz=Asia/Tokyo')
        assert "Subscribed (#2)" in subscribe(app, own_slack, "U0OWNER", channel="C0TWO")
        # PRDIGEST_ADMINS counts without asking Slack (users.info does not know this user)
        assert "Subscribed (#3)" in subscribe(app, own_slack, "U0LISTED", channel="C0THREE")
    assert stored(db) == ["C0TEAM", "C0TWO", "C0THREE"]
    asked = [c.params["user"] for c in own_slack.calls_to("users.info")]
    assert asked == ["U0USER", "U0ADMIN", "U0OWNER"]
    assert [c.params["channel"] for c in own_slack.calls_to("conversations.join")] == [
        "C0TEAM",
        "C0TWO",
        "C0THREE",
    ]
    [first] = SubscriptionStore(connect(db)).all()[:1]
    assert (first.weekday, first.at, first.timezone, first.created_by) == (
        4,
        "16:00",
        "Asia/Tokyo",
        "U0ADMIN",
    )


def test_a_channel_the_bot_cannot_use_is_refused_and_nothing_is_stored(
    own_slack: FakeSlack, db: Path
) -> None:
    own_slack.channel_errors["C0PRIVATE"] = "method_not_supported_for_channel_type"
    with RunningApp(slack_settings(own_slack), db) as app:
        text = subscribe(app, own_slack, "U0ADMIN", channel="C0PRIVATE")
    assert "prdigest cannot use this channel" in text and "Traceback" not in text
    assert stored(db) == []


def test_subscriptions_and_preview_for_everyone(own_slack: FakeSlack, db: Path) -> None:
    with RunningApp(slack_settings(own_slack), db) as app:
        subscribe(app, own_slack, "U0ADMIN", "modules=kernel")
        _, _, key = send(app, own_slack, "/subscriptions", "", channel="C0TEAM")
        listing = "\n".join(mrkdwn_of(p.body) for p in answer(own_slack, key))
        assert "#1 slack:C0TEAM" in listing and "no delivery yet" in listing
        _, _, key = send(app, own_slack, "/preview", "", channel="C0TEAM")
        posted = answer(own_slack, key)
        assert posted[0].body["response_type"] == "ephemeral"
        assert "Preview of #1 (week to date)" in mrkdwn_of(posted[0].body)


def test_subscription_changes_are_rate_limited_per_user_politely(own_slack: FakeSlack, db: Path) -> None:
    with RunningApp(slack_settings(own_slack, prdigest_lang="zh"), db) as app:
        answers = [subscribe(app, own_slack, "U0ADMIN", channel=f"C0T{i}") for i in range(6)]
        assert all("已订阅" in a for a in answers[:5])
        assert "订阅变更过于频繁：请" in answers[5] and "秒后再试" in answers[5]
        # nothing was stored, joined or asked for the refused one; another admin is not slowed down
        assert "已订阅" in subscribe(app, own_slack, "U0OWNER", channel="C0OTHER")
    assert stored(db) == [f"C0T{i}" for i in range(5)] + ["C0OTHER"]
    assert len(own_slack.calls_to("conversations.join")) == 6
    assert [c.params["user"] for c in own_slack.calls_to("users.info")].count("U0ADMIN") == 5
