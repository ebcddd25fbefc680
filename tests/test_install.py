"""The README's first Quick start command works on a distribution's own Python (PEP 668).

A Debian or Ubuntu ``python3`` refuses ``pip install`` outside a virtual environment
("externally-managed-environment"), which is exactly what a newcomer meets first. This test runs
the README's first Quick start command, word for word, in a fresh clone with only the system
directories on ``PATH`` and an empty ``HOME`` — no pyenv, no user-installed uv, no caches — and
checks that it prints the demo digest.

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


def quick_start_commands() -> list[str]:
    """The commands of the README's Quick start block, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1]
    block = re.search(r"```[a-z]*\n(.*?)```", section, re.S)
    assert block is not None, "README.md has no fenced block under ## Quick start"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


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


def _imports_uv(python: Path, env: dict[str, str]) -> bool:
    probe = subprocess.run(
        [str(python), "-c", "import uv"], env=env, capture_output=True, timeout=30, check=False
    )
    return probe.returncode == 0
