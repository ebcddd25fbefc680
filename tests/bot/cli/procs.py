"""The real ``prdigest`` executable run under adverse conditions, for the fault tests.

* ``file_size_limit``: the kernel refuses to let the process grow any file past N bytes
  (``RLIMIT_FSIZE``, i.e. ``ulimit -f``) — the same refusal a full disk gives, without needing a
  small filesystem or root. SQLite sees the write fail exactly as it would on a full disk.
* ``plain_user``: run as root but without the capabilities that let root ignore file permissions
  (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER are dropped from the bounding set before
  exec), so a read-only file or folder is read-only to the child as it is to any user. As another
  user nothing needs dropping.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from bench.generate import generate_history, to_jsonl

EXE = str(Path(sys.executable).with_name("prdigest"))
ROOT = Path(__file__).resolve().parents[3]
_PR_CAPBSET_DROP = 24
_ROOT_FILE_POWERS = (1, 2, 3)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRDIGEST_", "GITHUB_", "SLACK_"))}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def _drop_root_file_powers() -> None:
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in _ROOT_FILE_POWERS:
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            os._exit(97)  # reported by require_plain_user


def _limit_file_size(limit: int) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed (Python does this too)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def require_plain_user(tmp_path: Path) -> None:
    """Skip unless a child can be made to respect file permissions (see the module docstring)."""
    if sys.platform != "linux":
        pytest.skip("permission tests drop Linux capabilities")
    probe = tmp_path / "probe.txt"
    probe.write_text("x")
    probe.chmod(0o444)
    try:
        result = subprocess.run(
            [sys.executable, "-c", f"open({str(probe)!r}, 'a')"],
            preexec_fn=_drop_root_file_powers,
            capture_output=True,
        )
    finally:
        probe.chmod(0o644)
    if result.returncode == 0:
        pytest.skip("cannot drop root's file-permission override here (no CAP_SETPCAP)")


def _preexec(file_size_limit: int | None, plain_user: bool) -> Callable[[], None] | None:
    steps: list[Callable[[], None]] = []
    if file_size_limit is not None:
        steps.append(_limit_file_size(file_size_limit))
    if plain_user:
        steps.append(_drop_root_file_powers)
    if not steps:
        return None

    def run() -> None:
        for step in steps:
            step()

    return run


def start(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    file_size_limit: int | None = None,
    plain_user: bool = False,
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [EXE, *args],
        cwd=cwd,
        env=env or clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_preexec(file_size_limit, plain_user),
    )


def prdigest(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    file_size_limit: int | None = None,
    plain_user: bool = False,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    proc = start(*args, cwd=cwd, env=env, file_size_limit=file_size_limit, plain_user=plain_user)
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def error_line(result: subprocess.CompletedProcess[str], code: int, prefix: str = "prdigest: ") -> str:
    """The one error line of a failed run (progress lines ``sync: …`` aside); asserts the exit code
    and that nothing else — no traceback, no interpreter abort — reached stderr."""
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr and "Fatal Python error" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith("sync: ")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(prefix), lines[0]
    return lines[0]


def write_prs(path: Path, count: int, *, repo: str = "octo/a", seed: int = 1) -> Path:
    """``count`` generated PR records of ``repo`` (a year of history) as a JSON Lines file."""
    path.write_bytes(to_jsonl(list(generate_history(count, years=1.0, repo=repo, seed=seed))))
    return path


def table_rows(db: Path, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()
