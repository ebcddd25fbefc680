"""``prdigest --version`` names the installed version: what a deployment's smoke test and a bug
report ask for first."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

from tests.bot.cli.test_cli import cli

ROOT = Path(__file__).resolve().parents[3]


def test_version_prints_the_installed_version_and_exits_0(tmp_path: Path) -> None:
    with (ROOT / "pyproject.toml").open("rb") as f:
        declared = tomllib.load(f)["project"]["version"]
    result = cli("--version", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, f"prdigest, version {declared}\n", "")
    assert version("prdigest") == declared
