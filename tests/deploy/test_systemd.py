"""The systemd units in deploy/ are valid units that start what the docs say they start.

``systemd-analyze verify`` loads each unit as systemd would and checks its settings and that the
command it runs exists, so the units are verified on copies whose /srv/prdigest points at a
scratch directory holding this environment's real ``prdigest`` executable.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNITS = ("prdigest-serve.service", "prdigest-deliver.service", "prdigest-deliver.timer")
INSTALL_DIR = "/srv/prdigest"


def _verify(units: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``systemd-analyze verify`` over the units, with their install directory moved to tmp_path."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip(
            "systemd-analyze is not installed here (it comes with systemd); the units are not verified"
        )
    install = tmp_path / "srv" / "prdigest"
    (install / ".venv" / "bin").mkdir(parents=True)
    (install / ".venv" / "bin" / "prdigest").symlink_to(Path(sys.executable).parent / "prdigest")
    paths = []
    for name, text in units.items():
        path = tmp_path / name
        path.write_text(text.replace(INSTALL_DIR, str(install)), encoding="utf-8")
        paths.append(str(path))
    return subprocess.run(
        [analyze, "verify", *paths], capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path
    )


def _units() -> dict[str, str]:
    return {name: (DEPLOY / name).read_text(encoding="utf-8") for name in UNITS}


def test_the_units_verify_cleanly(tmp_path: Path) -> None:
    done = _verify(_units(), tmp_path)
    assert done.returncode == 0 and not done.stdout.strip() and not done.stderr.strip(), done


def test_a_mistyped_setting_fails_the_check(tmp_path: Path) -> None:
    units = _units()
    units["prdigest-serve.service"] = units["prdigest-serve.service"].replace("Restart=", "Restrat=", 1)
    done = _verify(units, tmp_path)
    assert "Unknown key" in done.stderr and "Restrat" in done.stderr, done


def test_the_units_run_serve_and_deliver_from_the_install_directory() -> None:
    units = _units()
    assert f"ExecStart={INSTALL_DIR}/.venv/bin/prdigest serve\n" in units["prdigest-serve.service"]
    assert f"ExecStart={INSTALL_DIR}/.venv/bin/prdigest deliver\n" in units["prdigest-deliver.service"]
    assert "Type=oneshot" in units["prdigest-deliver.service"]
    for name in ("prdigest-serve.service", "prdigest-deliver.service"):
        # .env is read from the working directory; the profile cache goes where systemd allows writes.
        assert f"WorkingDirectory={INSTALL_DIR}\n" in units[name] and "User=prdigest\n" in units[name]
        assert "CacheDirectory=prdigest\n" in units[name] and "XDG_CACHE_HOME=%C" in units[name]
    assert "OnCalendar=*:0/5\n" in units["prdigest-deliver.timer"]
