"""Settings from the environment and ``.env``; a wrong value fails fast saying what to change.

Tokens are ``SecretStr`` so they never show up in a repr, a log line or a traceback.

The fields are a pydantic model (validators, types and one-line errors as before); where their
values come from is read here, as pydantic-settings read it — keyword arguments, then the
environment, then ``.env`` in the working directory (parsed by python-dotenv, as pydantic-settings
does), names matched without regard to case, empty values meaning "the default". Importing
pydantic-settings took ~40 ms of every one-shot command's start (issue 14, point 1), and pydantic
itself ~60 ms more: the one-shot reads take their few settings from ``bot.config.read_settings`` instead,
which shares the sources and checks below and defers to ``load_settings`` for any doubtful value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from bot.config.read_settings import (
    ENV_FILE,
    LLM_TIMEOUT,
    LLM_TIMEOUT_MAX,
    LOCK_TIMEOUT_MAX,
    llm_model,
    llm_url,
    repo_profiles,
    repos,
    sources,
    zone,
)
from bot.config.urls import WEBSOCKET, platform_url


class ConfigError(Exception):
    """A setting is wrong; the message names the variable and what is accepted."""


class Settings(BaseModel):
    """Every knob prdigest reads. ``.env.example`` lists exactly these fields (a test checks).

    ``Settings(**values)`` reads the environment and ``.env`` (``_env_file=None``: not ``.env``);
    keyword arguments win over both.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True, validate_default=True)

    def __init__(self, _env_file: str | Path | None = ENV_FILE, **values: Any) -> None:
        found = sources(_env_file)
        names = {n for f in type(self).model_fields.values() for n in _env_names(f)}
        names |= set(type(self).model_fields)
        merged = {k: v for k, v in found.items() if k in names}
        merged.update(values)
        super().__init__(**merged)

    # cache and defaults
    prdigest_db: Path = Field(default=Path("prdigest.db"), description="SQLite cache file")
    prdigest_repo: tuple[str, ...] = Field(
        default=(),
        description="OWNER/NAME to report on; several, comma-separated, for chat (the first is the default)",
    )
    prdigest_rules: Path | None = Field(default=None, description="your own rule profile (TOML)")
    prdigest_profile: str = Field(
        default="", description="bundled profile for every repository: vllm or generic (unset: each its own)"
    )
    prdigest_repo_profiles: tuple[tuple[str, str], ...] = Field(
        default=(), description="OWNER/NAME=PROFILE pairs: one repository's bundled profile or TOML file"
    )
    prdigest_timezone: str = Field(default="UTC", description="IANA zone for week boundaries")
    prdigest_lang: Literal["en", "zh"] = Field(default="en", description="answer language")
    prdigest_lock_timeout: float = Field(
        default=60.0,
        gt=0,
        le=LOCK_TIMEOUT_MAX,
        description="seconds a writer waits for another writer's lock",
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

    # Discord
    discord_bot_token: SecretStr | None = None
    prdigest_discord_api_url: str = "https://discord.com/api/v10"
    prdigest_discord_gateway_url: str = "wss://gateway.discord.gg"

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

    prdigest_post_timeout: float = Field(
        default=30.0,
        gt=0,
        le=300,
        description=(
            "seconds a Slack or Discord post waits for its answer; a scheduled post whose answer is "
            "lost is looked for in the channel only after twice this, before it is sent again"
        ),
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

    # a language model writing the digest's sentences from its computed facts (optional)
    prdigest_llm_url: str | None = Field(
        default=None, description="OpenAI-compatible base URL (…/chat/completions is appended)"
    )
    prdigest_llm_model: str | None = Field(default=None, description="the model name the endpoint serves")
    prdigest_llm_key: SecretStr | None = None
    prdigest_llm_timeout: float = Field(
        default=LLM_TIMEOUT,
        gt=0,
        le=LLM_TIMEOUT_MAX,
        description="seconds a digest waits for the model in all",
    )

    @field_validator("prdigest_timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        return zone(value)

    @field_validator("prdigest_discord_api_url")
    @classmethod
    def _discord_api(cls, value: str) -> str:
        return platform_url("PRDIGEST_DISCORD_API_URL", value).rstrip("/")

    @field_validator("prdigest_discord_gateway_url")
    @classmethod
    def _discord_gateway(cls, value: str) -> str:
        return platform_url("PRDIGEST_DISCORD_GATEWAY_URL", value, WEBSOCKET).rstrip("/")

    @field_validator("prdigest_llm_url")
    @classmethod
    def _llm_url(cls, value: str | None) -> str | None:
        return llm_url(value)

    @field_validator("prdigest_llm_model")
    @classmethod
    def _llm_model(cls, value: str | None, info: ValidationInfo) -> str | None:
        llm_model(info.data.get("prdigest_llm_url"), value)
        return value

    @field_validator("prdigest_repo", mode="before")
    @classmethod
    def _repos(cls, value: object) -> tuple[str, ...]:
        """``a/b``, ``a/b,c/d`` (commas or spaces), or a sequence; each must be OWNER/NAME."""
        return repos(value)

    @field_validator("prdigest_repo_profiles", mode="before")
    @classmethod
    def _repo_profiles(cls, value: object) -> tuple[tuple[str, str], ...]:
        return value if isinstance(value, tuple) else repo_profiles(value)

    @field_validator("prdigest_slack_api_url")
    @classmethod
    def _slack_url(cls, value: str) -> str:
        return platform_url("PRDIGEST_SLACK_API_URL", value)

    @property
    def default_repo(self) -> str | None:
        """The repository answered for when none is named: the first of PRDIGEST_REPO."""
        return self.prdigest_repo[0] if self.prdigest_repo else None


def _env_names(field: Any) -> tuple[str, ...]:
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return tuple(str(c) for c in alias.choices)
    return ()


# Settings read under another name too (older names kept working): alias → field.
ALIASES = {"prdigest_slack_port": "prdigest_port"}


def secret(value: SecretStr | None) -> str:
    """A secret setting's value, stripped; "" when unset."""
    return value.get_secret_value().strip() if value is not None else ""


def load_settings(**overrides: object) -> Settings:
    """Read settings, turning a validation error into one line naming the variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except UnicodeDecodeError as exc:  # .env is read as UTF-8
        raise ConfigError(
            f"{Path('.env').resolve()} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
            f"{exc.start}); save it as UTF-8"
        ) from None
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]).upper() if err["loc"] else "setting"
        message = str(err["msg"]).removeprefix("Value error, ")
        if message.startswith(name + " "):  # the check named the variable itself
            raise ConfigError(message) from None
        raise ConfigError(f"{name}: {message}") from None
