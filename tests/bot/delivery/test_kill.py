"""kill -9 between any two messages of a scheduled digest, on both platforms: a property test over
the kill point (which message, and whether the platform had stored it when the process died).

Each example runs the real ``prdigest deliver`` against a loopback fake that holds the chosen
message, kills the process with SIGKILL, runs ``deliver`` again after the lease, and checks the
channel: one lead, and every reply of the stored digest exactly once, in order. The long run
over random moments is ``bench/delivery_kills.py``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from itertools import count
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.chat.discord.client import discord  # noqa: F401  (imports discord with its audioop warning silenced)
from tests.fakes.discord import FakeDiscord
from tests.fakes.kill import kill_trial
from tests.fakes.slack import FakeSlack

MESSAGES = 6  # a demo week's digest: the lead and five sections
POINTS = st.tuples(st.integers(0, MESSAGES - 1), st.booleans())
EXAMPLES = 5  # per platform: each example is two runs of the real executable (~20 s here)
_channel = count(1)


@pytest.fixture(scope="module")
def slack_fake() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


@pytest.fixture(scope="module")
def discord_world() -> Iterator[FakeDiscord]:
    with FakeDiscord() as fake:
        yield fake


@pytest.mark.timeout(60 * EXAMPLES * 3)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(point=POINTS)
def test_slack_a_kill_between_any_two_messages_leaves_one_lead_and_every_reply_once(
    point: tuple[int, bool], slack_fake: FakeSlack, demo_db_template: Path
) -> None:
    message, stored = point
    work = Path(tempfile.mkdtemp(prefix="kill-slack-"))
    trial = kill_trial(
        "slack", slack_fake, demo_db_template, work, f"C0KILL{next(_channel)}", message=message, stored=stored
    )
    assert trial.killed, trial
    assert trial.returncodes[-1] == 0 and trial.state == "posted", trial
    assert trial.whole and len(trial.stored) == MESSAGES, trial


@pytest.mark.timeout(60 * EXAMPLES * 3)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(point=POINTS)
def test_discord_a_kill_between_any_two_messages_leaves_one_lead_and_every_reply_once(
    point: tuple[int, bool], discord_world: FakeDiscord, demo_db_template: Path
) -> None:
    message, stored = point
    work = Path(tempfile.mkdtemp(prefix="kill-discord-"))
    channel = discord_world.add_channel(f"kill-{next(_channel)}").id
    trial = kill_trial(
        "discord", discord_world, demo_db_template, work, channel, message=message, stored=stored
    )
    assert trial.killed, trial
    assert trial.returncodes[-1] == 0 and trial.state == "posted", trial
    assert trial.whole and len(trial.stored) == MESSAGES, trial
