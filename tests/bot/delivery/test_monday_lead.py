"""The Monday post's lead carries the highlights, on both platforms and in both languages.

Driven end to end: a subscription on the demo cache, the deliverer, the real slack_sdk and
discord.py clients against the loopback fakes. What a reader sees without opening the thread —
the lead message as the platform stored it — holds the top three storylines by name, the top three
key PRs with their links, and the chart; the thread holds the rest.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.chat.platforms import step_poster_for
from bot.chat.steps import StepPoster
from classify.rules import Profile
from commands.model import Invocation
from commands.registry import Context, dispatch
from storage.db import connect
from storage.prs import PRStore
from tests.bot.delivery.test_deliverer import DUE, REPO, Harness, leads, subscribe
from tests.fakes.slack import FakeSlack

with warnings.catch_warnings():  # discord.py imports audioop (deprecated since 3.11) for voice
    warnings.filterwarnings("ignore", message="'audioop' is deprecated", category=DeprecationWarning)
    from bot.chat.discord import render as discord_render
    from bot.chat.slack import render as slack_render
    from tests.bot.chat.discord.test_discord_delivery import settings_for
    from tests.fakes.discord import CHANNEL_ID, FakeDiscord


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def discord() -> Iterator[FakeDiscord]:
    with FakeDiscord() as running, running.patched():
        yield running


def highlights(db: Path, profile: Profile, lang: str) -> tuple[list[str], list[int]]:
    """The week's top three storylines (names) and key PRs, as ``/digest 2026-W19`` computes them."""
    inv = Invocation(
        command="digest", args=("2026-W19",), repo=REPO, lang=lang, timezone="Europe/Berlin", now=DUE
    )  # type: ignore[arg-type]
    data = dispatch(inv, Context(store=PRStore(connect(db)), profile=profile)).data
    return [th["title"] for th in data["themes"][:3]], data["key_prs"][:3]


def _slack_text(blocks: list[dict[str, Any]]) -> str:
    out = []
    for b in blocks:
        if b["type"] in ("section", "header"):
            out.append(b["text"]["text"])
    return "\n".join(out)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_slack_lead_holds_the_top_storylines_three_key_prs_and_the_chart(
    demo_db: Path, profile: Profile, slack: FakeSlack, lang: str
) -> None:
    subscribe(demo_db, lang=lang)
    [outcome] = Harness(demo_db, profile, slack).run(DUE)
    assert outcome.state == "posted", outcome
    themes, key = highlights(demo_db, profile, lang)
    [lead] = leads(slack)
    blocks = lead["blocks"] if isinstance(lead["blocks"], list) else json.loads(str(lead["blocks"]))
    text = _slack_text(blocks)
    assert len(themes) == 3 and len(key) == 3
    for name in themes:
        assert slack_render.mrkdwn_text(name) in text, name
    for number in key:
        assert f"|#{number}>" in text, number
    # the three key PRs are a numbered list, in rank order
    assert [text.index(f"|#{n}>") for n in key] == sorted(text.index(f"|#{n}>") for n in key)
    [image] = [b for b in blocks if b["type"] == "image"]
    [upload] = slack.uploads.values()
    assert image["slack_file"] == {"id": upload.id} and upload.data and upload.data.startswith(b"\x89PNG")
    assert slack_render.violations(dict(lead)) == []
    # the thread holds the rest: every storyline's PRs, the risks, the recommendations
    replies = [c.params for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts")]
    assert len(replies) == len(outcome.ids) - 1 >= 4


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_discord_lead_holds_the_top_storylines_three_key_prs_and_the_chart(
    demo_db: Path, profile: Profile, discord: FakeDiscord, lang: str
) -> None:
    subscribe(demo_db, platform="discord", channel=CHANNEL_ID, lang=lang)

    def posters(platform: str) -> StepPoster:
        assert platform == "discord"
        return step_poster_for(platform, settings_for(discord))

    [outcome] = Harness(demo_db, profile, None, posters=posters).run(DUE)
    assert outcome.state == "posted", outcome
    themes, key = highlights(demo_db, profile, lang)
    [lead] = discord.messages(CHANNEL_ID)  # the rest went into the thread started from it
    text = "\n".join(
        str(e.get("title") or "") + "\n" + str(e.get("description") or "") for e in lead["embeds"]
    )
    for name in themes:
        assert discord_render.md_text(name) in text, name
    for number in key:
        assert f"[#{number}](https://github.com/{REPO}/pull/{number})" in text, number
    [attachment] = lead["attachments"]
    assert attachment["filename"] == "chart.png"
    assert lead["embeds"][-1]["image"]["url"] == attachment["url"]
    assert discord_render.violations(lead) == []
    # no internal id in what a reader sees: title, text, fields, footer (the delivery's key rides
    # in the nonce and in the title link's URL fragment, which the client does not show)
    shown = [str(lead.get("content") or "")]
    for e in lead["embeds"]:
        shown += [
            str(e.get("title") or ""),
            str(e.get("description") or ""),
            json.dumps(e.get("fields") or []),
        ]
        shown.append(str((e.get("footer") or {}).get("text") or ""))
    assert not [part for part in shown if "prdigest-d-" in part or discord_render.DELIVERY_MARK in part]
