"""bench/discord_first_response.py runs end to end (one interaction per command): the script keeps
working as the code under it changes. It measures; nothing here judges the figures."""

from __future__ import annotations

import pytest

from bench import discord_first_response


def test_the_benchmark_measures_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    discord_first_response.main(["--runs", "1", "--burst", "3"])
    out = capsys.readouterr().out
    labels = ["/digest", "/risks core-path", "/pr ", "/search kernel", "/help", "autocomplete period"]
    rows = [line for line in out.splitlines() if line.startswith(tuple(labels))]
    assert len(rows) == 6 and all(len(row.split()) >= 5 for row in rows)
    assert "burst of 3 at once" in out and "cold first interaction" in out
