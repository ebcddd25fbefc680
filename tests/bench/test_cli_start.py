"""The CLI start-up benchmark runs end to end (a smoke test: no timing is asserted)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench import cli_start


def test_cli_start_times_every_command_against_the_bare_interpreter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "cli.json"
    assert cli_start.main(["--runs", "1", "--venv", sys.prefix, "--results", str(results)]) == 0
    data = json.loads(results.read_text())
    assert [r["command"] for r in data["rows"]] == [
        "python -c pass",
        "prdigest --help",
        "prdigest help",
        "prdigest pr 42121",
        "prdigest risks",
        "prdigest search",
    ]
    assert all(r["runs"] == 1 and r["median_ms"] > 0 and r["cpu_median_ms"] >= 0 for r in data["rows"])
    assert data["rows"][0]["ratio"] == 1.0
    assert "× python" in capsys.readouterr().out
