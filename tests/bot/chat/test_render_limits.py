"""Every chat renderer against its platform's documented limits, on the biggest answers we make.

A 400-PR week built here and the bundled demo's busiest week go through the real commands
(digest, risks all, search, pr) and every renderer in ``RENDERERS``, in each of its modes. No
message may break a limit and no PR may be lost on the way. A new platform adds its renderer
here (Discord: embeds within 6,000 characters, 10 embeds a message, 25 fields…).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.chat.discord import render as discord_render
from bot.chat.slack import render as slack
from bot.ingest.demo import demo_data_path
from bot.ingest.load import import_file
from classify.periods import parse_period, week_of
from classify.rules import Profile
from commands.model import Block, BulletList, Invocation, Paragraph, PRItem, Reply
from commands.registry import Context, dispatch
from storage.db import connect
from storage.prs import PRStore
from tests.bot.chat.slack.conftest import REPO, WEEK, build_cache, make_prs


@dataclass(frozen=True)
class Renderer:
    """One way a platform shows a Reply: messages, the limit check, the PR numbers linked."""

    name: str
    render: Callable[[Reply], list[Any]]
    violations: Callable[[Any], list[str]]
    linked: Callable[[list[Any]], set[int]]


def _slack_links(messages: list[slack.SlackMessage]) -> set[int]:
    return set(map(int, re.findall(r"\|#(\d+)>", "\n".join(str(m.blocks) for m in messages))))


def _discord_links(messages: list[discord_render.DiscordMessage]) -> set[int]:
    return set(map(int, re.findall(r"\[#(\d+)\]\(https://", "\n".join(str(m.payload()) for m in messages))))


RENDERERS = [
    Renderer("slack thread", lambda r: slack.render(r, mode="thread"), slack.violations, _slack_links),
    Renderer("slack compact", lambda r: slack.render(r, mode="compact"), slack.violations, _slack_links),
    Renderer(
        "discord thread",
        lambda r: discord_render.render(r, mode="thread"),
        discord_render.violations,
        _discord_links,
    ),
    Renderer(
        "discord compact",
        lambda r: discord_render.render(r, mode="compact"),
        discord_render.violations,
        _discord_links,
    ),
]


def referenced(blocks: list[Block]) -> set[int]:
    numbers: set[int] = set()
    for b in blocks:
        if isinstance(b, PRItem):
            numbers.add(b.pr.number)
        elif isinstance(b, Paragraph):
            numbers |= {p.number for p in b.prs}
        elif isinstance(b, BulletList):
            numbers |= {p.number for item in b.items for p in item.prs}
    return numbers


def check(reply: Reply, renderer: Renderer) -> None:
    assert reply.ok, reply.title
    want = referenced(reply.all_blocks())
    assert want, "the reply lists no PR at all"
    messages = renderer.render(reply)
    for m in messages:
        assert renderer.violations(m) == [], renderer.violations(m)
    assert renderer.linked(messages) == want


@pytest.fixture(scope="module")
def big_week(tmp_path_factory: pytest.TempPathFactory, profile: Profile) -> Iterator[Context]:
    path = build_cache(tmp_path_factory.mktemp("big") / "big.db", make_prs(400), profile)
    db = connect(path)
    yield Context(store=PRStore(db), profile=profile)
    db.close()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, profile: Profile) -> Iterator[Context]:
    db = connect(Path(tmp_path_factory.mktemp("demo")) / "demo.db", create=True)
    store = PRStore(db)
    import_file(store, profile, demo_data_path())
    yield Context(store=store, profile=profile)
    db.close()


def busiest_week(ctx: Context) -> str:
    """The ISO week of the demo with the most merged PRs (the largest digest it can make)."""
    rows = ctx.store.db.execute("SELECT merged_at FROM prs").fetchall()
    utc = ZoneInfo("UTC")
    weeks = Counter(week_of(datetime.fromisoformat(r[0].replace("Z", "+00:00")), utc).label for r in rows)
    return weeks.most_common(1)[0][0]


@pytest.mark.parametrize("renderer", RENDERERS, ids=lambda r: r.name)
@pytest.mark.parametrize(
    ("command", "words"), [("digest", (WEEK,)), ("risks", ("all", WEEK)), ("search", ("kernel", WEEK))]
)
def test_a_400_pr_week_stays_within_every_platforms_limits(
    big_week: Context, renderer: Renderer, command: str, words: tuple[str, ...]
) -> None:
    week = parse_period(WEEK, datetime(2026, 6, 1, tzinfo=UTC), "UTC")
    assert big_week.store.merged_count(REPO, week.start, week.end) == 400
    check(dispatch(Invocation(command=command, args=words, repo=REPO, platform="slack"), big_week), renderer)


@pytest.mark.parametrize("renderer", RENDERERS, ids=lambda r: r.name)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_busiest_demo_week_stays_within_every_platforms_limits(
    demo: Context, renderer: Renderer, lang: str
) -> None:
    week = busiest_week(demo)
    number = demo.store.db.execute("SELECT number FROM prs ORDER BY length(body) DESC LIMIT 1").fetchone()[0]
    for command, words in (
        ("digest", (week,)),
        ("risks", ("all", week)),
        ("search", ("fix", week)),
        ("pr", (str(number),)),
    ):
        inv = Invocation(command=command, args=words, lang=lang, platform="slack")  # type: ignore[arg-type]
        check(dispatch(inv, demo), renderer)


def test_the_400_pr_digest_becomes_a_lead_message_and_a_thread(big_week: Context) -> None:
    reply = dispatch(Invocation(command="digest", args=(WEEK,), repo=REPO, platform="slack"), big_week)
    messages = slack.render(reply, mode="thread")
    assert len(messages) >= 1 + len(reply.sections)
    assert _slack_links(messages[:1]) == referenced(reply.blocks)
    assert messages[0].blocks[-1]["type"] == "context"
    assert (
        messages[0]
        .blocks[-1]["elements"][0]["text"]
        .startswith("The details follow in this message's thread")
    )
