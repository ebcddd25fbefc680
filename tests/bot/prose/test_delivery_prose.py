"""The Monday post with a model configured: worded before it is posted, asked once per distinct
part however many subscriptions get it, and not at all for a subscription with prose=off."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from classify.rules import Profile
from commands.schedule import Due
from tests.bot.delivery.test_deliverer import DUE, Harness, claimed_by_a_dead_process, subscribe
from tests.bot.prose.conftest import writer_for
from tests.fakes.llm import FakeLLM
from tests.fakes.slack import FakeSlack


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


NOTE = "These sentences were written by a language model"


def _posted(slack: FakeSlack, channel: str) -> str:
    return json.dumps(
        [c.params for c in slack.calls_to("chat.postMessage") if c.params.get("channel") == channel],
        ensure_ascii=False,
    )


def test_many_subscriptions_ask_the_model_once_per_part(
    llm: FakeLLM, slack: FakeSlack, demo_db: Path, profile: Profile
) -> None:
    subscribe(demo_db)
    subscribe(demo_db, channel="C0SECOND")
    subscribe(demo_db, channel="C0COMPUTED", prose="off")
    h = Harness(demo_db, profile, slack)
    h.deliverer.prose = writer_for(llm, demo_db)
    outcomes = h.run(DUE + timedelta(minutes=5))
    assert [o.state for o in outcomes] == ["posted"] * 3
    assert len(llm.requests) == 9  # the second subscription's parts came from the cache
    first, second, computed = (_posted(slack, c) for c in ("C0DIGEST", "C0SECOND", "C0COMPUTED"))
    assert NOTE in first and NOTE in second and NOTE not in computed
    assert "carried the work" in first  # a sentence of the fake model's, in the thread


def test_a_model_that_fails_never_stops_the_post(
    llm: FakeLLM, slack: FakeSlack, demo_db: Path, profile: Profile
) -> None:
    subscribe(demo_db)
    llm.default = "http500"
    h = Harness(demo_db, profile, slack)
    h.deliverer.prose = writer_for(llm, demo_db)
    [outcome] = h.run(DUE + timedelta(minutes=5))
    assert outcome.state == "posted"
    assert NOTE not in _posted(slack, "C0DIGEST")


def test_a_delivery_taken_over_after_a_crash_does_not_ask_the_model_again(
    llm: FakeLLM, slack: FakeSlack, demo_db: Path, profile: Profile
) -> None:
    """The dead process worded the digest (its sentences are in the cache) and died before
    posting; the run that takes its claim over posts the same worded digest, asking nothing."""
    sub = claimed_by_a_dead_process(demo_db)
    dead = Harness(demo_db, profile, slack)
    dead.deliverer.prose = writer_for(llm, demo_db)
    due = Due(-1, date(2026, 5, 4), date(2026, 5, 11), DUE)
    built = dead.deliverer.digest(sub, due, DUE)
    assert built is not None
    asyncio.run(dead.deliverer.worded(sub, built))
    asked = len(llm.requests)
    assert asked == 9
    h = Harness(demo_db, profile, slack)
    h.deliverer.prose = writer_for(llm, demo_db)
    [outcome] = h.run(DUE + timedelta(minutes=16))  # the lease is over: taken over
    assert outcome.state == "posted" and len(llm.requests) == asked
    assert NOTE in _posted(slack, "C0DIGEST")
