"""The registry's loaders are what the modules register (the CLI and dispatch import only the
command asked for, so the table must not drift)."""

from __future__ import annotations

import subprocess
import sys

from bot.cli.main import CLI_COMMANDS
from commands.registry import COMMAND_NAMES, LOADERS, REGISTRY, specs


def test_every_command_is_registered_by_the_module_the_table_names() -> None:
    every = specs()
    assert [s.name for s in every] == list(COMMAND_NAMES) == list(LOADERS)
    assert set(REGISTRY) == set(COMMAND_NAMES)
    for spec in every:
        assert spec.summary == f"cmd.{spec.name}"  # what `prdigest --help` shows without importing it


def test_each_loader_registers_its_command_in_a_fresh_process() -> None:
    """A loader that imported the wrong module would leave its command unregistered."""
    code = (
        "import sys\n"
        "from commands.registry import LOADERS, REGISTRY\n"
        "name = sys.argv[1]\n"
        "LOADERS[name]()\n"
        "print(REGISTRY[name].handler.__module__)\n"
    )
    for name in LOADERS:
        run = subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, (name, run.stderr)
        assert run.stdout.strip().startswith("commands."), name


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
