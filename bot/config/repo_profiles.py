"""Which rule profile answers for a repository, and why.

In order: the repository's entry in ``PRDIGEST_REPO_PROFILES``; ``PRDIGEST_RULES`` or
``PRDIGEST_PROFILE`` (one profile for every repository, as before); a bundled profile that names
the repository itself (``repos = ["vllm-project/vllm"]`` in ``vllm.toml``); the profile learned
from the repository's history and kept in the cache (``storage.learned``); else the generic
profile — with the reason, so ``pr`` and ``digest`` can say it ("fewer than 200 PRs cached").

A learned profile is loaded like any profile file: its TOML is written once (by content) to
``$XDG_CACHE_HOME/prdigest/learned/`` and read through the one profile loader
(``classify.rules.load_profile``), so it is compiled once per content and its classifier
processes load it as they load any file.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from classify.profile_cache import cache_dir
from classify.rules import Profile, ProfileError, bundled_profiles, load_profile

MIN_LEARN_PRS = 200
"""PRs of a repository the cache must hold before a profile is learned from them"""
RELEARN_GROWTH = 0.25
"""a learned profile is learned again once the repository's cached PRs have grown by this share"""
FALLBACK = "generic"


class Choosing(Protocol):
    """The settings that choose rule profiles (``Settings`` and ``ReadSettings`` both have them)."""

    @property
    def prdigest_rules(self) -> Path | None: ...

    @property
    def prdigest_profile(self) -> str: ...

    @property
    def prdigest_repo_profiles(self) -> tuple[tuple[str, str], ...]: ...


@dataclass(frozen=True)
class Choice:
    """The profile answering for a repository and why: ``map`` (PRDIGEST_REPO_PROFILES), ``rules``
    (PRDIGEST_RULES), ``profile`` (PRDIGEST_PROFILE), ``bundled`` (a bundled profile naming the
    repository), ``learned`` (learned from its history), ``too-few`` (the generic profile: fewer
    than ``MIN_LEARN_PRS`` PRs cached; ``prs`` says how many) or ``default`` (no repository
    known: the default profile, as before profiles were per repository)."""

    profile: Profile
    how: str
    prs: int = 0
    needed: int = MIN_LEARN_PRS
    stamp: str = ""
    """when the learned profile was learned (a chosen automatic profile is chosen again when it changes)"""

    @property
    def automatic(self) -> bool:
        """Chosen by prdigest, not by the settings: worth saying which it is."""
        return self.how in ("learned", "too-few")


def active_profile(settings: Choosing) -> Profile:
    """The profile answering when no repository is named (``PRDIGEST_RULES``, else
    ``PRDIGEST_PROFILE``, else the bundled default). Raises ``classify.rules.ProfileError``
    naming the file, key and reason."""
    return choose(settings, None).profile


def configured(settings: Choosing, repo: str | None) -> str | Path | None:
    """The profile the settings name for ``repo`` (a bundled name or a file), or None."""
    if repo is not None:
        for name, profile in settings.prdigest_repo_profiles:
            if name.lower() == repo.lower():
                return profile
    if settings.prdigest_rules is not None:
        return settings.prdigest_rules
    return settings.prdigest_profile.strip() or None


_VARIABLE = {"map": "PRDIGEST_REPO_PROFILES", "rules": "PRDIGEST_RULES", "profile": "PRDIGEST_PROFILE"}


def _how_configured(settings: Choosing, repo: str | None) -> str:
    if repo is not None and any(n.lower() == repo.lower() for n, _ in settings.prdigest_repo_profiles):
        return "map"
    return "rules" if settings.prdigest_rules is not None else "profile"


@functools.cache
def _bundled_repos() -> dict[str, str]:
    """Repository (lower case) → the bundled profile that names it."""
    out: dict[str, str] = {}
    for name in bundled_profiles():
        for repo in load_profile(name).repos:
            out.setdefault(repo.lower(), name)
    return out


def choose(settings: Choosing, repo: str | None, db: Any = None) -> Choice:
    """The profile answering for ``repo`` (see the module docstring); ``db``: the cache (any
    connection ``storage.learned`` reads), for a learned profile and the PR count."""
    named = configured(settings, repo)
    if named is not None:
        how = _how_configured(settings, repo)
        try:
            return Choice(load_profile(named), how)
        except (
            ProfileError
        ) as exc:  # say which setting chose it: "PRDIGEST_PROFILE: rule profile rejected: …"
            raise ProfileError(f"{_VARIABLE[how]}: rule profile rejected: {exc}") from None
    if repo is None:
        return Choice(load_profile(None), "default")
    bundled = _bundled_repos().get(repo.lower())
    if bundled is not None:
        return Choice(load_profile(bundled), "bundled")
    if db is not None:
        from storage.learned import read_learned

        row = read_learned(db, repo)
        if row is not None:
            return Choice(
                load_profile(learned_file(repo, row.toml)), "learned", row.prs, stamp=_stamp(db, repo)
            )
        return Choice(load_profile(FALLBACK), "too-few", _count(db, repo))
    return Choice(load_profile(FALLBACK), "too-few")


def _stamp(db: Any, repo: str) -> str:
    """When ``repo``'s profile was last learned ("" when never, or before migration 0015)."""
    import sqlite3

    conn = getattr(db, "conn", db)
    try:
        row = conn.execute("SELECT learned_at FROM learned_profiles WHERE repo = ?", (repo,)).fetchone()
    except sqlite3.OperationalError:
        return ""
    return str(row[0]) if row else ""


def _count(db: Any, repo: str) -> int:
    conn = getattr(db, "conn", db)
    return int(conn.execute("SELECT count(*) FROM prs WHERE repo = ?", (repo,)).fetchone()[0])


_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")


def learned_file(repo: str, toml: str) -> Path:
    """The learned profile's TOML as a file the profile loader reads: one per content, written
    once (atomically) under the cache directory, or a temporary directory when it cannot be."""
    digest = hashlib.blake2b(toml.encode(), digest_size=10).hexdigest()
    name = f"{_SLUG.sub('-', repo)}-{digest}.toml"
    for base in (cache_dir() / "learned", Path(_tmp()) / f"prdigest-learned-{os.getuid()}"):
        path = base / name
        if path.is_file():
            return path
        with contextlib.suppress(OSError):
            base.mkdir(parents=True, exist_ok=True)
            tmp = base / f".{name}.{os.getpid()}.tmp"
            tmp.write_text(toml, encoding="utf-8")
            os.replace(tmp, path)
            return path
    raise OSError(f"cannot write the learned profile of {repo} to {cache_dir() / 'learned'}")


def _tmp() -> str:
    import tempfile

    return tempfile.gettempdir()


class RepoProfiles:
    """Each repository's profile for one process, chosen once (``choose``) and kept."""

    def __init__(self, settings: Choosing, db: Any = None) -> None:
        self.settings = settings
        self.db = db
        self._chosen: dict[str | None, Choice] = {}

    def choice(self, repo: str | None) -> Choice:
        key = repo.lower() if repo else None
        hit = self._chosen.get(key)
        stale = hit is not None and hit.automatic and repo is not None and _stamp(self.db, repo) != hit.stamp
        if hit is None or stale or (hit.how == "too-few" and self.db is not None):
            hit = self._chosen[key] = choose(self.settings, repo, self.db)
        return hit

    def __call__(self, repo: str | None) -> Profile:
        return self.choice(repo).profile

    def forget(self, repo: str) -> None:
        """Choose again at the next question (a profile was just learned or learned again)."""
        self._chosen.pop(repo.lower(), None)
