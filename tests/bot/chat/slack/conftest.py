"""Fixtures for the Slack app tests: a classified cache on disk, the fake Slack, the running app.

The app runs exactly as ``prdigest serve`` runs it (``bot.host.serve.Host`` with the Slack component), in a background
thread with its own event loop, listening on 127.0.0.1 at a free port.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.config.settings import Settings
from classify.engine import classify
from classify.models import FileChange, PullRequest
from classify.rules import Profile, load_profile
from storage.db import connect
from storage.prs import PRStore
from tests.fakes.slack import BOT_TOKEN, SIGNING_SECRET, FakeSlack, RunningApp

REPO = "vllm-project/vllm"
WEEK = "2026-W19"  # Monday 2026-05-04 .. Monday 2026-05-11 (UTC)
WEEK_START = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
HOSTILE = "<!channel> @here <@U123> & <b>"
HOSTILE_PR = 999

_SHAPES = [
    (
        "[Kernel] Add fused FP8 MoE kernel for Hopper",
        ["csrc/moe/fp8_moe.cu", "vllm/model_executor/layers/fused_moe/fp8.py"],
    ),
    ("[Core] Rework scheduler preemption", ["vllm/core/scheduler.py", "vllm/engine/llm_engine.py"]),
    (
        "[Bugfix] Fix KV cache block leak on abort",
        ["vllm/core/block_manager.py", "tests/core/test_block_manager.py"],
    ),
    ("[CI] Bump torch to 2.7.0", ["requirements/cuda.txt", "pyproject.toml"]),
    ("[Doc] Update quickstart for speculative decoding", ["docs/features/spec_decode.md"]),
    (
        "[Model] Add support for Qwen3 MoE",
        ["vllm/model_executor/models/qwen3_moe.py", "tests/models/test_qwen3.py"],
    ),
    ("[Frontend] Remove deprecated --disable-log-requests flag", ["vllm/entrypoints/openai/cli_args.py"]),
    ("[ROCm] Enable AITER attention backend", ["vllm/attention/backends/rocm_aiter.py"]),
]


def make_prs(count: int, start: datetime = WEEK_START, first: int = 1000) -> list[PullRequest]:
    """``count`` merged PRs spread over the week starting at ``start``."""
    prs = []
    step = timedelta(days=6) / max(count, 1)
    for i in range(count):
        title, paths = _SHAPES[i % len(_SHAPES)]
        big = 40 + (i * 37) % 900
        files = [FileChange(path=p, additions=big, deletions=i % 50) for p in paths]
        merged = start + step * i
        prs.append(
            PullRequest(
                repo=REPO,
                number=first + i,
                title=f"{title} (part {i})",
                author=f"dev{i % 17}",
                body=f"## Purpose\nImproves things; 12% higher throughput in run {i}.\n\nSigned-off-by: d{i}",
                created_at=merged - timedelta(days=2),
                merged_at=merged,
                additions=sum(f.additions for f in files),
                deletions=sum(f.deletions for f in files),
                files=files,
            )
        )
    return prs


def hostile_pr() -> PullRequest:
    return PullRequest(
        repo=REPO,
        number=HOSTILE_PR,
        title=HOSTILE,
        author="<!everyone>",
        body="@here <!here> *bold*",
        merged_at=WEEK_START + timedelta(days=1),
        files=[FileChange(path="vllm/core/scheduler.py", additions=3)],
        additions=3,
    )


def build_cache(path: Path, prs: list[PullRequest], profile: Profile) -> Path:
    db = connect(path, create=True)
    PRStore(db).upsert((pr, classify(pr, profile)) for pr in prs)
    db.close()
    return path


@pytest.fixture(scope="session")
def profile() -> Profile:
    return load_profile()


@pytest.fixture(scope="module")
def cache_db(tmp_path_factory: pytest.TempPathFactory, profile: Profile) -> Path:
    path = tmp_path_factory.mktemp("slack") / "cache.db"
    # four earlier weeks give the digest its comparison, then the week under test
    prs = [
        pr for w in range(4, 0, -1) for pr in make_prs(10, WEEK_START - timedelta(weeks=w), 2000 + 100 * w)
    ]
    return build_cache(path, [*prs, *make_prs(40), hostile_pr()], profile)


@pytest.fixture(scope="module")
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


def slack_settings(slack: FakeSlack, **extra: object) -> Settings:
    values: dict[str, object] = {
        "slack_bot_token": BOT_TOKEN,
        "slack_signing_secret": SIGNING_SECRET,
        "prdigest_slack_api_url": slack.api_url,
        "prdigest_repo": REPO,
    }
    values.update(extra)
    return Settings(_env_file=None, **values)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def app(cache_db: Path, slack: FakeSlack) -> Iterator[RunningApp]:
    with RunningApp(slack_settings(slack), cache_db) as running:
        yield running
