"""The memory benchmark runs end to end on tiny inputs (a smoke test: no figure is asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import memory
from bench.run import build
from classify.rules import load_profile

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux only)")


def test_the_server_host_answers_a_mix_of_commands_and_reports_its_heap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "bench.db"
    assert build(db, 300, load_profile())["new"] == 300
    assert memory.main(["serve", "--db", str(db), "--commands", "60"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["commands"] == 60 and len(report["heap_every_50_commands"]) == 1
    after = report["mb_after_commands"]
    assert 0 < after["RssAnon"] <= after["VmRSS"] <= after["VmHWM"]


def test_imports_of_two_lengths_report_their_peak_heap(capsys: pytest.CaptureFixture[str]) -> None:
    assert memory.main(["import", "--prs", "200", "400"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["prs"], r["new"]) for r in rows] == [(200, 200), (400, 400)]
    assert all(0 < r["peak_heap_mb"] <= r["peak_rss_mb"] for r in rows)
