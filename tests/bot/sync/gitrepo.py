"""Building small git histories for the --git tests, with controlled authors and dates."""

from __future__ import annotations

import os
import subprocess
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
