"""Settings read from the environment and .env without pydantic-settings (bot.config.settings): the same
precedence, parsing and one-line errors pydantic-settings gave (checked side by side against it
when it was replaced; these tests pin the behaviour)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config.read_settings import read_settings
from bot.config.settings import ConfigError, load_settings, secret

DOTENV = """\
# a comment
export PRDIGEST_REPO="a/b, c/d"
prdigest_lang=zh
PRDIGEST_TIMEZONE='Europe/Berlin'  # a trailing comment
PRDIGEST_SLACK_PORT=4000
PRDIGEST_LOCK_TIMEOUT=
GITHUB_TOKEN=ghp_x#kept
UNRELATED=1
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("PRDIGEST_REPO", "PRDIGEST_LANG", "PRDIGEST_TIMEZONE", "PRDIGEST_PORT", "PRDIGEST_DB"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.delenv("PRDIGEST_SLACK_PORT", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(DOTENV, encoding="utf-8")
    return tmp_path


def test_dotenv_is_read_as_python_dotenv_reads_it(home: Path) -> None:
    s = load_settings()
    assert s.prdigest_repo == ("a/b", "c/d")
    assert s.prdigest_lang == "zh"  # names without regard to case
    assert s.prdigest_timezone == "Europe/Berlin"
    assert s.prdigest_port == 4000  # the older name still works
    assert s.prdigest_lock_timeout == 60.0  # empty: the default
    assert secret(s.github_token) == "ghp_x#kept"


def test_the_environment_wins_over_dotenv_and_arguments_over_both(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRDIGEST_LANG", "en")
    monkeypatch.setenv("prdigest_db", "lower.db")
    assert load_settings().prdigest_lang == "en"
    assert str(load_settings().prdigest_db) == "lower.db"
    assert load_settings(prdigest_lang="zh").prdigest_lang == "zh"
    assert load_settings(_env_file=None).prdigest_repo == ()  # .env not read


@pytest.mark.parametrize(
    ("name", "value", "line"),
    [
        ("PRDIGEST_LANG", "fr", "PRDIGEST_LANG: Input should be 'en' or 'zh'"),
        ("PRDIGEST_PORT", "99999", "PRDIGEST_PORT: Input should be less than or equal to 65535"),
        ("PRDIGEST_TIMEZONE", "Mars/Base", "PRDIGEST_TIMEZONE: unknown time zone 'Mars/Base'"),
        ("PRDIGEST_REPO", "nope", "PRDIGEST_REPO: 'nope' is not OWNER/NAME"),
    ],
)
def test_a_wrong_value_is_one_line_naming_the_variable(
    home: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, line: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert str(caught.value).startswith(line) and "\n" not in str(caught.value)


_READ_FIELDS = (
    "prdigest_db",
    "prdigest_repo",
    "prdigest_rules",
    "prdigest_profile",
    "prdigest_timezone",
    "prdigest_lang",
    "prdigest_lock_timeout",
    "prdigest_repo_profiles",
)


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"PRDIGEST_DB": "x.db", "PRDIGEST_RULES": "mine.toml", "PRDIGEST_PROFILE": "generic"},
        {"PRDIGEST_LOCK_TIMEOUT": "2.5", "GITHUB_TOKEN": "  "},
        {"prdigest_repo": "e/f g/h e/f"},
        {"PRDIGEST_REPO_PROFILES": "vllm-project/vllm=vllm, a/b=mine.toml"},
    ],
)
def test_the_read_paths_settings_are_those_of_settings(
    home: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    """``bot.config.read_settings`` (no pydantic: one-shot reads) reads what ``load_settings`` reads."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    quick, full = read_settings(), load_settings()
    assert quick is not None
    assert {n: getattr(quick, n) for n in _READ_FIELDS} == {n: getattr(full, n) for n in _READ_FIELDS}
    assert quick.default_repo == full.default_repo
    assert quick.has_github_token == bool(secret(full.github_token))


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PRDIGEST_LANG", "fr"),
        ("PRDIGEST_TIMEZONE", "Mars/Base"),
        ("PRDIGEST_REPO", "nope"),
        ("PRDIGEST_LOCK_TIMEOUT", "-1"),
        ("PRDIGEST_LOCK_TIMEOUT", "1e2"),  # valid for pydantic, not in the plain form: it decides
        ("PRDIGEST_LOCK_TIMEOUT", "90000"),
        ("PRDIGEST_REPO_PROFILES", "a/b"),
    ],
)
def test_a_doubtful_value_is_left_to_settings(
    home: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    assert read_settings() is None


def test_a_bare_name_in_dotenv_is_left_to_settings(home: Path) -> None:
    (home / ".env").write_text("PRDIGEST_LANG\n", encoding="utf-8")
    assert read_settings() is None
