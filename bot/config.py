"""Settings from the environment and ``.env``; a wrong value fails fast saying what to change.

Tokens are ``SecretStr`` so they never show up in a repr, a log line or a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from classify.rules import Profile, load_profile


class ConfigError(Exception):
    """A setting is wrong; the message names the variable and what is accepted."""


class Settings(BaseSettings):
    """Every knob prdigest reads. ``.env.example`` lists exactly these fields (a test checks)."""

    # An empty value (``PRDIGEST_REPO=`` as `.env.example` ships it) means "the default", in the
    # environment and in .env alike — not "the empty string".
    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        env_ignore_empty=True,
    )

    # cache and defaults
    prdigest_db: Path = Field(default=Path("prdigest.db"), description="SQLite cache file")
    prdigest_repo: str | None = Field(default=None, description="OWNER/NAME to report on")
    prdigest_rules: Path | None = Field(default=None, description="your own rule profile (TOML)")
    prdigest_profile: str = Field(default="vllm", description="bundled profile: vllm or generic")
    prdigest_timezone: str = Field(default="UTC", description="IANA zone for week boundaries")
    prdigest_lang: Literal["en", "zh"] = Field(default="en", description="answer language")
    prdigest_lock_timeout: float = Field(
        default=60.0, gt=0, le=86400, description="seconds a writer waits for another writer's lock"
    )

    # GitHub
    github_token: SecretStr | None = None
    prdigest_github_api_url: str = "https://api.github.com"
    prdigest_github_schema: Path | None = None

    # Slack
    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    prdigest_slack_api_url: str = "https://slack.com/api/"

    # the server (`prdigest serve`): /healthz and every front end's HTTP endpoints
    prdigest_port: int = Field(
        default=3000,
        ge=1,
        le=65535,
        validation_alias=AliasChoices("prdigest_port", "prdigest_slack_port"),
        description="HTTP port of prdigest serve; PRDIGEST_SLACK_PORT is the older name",
    )

    # scheduled digests
    prdigest_catchup: float = Field(
        default=24.0,
        ge=0,
        le=24 * 14,
        description="hours after its due time a missed digest is still posted (then recorded as skipped)",
    )

    prdigest_sync_every: float = Field(
        default=60.0,
        ge=0,
        description="minutes between the syncs prdigest serve runs with GITHUB_TOKEN (0: never)",
    )
    prdigest_admins: str = Field(
        default="",
        description="chat user ids allowed to change subscriptions, comma-separated (besides workspace admins)",
    )

    @field_validator("prdigest_timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}; use an IANA name such as Europe/Berlin") from exc
        return value

    @field_validator("prdigest_repo")
    @classmethod
    def _repo(cls, value: str | None) -> str | None:
        if value is not None and value.count("/") != 1:
            raise ValueError(f"{value!r} is not OWNER/NAME")
        return value or None


# Settings read under another name too (older names kept working): alias → field.
ALIASES = {"prdigest_slack_port": "prdigest_port"}


def secret(value: SecretStr | None) -> str:
    """A secret setting's value, stripped; "" when unset."""
    return value.get_secret_value().strip() if value is not None else ""


def active_profile(settings: Settings) -> Profile:
    """The rule profile in force: ``PRDIGEST_RULES`` (a file) wins over ``PRDIGEST_PROFILE`` (a bundled name).

    Raises ``classify.rules.ProfileError`` naming the file, key and reason.
    """
    return load_profile(settings.prdigest_rules or settings.prdigest_profile)


def load_settings(**overrides: object) -> Settings:
    """Read settings, turning a validation error into one line naming the variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except UnicodeDecodeError as exc:  # pydantic-settings reads .env as UTF-8
        raise ConfigError(
            f"{Path('.env').resolve()} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
            f"{exc.start}); save it as UTF-8"
        ) from None
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]).upper() if err["loc"] else "setting"
        raise ConfigError(f"{name}: {err['msg']}") from None
