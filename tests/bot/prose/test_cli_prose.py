"""The terminal's digest with and without the PRDIGEST_LLM_* settings, and both settings readers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli.main import main, run_command
from bot.config.read_settings import read_settings
from bot.config.settings import Settings
from bot.prose.config import prose_config
from classify.rules import Profile
from commands.render import render
from storage.db import connect
from storage.prose_cache import count
from tests.bot.prose.conftest import WEEK, digest
from tests.fakes.llm import KEY, MODEL, FakeLLM

LLM_VARS = ("PRDIGEST_LLM_URL", "PRDIGEST_LLM_MODEL", "PRDIGEST_LLM_KEY", "PRDIGEST_LLM_TIMEOUT")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """No .env and none of the model's settings: a terminal as most users have it."""
    monkeypatch.chdir(tmp_path)
    for name in (*LLM_VARS, "PRDIGEST_REPO", "PRDIGEST_LANG", "PRDIGEST_DB"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_without_the_settings_the_digest_is_todays_and_nothing_is_sent(
    clean_env: pytest.MonkeyPatch, llm: FakeLLM, demo_db: Path, profile: Profile, lang: str
) -> None:
    reply = run_command("digest", (WEEK,), db=demo_db, lang=lang)
    expected = digest(demo_db, profile, lang)
    for fmt in ("text", "markdown", "json"):
        assert render(reply, fmt) == render(expected, fmt)
    assert "prose" not in reply.data
    assert llm.requests == [] and count(connect(demo_db)) == 0


def test_with_the_settings_the_terminal_digest_is_worded_and_cached(
    clean_env: pytest.MonkeyPatch, llm: FakeLLM, demo_db: Path
) -> None:
    clean_env.setenv("PRDIGEST_LLM_URL", llm.url)
    clean_env.setenv("PRDIGEST_LLM_MODEL", MODEL)
    clean_env.setenv("PRDIGEST_LLM_KEY", KEY)
    reply = run_command("digest", (WEEK,), db=demo_db, lang="zh")
    parts = reply.data["prose"]["parts"]
    assert [p["prose"] for p in parts] == ["model"] * 9
    assert "以上文字由语言模型根据计算出的事实撰写" in render(reply, "text")
    assert count(connect(demo_db)) == 9  # stored through the one-shot reader's connection
    again = run_command("digest", (WEEK,), db=demo_db, lang="zh")
    assert len(llm.requests) == 9 and all(p["cached"] for p in again.data["prose"]["parts"])
    off = run_command("digest", (WEEK, "prose=off"), db=demo_db, lang="zh")
    assert "prose" not in off.data and len(llm.requests) == 9


def test_a_model_url_in_clear_to_another_machine_is_one_line_and_exit_2(
    clean_env: pytest.MonkeyPatch, demo_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean_env.setenv("PRDIGEST_LLM_URL", "http://10.1.2.3:8000/v1")
    clean_env.setenv("PRDIGEST_LLM_MODEL", MODEL)
    with pytest.raises(SystemExit) as exit_:
        main(["digest", WEEK, "--db", str(demo_db)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "PRDIGEST_LLM_URL" in err[0] and "https://" in err[0]


def test_a_model_url_without_a_model_name_is_refused(
    clean_env: pytest.MonkeyPatch, demo_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean_env.setenv("PRDIGEST_LLM_URL", "https://llm.example/v1")
    with pytest.raises(SystemExit) as exit_:
        main(["digest", WEEK, "--db", str(demo_db)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "prdigest: PRDIGEST_LLM_MODEL is needed with PRDIGEST_LLM_URL: the model name the endpoint serves"
    )


def test_both_settings_readers_read_the_model_settings_alike(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("PRDIGEST_LLM_URL", "https://llm.example/v1/")
    clean_env.setenv("PRDIGEST_LLM_MODEL", "qwen")
    clean_env.setenv("PRDIGEST_LLM_KEY", "sk-secret-value")
    clean_env.setenv("PRDIGEST_LLM_TIMEOUT", "7.5")
    fast, full = read_settings(), Settings()
    assert fast is not None
    assert prose_config(fast) == prose_config(full)
    config = prose_config(full)
    assert config is not None and config.endpoint == "https://llm.example/v1/chat/completions"
    assert (config.key, config.timeout) == ("sk-secret-value", 7.5)
    for shown in (repr(fast), repr(full), repr(config), json.dumps(full.model_dump(mode="json"))):
        assert "sk-secret-value" not in shown
    clean_env.setenv("PRDIGEST_LLM_TIMEOUT", "0")
    assert read_settings() is None  # doubtful: the full reader says what is wrong


def test_without_the_settings_no_model_is_configured(clean_env: pytest.MonkeyPatch) -> None:
    fast = read_settings()
    assert fast is not None and prose_config(fast) is None and prose_config(Settings()) is None
