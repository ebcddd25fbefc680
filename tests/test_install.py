"""The README's first Quick start command works on a distribution's own Python (PEP 668).

A Debian or Ubuntu ``python3`` refuses ``pip install`` outside a virtual environment
("externally-managed-environment"), which is exactly what a newcomer meets first. This test runs
the README's first Quick start command, word for word, in a fresh clone with only the system
directories on ``PATH`` and an empty ``HOME`` — no pyenv, no user-installed uv, no caches — and
checks that it prints the demo digest, installs no test tool, that the way the README says to call
``prdigest`` afterwards works, and that running it again prints none of uv's chatter.

It reaches the package index the way the Quick start itself does, so it runs only when
``PRDIGEST_TEST_INSTALL=1`` (``.ci/run`` sets it); every other test keeps to loopback.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SYSTEM_PATH = "/usr/bin:/bin"
# Network settings a user's shell would carry (proxies, certificate authorities, index mirrors):
# the Quick start runs in the user's network, so these pass through; nothing else does.
NETWORK_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "PIP_INDEX_URL",
    "PIP_CERT",
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
)

pytestmark = pytest.mark.install


DEV_TOOLS = ("pytest", "ruff", "mypy", "lint-imports")


def _quick_start() -> tuple[str, str]:
    """The README's Quick start block and the paragraph right after it."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1]
    block = re.search(r"```[a-z]*\n(.*?)```\n+(.*?)\n\n", section, re.S)
    assert block is not None, "README.md has no fenced block under ## Quick start"
    return block.group(1), block.group(2)


def quick_start_commands() -> list[str]:
    """The commands of the README's Quick start block, in order."""
    return [line for line in _quick_start()[0].splitlines() if line.strip() and not line.startswith("#")]


def after_the_quick_start() -> tuple[str, str]:
    """What the paragraph after the block says to run: the activation, and the demo's hint."""
    words = re.findall(r"`([^`]+)`", _quick_start()[1])
    activate = next(w for w in words if "activate" in w)
    hint = next(w for w in words if w.startswith("prdigest ") and "--db" in w)
    return activate, hint


def externally_managed_python() -> Path | None:
    """``/usr/bin/python3`` when it is a PEP 668 interpreter (its stdlib holds EXTERNALLY-MANAGED)."""
    python = Path("/usr/bin/python3")
    if not python.exists():
        return None
    stdlib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    ).stdout.strip()
    return python if stdlib and (Path(stdlib) / "EXTERNALLY-MANAGED").exists() else None


def test_after_the_block_the_readme_says_how_to_call_what_was_installed() -> None:
    activate, hint = after_the_quick_start()
    assert activate == ". .venv/bin/activate"
    assert hint == "prdigest risks core-path 2026-W19 --db prdigest-demo.db"


def test_the_demo_command_installs_the_runtime_alone_and_quietly() -> None:
    """uv prints "Bytecode compiled N files" at every run with compile-bytecode set (uv issue
    12202): the demo command asks uv to be quiet, and leaves the dev group out. The install test
    below checks both on a real install."""
    first = quick_start_commands()[0]
    assert re.search(r"uv run (-q|--quiet) --frozen --no-dev prdigest demo$", first), first


def test_the_quick_start_creates_its_own_environment() -> None:
    """No Quick start command may install into the interpreter that runs it (PEP 668)."""
    for command in quick_start_commands():
        assert command.startswith("python3 -m venv .venv && .venv/bin/"), command
        assert "--break-system-packages" not in command
        assert "python3 -m pip" not in command and "--user" not in command


@pytest.mark.timeout(1800)
def test_first_quick_start_command_prints_the_demo_digest_with_the_system_python(tmp_path: Path) -> None:
    if os.environ.get("PRDIGEST_TEST_INSTALL") != "1":
        pytest.skip("reaches the package index: set PRDIGEST_TEST_INSTALL=1 to run it (.ci/run does)")
    python = externally_managed_python()
    if python is None:
        pytest.skip("no PEP 668 system Python here (/usr/bin/python3 with EXTERNALLY-MANAGED)")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": SYSTEM_PATH, "HOME": str(home), "LANG": "C.UTF-8"}
    env |= {name: os.environ[name] for name in NETWORK_VARIABLES if name in os.environ}
    first = quick_start_commands()[0]
    uv_in_system_before = _imports_uv(python, env)
    done = subprocess.run(
        ["/bin/bash", "-c", first],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=1700,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "weekly digest" in done.stdout and "Executive summary" in done.stdout, done.stdout[:2000]
    # The environment the command made is a venv of the system interpreter, not the system itself.
    config = (clone / ".venv" / "pyvenv.cfg").read_text(encoding="utf-8")
    assert re.search(r"^home = /usr/bin$", config, re.M), config
    # ...and the system interpreter stayed as it was: uv was not installed into it.
    assert _imports_uv(python, env) == uv_in_system_before
    # Only the runtime: the test tools come with the second command.
    installed = [tool for tool in DEV_TOOLS if (clone / ".venv" / "bin" / tool).exists()]
    assert not installed, installed
    # The README's next step: activate, then the demo's own hint, as the demo printed it.
    activate, hint = after_the_quick_start()
    assert (
        hint.split(" ", 1)[1] in done.stderr + done.stdout
    )  # the hint's words, however it names the program
    called = _bash(f"{activate} && {hint}", clone, env)
    assert called.returncode == 0 and "core-path" in called.stdout, called.stderr[-2000:]
    # Again: the environment is reused, and uv says nothing about it.
    again = _bash(first, clone, env)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "weekly digest" in again.stdout
    uv_lines = [line for line in again.stderr.splitlines() if line.startswith(UV_CHATTER)]
    assert not uv_lines, uv_lines


UV_CHATTER = ("Bytecode compiled", "Resolved ", "Audited ", "Installed ", "Prepared ", "Uninstalled ")


def _bash(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/bash", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _imports_uv(python: Path, env: dict[str, str]) -> bool:
    probe = subprocess.run(
        [str(python), "-c", "import uv"], env=env, capture_output=True, timeout=30, check=False
    )
    return probe.returncode == 0
