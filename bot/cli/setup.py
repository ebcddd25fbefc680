"""What every terminal command starts from: the settings and the rule profile, or one line saying
what to fix (``UserError``: exit 2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.config.errors import UserError

if TYPE_CHECKING:
    from bot.config.profile import ProfileChoice
    from bot.config.settings import Settings
    from classify.rules import Profile


def read_settings() -> Settings:
    from bot.config.settings import ConfigError, load_settings

    try:
        return load_settings()
    except ConfigError as exc:
        raise UserError(str(exc)) from None


def read_profile(settings: ProfileChoice) -> Profile:
    from bot.config.profile import active_profile
    from classify.rules import ProfileError

    try:
        return active_profile(settings)
    except ProfileError as exc:
        raise UserError(f"rule profile rejected: {exc}") from None
