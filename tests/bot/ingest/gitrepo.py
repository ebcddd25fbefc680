"""Building small git histories for the --git tests, with controlled authors and dates."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path


class GitRepo:
    """A scratch repository; every commit gets explicit author/committer identity and dates."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "commit.gpgsign", "false")

    def git(
        self,
        *args: str,
        author: tuple[str, str] = ("Alice", "alice@example.com"),
        committed: str = "2026-05-01T12:00:00+00:00",
        authored: str | None = None,
    ) -> str:
        env = dict(os.environ)
        env.update(
            {
                "GIT_AUTHOR_NAME": author[0],
                "GIT_AUTHOR_EMAIL": author[1],
                "GIT_COMMITTER_NAME": "GitHub",
                "GIT_COMMITTER_EMAIL": "noreply@github.com",
                "GIT_AUTHOR_DATE": authored or committed,
                "GIT_COMMITTER_DATE": committed,
                "GIT_CONFIG_NOSYSTEM": "1",
                "HOME": str(self.path),
            }
        )
        out = subprocess.run(["git", "-C", str(self.path), *args], env=env, capture_output=True, check=True)
        return out.stdout.decode().strip()

    def write(self, rel: str, content: str | bytes) -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)

    def commit(self, message: str, **kw: object) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message, **kw)  # type: ignore[arg-type]
        return self.git("rev-parse", "HEAD")


def linear_history(
    path: Path,
    prs: int,
    *,
    start: datetime = datetime(2026, 1, 1, tzinfo=UTC),
    step: timedelta = timedelta(minutes=7),
    origin: str | None = None,
) -> Path:
    """A clone whose main line is ``prs`` squash merges ``[Core] Change number N (#N)``, built with
    one ``git fast-import`` (thousands of commits in well under a second)."""
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, capture_output=True)
    stream: list[bytes] = []
    for n in range(1, prs + 1):
        when = int((start + n * step).timestamp())
        message = f"[Core] Change number {n} (#{n})\n".encode()
        content = f"x = {n}\n".encode()
        stream.append(
            b"commit refs/heads/main\n"
            + f"mark :{n}\nauthor Alice <alice@example.com> {when} +0000\n".encode()
            + f"committer GitHub <noreply@github.com> {when} +0000\n".encode()
            + f"data {len(message)}\n".encode()
            + message
            + (f"from :{n - 1}\n".encode() if n > 1 else b"")
            + f"M 644 inline vllm/mod{n % 40}.py\ndata {len(content)}\n".encode()
            + content
            + b"\n"
        )
    subprocess.run(["git", "-C", str(path), "fast-import", "--quiet"], input=b"".join(stream), check=True)
    if origin is not None:
        subprocess.run(["git", "-C", str(path), "remote", "add", "origin", origin], check=True)
    return path
