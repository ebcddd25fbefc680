"""What every terminal command starts from: the settings, the rule profiles and the cache, or one
line saying what to fix (``UserError``: exit 2). Apart from ``bot.cli.main`` so its subcommands'
modules can use them without importing the group that imports them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from bot.config.errors import UserError

if TYPE_CHECKING:
    from bot.config.repo_profiles import Choosing as ProfileChoice
    from bot.config.repo_profiles import RepoProfiles
    from bot.config.settings import Settings
    from classify.rules import Profile
    from storage.prs import PRStore


def read_settings() -> Settings:
    from bot.config.settings import ConfigError, load_settings

    try:
        return load_settings()
    except ConfigError as exc:
        raise UserError(str(exc)) from None


def read_profile(settings: ProfileChoice) -> Profile:
    from bot.config.repo_profiles import active_profile
    from classify.rules import ProfileError

    try:
        return active_profile(settings)
    except ProfileError as exc:
        raise UserError(str(exc)) from None  # names the variable and the file


def repo_profiles(settings: Settings, store: PRStore) -> RepoProfiles:
    """Each repository's profile (``bot.config.repo_profiles``), read from this cache."""
    from bot.config.repo_profiles import RepoProfiles

    return RepoProfiles(settings, store.db)


def prs(n: int) -> str:
    """ "1 PR", "2 PRs": the count in the writers' English report lines."""
    return f"{n} PR" if n == 1 else f"{n} PRs"


def say(message: str) -> None:
    click.echo(f"prdigest: {message}", err=True)


def open_store(
    path: Path,
    *,
    create: bool = False,
    settings: Settings | None = None,
    profile: Profile | None = None,
) -> PRStore:
    """The cache; writers pass ``settings`` for the lock timeout and are told on stderr when they
    wait, and the ``profile`` whose title topics their writes count into the aggregates."""
    from classify.title_keys import ProfileTitleKeys
    from storage.db import StoreError, StoreUnavailable, connect
    from storage.prs import PRStore

    keys = ProfileTitleKeys(profile) if profile is not None else None
    try:
        if settings is None:
            return PRStore(connect(path, create=create), title_keys=keys)
        return PRStore(
            connect(path, create=create, lock_timeout=settings.prdigest_lock_timeout, on_wait=say),
            title_keys=keys,
        )
    except StoreUnavailable:
        raise  # disk full, I/O error, a lock held too long: exit 1 in main()
    except StoreError as exc:
        raise UserError(str(exc)) from None
