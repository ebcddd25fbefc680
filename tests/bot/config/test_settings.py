"""Settings read from the environment and .env (bot.config.settings, one reader for every command):
the precedence, parsing and one-line errors pydantic-settings gave (checked side by side against it
when it was replaced; these tests pin the behaviour)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
        (
            "PRDIGEST_LOCK_TIMEOUT",
            "90000",
            "PRDIGEST_LOCK_TIMEOUT: Input should be less than or equal to 86400",
        ),
        ("PRDIGEST_LOCK_TIMEOUT", "0", "PRDIGEST_LOCK_TIMEOUT: Input should be greater than 0"),
        ("PRDIGEST_LOCK_TIMEOUT", "abc", "PRDIGEST_LOCK_TIMEOUT: Input should be a valid number"),
        ("PRDIGEST_PORT", "abc", "PRDIGEST_PORT: Input should be a valid integer"),
        ("PRDIGEST_PORT", "3.5", "PRDIGEST_PORT: Input should be a valid integer"),
        ("PRDIGEST_PORT", "0", "PRDIGEST_PORT: Input should be greater than or equal to 1"),
        ("PRDIGEST_CATCHUP", "400", "PRDIGEST_CATCHUP: Input should be less than or equal to 336"),
        ("PRDIGEST_SYNC_EVERY", "-1", "PRDIGEST_SYNC_EVERY: Input should be greater than or equal to 0"),
        ("PRDIGEST_SLACK_API_URL", "http://slack.example.com/api/", "PRDIGEST_SLACK_API_URL"),
        ("PRDIGEST_REPO_PROFILES", "a/b", "PRDIGEST_REPO_PROFILES: 'a/b' is not OWNER/NAME=PROFILE"),
        ("PRDIGEST_REPO_PROFILES", "nope=vllm", "PRDIGEST_REPO_PROFILES: 'nope' is not OWNER/NAME"),
        ("PRDIGEST_POST_TIMEOUT", "301", "PRDIGEST_POST_TIMEOUT: Input should be less than or equal to 300"),
        ("PRDIGEST_LLM_URL", "http://10.1.2.3:8000/v1", "PRDIGEST_LLM_URL 'http://10.1.2.3:8000/v1': plain"),
        ("PRDIGEST_LLM_URL", "https://llm.example/v1", "PRDIGEST_LLM_MODEL is needed with PRDIGEST_LLM_URL"),
        ("PRDIGEST_LLM_TIMEOUT", "601", "PRDIGEST_LLM_TIMEOUT: Input should be less than or equal to 600"),
        ("PRDIGEST_LLM_TIMEOUT", "0", "PRDIGEST_LLM_TIMEOUT: Input should be greater than 0"),
    ],
)
def test_a_wrong_value_is_one_line_naming_the_variable(
    home: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, line: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert str(caught.value).startswith(line) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("name", "value", "field", "expected"),
    [
        ("PRDIGEST_LOCK_TIMEOUT", "1e2", "prdigest_lock_timeout", 100.0),
        ("PRDIGEST_PORT", "4000.0", "prdigest_port", 4000),
        ("PRDIGEST_PORT", "4_000", "prdigest_port", 4000),
        (
            "PRDIGEST_DISCORD_API_URL",
            "https://discord.example/api/",
            "prdigest_discord_api_url",
            "https://discord.example/api",
        ),
        (
            "PRDIGEST_REPO_PROFILES",
            "vllm-project/vllm=vllm, a/b=mine.toml",
            "prdigest_repo_profiles",
            (("vllm-project/vllm", "vllm"), ("a/b", "mine.toml")),
        ),
        ("PRDIGEST_LLM_URL", "   ", "prdigest_llm_url", None),
    ],
)
def test_values_pydantic_accepted_are_accepted(
    home: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, field: str, expected: object
) -> None:
    monkeypatch.setenv(name, value)
    assert getattr(load_settings(), field) == expected


def test_a_model_url_is_kept_without_its_trailing_slash(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRDIGEST_LLM_URL", "https://llm.example/v1/")
    monkeypatch.setenv("PRDIGEST_LLM_MODEL", "m")
    monkeypatch.setenv("PRDIGEST_LLM_KEY", "sk-secret")
    s = load_settings()
    assert (s.prdigest_llm_url, s.prdigest_llm_model) == ("https://llm.example/v1", "m")
    assert "sk-secret" not in repr(s) and secret(s.prdigest_llm_key) == "sk-secret"
    assert s.replace(prdigest_lang="zh").prdigest_repo_profiles == s.prdigest_repo_profiles


def test_a_bare_name_in_dotenv_is_one_line(home: Path) -> None:
    (home / ".env").write_text("PRDIGEST_LANG\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^PRDIGEST_LANG: Input should be 'en' or 'zh'$"):
        load_settings()


def test_tokens_never_show_in_a_repr(home: Path) -> None:
    s = load_settings()
    assert "ghp_x" not in repr(s) and "ghp_x" not in str(s.github_token)
    assert secret(s.github_token) == "ghp_x#kept"


def test_an_unknown_keyword_is_a_programming_error() -> None:
    from bot.config.settings import Settings

    with pytest.raises(TypeError, match="prdigest_colour"):
        Settings(_env_file=None, prdigest_colour="blue")
