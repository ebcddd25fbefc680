"""The registry's table of command modules is what the modules register (the CLI and dispatch
import only the command asked for, so the table must not drift)."""

from __future__ import annotations

import subprocess
import sys

from bot.cli.main import CLI_COMMANDS
from commands.registry import COMMAND_MODULES, REGISTRY, specs


def test_every_command_is_registered_by_the_module_the_table_names() -> None:
    every = specs()
    assert [s.name for s in every] == list(COMMAND_MODULES)
    assert set(REGISTRY) == set(COMMAND_MODULES)
    for spec in every:
        assert spec.handler.__module__ == COMMAND_MODULES[spec.name]
        assert spec.summary == f"cmd.{spec.name}"  # what `prdigest --help` shows without importing it


def test_the_terminal_has_exactly_the_commands_marked_for_it() -> None:
    assert list(CLI_COMMANDS) == [s.name for s in specs() if s.cli]


def test_dispatch_imports_only_the_command_it_runs() -> None:
    code = (
        "import sys; from datetime import datetime, UTC\n"
        "from classify.rules import load_profile\n"
        "from commands.model import Invocation\n"
        "from commands.registry import Context, dispatch\n"
        "from storage.prs import PRStore\n"
        "from storage.db import connect\n"
        "ctx = Context(store=PRStore(connect(':memory:')), profile=load_profile())\n"
        "dispatch(Invocation(command='risks', now=datetime(2026, 5, 11, tzinfo=UTC)), ctx)\n"
        "print(' '.join(m for m in sys.modules if m.startswith('commands.')))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    loaded = set(run.stdout.split())
    assert "commands.risks" in loaded, run.stderr
    assert not loaded & {
        "commands.digest",
        "commands.report.compose",
        "commands.subscriptions",
        "commands.pr",
    }
