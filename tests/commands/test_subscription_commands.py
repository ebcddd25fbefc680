"""The chat commands for scheduled digests, against a fresh copy of the demo cache: admins only
for changes, per-channel, every bad value refused with nothing stored, preview = this week so far."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from classify.rules import Profile
from commands.model import Invocation, Reply
from commands.registry import Context, dispatch
from storage.db import connect
from storage.deliveries import DeliveryStore
from storage.prs import PRStore
from storage.subscriptions import SubscriptionStore

NOW = datetime(2026, 5, 10, 12, 0, tzinfo=UTC)
Chat = Callable[..., Reply]


@pytest.fixture
def ctx(demo_db: Path, profile: Profile) -> Context:
    return Context(store=PRStore(connect(demo_db)), profile=profile)


@pytest.fixture
def chat(ctx: Context) -> Chat:
    def run(
        command: str, *args: str, admin: bool = True, channel: str | None = "C0TEAM", lang: str = "en"
    ) -> Reply:
        inv = Invocation(
            command=command, args=args, platform="slack", channel=channel, user="U1", is_admin=admin,
            now=NOW, timezone="Europe/Berlin", lang=lang,  # type: ignore[arg-type]
        )  # fmt: skip
        return dispatch(inv, ctx)

    return run


def test_subscribe_in_a_channel_with_key_value_words(chat: Chat, ctx: Context) -> None:
    reply = chat(
        "subscribe", "at=sun 02:30", "modules=rocm,kernel", "match=all", "flags=core-path", "lang=zh"
    )
    assert reply.ok, reply.title
    [sub] = SubscriptionStore(ctx.store.db).all()
    assert (sub.platform, sub.channel, sub.repo, sub.weekday, sub.at, sub.timezone) == (
        "slack", "C0TEAM", "vllm-project/vllm", 6, "02:30", "Europe/Berlin",
    )  # fmt: skip
    assert (sub.modules, sub.match, sub.flags, sub.lang, sub.created_by) == (
        ("rocm", "kernel"),
        "all",
        ("core-path",),
        "zh",
        "U1",
    )
    assert reply.data["next_due"] == "2026-05-17T00:30:00Z"  # Sunday 02:30 CEST


def test_changes_are_for_admins_only(chat: Chat, ctx: Context) -> None:
    reply = chat("subscribe", admin=False)
    assert reply.status == "usage" and "admins only" in reply.title
    assert SubscriptionStore(ctx.store.db).all() == []
    assert chat("subscribe").ok
    refused = chat("unsubscribe", "1", admin=False)
    assert refused.status == "usage" and len(SubscriptionStore(ctx.store.db).all()) == 1
    # looking is for everyone
    assert chat("subscriptions", admin=False).ok and chat("preview", admin=False).ok


@pytest.mark.parametrize(
    ("words", "needle"),
    [
        (("tz=Mars/Olympus",), "unknown time zone"),
        (("at=25:00",), "'25:00' is not a weekday and time"),
        (("modules=nosuch",), "unknown module 'nosuch'"),
        (("match=only",), "needs modules"),
        (("every=99",), "every '99'"),
        (("quiet=loud",), "quiet 'loud'"),
        (("what=ever",), "'what=ever'"),
    ],
)
def test_bad_values_get_a_usage_line_and_nothing_is_stored(
    chat: Chat, ctx: Context, words: tuple[str, ...], needle: str
) -> None:
    reply = chat("subscribe", *words)
    assert reply.status == "usage" and needle in reply.title, reply.title
    assert "usage: /subscribe" in reply.title
    assert SubscriptionStore(ctx.store.db).all() == []


def test_outside_a_channel_subscribe_says_where_to_run_it(chat: Chat) -> None:
    reply = chat("subscribe", channel=None)
    assert reply.status == "usage" and "run this in the channel" in reply.title


def test_subscriptions_lists_this_channel_with_its_last_delivery(chat: Chat, ctx: Context) -> None:
    assert chat("subscribe").ok and chat("subscribe", "lang=zh", channel="C0OTHER").ok
    DeliveryStore(ctx.store.db).skip(
        1,
        datetime(2026, 5, 4).date(),
        datetime(2026, 5, 11).date(),
        NOW,
        reason="missed: catch-up window",
        now=NOW,
    )
    reply = chat("subscriptions")
    assert [s["channel"] for s in reply.data["subscriptions"]] == ["C0TEAM"]
    text = reply.blocks[0].items[0].text  # type: ignore[union-attr]
    assert "last: 2026-05-04 skipped — missed: catch-up window" in text
    assert chat("subscriptions", channel="C0NONE").title == "No scheduled digests here."


def test_unsubscribe_removes_and_refuses_unknown_ids(chat: Chat, ctx: Context) -> None:
    assert chat("subscribe").ok
    assert chat("unsubscribe", "#1").ok
    assert SubscriptionStore(ctx.store.db).all() == []
    again = chat("unsubscribe", "1")
    assert again.status == "usage" and "no subscription #1" in again.title


def test_preview_is_this_weeks_filtered_digest(chat: Chat) -> None:
    assert chat("preview").status == "usage"  # nothing subscribed here yet
    assert chat("subscribe", "modules=rocm", "lang=zh").ok
    reply = chat("preview")
    assert reply.ok and reply.title.startswith("#1 预览（本周至今） · vllm-project/vllm 周报 · 2026-W19")
    assert reply.data["modules_filter"] == ["rocm"]
