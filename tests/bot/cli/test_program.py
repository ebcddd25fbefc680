"""The program a terminal answer prints is the one that runs when copied (bot/cli/program.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bot.cli.program import program


def _script(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    program.cache_clear()
    monkeypatch.delenv("UV_RUN_RECURSION_DEPTH", raising=False)


def test_a_program_not_on_the_path_is_printed_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = _script(tmp_path / ".venv" / "bin" / "prdigest")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert program(str(exe)) == os.path.join(".venv", "bin", "prdigest")


def test_the_same_program_on_the_path_is_printed_by_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = _script(tmp_path / ".venv" / "bin" / "prdigest")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{exe.parent}:/usr/bin")
    assert program(str(exe)) == "prdigest"
    other = _script(tmp_path / "elsewhere" / "prdigest")  # another prdigest first on the PATH
    monkeypatch.setenv("PATH", f"{other.parent}:{exe.parent}")
    program.cache_clear()
    assert program(str(exe)) == os.path.join(".venv", "bin", "prdigest")


def test_under_uv_run_the_path_uv_added_does_not_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`uv run prdigest demo` puts .venv/bin on the PATH of prdigest, not of the user's shell."""
    exe = _script(tmp_path / ".venv" / "bin" / "prdigest")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{exe.parent}:/usr/bin")
    monkeypatch.setenv("UV_RUN_RECURSION_DEPTH", "1")
    assert program(str(exe)) == os.path.join(".venv", "bin", "prdigest")


def test_outside_the_working_directory_the_path_is_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = _script(tmp_path / "tools" / "prdigest")
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.setenv("PATH", "/usr/bin")
    assert program(str(exe)) == str(exe)


def test_the_demos_next_line_runs_as_printed_from_a_shell_without_the_environment(tmp_path: Path) -> None:
    """The Quick start's shell has no prdigest on its PATH: the printed commands still run."""
    import shlex
    import subprocess

    from tests.bot.cli.test_cli import EXE

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRDIGEST_", "UV_", "VIRTUAL_ENV"))}
    env["PATH"] = "/usr/bin:/bin"
    done = subprocess.run([EXE, "demo"], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("next: ") and "prdigest risks core-path 2026-W19" in line
    for command in line.removeprefix("next: ").split("   ·   "):
        ran = subprocess.run(
            shlex.split(command), capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
        )
        assert ran.returncode == 0, (command, ran.stderr)


def test_a_process_that_is_not_prdigest_prints_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test runner or a script that imports the CLI (``.venv/bin/pytest``) has no program of its own."""
    runner = _script(tmp_path / ".venv" / "bin" / "pytest")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert program(str(runner)) == "prdigest"
    assert program("bot/cli/main.py") == "prdigest"
