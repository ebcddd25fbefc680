"""The settings a one-shot read uses, read without pydantic (issue 14, point 1).

``prdigest pr N``, ``risks``, ``search`` and ``help`` need seven settings: the cache, the rule
profile, the default repository, the language, the time zone, the lock timeout and whether a
GitHub token is set; a digest also reads the language-model settings (``PRDIGEST_LLM_*``: the
model that may word it, ``bot.prose``). ``bot.config.settings.Settings`` checks all of them and every other knob through
pydantic, whose import and model building took ~60 ms of every start — six times the bare
interpreter. ``read_settings`` reads the same sources in the same order (``sources``) and
accepts each value only in its plain, valid form, using the same checks as ``Settings``
(``zone``, ``repos``). Anything else — a value it is not sure of — returns None, and the caller
reads ``Settings`` for the exact one-line error (or the value pydantic accepts), so the answer to
a wrong setting is never different. Settings the read path does not use (ports, chat tokens,
platform URLs) are checked by the commands that use them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

ENV_FILE = ".env"
LANGS = ("en", "zh")
LOCK_TIMEOUT_MAX = 86400.0
LLM_TIMEOUT, LLM_TIMEOUT_MAX = 20.0, 600.0
_USED = "prdigest_db prdigest_rules prdigest_profile prdigest_repo prdigest_timezone prdigest_lang".split()
_USED += ["prdigest_lock_timeout", "github_token", "prdigest_repo_profiles"]
_LLM = ["prdigest_llm_url", "prdigest_llm_model", "prdigest_llm_key", "prdigest_llm_timeout"]
_PLAIN_NUMBER = re.compile(r"\d{1,6}(\.\d{1,6})?").fullmatch


def sources(env_file: str | Path | None) -> dict[str, Any]:
    """The values of the environment over those of ``env_file``, by lower-case name; an empty
    value (``PRDIGEST_REPO=`` as `.env.example` ships it) means "the default", not "the empty
    string", in both."""
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
    if not isinstance(value, str):
        raise ValueError("expected OWNER/NAME=PROFILE, or several separated by commas")
    out: dict[str, str] = {}
    for word in value.replace(",", " ").split():
        repo, sep, profile = word.partition("=")
        if not sep or not profile or not repos(repo):
            raise ValueError(f"{word!r} is not OWNER/NAME=PROFILE")
        out[repo] = profile
    return tuple(out.items())


def llm_url(value: str | None) -> str | None:
    """PRDIGEST_LLM_URL without its trailing slash: https://, or http:// to this machine only
    (the key travels with every request); ``ValueError`` naming the variable otherwise."""
    if value is None or not value.strip():
        return None
    from bot.config.urls import platform_url

    return platform_url("PRDIGEST_LLM_URL", value).rstrip("/")


def llm_model(url: str | None, model: str | None) -> None:
    """A model URL needs the name of the model it serves (every request names it)."""
    if url and not (model or "").strip():
        raise ValueError(
            "PRDIGEST_LLM_MODEL is needed with PRDIGEST_LLM_URL: the model name the endpoint serves"
        )


@dataclass(frozen=True, slots=True)
class ReadSettings:
    """The settings of a one-shot read, named as ``bot.config.settings.Settings`` names them."""

    prdigest_db: Path = Path("prdigest.db")
    prdigest_repo: tuple[str, ...] = ()
    prdigest_rules: Path | None = None
    prdigest_profile: str = ""
    prdigest_repo_profiles: tuple[tuple[str, str], ...] = ()
    prdigest_timezone: str = "UTC"
    prdigest_lang: str = "en"
    prdigest_lock_timeout: float = 60.0
    has_github_token: bool = False
    prdigest_llm_url: str | None = None
    prdigest_llm_model: str | None = None
    prdigest_llm_key: str | None = field(default=None, repr=False)
    prdigest_llm_timeout: float = LLM_TIMEOUT

    @property
    def default_repo(self) -> str | None:
        """The repository answered for when none is named: the first of PRDIGEST_REPO."""
        return self.prdigest_repo[0] if self.prdigest_repo else None


def read_settings(env_file: str | Path | None = ENV_FILE) -> ReadSettings | None:
    """The read path's settings, or None when one of them needs ``bot.config.settings.load_settings``
    (a value that may be wrong, or valid only in a form this reader does not parse)."""
    try:
        found = sources(env_file)
    except UnicodeDecodeError:
        return None  # load_settings says which byte of .env is not UTF-8
    if any(not isinstance(found.get(name, ""), str) for name in _USED):
        return None  # a bare NAME line in .env (no "="): load_settings says what it makes of it
    values: dict[str, Any] = {}
    if "prdigest_db" in found:
        values["prdigest_db"] = Path(found["prdigest_db"])
    if "prdigest_rules" in found:
        values["prdigest_rules"] = Path(found["prdigest_rules"])
    if "prdigest_profile" in found:
        values["prdigest_profile"] = found["prdigest_profile"]
    try:
        if "prdigest_repo" in found:
            values["prdigest_repo"] = repos(found["prdigest_repo"])
        if "prdigest_timezone" in found:
            values["prdigest_timezone"] = zone(found["prdigest_timezone"])
        if "prdigest_repo_profiles" in found:
            values["prdigest_repo_profiles"] = repo_profiles(found["prdigest_repo_profiles"])
    except ValueError:
        return None
    if "prdigest_lang" in found:
        if found["prdigest_lang"] not in LANGS:
            return None
        values["prdigest_lang"] = found["prdigest_lang"]
    if "prdigest_lock_timeout" in found:
        text = found["prdigest_lock_timeout"]
        if not _PLAIN_NUMBER(text) or not 0 < float(text) <= LOCK_TIMEOUT_MAX:
            return None
        values["prdigest_lock_timeout"] = float(text)
    values["has_github_token"] = bool(str(found.get("github_token", "")).strip())
    llm = _llm(found)
    if llm is None:
        return None
    return ReadSettings(**values, **llm)


def _llm(found: dict[str, Any]) -> dict[str, Any] | None:
    """The language-model settings as ``Settings`` checks them, or None when one is doubtful."""
    if any(not isinstance(found.get(name, ""), str) for name in _LLM):
        return None
    out: dict[str, Any] = {}
    try:
        out["prdigest_llm_url"] = llm_url(found.get("prdigest_llm_url"))
        llm_model(out["prdigest_llm_url"], found.get("prdigest_llm_model"))
    except ValueError:
        return None
    out["prdigest_llm_model"] = found.get("prdigest_llm_model")
    out["prdigest_llm_key"] = found.get("prdigest_llm_key")
    if "prdigest_llm_timeout" in found:
        text = found["prdigest_llm_timeout"]
        if not _PLAIN_NUMBER(text) or not 0 < float(text) <= LLM_TIMEOUT_MAX:
            return None
        out["prdigest_llm_timeout"] = float(text)
    return out
