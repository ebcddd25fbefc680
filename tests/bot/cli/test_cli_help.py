"""What the terminal's help says: every command as a terminal types it, nothing a terminal cannot
do, and usage errors that point at the command as typed."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from bot.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    out = capsys.readouterr()
    code = info.value.code
    return (code if isinstance(code, int) else 0), out.out, out.err


def test_no_arguments_prints_the_help_not_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert code == 0 and err == ""
    assert out.startswith("Usage: prdigest [OPTIONS] COMMAND [ARGS]...") and "Commands:" in out
    code, out, err = run(capsys, "discord")
    assert code == 0 and err == "" and out.startswith("Usage: prdigest discord [OPTIONS] COMMAND")


def test_a_subcommands_usage_error_points_at_its_full_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "discord", "sync-commands", "--guild", "abc")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "prdigest: Invalid value for '--guild': 'abc' is not a valid integer. "
        "(see prdigest discord sync-commands --help)"
    ]


def test_sync_commands_help_names_every_command_it_registers(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.chat.discord.commands import commands_payload

    code, out, _ = run(capsys, "discord", "sync-commands", "--help")
    assert code == 0
    text = " ".join(out.split())
    names = [c["name"] for c in commands_payload()]
    assert len(names) == 9
    assert all(f"/{name}" in text for name in names), (names, text)


def test_serve_and_post_help_name_both_platforms(capsys: pytest.CaptureFixture[str]) -> None:
    _, serve, _ = run(capsys, "serve", "--help")
    assert "(Slack, Discord)" in " ".join(serve.split())
    for command in ("digest", "risks", "pr", "search"):
        _, out, _ = run(capsys, command, "--help")
        text = " ".join(out.split())
        assert "slack:CHANNEL_ID or discord:CHANNEL_ID" in text, command


def test_help_lists_every_command_a_terminal_has(capsys: pytest.CaptureFixture[str]) -> None:
    """`prdigest help` is titled "prdigest commands": it lists all of them (sync, demo, subscribe …),
    the same set as `prdigest --help`, each as a terminal types it."""
    from bot.cli.main import cli

    code, out, _ = run(capsys, "help", "--format", "json")
    assert code == 0
    listed = [c["name"] for c in json.loads(out)["commands"]]
    assert listed == cli.list_commands(click.Context(cli, info_name="prdigest"))
    assert {"sync", "import", "demo", "serve", "backup", "subscribe", "subscriptions", "unsubscribe"} <= set(
        listed
    )
    _, text, _ = run(capsys, "help")
    bullets = [line for line in text.splitlines() if line.startswith("• ")]
    assert len(bullets) == len(listed) and all(b.startswith("• prdigest ") for b in bullets)
    assert "just for you" not in text  # preview's chat summary: a terminal has no "you" to hide it from
    assert "• prdigest preview [ID] — What subscription ID would post now" in text


@pytest.mark.parametrize("name", ["subscribe", "unsubscribe", "subscriptions", "sync", "/subscribe"])
def test_help_of_a_terminal_command_is_its_terminal_syntax(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """`prdigest help subscribe` shows what a terminal takes (TARGET, --at, --tz), never chat's
    `subscribe at=WHEN tz=ZONE`, whose examples fail in a terminal."""
    code, out, _ = run(capsys, "help", name)
    _, direct, _ = run(capsys, name.removeprefix("/"), "--help")
    assert code == 0 and out == direct
    assert "at=WHEN" not in out and "tz=Europe" not in out
    if name.endswith("subscribe"):
        assert out.startswith(f"Usage: prdigest {name.removeprefix('/')} [OPTIONS] ")


def test_the_terminals_summaries_match_the_registrations() -> None:
    """`prdigest --help` reads CLI_SUMMARIES without importing the commands; the registry's
    ``cli_summary`` says the same, and chat keeps its own wording and examples."""
    from bot.cli.main import CLI_COMMANDS, CLI_SUMMARIES
    from commands.registry import load

    for name in CLI_COMMANDS:
        spec = load(name)
        assert spec is not None
        assert spec.summary_for("cli") == CLI_SUMMARIES.get(name, f"cmd.{name}")
    preview = load("preview")
    assert preview is not None
    assert preview.summary_for("slack") == "cmd.preview" and "preview" in preview.examples_for("slack")


def test_help_of_an_unknown_command_lists_the_terminals_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "help", "nosuch")
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("prdigest: unknown command 'nosuch'; commands are: backup, deliver, ")
    assert "sync" in line and line.endswith("— usage: prdigest help [COMMAND]")


def test_preview_in_a_terminal_asks_for_the_subscription(
    capsys: pytest.CaptureFixture[str], demo_db: object
) -> None:
    """A terminal has no channel: `preview` alone asks which subscription, not "this channel has none"."""
    code, _, err = run(capsys, "preview", "--db", str(demo_db))
    assert code == 2
    assert err.strip() == (
        "prdigest: which subscription? give its number (`prdigest subscriptions` lists them) — usage: prdigest preview [ID]"
    )
    _, out, _ = run(capsys, "help", "preview")
    assert "• prdigest preview 3" in out and "• prdigest preview\n" not in out


def test_writers_count_one_pr_as_one_pr(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = {
        "number": 1,
        "repo": "octo/one",
        "title": "[Core] One change",
        "merged_at": "2026-05-01T00:00:00Z",
        "files": [{"path": "a.py", "additions": 1, "deletions": 0}],
    }
    source = tmp_path / "one.jsonl"
    source.write_text(json.dumps(record) + "\n")
    db = tmp_path / "one.db"
    code, out, err = run(capsys, "import", str(source), "--db", str(db))
    assert code == 0, err
    assert out.startswith("imported 1 PR: 1 new,")
    code, out, err = run(capsys, "backup", str(tmp_path / "copy.db"), "--db", str(db))
    assert code == 0 and out.startswith("backed up 1 PR to "), err
