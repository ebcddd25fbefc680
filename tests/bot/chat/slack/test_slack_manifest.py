"""The Slack app manifest and the Slack docs agree with the code (commands, scopes, settings)."""

from __future__ import annotations

import re
from pathlib import Path

from bot.chat.slack.app import command_pattern
from bot.config.settings import Settings
from commands.registry import REGISTRY, load_all

load_all()
COMMANDS = list(REGISTRY)

ROOT = Path(__file__).resolve().parents[4]
MANIFEST = (ROOT / "slack" / "manifest.yml").read_text(encoding="utf-8")
# The README's Slack section: where a person setting the app up reads.
DOCS = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Slack\n", 1)[1].split("\n## ", 1)[0]


def manifest_commands() -> list[dict[str, str]]:
    """The slash_commands entries (a small reader for this file's flat YAML list)."""
    section = MANIFEST.split("slash_commands:", 1)[1].split("oauth_config:", 1)[0]
    entries = []
    for chunk in re.split(r"^\s+- command: ", section, flags=re.M)[1:]:
        entry = {"command": chunk.splitlines()[0].strip()}
        for key, value in re.findall(r"^\s+(\w+): (.+)$", chunk, re.M):
            entry[key] = value.strip().strip('"')
        entries.append(entry)
    return entries


def test_manifest_declares_exactly_the_registry_commands_with_usage_hints() -> None:
    load_all()
    entries = manifest_commands()
    assert sorted(e["command"] for e in entries) == sorted(f"/{c}" for c in COMMANDS)
    assert set(COMMANDS) == set(REGISTRY)
    for e in entries:
        assert e["description"] and e["usage_hint"], e
        assert e["should_escape"] == "false"  # we want the user's raw text
        assert command_pattern().match(e["command"])
        assert e["usage_hint"].endswith("[public]") or e["command"] == "/help"


def test_manifest_scopes_and_modes() -> None:
    bot_scopes = re.findall(r"^\s+- ([a-z:.]+)$", MANIFEST.split("bot:", 1)[1].split("settings:", 1)[0], re.M)
    assert bot_scopes == [
        "commands",
        "chat:write",
        "chat:write.public",
        "channels:join",
        "channels:history",
        "groups:history",
        "users:read",
        "files:write",
    ]
    assert re.search(r"^\s+socket_mode_enabled: true$", MANIFEST, re.M)
    assert MANIFEST.count("# url: https://YOUR-HOST/slack/events") == len(COMMANDS)


def test_docs_cover_every_command_and_slack_setting() -> None:
    for name in COMMANDS:
        assert f"/{name}" in DOCS
    slack_settings = [n.upper() for n in Settings.model_fields if "slack" in n]
    assert len(slack_settings) == 4
    for name in slack_settings:
        assert f"`{name}`" in DOCS, name
    assert "slack/manifest.yml" in DOCS and "/healthz" in DOCS and "--post slack:" in DOCS
