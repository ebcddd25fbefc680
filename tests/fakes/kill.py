"""One kill trial of ``prdigest deliver``: kill -9 at a chosen moment, run it again, and look.

Shared by the property test (``tests/bot/delivery/test_kill.py``: the kill point between any two
messages) and the long run (``bench/delivery_kills.py``: random moments). The real executable
posts to a loopback fake (Slack or Discord, both with channel and thread history); the trial
kills it with SIGKILL either while the fake holds the n-th message (before or after storing it)
or after a random delay, then runs ``deliver`` again past the lease until nothing is left to do,
and reports what the channel holds against the messages stored with the claim.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from storage.db import connect
from storage.deliveries import DeliveryStore
from storage.delivery_steps import StepStore
from storage.subscriptions import Subscription, SubscriptionStore

EXE = str(Path(sys.executable).with_name("prdigest"))
ROOT = Path(__file__).resolve().parents[2]
CREATED = datetime(2026, 5, 10, 12, 0, tzinfo=UTC)
DUE = datetime(2026, 5, 11, 7, 0, tzinfo=UTC)  # Monday 09:00 in Berlin: 2026-W19 is due
W19 = date(2026, 5, 4)


@dataclass
class Trial:
    """What one trial found: the kill (``killed``: the process was still running), the runs
    after it, the channel's leads and the thread's replies (step keys, in order), and the
    messages stored with the claim."""

    point: str
    killed: bool
    returncodes: list[int] = field(default_factory=list)
    leads: int = 0
    replies: list[str] = field(default_factory=list)
    stored: list[str] = field(default_factory=list)
    state: str = ""
    reason: str = ""
    seconds: float = 0.0

    @property
    def whole(self) -> bool:
        """One lead and every reply exactly once, in order."""
        return self.leads == 1 and self.replies == self.stored[1:]

    @property
    def accounted(self) -> bool:
        """Whole, or a ledger row that says what is missing."""
        if self.whole and self.state == "posted":
            return True
        landed = len(set(self.replies)) == len(self.replies) and set(self.replies) <= set(self.stored[1:])
        partial = self.state == "partial" and self.leads == 1 and landed  # what landed is once
        failed = self.state in ("failed", "unknown") and self.leads == 0
        return bool(self.reason) and (partial or failed)


def _env(platform: str, fake: Any) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PRDIGEST_", "GITHUB_", "SLACK_", "DISCORD_"))
    }
    env["PYTHONPATH"] = str(ROOT)
    env["PRDIGEST_POST_TIMEOUT"] = "1"
    if platform == "slack":
        from tests.fakes.slack import BOT_TOKEN

        env.update(SLACK_BOT_TOKEN=BOT_TOKEN, PRDIGEST_SLACK_API_URL=fake.api_url)
    else:
        from tests.fakes.discord import TOKEN

        env.update(
            DISCORD_BOT_TOKEN=TOKEN,
            PRDIGEST_DISCORD_API_URL=fake.api_url,
            PRDIGEST_DISCORD_GATEWAY_URL=fake.gateway_url,
        )
    return env


def subscribe(db: Path, platform: str, channel: str) -> Subscription:
    sub = Subscription(
        platform=platform,
        channel=channel,
        repo="vllm-project/vllm",
        timezone="Europe/Berlin",
        since=CREATED,
        anchor=W19,
    )
    return SubscriptionStore(connect(db)).add(sub, now=CREATED)


def deliver(db: Path, env: dict[str, str], at: datetime) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [EXE, "deliver", "--now", at.isoformat().replace("+00:00", "Z"), "--db", str(db)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def hold_fault(platform: str, fake: Any, index: int, store: bool) -> Any:
    """Make the fake hold the ``index``-th message post from now (after storing it or not)."""
    if platform == "slack":
        from tests.fakes.slack import Fault

        fault = Fault("hold", store=store)
        fake.fault_at("chat.postMessage", index, fault)
    else:
        from tests.fakes.discord import Fault as DiscordFault

        fault = DiscordFault("hold", store=store)
        fake.fault("POST /channels/{channel_id}/messages", fault, index=index)
    return fault


def observe(platform: str, fake: Any, channel: str, db: Path, trial: Trial) -> Trial:
    row = DeliveryStore(connect(db)).find(1, W19)
    trial.state, trial.reason = (row.state, row.reason) if row else ("", "")
    trial.stored = [s.key for s in StepStore(connect(db)).for_delivery(row.id)] if row else []
    if platform == "slack":
        leads = [m for m in fake.leads_in(channel) if m.get("metadata")]
        trial.leads = len(leads)
        if leads:
            trial.replies = [
                m["metadata"]["event_payload"]["step"] for m in fake.thread(channel, leads[0]["ts"])
            ]
    else:
        from bot.chat.discord.steps import key_of

        leads = [m for m in fake.messages(channel) if (key_of(m) or "").endswith("/lead")]
        trial.leads = len(leads)
        if leads:
            trial.replies = [(key_of(m) or "/").rsplit("/", 1)[1] for m in fake.messages(leads[0]["id"])]
    return trial


def kill_trial(
    platform: str,
    fake: Any,
    template: Path,
    workdir: Path,
    channel: str,
    *,
    message: int | None = None,
    stored: bool = False,
    after: float | None = None,
    reruns: int = 3,
) -> Trial:
    """Kill ``deliver`` while the fake holds message ``message`` (``stored`` or not), or
    ``after`` seconds from its start; then run it again (lease over) up to ``reruns`` times
    until it exits 0; observe."""
    started = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "cache.db"
    shutil.copy(template, db)
    subscribe(db, platform, channel)
    env = _env(platform, fake)
    fault = hold_fault(platform, fake, message, stored) if message is not None else None
    point = (
        f"message {message} {'after' if stored else 'before'} store"
        if message is not None
        else f"{after:.2f} s"
    )
    proc = deliver(db, env, DUE)
    if fault is not None:
        deadline = time.monotonic() + 180
        while not fault.reached.wait(0.2) and proc.poll() is None and time.monotonic() < deadline:
            pass
    else:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=after)
    killed = proc.poll() is None
    if killed:
        os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    if fault is not None:
        fault.release.set()
    trial = Trial(point, killed)
    for n in range(reruns):
        again = deliver(db, env, DUE + timedelta(minutes=16 * (n + 1)))
        again.communicate(timeout=300)
        trial.returncodes.append(again.returncode)
        if again.returncode == 0:
            break
    trial.seconds = time.monotonic() - started
    return observe(platform, fake, channel, db, trial)
