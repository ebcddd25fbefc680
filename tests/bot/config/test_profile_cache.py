"""The compiled profile cached between runs (bot.config.profile_cache): same profile, same results; a
changed file misses; a corrupt or unwritable cache is never an error."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from bot.config.profile_cache import cache_dir, cached_profile
from bot.ingest.demo import demo_records
from classify.engine import classify
from classify.records import parse_pr
from classify.rules import PROFILES_DIR, ProfileError, load_profile


@pytest.fixture(autouse=True)
def own_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "prdigest"


def _fresh(name: str | Path) -> object:
    import bot.config.profile_cache
    import classify.rules

    classify.rules._CACHE.clear()  # what a new process sees: nothing compiled yet
    bot.config.profile_cache._IN_MEMORY.clear()  # nor loaded
    return cached_profile(name)


def test_a_cached_profile_classifies_every_demo_pr_as_the_compiled_one(own_cache_dir: Path) -> None:
    compiled = load_profile("vllm")
    first = _fresh("vllm")
    assert len(list(own_cache_dir.glob("profile-*.pickle"))) == 1
    from_cache = _fresh("vllm")
    assert from_cache is not first and from_cache is not compiled
    for record in list(demo_records())[:400]:
        pr = parse_pr(record)
        assert classify(pr, from_cache) == classify(pr, compiled)  # type: ignore[arg-type]
    assert from_cache.content_hash == compiled.content_hash  # type: ignore[attr-defined]


def test_an_edited_profile_misses_the_cache(tmp_path: Path, own_cache_dir: Path) -> None:
    mine = tmp_path / "mine.toml"
    text = (PROFILES_DIR / "generic.toml").read_text(encoding="utf-8")
    mine.write_text(text, encoding="utf-8")
    before = _fresh(mine)
    mine.write_text(text.replace('version = "', 'version = "edited-', 1), encoding="utf-8")
    after = _fresh(mine)
    assert before.version != after.version  # type: ignore[attr-defined]
    assert len(list(own_cache_dir.glob("profile-*.pickle"))) == 2


@pytest.mark.parametrize("junk", [b"", b"not a pickle", b"\x80\x05K\x01.", b"\x80\x05}\x94."])
def test_a_corrupt_cache_file_is_rebuilt_silently(own_cache_dir: Path, junk: bytes) -> None:
    _fresh("vllm")
    [file] = own_cache_dir.glob("profile-*.pickle")
    file.write_bytes(junk)
    assert _fresh("vllm").content_hash == load_profile("vllm").content_hash  # type: ignore[attr-defined]
    assert file.read_bytes() != junk  # rewritten


def test_an_unwritable_cache_directory_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file where the directory would go
    assert _fresh("vllm").content_hash == load_profile("vllm").content_hash  # type: ignore[attr-defined]
    assert cache_dir() == blocker / "prdigest"


def test_profile_errors_are_the_loaders(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="no such file"):
        cached_profile(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n", encoding="utf-8")
    with pytest.raises(ProfileError, match="invalid TOML"):
        cached_profile(bad)


def test_flags_score_and_matchers_are_read_at_first_use_and_a_damaged_one_is_compiled_again(
    own_cache_dir: Path,
) -> None:
    from bot.config.profile_cache import HEAVY, CachedProfile, _pickle

    compiled = load_profile("vllm")
    _fresh("vllm")
    [file] = own_cache_dir.glob("profile-*.pickle")
    outer = pickle.loads(file.read_bytes())
    lazy = _fresh("vllm")
    assert isinstance(lazy, CachedProfile)
    assert not set(HEAVY) & set(vars(lazy))  # names and labels only, until the settings are asked
    assert lazy.module_label("attention", "zh") == compiled.module_label("attention", "zh")
    assert lazy.score == compiled.score and "flags" not in vars(lazy)  # one field at a time
    assert lazy.flags == compiled.flags
    assert {"flags", "score"} <= set(vars(lazy)) and "compiled" not in vars(lazy)
    file.write_bytes(_pickle({**outer, "lazy": {**outer["lazy"], "compiled": b"damaged"}}))
    damaged = _fresh("vllm")
    assert isinstance(damaged, CachedProfile)  # the rest of the file was fine
    pr = parse_pr(next(iter(demo_records())))
    assert classify(pr, damaged) == classify(pr, compiled)  # matchers compiled again from the file
