"""Benchmark: how fast the Slack app acknowledges (and answers) each slash command on the demo data.

    uv run --frozen python -m bench.slack_ack [--runs 30]

The app runs exactly as ``prdigest serve`` runs it (the host with the Slack component in HTTP mode,
request verification on) on
127.0.0.1, against the loopback fake of Slack (``tests/fakes/slack.py``: Web API + response_url).
For every command we send ``--runs`` signed slash-command requests one after another and time:

* **ack** — the HTTP round trip of the request until Slack would get its 200 (must stay < 3 s);
* **answer** — from sending the request until the rendered answer reaches the response_url.

A final burst sends ``--burst`` commands at the same moment to show that acknowledgements do not
queue behind the work.

The first request of the whole run (cold: Bolt's one-time auth.test, first SQLite connection) is
reported apart. Not a test: nothing here asserts; it prints median and worst per command.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.config.settings import Settings  # noqa: E402
from bot.ingest.demo import DEMO_LATEST_WEEK, DEMO_REPO, demo_data_path  # noqa: E402
from bot.ingest.load import import_file  # noqa: E402
from classify.rules import load_profile  # noqa: E402
from storage.db import connect  # noqa: E402
from storage.prs import PRStore  # noqa: E402
from tests.fakes.slack import (  # noqa: E402
    BOT_TOKEN,
    SIGNING_SECRET,
    FakeSlack,
    RunningApp,
    signed_headers,
    slash_body,
)


def commands(store: PRStore) -> list[tuple[str, str]]:
    """One representative request per command, on the demo's latest full week."""
    week = DEMO_LATEST_WEEK
    row = store.db.execute(
        "SELECT number FROM prs WHERE repo = ? ORDER BY score DESC, number LIMIT 1", (DEMO_REPO,)
    ).fetchone()
    return [
        ("/digest", week),
        ("/risks", f"core-path {week}"),
        ("/pr", str(row[0])),
        ("/search", "kernel"),
        ("/help", ""),
    ]


def one(
    client: httpx.Client, app: RunningApp, slack: FakeSlack, command: str, text: str
) -> tuple[float, float]:
    """One signed request: (ack seconds, seconds until the answer reached the response_url)."""
    key = uuid.uuid4().hex
    body = slash_body(command, text, slack.response_url(key))
    sent = time.monotonic()  # the fake stamps arrivals with time.monotonic() too
    started = time.perf_counter()
    resp = client.post(app.url, content=body, headers=signed_headers(body))
    ack = time.perf_counter() - started
    if resp.status_code != 200:
        raise SystemExit(f"{command} {text!r}: HTTP {resp.status_code} {resp.text[:200]}")
    posted = slack.wait_posted(key, 1, timeout=30)
    if not posted:
        raise SystemExit(f"{command} {text!r}: no answer within 30 s")
    return ack, posted[0].at - sent


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="requests per command (default 30)")
    parser.add_argument("--burst", type=int, default=20, help="concurrent requests in the burst (default 20)")
    args = parser.parse_args(argv)

    profile = load_profile()
    with tempfile.TemporaryDirectory() as tmp, FakeSlack() as slack:
        db_path = Path(tmp) / "demo.db"
        db = connect(db_path, create=True)
        store = PRStore(db)
        total = import_file(store, profile, demo_data_path()).total
        requests = commands(store)
        db.close()
        settings = Settings(
            _env_file=None,
            slack_bot_token=BOT_TOKEN,  # type: ignore[call-arg]
            slack_signing_secret=SIGNING_SECRET,
            prdigest_slack_api_url=slack.api_url,
            prdigest_repo=DEMO_REPO,
        )
        with RunningApp(settings, db_path) as app, httpx.Client(timeout=30) as client:
            cold_ack, cold_answer = one(client, app, slack, *requests[0])
            print(f"demo cache: {total} PRs · {args.runs} requests per command · app on {app.url}")
            print(
                f"cold first request ({requests[0][0]} {requests[0][1]}): ack {cold_ack * 1000:.1f} ms, "
                f"answer {cold_answer * 1000:.1f} ms"
            )
            heads = ("ack median", "ack worst", "answer med", "answer worst")
            print(f"{'command':<28}" + "".join(f"{h:>14}" for h in heads) + "  (ms)")
            for command, text in requests:
                acks, answers = [], []
                for _ in range(args.runs):
                    ack, answered = one(client, app, slack, command, text)
                    acks.append(ack)
                    answers.append(answered)
                label = f"{command} {text}".strip()
                cells = (statistics.median(acks), max(acks), statistics.median(answers), max(answers))
                print(f"{label:<28}" + "".join(f"{ms(c):>14}" for c in cells))
            burst(app, slack, requests, args.burst)


def burst(app: RunningApp, slack: FakeSlack, requests: list[tuple[str, str]], size: int) -> None:
    """``size`` commands at the same moment (all five kinds, round robin): the acks must not queue
    behind the work, which runs in worker threads."""

    def fire(i: int) -> tuple[float, float]:
        with httpx.Client(timeout=30) as client:
            return one(client, app, slack, *requests[i % len(requests)])

    with ThreadPoolExecutor(max_workers=size) as pool:
        results = list(pool.map(fire, range(size)))
    acks = [r[0] for r in results]
    answers = [r[1] for r in results]
    print(
        f"{f'burst of {size} at once':<28}"
        + "".join(
            f"{ms(c):>14}"
            for c in (statistics.median(acks), max(acks), statistics.median(answers), max(answers))
        )
    )


if __name__ == "__main__":
    main()
