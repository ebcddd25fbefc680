"""A soak test, bounded in time. Chat commands keep arriving at the running
server while `prdigest sync`, `prdigest import` and `prdigest reclassify` (the real executable)
write to the same cache; no answer fails, and the rows written equal those of a quiet run.

The writers run one after another (each beside the chat load): two writers at once is the
write lock's own work, tested where it is built (tests/bot/cli/test_cli_writers.py).
"""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from contextlib import closing
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from bot.ingest.demo import DEMO_LATEST_WEEK, DEMO_REPO, demo_data_path
from classify.records import pr_json
from tests.bot.chat.slack.conftest import make_prs as chat_prs
from tests.bot.chat.slack.conftest import slack_settings
from tests.bot.cli.test_cli import cli
from tests.fakes.github import TOKEN, FakeClock, FakeGitHub, fake_schema
from tests.fakes.github import make_prs as github_prs
from tests.fakes.slack import FakeSlack, RunningApp, signed_headers, slash_body

COMMANDS = [
    ("/digest", DEMO_LATEST_WEEK),
    ("/risks", f"core-path {DEMO_LATEST_WEEK}"),
    ("/search", "kernel"),
    ("/pr", "https://github.com/vllm-project/vllm/pull/{number}"),
    ("/help", ""),
]
CLIENTS = 4
MAX_COMMANDS = 600  # bounds the run whatever the machine's speed
SYNC_REPO = "octo/soak"
IMPORT_REPO = "octo/imported"


def dump(db: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(db) as conn:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
            for table in ("prs", "pr_tags")
        }


def write(db: Path, github: FakeGitHub, import_file: Path, since: str) -> None:
    """The writers, in order; each must succeed."""
    env = {"GITHUB_TOKEN": TOKEN, "PRDIGEST_GITHUB_API_URL": github.url}
    steps = [
        ("sync", "--repo", SYNC_REPO, "--since", since, "--db", str(db)),
        ("import", str(import_file), "--db", str(db)),
        ("reclassify", "--db", str(db), "--workers", "1"),
    ]
    for step in steps:
        extra = {"PRDIGEST_PROFILE": "generic"} if step[0] == "reclassify" else {}
        result = cli(*step, env={**env, **extra})
        assert result.returncode == 0, (step, result.stderr)
        assert "Traceback" not in result.stderr


def test_chat_answers_never_fail_while_sync_import_and_reclassify_write(tmp_path: Path) -> None:
    schema = fake_schema()
    base = tmp_path / "base.db"
    assert cli("import", str(demo_data_path()), "--db", str(base)).returncode == 0
    with sqlite3.connect(base) as conn:
        number = conn.execute("SELECT number FROM prs ORDER BY score DESC LIMIT 1").fetchone()[0]
    end = datetime.now(UTC).replace(microsecond=0)
    import_file = tmp_path / "more.jsonl"
    import_file.write_text(
        "".join(
            pr_json(replace(pr, repo=IMPORT_REPO), exclude={"url"}) + "\n"
            for pr in chat_prs(300, end - timedelta(days=20), first=1)
        )
    )
    since = (end - timedelta(days=12)).strftime("%Y-%m-%d")
    quiet, loaded = tmp_path / "quiet.db", tmp_path / "loaded.db"
    for copy in (quiet, loaded):  # SQLite's backup: the .db file alone may lack what its -wal holds
        with closing(sqlite3.connect(base)) as src, closing(sqlite3.connect(copy)) as dst:
            src.backup(dst)

    with FakeGitHub(schema, clock=FakeClock(start=time.time())) as github:
        github.add_prs(SYNC_REPO, github_prs(150, end - timedelta(days=10), end - timedelta(hours=1)))
        write(quiet, github, import_file, since)

        with FakeSlack() as slack:
            settings = slack_settings(slack, prdigest_repo=DEMO_REPO)
            with RunningApp(settings, loaded) as app:
                writing = threading.Event()
                writing.set()
                sent: list[tuple[str, int]] = []
                lock = threading.Lock()

                def chat(worker: int) -> None:
                    i = worker
                    with httpx.Client(timeout=30) as client:
                        while writing.is_set():
                            with lock:
                                if len(sent) >= MAX_COMMANDS:
                                    return
                            command, text = COMMANDS[i % len(COMMANDS)]
                            key = uuid.uuid4().hex
                            body = slash_body(command, text.format(number=number), slack.response_url(key))
                            status = client.post(
                                app.url, content=body, headers=signed_headers(body)
                            ).status_code
                            with lock:
                                sent.append((key, status))
                            i += 1

                clients = [threading.Thread(target=chat, args=(w,)) for w in range(CLIENTS)]
                for c in clients:
                    c.start()
                try:
                    write(loaded, github, import_file, since)
                finally:
                    writing.clear()
                    for c in clients:
                        c.join(60)
                answers = [slack.wait_posted(key, 1, timeout=60) for key, _ in sent]

    assert len(sent) >= len(COMMANDS) * 2, "the chat load ran while the writers wrote"
    assert [status for _, status in sent] == [200] * len(sent)
    missing = [key for (key, _), posted in zip(sent, answers, strict=True) if not posted]
    assert missing == [], f"{len(missing)} of {len(sent)} commands got no answer"
    failed = [p.body["text"] for posted in answers for p in posted if "could not answer" in p.body["text"]]
    assert failed == []
    assert dump(loaded) == dump(quiet)


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
