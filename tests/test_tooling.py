"""Strict tools as tests: ruff over the tree, mypy --strict over the layers that promise it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_ruff_is_clean() -> None:
    result = subprocess.run(
        [str(BIN / "ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_commands_storage_and_classify() -> None:
    result = subprocess.run(
        [str(BIN / "mypy"), "commands", "storage", "classify"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
