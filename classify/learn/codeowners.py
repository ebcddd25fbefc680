"""Core paths from ``CODEOWNERS``: the paths a team has named owners for.

A team that writes a CODEOWNERS file has said which paths need their reviewers; those are the
paths whose changes a digest should point at ("core-path change"). Nothing else says so: without
the file a learned profile names no core path (and says why), never guessing from words like
"core" or "engine". An entry for the whole tree (``*``, ``**``, ``/``) only names a default
reviewer, and documentation, CI and test paths are not core however owned.

The patterns are gitignore-style (GitHub's rules): ``/docs/`` is anchored, ``*.js`` matches at
any depth, a trailing ``/`` is a directory, a bare name may be a file or a directory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class OwnedPath:
    glob: str
    owners: tuple[str, ...]
    line: int


def _globs(pattern: str) -> list[str]:
    p = pattern.strip()
    anchored = p.startswith("/")
    p = p.lstrip("/")
    directory = p.endswith("/")
    p = p.rstrip("/")
    if not p or p in ("*", "**"):
        return []
    if not anchored and "/" not in p:
        p = "**/" + p
    if directory or p.endswith("/**"):
        return [p if p.endswith("/**") else p + "/**"]
    if "*" in p.rsplit("/", 1)[-1] or "." in p.rsplit("/", 1)[-1]:
        return [p]  # a file pattern ("*.py", "setup.cfg")
    return [p, p + "/**"]  # a file or a directory: both


def owned_paths(text: str) -> list[OwnedPath]:
    """Every entry of a CODEOWNERS file as profile globs (the catch-all entry left out)."""
    out: list[OwnedPath] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("\\#") else raw.strip()
        if not line:
            continue
        pattern, *owners = line.split()
        for glob in _globs(pattern):
            out.append(OwnedPath(glob, tuple(owners), number))
    return out


def core_globs(text: str, role_of: Callable[[str], str | None]) -> list[OwnedPath]:
    """The owned paths that are core: owned by someone, and not documentation, CI, tests or
    dependency files (``role_of`` tells a path's role from the glob's literal part)."""
    out: list[OwnedPath] = []
    seen: set[str] = set()
    for owned in owned_paths(text):
        if not owned.owners or owned.glob in seen:
            continue
        literal = owned.glob.replace("**/", "").replace("/**", "/x").replace("*", "x")
        if role_of(literal) is not None:
            continue
        seen.add(owned.glob)
        out.append(owned)
    return out
