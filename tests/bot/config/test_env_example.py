"""`.env.example` as it ships: every value filled in is the default (the README says so), so a copy
changes nothing until the reader edits it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.config.settings import Settings

ROOT = Path(__file__).resolve().parents[3]


def test_every_value_env_example_ships_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("PRDIGEST_", "GITHUB_", "SLACK_", "DISCORD_")):
            monkeypatch.delenv(name)
    filled = [
        line.split("=", 1)[0]
        for line in (ROOT / ".env.example").read_text().splitlines()
        if line and not line.startswith("#") and line.split("=", 1)[1].strip()
    ]
    assert "PRDIGEST_DB" in filled and "PRDIGEST_PORT" in filled  # it does ship values, not only names
    copied = Settings(_env_file=ROOT / ".env.example").as_dict()
    defaults = Settings(_env_file=None).as_dict()
    assert copied == defaults
