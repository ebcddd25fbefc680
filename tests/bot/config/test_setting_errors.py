"""Every wrong ``PRDIGEST_*`` value is one line naming its variable, exit 2 — the class, not examples.

The table holds one wrong value for every ``PRDIGEST_*`` setting; a setting added without a row
fails the first test, so a new setting cannot slip in with an error that does not name it. Each
value is tried with a fast read (``digest``: the settings a one-shot read checks itself) and with
a command that checks them all (``deliver --dry-run``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config.settings import FIELDS
from tests.bot.cli.test_cli import cli

WRONG = {
    "PRDIGEST_DB": "/nonexistent/dir/cache.db",
    "PRDIGEST_REPO": "not-a-repository",
    "PRDIGEST_RULES": "/nonexistent/rules.toml",
    "PRDIGEST_PROFILE": "nosuch",
    "PRDIGEST_TIMEZONE": "Mars/Olympus",
    "PRDIGEST_LANG": "xx",
    "PRDIGEST_LOCK_TIMEOUT": "-1",
    "PRDIGEST_GITHUB_API_URL": "ftp://github.example",
    "PRDIGEST_SLACK_API_URL": "ftp://slack.example",
    "PRDIGEST_DISCORD_API_URL": "http://discord.example/api/v10",
    "PRDIGEST_DISCORD_GATEWAY_URL": "ws://gateway.example",
    "PRDIGEST_PORT": "99999",
    "PRDIGEST_CATCHUP": "-3",
    "PRDIGEST_SYNC_EVERY": "often",
    "PRDIGEST_REPO_PROFILES": "vllm-project/vllm",
    "PRDIGEST_POST_TIMEOUT": "-1",
    "PRDIGEST_LLM_URL": "ftp://llm.example",
    "PRDIGEST_LLM_MODEL": " ",  # with an endpoint set (BESIDE): every request names the model
    "PRDIGEST_LLM_TIMEOUT": "-1",
}
# What a wrong value is wrong beside (a model's name means something only with its endpoint).
BESIDE = {"PRDIGEST_LLM_MODEL": {"PRDIGEST_LLM_URL": "http://127.0.0.1:9/v1"}}
# Settings no value of which is wrong when read: any path (only the schema tests read it), any
# list of chat user ids (an id that is nobody's gives nobody rights), any key for a model endpoint
# (the endpoint judges it).
NOTHING_WRONG = {"PRDIGEST_GITHUB_SCHEMA", "PRDIGEST_ADMINS", "PRDIGEST_LLM_KEY"}
# GitHub's URL is read by the commands that talk to GitHub (refused before any connection)
GITHUB = ("sync", "--repo", "o/r")


def test_the_table_covers_every_prdigest_setting() -> None:
    names = {name.upper() for name in FIELDS if name.startswith("prdigest_")}
    assert set(WRONG) | NOTHING_WRONG == names


@pytest.mark.parametrize("variable", sorted(WRONG))
def test_a_wrong_value_is_one_line_naming_its_variable(variable: str, demo_db: Path, tmp_path: Path) -> None:
    env = {variable: WRONG[variable], "GITHUB_TOKEN": "ghp_test", **BESIDE.get(variable, {})}
    db = () if variable == "PRDIGEST_DB" else ("--db", str(demo_db))
    commands = [("digest", "2026-W19", *db), ("deliver", "--dry-run", *db)]
    if variable == "PRDIGEST_GITHUB_API_URL":
        commands.append((*GITHUB, "--db", str(tmp_path / "new.db")))
    failed = 0
    for command in commands:
        result = cli(*command, cwd=tmp_path, env=env)
        if result.returncode == 0:  # a setting this command never reads
            continue
        failed += 1
        assert result.returncode == 2, (command, result.stderr)
        [line] = result.stderr.strip().splitlines()
        assert "Traceback" not in result.stderr and variable in line, (command, line)
    assert failed, f"no command refused {variable}={WRONG[variable]}"
