"""Long run: kill -9 ``prdigest deliver`` at random moments, on Slack and on Discord, and count.

    uv run --frozen python -m bench.delivery_kills [--trials 12] [--seed 1]

Each trial copies the demo cache, subscribes one fresh channel of a loopback fake (Slack, or
Discord: both keep channel and thread history), starts the real ``prdigest deliver`` at the due
time and kills it with SIGKILL — half the trials while the fake holds a random message (before
or after storing it), half after a random delay from the start (anywhere in the build, the
upload, the paced posts). Then ``deliver`` runs again after the lease (up to three times) and the
trial is judged (``tests/fakes/kill.py``): *whole* — one lead and every reply once, in order —
or *accounted* — a ``partial``/``failed`` row saying what is missing. A double lead or a reply
posted twice is counted apart. Not a test: it prints counts and times, asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.chat.discord.client import discord  # noqa: E402,F401  (imported with its warning silenced)
from bot.ingest.demo import demo_data_path  # noqa: E402
from bot.ingest.load import import_file  # noqa: E402
from classify.rules import load_profile  # noqa: E402
from storage.db import connect  # noqa: E402
from storage.prs import PRStore  # noqa: E402
from tests.fakes.discord import FakeDiscord  # noqa: E402
from tests.fakes.kill import Trial, kill_trial  # noqa: E402
from tests.fakes.slack import FakeSlack  # noqa: E402

MESSAGES = 6


def demo_cache(folder: Path) -> Path:
    path = folder / "demo.db"
    store = PRStore(connect(path, create=True))
    import_file(store, load_profile(), demo_data_path())
    store.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.db.close()
    return path


def trials(
    platform: str, fake: object, template: Path, work: Path, n: int, rng: random.Random
) -> list[Trial]:
    out = []
    for i in range(n):
        channel = f"C0BENCH{i}" if platform == "slack" else fake.add_channel(f"bench-{i}").id  # type: ignore[attr-defined]
        if i % 2 == 0:
            message, stored = rng.randrange(MESSAGES), rng.random() < 0.5
            trial = kill_trial(
                platform, fake, template, work / f"{platform}-{i}", channel, message=message, stored=stored
            )
        else:
            after = rng.uniform(0.5, 12.0)
            trial = kill_trial(platform, fake, template, work / f"{platform}-{i}", channel, after=after)
        flag = "whole" if trial.whole else ("accounted" if trial.accounted else "WRONG")
        print(
            f"{platform:8} {i:3} kill at {trial.point:28} killed={trial.killed!s:5} runs after={trial.returncodes} "
            f"leads={trial.leads} replies={len(trial.replies)}/{max(len(trial.stored) - 1, 0)} "
            f"state={trial.state} {flag} ({trial.seconds:.0f} s)",
            flush=True,
        )
        out.append(trial)
    return out


def summary(platform: str, done: list[Trial]) -> None:
    killed = [t for t in done if t.killed]
    doubles = sum(1 for t in done if t.leads > 1 or len(set(t.replies)) != len(t.replies))
    missing = sum(1 for t in done if not t.whole and not t.accounted)
    print(
        f"{platform}: {len(done)} trials, {len(killed)} killed mid-run, {sum(t.whole for t in done)} whole, "
        f"{sum(t.accounted and not t.whole for t in done)} partial/failed with the reason, "
        f"{doubles} with a double lead or reply, {missing} with something missing unaccounted; "
        f"median trial {statistics.median(t.seconds for t in done):.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=12, help="trials per platform")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="prdigest-kills-") as tmp:
        work = Path(tmp)
        template = demo_cache(work)
        results: dict[str, list[Trial]] = {}
        with FakeSlack() as slack:
            results["slack"] = trials("slack", slack, template, work, args.trials, rng)
        with FakeDiscord() as fake:
            results["discord"] = trials("discord", fake, template, work, args.trials, rng)
        for platform, done in results.items():
            summary(platform, done)


if __name__ == "__main__":
    main()
