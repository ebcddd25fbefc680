"""Real Replies of big weeks rendered for Slack: every limit holds and no PR is lost.

A 400-PR week built here and the bundled demo's busiest week go through the real commands
(digest, risks all, search) and both rendering modes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.demo import DEMO_LATEST_WEEK, demo_data_path
from bot.ingest import import_file
from bot.slack.render import SlackMessage, render, violations
from classify.rules import Profile
from commands.model import Block, BulletList, Invocation, Paragraph, PRItem, Reply
from commands.period import parse_period
from commands.registry import Context, dispatch
from storage.db import connect
from storage.prs import PRStore
from tests.bot.slack.conftest import REPO, WEEK, build_cache, make_prs


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


def linked(messages: list[SlackMessage]) -> set[int]:
    text = "\n".join(str(m.blocks) for m in messages)
    return set(map(int, re.findall(r"\|#(\d+)>", text)))


def check(reply: Reply) -> None:
    assert reply.ok, reply.title
    want = referenced(reply.blocks)
    assert want, "the reply lists no PR at all"
    for mode in ("thread", "compact"):
        messages = render(reply, mode=mode)
        for m in messages:
            assert violations(m) == [], violations(m)
        assert linked(messages) == want


@pytest.mark.parametrize(
    ("command", "words"), [("digest", (WEEK,)), ("risks", ("all", WEEK)), ("search", ("kernel", WEEK))]
)
def test_a_400_pr_week_stays_within_slack_limits(
    big_week: Context, command: str, words: tuple[str, ...]
) -> None:
    week = parse_period(WEEK, datetime(2026, 6, 1, tzinfo=UTC), "UTC")
    assert big_week.store.merged_count(REPO, week.start, week.end) == 400
    check(dispatch(Invocation(command=command, args=words, repo=REPO, platform="slack"), big_week))


def test_the_400_pr_digest_becomes_a_lead_message_and_a_thread(big_week: Context) -> None:
    reply = dispatch(Invocation(command="digest", args=(WEEK,), repo=REPO, platform="slack"), big_week)
    messages = render(reply, mode="thread")
    lead_chunk = reply.split_sections()[0]
    assert len(messages) >= len(reply.split_sections())
    assert linked(messages[:1]) == referenced(lead_chunk)
    assert messages[0].blocks[-1]["type"] == "context"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_demo_week_renders_within_limits(demo: Context, lang: str) -> None:
    for command, words in (("digest", (DEMO_LATEST_WEEK,)), ("risks", ("all", DEMO_LATEST_WEEK))):
        check(dispatch(Invocation(command=command, args=words, lang=lang, platform="slack"), demo))
