"""The first commands after the Quick start answer as printed: ``cp .env.example .env`` and then
``prdigest digest 2026-W19`` reads the demo's cache while no real cache exists (bot/cli/default_cache.py)."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

from tests.bot.cli.test_cli import cli
from tests.bot.config.test_env_example import ROOT


def test_after_the_quick_start_a_copied_env_answers_from_the_demo(tmp_path: Path) -> None:
    assert cli("demo", cwd=tmp_path).returncode == 0
    shutil.copy(ROOT / ".env.example", tmp_path / ".env")
    result = cli("digest", "2026-W19", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("vllm-project/vllm weekly digest · 2026-W19")
    [note] = result.stderr.strip().splitlines()
    assert "reading the demo's cache prdigest-demo.db" in note and "prdigest.db does not exist yet" in note
    assert not (tmp_path / "prdigest.db").exists()  # a read creates no cache


def test_a_real_cache_or_a_named_one_is_read_as_configured(tmp_path: Path) -> None:
    assert cli("demo", cwd=tmp_path).returncode == 0
    shutil.copy(tmp_path / "prdigest-demo.db", tmp_path / "prdigest.db")
    with sqlite3.connect(tmp_path / "prdigest.db") as conn:  # the real cache differs from the demo's
        conn.execute("DELETE FROM prs WHERE merged_at >= '2026-05-07'")
    real = cli("digest", "2026-W19", "--format", "json", cwd=tmp_path)
    assert real.returncode == 0 and real.stderr == ""
    demo = cli("digest", "2026-W19", "--format", "json", "--db", "prdigest-demo.db", cwd=tmp_path)
    assert demo.returncode == 0 and demo.stderr == "" and demo.stdout != real.stdout
    (tmp_path / "prdigest.db").unlink()
    other = cli("digest", "2026-W19", cwd=tmp_path, env={"PRDIGEST_DB": "mine.db"})  # not the default
    assert other.returncode == 2 and "mine.db does not exist" in other.stderr


def test_a_negative_number_is_the_commands_to_refuse_and_search_pages_by_option(demo_db: Path) -> None:
    """`pr -5` is a PR number refused as such (click said "No such option '-5'"); an unknown
    option is still click's one line; `--page` is search's option in a terminal."""
    refused = cli("pr", "-5", "--db", str(demo_db))
    assert refused.returncode == 2 and refused.stdout == ""
    [line] = refused.stderr.strip().splitlines()
    assert "'-5' is not a PR number" in line or "-5 is not a PR number" in line, line
    unknown = cli("pr", "--colour", "--db", str(demo_db))
    assert unknown.returncode == 2 and "No such option '--colour'" in unknown.stderr
    one = cli("search", "fix", "2026-W19", "--db", str(demo_db), "--format", "json")
    two = cli("search", "fix", "2026-W19", "--page", "2", "--db", str(demo_db), "--format", "json")
    assert one.returncode == two.returncode == 0, two.stderr
    first, second = (json.loads(r.stdout) for r in (one, two))
    assert second["page"] == 2 and second["total"] == first["total"]
    assert not {p["number"] for p in first["prs"]} & {p["number"] for p in second["prs"]}
    text = cli("search", "fix", "2026-W19", "--db", str(demo_db)).stdout
    assert re.search(r"Next page: `\S*prdigest search fix 2026-W19 --page 2`", text), text[-300:]
