"""deploy/Containerfile builds what it says: no container engine is needed to check it.

The build stage is replayed outside a container: its COPY lines copy the named files of this
clone into a scratch root, and its RUN lines run there with their absolute paths moved under that
root — so a file the install needs but the Containerfile does not copy fails the replay. The
environment it makes must run ``prdigest --version`` and the demo without the source tree, and
hold no dev tool. The install reaches the package index for what uv's cache lacks: the replay
runs offline from uv's cache (what the Quick start's own install filled), and skips, saying so,
when the cache cannot serve it; PRDIGEST_TEST_INSTALL=1 lets it reach the index instead.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.test_install import NETWORK_VARIABLES

ROOT = Path(__file__).resolve().parents[2]
CONTAINERFILE = ROOT / "deploy" / "Containerfile"
DEV_TOOLS = ("pytest", "ruff", "mypy", "lint-imports", "import-linter", "hypothesis", "graphql-core")


@dataclass
class Stage:
    """One FROM … stage: its base image and instructions in order, continuation lines joined."""

    image: str
    steps: list[tuple[str, str]] = field(default_factory=list)

    def values(self, instruction: str) -> list[str]:
        return [arg for name, arg in self.steps if name == instruction]


def stages(text: str) -> list[Stage]:
    joined = re.sub(r"\\\n", " ", text)
    out: list[Stage] = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, arg = line.partition(" ")
        name = name.upper()
        if name == "FROM":
            out.append(Stage(image=arg.split()[0]))
        elif out:
            out[-1].steps.append((name, re.sub(r"\s+", " ", arg).strip()))
    return out


def _under(root: Path, path: str) -> Path:
    return root / path.lstrip("/")


def replay_build(stage: Stage, root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a build stage's WORKDIR/COPY/RUN steps with every absolute path moved under ``root``."""
    workdir = root
    done = subprocess.CompletedProcess[str]([], 0, "", "")
    for name, arg in stage.steps:
        if name == "WORKDIR":
            workdir = _under(root, arg)
            workdir.mkdir(parents=True, exist_ok=True)
        elif name == "COPY":
            assert not arg.startswith("--"), f"the build stage copies from elsewhere: {arg}"
            *sources, dest = shlex.split(arg)
            target = _under(root, dest) if dest.startswith("/") else workdir / dest
            for source in sources:  # a directory's contents go into dest, as COPY does
                origin = ROOT / source
                if origin.is_dir():
                    shutil.copytree(
                        origin, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
                    )
                else:
                    into = target / origin.name if dest.endswith("/") else target
                    into.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(origin, into)
        elif name == "RUN":
            words = [str(_under(root, w)) if w.startswith("/") else w for w in shlex.split(arg)]
            done = subprocess.run(
                ["/bin/sh", "-c", shlex.join(words)],
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                timeout=1500,
                check=False,
            )
            if done.returncode != 0:
                return done
        elif name not in ("ARG",):
            raise AssertionError(f"the replay does not know {name} in the build stage")
    return done


def _version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def test_the_image_is_the_official_python_slim_image_with_a_user_a_volume_and_a_health_check() -> None:
    build, run = stages(CONTAINERFILE.read_text(encoding="utf-8"))
    for stage in (build, run):
        assert re.fullmatch(r"docker\.io/library/python:\$\{PYTHON_VERSION\}-slim", stage.image), stage.image
    assert build.values("RUN") == ["sh deploy/install.sh /opt/prdigest"]
    assert "sync --frozen --no-dev" in (ROOT / "deploy" / "install.sh").read_text(encoding="utf-8")
    assert run.values("COPY") == ["--from=build /opt/prdigest /opt/prdigest"]  # the environment alone
    (user,) = run.values("USER")
    assert user not in ("root", "0") and "useradd --system" in " ".join(run.values("RUN"))
    assert run.values("VOLUME") == ["/data"] and run.values("WORKDIR") == ["/data"]
    env = " ".join(run.values("ENV"))
    assert "PRDIGEST_DB=/data/prdigest.db" in env and "XDG_CACHE_HOME=/data/.cache" in env
    (health,) = run.values("HEALTHCHECK")
    assert "/healthz" in health and "PRDIGEST_PORT" in health
    assert run.values("ENTRYPOINT") == ['["prdigest"]'] and run.values("CMD") == ['["serve"]']


class _Health(BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:
        self.send_response(self.status if self.path == "/healthz" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def health_server() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _probe(port: int) -> int:
    """Run the HEALTHCHECK's own command against 127.0.0.1:port; its exit code."""
    (health,) = stages(CONTAINERFILE.read_text(encoding="utf-8"))[-1].values("HEALTHCHECK")
    argv = json.loads(health.split("CMD", 1)[1])
    assert argv[0] == "python"
    env = {"PATH": os.environ.get("PATH", ""), "PRDIGEST_PORT": str(port)}
    return subprocess.run([sys.executable, *argv[1:]], env=env, capture_output=True, timeout=30).returncode


def test_the_health_check_passes_on_200_and_fails_on_503_or_silence(
    health_server: ThreadingHTTPServer,
) -> None:
    port = health_server.server_address[1]
    _Health.status = 200
    assert _probe(port) == 0
    _Health.status = 503  # serve's answer when the cache needs attention
    try:
        assert _probe(port) != 0
    finally:
        _Health.status = 200
    health_server.shutdown()
    health_server.server_close()
    assert _probe(port) != 0  # nothing listening


@pytest.mark.timeout(1800)
def test_the_build_stage_replayed_installs_a_prdigest_that_runs_without_its_sources(tmp_path: Path) -> None:
    build = stages(CONTAINERFILE.read_text(encoding="utf-8"))[0]
    online = os.environ.get("PRDIGEST_TEST_INSTALL") == "1"
    python_dir = Path(sys._base_executable).parent  # type: ignore[attr-defined]
    if not (python_dir / "python3").exists():
        pytest.skip(f"no python3 beside this interpreter's base ({python_dir}) to build a plain venv with")
    env = {
        "PATH": f"{python_dir}:/usr/bin:/bin",
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "LANG": "C.UTF-8",
    }
    env |= {name: os.environ[name] for name in (*NETWORK_VARIABLES, "UV_CACHE_DIR") if name in os.environ}
    uv = Path(sys.executable).parent / "uv"
    if not online:
        if not uv.exists():
            pytest.skip(
                "no uv beside this interpreter to install offline; PRDIGEST_TEST_INSTALL=1 reaches the index"
            )
        env |= {"UV": str(uv), "UV_OFFLINE": "1"}
    root = tmp_path / "root"
    done = replay_build(build, root, env)
    if done.returncode != 0 and not online and "Network connectivity is disabled" in done.stderr:
        pytest.skip(
            f"uv's cache cannot serve the install offline (PRDIGEST_TEST_INSTALL=1 reaches the index): {done.stderr[-500:]}"
        )
    assert done.returncode == 0, done.stderr[-3000:]

    venv = root / "opt" / "prdigest"
    shutil.rmtree(root / "src")  # the image's run stage has the environment alone
    home = tmp_path / "home"
    home.mkdir()
    run_env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    version = subprocess.run(
        [venv / "bin" / "prdigest", "--version"], env=run_env, capture_output=True, text=True, timeout=60
    )
    assert (version.returncode, version.stdout) == (0, f"prdigest, version {_version()}\n"), version
    demo = subprocess.run(
        [venv / "bin" / "prdigest", "demo", "--db", str(tmp_path / "demo.db")],
        env=run_env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert demo.returncode == 0 and "weekly digest" in demo.stdout, demo.stderr[-2000:]
    installed = {
        re.sub(r"[-_.]+", "-", p.name.split("-")[0]).lower()  # PEP 503 names
        for p in (venv / "lib").glob("python3*/site-packages/*.dist-info")
    }
    assert {"prdigest", "slack-bolt", "discord-py", "matplotlib"} <= installed
    assert not installed & set(DEV_TOOLS), installed & set(DEV_TOOLS)
    assert not any((venv / "bin" / tool).exists() for tool in DEV_TOOLS)
