"""The benchmark script runs end to end on a tiny cache (a smoke test: no timing is asserted)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench import run
from storage import fts
from storage.db import connect, write_transaction
from storage.prs import PRStore


def test_benchmark_builds_times_every_command_and_writes_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, results = tmp_path / "bench.db", tmp_path / "results.json"
    argv = ["--prs", "400", "--db", str(db), "--repeat", "3", "--results", str(results)]
    assert run.main(argv) == 0
    data = json.loads(results.read_text())
    assert data["prs"] == 400 and data["db_bytes"] > 0
    assert data["build"]["new"] == 400
    cold = ["pr NUMBER, cold"] if hasattr(os, "posix_fadvise") else []
    assert [row["command"] for row in data["latency"]] == [
        *cold,
        "digest week",
        "digest last-week",
        "digest YYYY-Www, no cache",
        "digest YYYY-Www, stored storylines",
        "risks all",
        "risks core-path",
        "pr NUMBER",
        "search WORDS",
    ]
    assert all(row["runs"] == 3 and row["p50_ms"] > 0 for row in data["latency"])
    assert [row["ok"] is None for row in data["latency"]] == [True] * len(cold) + [False] * 8
    assert [(r["classified"], r["changed"]) for r in data["reclassify"]] == [
        (0, 0),
        (400, 400),
        (400, 400),
        (0, 0),
    ]
    assert data["storyline_fill"]["weeks"] > 0  # the fill pass before "stored storylines" ran
    # every closed week but last week, whose digest ("digest last-week") had stored it already
    assert data["storyline_fill"]["found"] == data["storyline_fill"]["weeks"] - 1
    assert data["peak_rss_mb"]["after_reclassify"] > 0
    out = capsys.readouterr().out
    assert "p99 ms" in out and "reclassify" in out

    # built like a first import: the full-text index is one segment, as `prdigest import` leaves it
    assert fts.segments(connect(db)) == 1

    # a second run reuses the cache instead of rebuilding it
    assert run.main([*argv, "--skip-reclassify"]) == 0
    assert json.loads(results.read_text())["build"] is None


def test_a_reused_cache_gets_its_index_merged_as_a_write_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "bench.db"
    argv = ["--prs", "300", "--db", str(db), "--repeat", "1", "--results", str(tmp_path / "r.json")]
    assert run.main([*argv, "--skip-reclassify", "--only", "pr NUMBER"]) == 0
    store = PRStore(connect(db))
    for rowid in range(1, 13):  # twelve small write transactions: a segment each
        with write_transaction(store.db):
            store.db.execute("UPDATE prs SET title = title || ' again' WHERE rowid = ?", (rowid,))
    assert fts.segments(store.db) > fts.MAX_SEGMENTS
    store.db.conn.close()
    capsys.readouterr()
    assert run.main([*argv, "--skip-reclassify", "--only", "pr NUMBER"]) == 0
    assert fts.segments(connect(db)) == 1
    assert "merged into 1" in capsys.readouterr().err


def test_refuses_to_reuse_a_cache_of_another_size(tmp_path: Path) -> None:
    db = tmp_path / "bench.db"
    assert (
        run.main(
            [
                "--prs",
                "200",
                "--db",
                str(db),
                "--repeat",
                "1",
                "--skip-reclassify",
                "--results",
                str(tmp_path / "r.json"),
            ]
        )
        == 0
    )
    with pytest.raises(SystemExit, match="holds 200 PRs"):
        run.main(["--prs", "300", "--db", str(db), "--repeat", "1", "--results", str(tmp_path / "r.json")])


def test_only_times_the_named_commands_and_reports_their_cpu_time(tmp_path: Path) -> None:
    db, results = tmp_path / "bench.db", tmp_path / "results.json"
    argv = ["--prs", "300", "--db", str(db), "--repeat", "3", "--results", str(results), "--skip-reclassify"]
    assert run.main([*argv, "--only", "risks core-path,search WORDS,digest YYYY-Www, no cache"]) == 0
    rows = json.loads(results.read_text())["latency"]
    assert [row["command"] for row in rows] == [
        "digest YYYY-Www, no cache",
        "risks core-path",
        "search WORDS",
    ]
    assert all(row["cpu_p50_ms"] > 0 for row in rows)
