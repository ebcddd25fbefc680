"""The Monday run over many channels: the real deliverer, slack_sdk and discord.py against the
loopback fakes, the Slack fake enforcing Slack's limits (a message a second per channel, a
workspace-wide cap per method, answered 429 with Retry-After).

Posts to different channels overlap; each channel stays in order and every digest lands whole
and once; the limits are kept (no 429) or, where the fake's cap is lower than the poster
assumes, every 429 is waited out and nothing is posted twice; subscriptions asking for the same
digest share one build of it."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import bot.delivery.chart
import bot.delivery.deliverer
from bot.chat.discord.steps import DiscordSteps, key_of
from bot.chat.slack.post import web_client
from bot.chat.slack.steps import SlackSteps
from bot.chat.steps import StepPoster
from bot.delivery.deliverer import Deliverer, Outcome
from classify.rules import Profile
from storage.db import connect
from storage.deliveries import DeliveryStore
from storage.delivery_steps import StepStore
from tests.bot.delivery.test_deliverer import DUE, settings_for, subscribe
from tests.bot.delivery.test_faults import discord_settings
from tests.fakes.discord import FakeDiscord
from tests.fakes.slack import BOT_TOKEN, FakeSlack, Limits, Response

CHANNELS = [f"C0TEAM{i}" for i in range(4)]


@pytest.fixture
def limited() -> Iterator[FakeSlack]:
    with FakeSlack(limits=Limits()) as fake:
        yield fake


def slack_posters(slack: FakeSlack, **options: Any) -> Callable[[str], StepPoster]:
    """Slack's step poster as ``deliver`` makes it: paced, Slack's workspace rates."""
    return lambda platform: SlackSteps(web_client(settings_for(slack)), timeout=1.0, **options)


def run(db: Path, profile: Profile, posters: Callable[[str], StepPoster], **options: Any) -> list[Outcome]:
    return asyncio.run(Deliverer(connect(db), profile, posters, backoff=(0.1, 0.2), **options).run(DUE))


def stored(db: Path) -> dict[str, list[str]]:
    """Each delivery's key → the keys of its stored messages, in order."""
    conn = connect(db)
    return {
        d.key: [s.key for s in StepStore(conn).for_delivery(d.id)]
        for d in DeliveryStore(conn).recent(limit=100)
    }


def slack_whole(slack: FakeSlack, db: Path, channel: str) -> str:
    """One lead in ``channel``, its thread holding every stored reply once, in order: its key."""
    [lead] = slack.leads_in(channel)
    key = lead["metadata"]["event_payload"]["delivery"]
    replies = [m["metadata"]["event_payload"] for m in slack.thread(channel, lead["ts"])]
    assert all(r["delivery"] == key for r in replies)
    assert [r["step"] for r in replies] == stored(db)[key][1:]
    return str(key)


def posted_order(slack: FakeSlack) -> list[str]:
    """The channel of every message that landed, in the order the fake took them."""
    return [str(c.params["channel"]) for c in slack.calls_to("chat.postMessage") if c.response.get("ok")]


def test_channels_go_at_once_each_paced_and_in_order_every_digest_once(
    demo_db: Path, profile: Profile, limited: FakeSlack
) -> None:
    for channel in CHANNELS:
        subscribe(demo_db, channel=channel)
    outcomes = run(demo_db, profile, slack_posters(limited))
    assert [o.state for o in outcomes] == ["posted"] * len(CHANNELS), outcomes
    keys = {slack_whole(limited, demo_db, channel) for channel in CHANNELS}
    assert len(keys) == len(CHANNELS)  # each channel its own delivery, each once
    assert limited.limited() == []  # a message a second per channel, the workspace's rate: kept
    order = posted_order(limited)
    first_done = max(i for i, c in enumerate(order) if c == order[0])
    last_started = min(i for i, c in enumerate(order) if c == order[-1])
    assert last_started < first_done  # the channels' posts overlapped, not one channel after another


def test_a_workspace_cap_below_the_posters_rate_is_waited_out_and_nothing_is_posted_twice(
    demo_db: Path, profile: Profile
) -> None:
    """Slack does not publish its workspace figure: where it is lower than the poster assumes,
    the 429s it answers are waited out by every sender (and slow the poster down)."""
    cap = Limits(workspace={"chat.postMessage": (3.0, 2.0)})
    with FakeSlack(limits=cap) as slack:
        for channel in CHANNELS:
            subscribe(demo_db, channel=channel)
        outcomes = run(demo_db, profile, slack_posters(slack))
        assert [o.state for o in outcomes] == ["posted"] * len(CHANNELS), outcomes
        assert slack.limited("chat.postMessage")  # the cap was met…
        for channel in CHANNELS:
            slack_whole(slack, demo_db, channel)  # …and every digest landed whole, once


def test_a_poster_faster_than_the_channel_allows_meets_429s_and_honours_retry_after(
    demo_db: Path, profile: Profile, limited: FakeSlack
) -> None:
    """The fake is honest: an unpaced poster gets Slack's answer (429, Retry-After 1) for its
    second message in a second, and waits it out before the message goes again."""
    subscribe(demo_db, channel=CHANNELS[0])
    [outcome] = run(demo_db, profile, slack_posters(limited, pace=0))
    assert outcome.state == "posted"
    refused = limited.limited("chat.postMessage")
    assert refused and {c.response["error"] for c in refused} == {"ratelimited"}
    slack_whole(limited, demo_db, CHANNELS[0])  # each refused message went again, once


def test_the_fake_answers_a_second_post_within_the_second_with_429_and_retry_after(
    limited: FakeSlack,
) -> None:
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    client = WebClient(token=BOT_TOKEN, base_url=limited.api_url)
    client.chat_postMessage(channel="C1", text="one")
    client.chat_postMessage(channel="C2", text="another channel: fine")
    with pytest.raises(SlackApiError) as refused:
        client.chat_postMessage(channel="C1", text="two")
    assert refused.value.response.status_code == 429
    assert refused.value.response.headers["Retry-After"] == "1"
    assert [m["text"] for m in limited.leads_in("C1")] == ["one"]  # the refused one took no effect


def test_the_same_digest_is_built_once_per_run_whatever_the_number_of_channels(
    demo_db: Path, profile: Profile, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts: Counter[str] = Counter()
    dispatch, with_chart = bot.delivery.deliverer.dispatch, bot.delivery.chart.with_chart

    def counted(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(bot.delivery.deliverer, "dispatch", counted("digest", dispatch))
    monkeypatch.setattr(bot.delivery.chart, "with_chart", counted("chart", with_chart))

    async def refresh(repo: str) -> str | None:
        counts[f"sync {repo}"] += 1
        return "not_synced"

    same = [subscribe(demo_db, channel=f"C0SAME{i}") for i in range(3)]
    subscribe(demo_db, channel="C0CHINESE", lang="zh")
    subscribe(demo_db, channel="C0ROCM", modules=("rocm",))
    with FakeSlack() as slack:
        outcomes = run(demo_db, profile, slack_posters(slack, pace=0), refresh=refresh)
        assert [o.state for o in outcomes] == ["posted"] * 5, outcomes
        # three distinct digests, each built (digest, chart) once; the repository synced once
        assert counts == Counter({"digest": 3, "chart": 3, "sync vllm-project/vllm": 1})
        leads = {s.channel: slack.leads_in(s.channel)[0] for s in same}
        assert len({lead["metadata"]["event_payload"]["delivery"] for lead in leads.values()}) == 3
        texts = {lead["text"] for lead in leads.values()}
        assert len(texts) == 1  # the same digest in each, under each channel's own key
        for channel in ("C0SAME0", "C0CHINESE", "C0ROCM"):
            slack_whole(slack, demo_db, channel)
        assert slack.leads_in("C0CHINESE")[0]["text"] not in texts


def test_a_revoked_token_costs_one_request_however_many_channels(demo_db: Path, profile: Profile) -> None:
    with FakeSlack() as slack:
        for channel in CHANNELS:
            subscribe(demo_db, channel=channel)
        slack.script("chat.postMessage", Response(200, {"ok": False, "error": "token_revoked"}))
        outcomes = run(demo_db, profile, slack_posters(slack))
        assert [o.state for o in outcomes] == ["failed"] + ["held"] * (len(CHANNELS) - 1)
        assert len(slack.calls_to("chat.postMessage")) == 1


def test_discord_channels_go_at_once_within_its_buckets_each_whole(demo_db: Path, profile: Profile) -> None:
    """Discord's limits are per route bucket (per channel for a message), read from its headers
    by discord.py: the fake sends them and refuses what goes over."""
    with FakeDiscord(bucket=(5, 2.0)) as fake, fake.patched():
        channels = [fake.add_channel(f"team-{i}").id for i in range(3)]
        for channel in channels:
            subscribe(demo_db, platform="discord", channel=channel)
        outcomes = run(demo_db, profile, lambda p: DiscordSteps(discord_settings(fake)))
        assert [o.state for o in outcomes] == ["posted"] * 3, outcomes
        keys = stored(demo_db)
        for channel in channels:
            [lead] = [m for m in fake.messages(channel) if (key_of(m) or "").endswith("/lead")]
            delivery = (key_of(lead) or "").rsplit("/", 1)[0]
            replies = [(key_of(m) or "").rsplit("/", 1) for m in fake.messages(lead["id"])]
            assert replies == [[delivery, k] for k in keys[delivery][1:]]
        assert not [c for c in fake.calls if c.status == 429]


def _shown(lead: dict[str, Any]) -> list[str]:
    return [b["slack_file"]["id"] for b in lead.get("blocks") or [] if b.get("type") == "image"]


def test_channels_with_the_same_digest_show_one_upload_of_its_chart_that_none_deletes(
    demo_db: Path, profile: Profile
) -> None:
    """The chart is uploaded once and lent to the other deliveries of the run once a lead shows it;
    a delivery refused after borrowing it does not delete it from under the others' leads."""
    with FakeSlack(limits=Limits()) as slack:
        for channel in CHANNELS:
            subscribe(demo_db, channel=channel)
        slack.channel_errors[CHANNELS[2]] = "channel_not_found"
        outcomes = run(demo_db, profile, slack_posters(slack))
        assert [o.state for o in outcomes] == ["posted", "posted", "failed", "posted"], outcomes
        [upload] = slack.uploads.values()
        assert upload.completed and not upload.deleted and slack.calls_to("files.delete") == []
        for channel in (CHANNELS[0], CHANNELS[1], CHANNELS[3]):
            assert _shown(slack.leads_in(channel)[0]) == [upload.id]
            slack_whole(slack, demo_db, channel)
        refused = DeliveryStore(connect(demo_db)).find(3, DUE.date() - timedelta(days=7))
        assert refused is not None
        [lead] = StepStore(connect(demo_db)).for_delivery(refused.id)[:1]
        assert [(u["id"], u.get("borrowed")) for u in lead.uploads] == [(upload.id, True)]
