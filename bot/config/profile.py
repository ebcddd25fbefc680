"""The rule profile in force, chosen by the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from classify.rules import Profile, load_profile


class ProfileChoice(Protocol):
    """The two settings that choose the rule profile."""

    @property
    def prdigest_rules(self) -> Path | None: ...

    @property
    def prdigest_profile(self) -> str: ...


def active_profile(settings: ProfileChoice) -> Profile:
    """``PRDIGEST_RULES`` (a file) wins over ``PRDIGEST_PROFILE`` (a bundled name).

    Raises ``classify.rules.ProfileError`` naming the file, key and reason.
    """
    return load_profile(settings.prdigest_rules or settings.prdigest_profile)
