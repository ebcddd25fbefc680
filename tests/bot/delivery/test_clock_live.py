"""The Monday clock inside ``prdigest serve`` posts through the front ends' live connections.

The real host with Slack (HTTP mode) and Discord against the loopback fakes: a due subscription on
each platform is posted by the run at start, two more by a later run, and across both runs
Discord sees exactly one login — the one ``serve`` made when it started (one ``GET /users/@me``
over REST, one IDENTIFY on the gateway). The runs happen on the host's loop; the digest is built
and its chart drawn on the clock's worker thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.chat.discord.component import DiscordComponent
from bot.chat.discord.steps import DiscordSteps, key_of
from bot.chat.slack.component import SlackComponent
from bot.chat.slack.steps import SlackSteps
from bot.chat.steps import StepPoster
from bot.config.settings import Settings
from bot.delivery import deliverer
from bot.delivery.clock import DeliveryScheduler
from bot.host.serve import live_posters
from commands.model import Reply
from storage.db import connect
from storage.deliveries import DeliveryStore
from tests.bot.delivery.test_clock import Clock, Served, wait_for
from tests.bot.delivery.test_deliverer import DUE, REPO, subscribe
from tests.fakes.discord import CHANNEL_ID, TOKEN, FakeDiscord
from tests.fakes.host import RunningHost
from tests.fakes.slack import BOT_TOKEN, SIGNING_SECRET, FakeSlack

SLACK_CHANNEL = "C0DIGEST"
IDENTIFY = 2  # the gateway opcode a session starts with


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def discord() -> Iterator[FakeDiscord]:
    with FakeDiscord(heartbeat_interval_ms=200) as running, running.patched():
        yield running


def both(slack: FakeSlack, discord: FakeDiscord) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        slack_bot_token=BOT_TOKEN,
        slack_signing_secret=SIGNING_SECRET,
        prdigest_slack_api_url=slack.api_url,
        discord_bot_token=TOKEN,
        prdigest_discord_api_url=discord.api_url,
        prdigest_discord_gateway_url=discord.gateway_url,
        prdigest_repo=REPO,
    )


def subscribe_both(db: Path) -> list[int]:
    """One subscription on each platform, due at ``DUE`` (Monday 09:00 in Berlin)."""
    made = [
        subscribe(db, platform="slack", channel=SLACK_CHANNEL, layout="single"),
        subscribe(db, platform="discord", channel=CHANNEL_ID),
    ]
    return [s.id for s in made if s.id is not None]


def posted(db: Path, ids: list[int]) -> bool:
    ledger = DeliveryStore(connect(db))
    rows = [row for i in ids for row in ledger.for_subscription(i)]
    return len(rows) == len(ids) and all(row.state == "posted" for row in rows)


def slack_leads(slack: FakeSlack) -> list[dict[str, Any]]:
    """The digests' lead messages in the Slack channel (their metadata names the ``lead`` step)."""
    return [
        m
        for m in slack.leads_in(SLACK_CHANNEL)
        if ((m.get("metadata") or {}).get("event_payload") or {}).get("step") == "lead"
    ]


def logins(discord: FakeDiscord) -> tuple[int, int]:
    """REST logins (``GET /users/@me``) and gateway sessions begun (IDENTIFY) the fake has seen."""
    return len(discord.calls_to("GET /users/@me")), len(discord.frames_where(op=IDENTIFY, direction="recv"))


def test_serve_posts_scheduled_digests_through_its_live_slack_and_discord_clients(
    demo_db: Path, slack: FakeSlack, discord: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = subscribe_both(demo_db)
    running = RunningHost(both(slack, discord), demo_db)
    [scheduler] = [c for c in running.host.components if isinstance(c, DeliveryScheduler)]
    [slack_app] = [c for c in running.host.components if isinstance(c, SlackComponent)]
    [discord_app] = [c for c in running.host.components if isinstance(c, DiscordComponent)]
    scheduler.clock = Clock(DUE + timedelta(hours=1))  # started after Monday 09:00: due at once

    lent: list[tuple[StepPoster, asyncio.AbstractEventLoop]] = []
    lend = scheduler.posters

    def posters(platform: str) -> StepPoster:  # what each run posts with, and on which loop
        poster = lend(platform)
        lent.append((poster, asyncio.get_running_loop()))
        return poster

    scheduler.posters = posters
    drawn_on: list[str] = []
    draw = deliverer.charted

    def charted(reply: Reply) -> Reply:
        drawn_on.append(threading.current_thread().name)
        return draw(reply)

    monkeypatch.setattr(deliverer, "charted", charted)

    with running:
        discord.wait(lambda: discord.frames_where(t="READY"), what="serve's gateway session", timeout=30)
        at_start = logins(discord)
        wait_for("the first run's two digests", lambda: posted(demo_db, first), timeout=90)
        runs = scheduler.runs
        second = subscribe_both(demo_db)  # as another process would: a later run posts these
        scheduler.rearm()
        wait_for("the second run's two digests", lambda: posted(demo_db, second), timeout=90)
        wait_for("the second run's end", lambda: scheduler.runs > runs, timeout=30)
        after = logins(discord)
        later_runs = scheduler.runs
        loop: Any = running._loop
        clients = (slack_app.client, discord_app.client)

    assert at_start == (1, 1), at_start  # serve's own login at start
    assert after == (1, 1), after  # and none by either run
    assert later_runs > runs
    # every poster of both runs wraps the live client of its platform's component, on serve's loop
    assert sorted(type(p).__name__ for p, _ in lent) == ["DiscordSteps"] * 2 + ["SlackSteps"] * 2
    for poster, on in lent:
        assert on is loop
        if isinstance(poster, SlackSteps):
            assert poster.client is clients[0]
        else:
            assert isinstance(poster, DiscordSteps) and poster.client is clients[1]
    # the chart was drawn off the loop, on the clock's worker thread, for each of the four digests
    assert drawn_on == ["prdigest-deliver-0"] * 4
    leads = [m for m in discord.messages(CHANNEL_ID) if (key_of(m) or "").endswith("/lead")]
    assert len(leads) == 2
    assert len(slack_leads(slack)) == 2


def test_a_platform_no_front_end_serves_is_posted_with_a_poster_of_the_runs_own(
    demo_db: Path, slack: FakeSlack
) -> None:
    """A host whose clock has no Slack front end beside it (a Slack bot token, no Slack
    component): the run asks for the live poster, gets none, and posts with a client of its own."""
    subscribe(demo_db, layout="single")
    asked: list[str] = []

    def live(platform: str) -> StepPoster | None:
        asked.append(platform)
        return live_posters([])(platform)  # no component lends one

    with Served(demo_db, slack, Clock(DUE + timedelta(hours=3)), live=live) as served:
        served.wait_runs(1)
        outcomes = list(served.scheduler.last_outcomes)
    assert [o.state for o in outcomes] == ["posted"], outcomes
    assert asked == ["slack"]
    assert len(slack_leads(slack)) == 1
