"""Benchmark: how fast the Discord bot first answers each interaction on the demo data.

    uv run --frozen python -m bench.discord_first_response [--runs 30]

The bot runs exactly as ``prdigest serve`` runs it (the host with the Discord component; discord.py
logged in and holding a gateway session) on 127.0.0.1, against the loopback fake of Discord
(``tests/fakes/discord.py``). For every command we dispatch ``--runs`` INTERACTION_CREATE events one
after another and time, with the fake's clock:

* **first response** — from the fake sending the event until the interaction callback (the
  deferral, or the autocomplete choices) arrives: Discord allows 3 s;
* **answer** — until the first followup (the rendered answer) arrives.

A final burst dispatches ``--burst`` commands at once. The first interaction of the run (cold) is
reported apart. Not a test: nothing here asserts; it prints median and worst per command.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.cli.discord import sync_commands  # noqa: E402
from bot.config.settings import Settings  # noqa: E402
from bot.ingest.demo import DEMO_LATEST_WEEK, DEMO_REPO, demo_data_path  # noqa: E402
from bot.ingest.load import import_file  # noqa: E402
from classify.rules import load_profile  # noqa: E402
from storage.db import connect  # noqa: E402
from storage.prs import PRStore  # noqa: E402
from tests.fakes.discord import GUILD_ID, TOKEN, FakeDiscord, FakeInteraction  # noqa: E402
from tests.fakes.host import RunningHost  # noqa: E402

Request = tuple[str, str, dict[str, Any], str | None]  # label, command, options, focused option


def requests(store: PRStore) -> list[Request]:
    """One representative interaction per command, on the demo's latest full week."""
    week = DEMO_LATEST_WEEK
    row = store.db.execute(
        "SELECT number FROM prs WHERE repo = ? ORDER BY score DESC, number LIMIT 1", (DEMO_REPO,)
    ).fetchone()
    return [
        (f"/digest {week}", "digest", {"period": week}, None),
        (f"/risks core-path {week}", "risks", {"kind": "core-path", "period": week}, None),
        (f"/pr {row[0]}", "pr", {"number": int(row[0])}, None),
        (f"/search kernel {week}", "search", {"words": "kernel", "period": week}, None),
        ("/help", "help", {}, None),
        ("autocomplete period", "digest", {"period": "20"}, "period"),
        ("autocomplete modules", "digest", {"modules": "rocm,s"}, "modules"),
    ]


def one(fake: FakeDiscord, command: str, options: dict[str, Any], focused: str | None) -> tuple[float, float]:
    """(seconds to the first response, seconds to the first followup; = the first for autocomplete)."""
    if focused:
        payload = fake.autocomplete(command, options, focused=focused)
    else:
        payload = fake.slash_command(command, options)
    ix: FakeInteraction = fake.interact(payload)
    wanted = 1 if focused else 2
    calls = fake.wait(lambda: ix.calls() if len(ix.calls()) >= wanted else None, timeout=30, what=command)
    first = ix.response_delay
    if first is None:
        raise SystemExit(f"{command}: no interaction callback")
    sent = calls[0].at - first
    return first, calls[wanted - 1].at - sent


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="interactions per command (default 30)")
    parser.add_argument("--burst", type=int, default=20, help="interactions dispatched at once (default 20)")
    args = parser.parse_args(argv)

    profile = load_profile()
    with tempfile.TemporaryDirectory() as tmp, FakeDiscord() as fake, fake.patched():
        db_path = Path(tmp) / "demo.db"
        db = connect(db_path, create=True)
        store = PRStore(db)
        total = import_file(store, profile, demo_data_path()).total
        todo = requests(store)
        db.close()
        settings = Settings(
            _env_file=None,
            discord_bot_token=TOKEN,  # type: ignore[call-arg]
            prdigest_discord_api_url=fake.api_url,
            prdigest_discord_gateway_url=fake.gateway_url,
            prdigest_repo=DEMO_REPO,
        )
        asyncio.run(sync_commands(settings, guild=int(GUILD_ID)))
        with RunningHost(settings, db_path):
            fake.wait(lambda: fake.frames_where(t="GUILD_CREATE"), what="the gateway session")
            cold_first, cold_answer = one(fake, *todo[0][1:])
            print(f"demo cache: {total} PRs · {args.runs} interactions per command")
            print(
                f"cold first interaction ({todo[0][0]}): first response {cold_first * 1000:.1f} ms, "
                f"answer {cold_answer * 1000:.1f} ms"
            )
            heads = ("first median", "first worst", "answer med", "answer worst")
            print(f"{'interaction':<28}" + "".join(f"{h:>14}" for h in heads) + "  (ms)")
            for label, command, options, focused in todo:
                firsts, answers = [], []
                for _ in range(args.runs):
                    first, answer = one(fake, command, options, focused)
                    firsts.append(first)
                    answers.append(answer)
                cells = (statistics.median(firsts), max(firsts), statistics.median(answers), max(answers))
                print(f"{label:<28}" + "".join(f"{ms(c):>14}" for c in cells))
            burst(fake, todo[:5], args.burst)


def burst(fake: FakeDiscord, todo: list[Request], size: int) -> None:
    """``size`` slash commands dispatched at once (round robin): deferrals must not queue behind
    the work, which runs in the host's worker threads."""
    handles = []
    for i in range(size):
        _, command, options, _ = todo[i % len(todo)]
        handles.append(fake.interact(fake.slash_command(command, options)))
    fake.wait(lambda: all(len(ix.calls()) >= 2 for ix in handles), timeout=60, what="the burst")
    firsts = [ix.response_delay or 0.0 for ix in handles]
    answers = [ix.calls()[1].at - (ix.calls()[0].at - (ix.response_delay or 0.0)) for ix in handles]
    cells = (statistics.median(firsts), max(firsts), statistics.median(answers), max(answers))
    print(f"{f'burst of {size} at once':<28}" + "".join(f"{ms(c):>14}" for c in cells))


if __name__ == "__main__":
    main()
