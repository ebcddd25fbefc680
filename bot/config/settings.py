"""Settings from the environment and ``.env``; a wrong value fails fast saying what to change.

One reader for every command: each setting is declared once in ``FIELDS`` (default, parser,
description, older names) and read from keyword arguments, then the environment, then ``.env``
in the working directory (parsed by python-dotenv), names matched without regard to case, empty
values meaning "the default". A value that does not parse is one line naming the variable and
what is accepted, worded as pydantic words it (``PRDIGEST_PORT: Input should be less than or
equal to 65535``), so the messages people met before stay the same.

Why not pydantic-settings: a one-shot command (``prdigest pr N``) starts in a fraction of a
second, and importing pydantic and building a settings model was ~60 ms of it, six times the
bare interpreter; these few plain parsers cost nothing to import.

Tokens are ``Secret``s, so they never show up in a repr, a log line or a traceback.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.config.urls import HTTP, WEBSOCKET, platform_url

if TYPE_CHECKING:
    from commands.invocations import Defaults
    from commands.model import Lang

ENV_FILE = ".env"
LOCK_TIMEOUT_MAX = 86400.0
LLM_TIMEOUT, LLM_TIMEOUT_MAX = 20.0, 600.0


class ConfigError(Exception):
    """A setting is wrong; the message names the variable and what is accepted."""


class Secret:
    """A token: its value only through ``get_secret_value()``; shown as stars everywhere else."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')" if self._value else "Secret('')"

    def __str__(self) -> str:
        return "**********" if self._value else ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


# -- where values come from --------------------------------------------------------------------------


def sources(env_file: str | Path | None) -> dict[str, Any]:
    """The values of the environment over those of ``env_file``, by lower-case name; an empty
    value (``PRDIGEST_REPO=`` as `.env.example` ships it) means "the default", not "the empty
    string", in both. A bare ``NAME`` line in ``.env`` (no ``=``) gives None."""
    values: dict[str, Any] = {}
    if env_file is not None and Path(env_file).expanduser().is_file():
        from dotenv import dotenv_values

        for key, value in dotenv_values(Path(env_file).expanduser(), encoding="utf-8").items():
            if value != "":
                values[key.lower()] = value
    for key, value in os.environ.items():
        if value != "":
            values[key.lower()] = value
    return values


# -- parsers: text (or an already typed value) in, the setting's value out, ValueError with the reason --


def zone(value: str) -> str:
    """``value`` if it names an IANA time zone; else ``ValueError`` saying what to use."""
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {value!r}; use an IANA name such as Europe/Berlin") from exc
    return value


def repos(value: object) -> tuple[str, ...]:
    """``a/b``, ``a/b,c/d`` (commas or spaces), or a sequence; each must be OWNER/NAME."""
    if value is None:
        return ()
    if isinstance(value, str):
        words = value.replace(",", " ").split()
    elif isinstance(value, list | tuple):
        words = [str(v).strip() for v in value]
    else:
        raise ValueError("expected OWNER/NAME, or several separated by commas")
    for word in words:
        if word.count("/") != 1 or word.startswith("/") or word.endswith("/"):
            raise ValueError(f"{word!r} is not OWNER/NAME")
    return tuple(dict.fromkeys(words))


def repo_profiles(value: object) -> tuple[tuple[str, str], ...]:
    """``OWNER/NAME=PROFILE`` pairs (commas or spaces between them; PROFILE a bundled name or a
    TOML file): the profile of each repository named, where the others get theirs as usual."""
    if value is None:
        return ()
    if isinstance(value, tuple):  # already read (``Settings.replace``)
        return tuple((str(repo), str(profile)) for repo, profile in value)
    if not isinstance(value, str):
        raise ValueError("expected OWNER/NAME=PROFILE, or several separated by commas")
    out: dict[str, str] = {}
    for word in value.replace(",", " ").split():
        repo, sep, profile = word.partition("=")
        if not sep or not profile or not repos(repo):
            raise ValueError(f"{word!r} is not OWNER/NAME=PROFILE")
        out[repo] = profile
    return tuple(out.items())


def llm_url(value: object) -> str | None:
    """PRDIGEST_LLM_URL without its trailing slash: https://, or http:// to this machine only
    (the key travels with every request); unset or blank: no model."""
    if value is None or not _text(value).strip():
        return None
    return platform_url("PRDIGEST_LLM_URL", _text(value)).rstrip("/")


def llm_model(url: str | None, model: str | None) -> None:
    """A model URL needs the name of the model it serves (every request names it)."""
    if url and not (model or "").strip():
        raise ValueError(
            "PRDIGEST_LLM_MODEL is needed with PRDIGEST_LLM_URL: the model name the endpoint serves"
        )


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("Input should be a valid string")
    return value


def _path(value: object) -> Path:
    if isinstance(value, Path):
        return value
    return Path(_text(value))


def _optional_text(value: object) -> str | None:
    return None if value is None else _text(value)


def _optional_path(value: object) -> Path | None:
    return None if value is None else _path(value)


def _secret(value: object) -> Secret | None:
    if value is None:
        return None
    if hasattr(value, "get_secret_value"):
        return Secret(str(value.get_secret_value()))
    return Secret(_text(value))


def _choice(*allowed: str) -> Callable[[object], str]:
    def parse(value: object) -> str:
        if value not in allowed:
            choices = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
            raise ValueError(f"Input should be {choices}")
        return str(value)

    return parse


def _bounds(value: float, ge: float | None, gt: float | None, le: float | None) -> None:
    def shown(x: float) -> str:
        return str(int(x)) if float(x).is_integer() else str(x)

    if le is not None and not value <= le:
        raise ValueError(f"Input should be less than or equal to {shown(le)}")
    if gt is not None and not value > gt:
        raise ValueError(f"Input should be greater than {shown(gt)}")
    if ge is not None and not value >= ge:
        raise ValueError(f"Input should be greater than or equal to {shown(ge)}")


def _number(
    *, ge: float | None = None, gt: float | None = None, le: float | None = None
) -> Callable[[object], float]:
    def parse(value: object) -> float:
        try:
            number = float(value.strip() if isinstance(value, str) else value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError("Input should be a valid number, unable to parse string as a number") from None
        _bounds(number, ge, gt, le)
        return number

    return parse


def _integer(*, ge: int | None = None, le: int | None = None) -> Callable[[object], int]:
    def parse(value: object) -> int:
        try:
            number = int(value.strip() if isinstance(value, str) else value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            try:  # "4000.0" is a whole number too
                whole = float(value)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                whole = math.nan
            if not whole.is_integer():
                raise ValueError(
                    "Input should be a valid integer, unable to parse string as an integer"
                ) from None
            number = int(whole)
        _bounds(number, ge, None, le)
        return number

    return parse


def _url(
    setting: str, schemes: tuple[str, str] = HTTP, *, trailing_slash: bool = True
) -> Callable[[object], str]:
    def parse(value: object) -> str:
        url = platform_url(setting, _text(value), schemes)
        return url if trailing_slash else url.rstrip("/")

    return parse


# -- the settings ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One setting: its default, how its text is read, what it is for, its older names."""

    default: Any
    parse: Callable[[Any], Any]
    description: str = ""
    aliases: tuple[str, ...] = ()


FIELDS: dict[str, Field] = {
    # cache and defaults
    "prdigest_db": Field(Path("prdigest.db"), _path, "SQLite cache file"),
    "prdigest_repo": Field(
        (), repos, "OWNER/NAME to report on; several, comma-separated, for chat (the first is the default)"
    ),
    "prdigest_rules": Field(None, _optional_path, "your own rule profile (TOML)"),
    "prdigest_profile": Field(
        "", _text, "bundled profile for every repository: vllm or generic (unset: each its own)"
    ),
    "prdigest_repo_profiles": Field(
        (), repo_profiles, "OWNER/NAME=PROFILE pairs: one repository's bundled profile or TOML file"
    ),
    "prdigest_timezone": Field("UTC", lambda v: zone(_text(v)), "IANA zone for week boundaries"),
    "prdigest_lang": Field("en", _choice("en", "zh"), "answer language"),
    "prdigest_lock_timeout": Field(
        60.0, _number(gt=0, le=LOCK_TIMEOUT_MAX), "seconds a writer waits for another writer's lock"
    ),
    # GitHub
    "github_token": Field(None, _secret),
    "prdigest_github_api_url": Field("https://api.github.com", _text),
    "prdigest_github_schema": Field(None, _optional_path),
    # Slack
    "slack_bot_token": Field(None, _secret),
    "slack_signing_secret": Field(None, _secret),
    "slack_app_token": Field(None, _secret),
    "prdigest_slack_api_url": Field("https://slack.com/api/", _url("PRDIGEST_SLACK_API_URL")),
    # Discord
    "discord_bot_token": Field(None, _secret),
    "prdigest_discord_api_url": Field(
        "https://discord.com/api/v10", _url("PRDIGEST_DISCORD_API_URL", trailing_slash=False)
    ),
    "prdigest_discord_gateway_url": Field(
        "wss://gateway.discord.gg", _url("PRDIGEST_DISCORD_GATEWAY_URL", WEBSOCKET, trailing_slash=False)
    ),
    # the server (`prdigest serve`): /healthz and every front end's HTTP endpoints
    "prdigest_port": Field(
        3000,
        _integer(ge=1, le=65535),
        "HTTP port of prdigest serve; PRDIGEST_SLACK_PORT is the older name",
        aliases=("prdigest_slack_port",),
    ),
    # scheduled digests
    "prdigest_catchup": Field(
        24.0,
        _number(ge=0, le=24 * 14),
        "hours after its due time a missed digest is still posted (then recorded as skipped)",
    ),
    "prdigest_post_timeout": Field(
        30.0,
        _number(gt=0, le=300),
        "seconds a Slack or Discord post waits for its answer; a scheduled post whose answer is "
        "lost is looked for in the channel only after twice this, before it is sent again",
    ),
    "prdigest_sync_every": Field(
        60.0, _number(ge=0), "minutes between the syncs prdigest serve runs with GITHUB_TOKEN (0: never)"
    ),
    "prdigest_admins": Field(
        "", _text, "chat user ids allowed to change subscriptions, comma-separated (besides workspace admins)"
    ),
    # a language model writing the digest's sentences from its computed facts (optional)
    "prdigest_llm_url": Field(None, llm_url, "OpenAI-compatible base URL (…/chat/completions is appended)"),
    "prdigest_llm_model": Field(None, _optional_text, "the model name the endpoint serves"),
    "prdigest_llm_key": Field(None, _secret),
    "prdigest_llm_timeout": Field(
        LLM_TIMEOUT, _number(gt=0, le=LLM_TIMEOUT_MAX), "seconds a digest waits for the model in all"
    ),
}

# Settings read under another name too (older names kept working): alias → field.
ALIASES = {alias: name for name, f in FIELDS.items() for alias in f.aliases}


class Settings:
    """Every knob prdigest reads (``FIELDS``). ``.env.example`` lists exactly these (a test checks).

    ``Settings(**values)`` reads the environment and ``.env`` (``_env_file=None``: not ``.env``);
    keyword arguments win over both. A value that does not parse raises ``ValueError`` naming the
    variable (``load_settings`` turns it into a ``ConfigError``).
    """

    prdigest_db: Path
    prdigest_repo: tuple[str, ...]
    prdigest_rules: Path | None
    prdigest_profile: str
    prdigest_repo_profiles: tuple[tuple[str, str], ...]
    prdigest_timezone: str
    prdigest_lang: str
    prdigest_lock_timeout: float
    github_token: Secret | None
    prdigest_github_api_url: str
    prdigest_github_schema: Path | None
    slack_bot_token: Secret | None
    slack_signing_secret: Secret | None
    slack_app_token: Secret | None
    prdigest_slack_api_url: str
    discord_bot_token: Secret | None
    prdigest_discord_api_url: str
    prdigest_discord_gateway_url: str
    prdigest_port: int
    prdigest_catchup: float
    prdigest_post_timeout: float
    prdigest_sync_every: float
    prdigest_admins: str
    prdigest_llm_url: str | None
    prdigest_llm_model: str | None
    prdigest_llm_key: Secret | None
    prdigest_llm_timeout: float

    def __init__(self, _env_file: str | Path | None = ENV_FILE, **values: Any) -> None:
        unknown = sorted(set(values) - set(FIELDS) - set(ALIASES))
        if unknown:
            raise TypeError(f"Settings has no setting {unknown[0]!r}")
        found = sources(_env_file)
        for name, f in FIELDS.items():
            given = next((n for n in (name, *f.aliases) if n in values), None)
            if given is not None:
                raw = values[given]
            else:
                raw = next((found[n] for n in (name, *f.aliases) if n in found), f.default)
            try:
                value = f.parse(raw)
            except ValueError as exc:
                raise ValueError(_line(name, str(exc))) from None
            object.__setattr__(self, name, value)
        try:  # the one check that reads two settings
            llm_model(self.prdigest_llm_url, self.prdigest_llm_model)
        except ValueError as exc:
            raise ValueError(_line("prdigest_llm_model", str(exc))) from None

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in FIELDS}

    def replace(self, **changes: Any) -> Settings:
        """These settings with ``changes`` (parsed as any value is), the environment not read again."""
        return Settings(_env_file=None, **{**self.as_dict(), **changes})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Settings) and self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        return "Settings(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in FIELDS) + ")"

    @property
    def default_repo(self) -> str | None:
        """The repository answered for when none is named: the first of PRDIGEST_REPO."""
        return self.prdigest_repo[0] if self.prdigest_repo else None

    def command_defaults(self, *, chat: bool) -> Defaults:
        """What these settings give every command a front end runs: the default repository,
        language and time zone; chat acts on PRDIGEST_REPO's repositories only (none set: those
        in the cache), a terminal on any."""
        from commands.invocations import Defaults

        lang: Lang = "zh" if self.prdigest_lang == "zh" else "en"
        return Defaults(
            repo=self.default_repo,
            allowed_repos=self.prdigest_repo if chat else None,
            lang=lang,
            timezone=self.prdigest_timezone,
        )


def _line(name: str, message: str) -> str:
    variable = name.upper()
    if message.startswith(variable + " "):  # the check named the variable itself
        return message
    return f"{variable}: {message}"


def secret(value: Secret | None) -> str:
    """A secret setting's value, stripped; "" when unset."""
    return value.get_secret_value().strip() if value is not None else ""


def load_settings(**overrides: object) -> Settings:
    """Read settings, turning a wrong value into one line naming the variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except UnicodeDecodeError as exc:  # .env is read as UTF-8
        raise ConfigError(
            f"{Path('.env').resolve()} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
            f"{exc.start}); save it as UTF-8"
        ) from None
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
