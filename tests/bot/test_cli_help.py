"""What the terminal's help says: every command as a terminal types it, nothing a terminal cannot
do, and usage errors that point at the command as typed (review findings 3, 4, 9–11, 13, 22)."""

from __future__ import annotations

import pytest

from bot.cli import main


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
    from bot.discord.commands import commands_payload

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
