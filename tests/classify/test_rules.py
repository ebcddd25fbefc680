"""Loading, validating and compiling rule profiles; the Profile API other layers use."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from classify.rules import PROFILES_DIR, Profile, ProfileError, load_profile

MINIMAL = 'name = "mine"\nversion = "1"\n[modules.misc]\n'


def write(tmp_path: Path, text: str, name: str = "my.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def rejection(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    message = str(info.value)
    assert "\n" not in message
    prefix = f"{path}: "
    assert message.startswith(prefix), message
    return message[len(prefix) :]


# -- bundled profiles -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["vllm", "generic"])
def test_bundled_profiles_load_with_name_version_and_labels(name: str) -> None:
    profile = load_profile(name)
    raw = tomllib.loads((PROFILES_DIR / f"{name}.toml").read_text(encoding="utf-8"))
    assert profile.name == name == raw["name"]
    assert profile.version == raw["version"] and profile.version
    assert profile.source == PROFILES_DIR / f"{name}.toml"
    assert list(profile.modules) == list(raw["modules"])  # file order
    for module in profile.modules.values():
        assert module.label("en") and module.label("zh")
    assert profile.catch_all_module in profile.modules
    assert profile.default_kind in profile.kinds
    assert 0 < profile.key_share <= 1


def test_default_is_vllm_and_loading_is_cached() -> None:
    assert load_profile().name == "vllm"
    assert load_profile(None) is load_profile("vllm") is load_profile("")


def test_vllm_key_share_matches_the_example_report() -> None:
    # the hand-written report marks 24 of 198 merged PRs as key
    assert load_profile("vllm").key_share == pytest.approx(24 / 198, abs=0.01)


def test_module_labels_fall_back_to_english_then_name(vllm: Profile) -> None:
    assert vllm.module_label("spec-decode", "zh") == "推测解码"
    assert vllm.module_label("spec-decode", "en") == "Speculative decoding"
    assert vllm.module_label("kv-connector", "zh").startswith("KV 传输")
    assert vllm.module_label("spec-decode", "fr") == "Speculative decoding"
    assert vllm.module_label("no-such-module", "zh") == "no-such-module"
    assert vllm.kind_label("bugfix", "zh") == "缺陷修复"


@pytest.mark.parametrize(
    ("word", "module"),
    [
        ("rocm", "rocm"),
        ("ROCm", "rocm"),
        ("AMD", "rocm"),  # a title tag
        ("spec-decode", "spec-decode"),
        ("Spec Decode", "spec-decode"),
        ("speculative decoding", "spec-decode"),  # synonym
        ("推测解码", "spec-decode"),  # Chinese label
        ("Speculative decoding", "spec-decode"),  # English label
        ("KV transfer", "kv-connector"),
        ("  Quantization ", "quantization"),
        ("nonsense", None),
        ("", None),
    ],
)
def test_resolve_module(vllm: Profile, word: str, module: str | None) -> None:
    assert vllm.resolve_module(word) == module


def test_vllm_profile_covers_both_source_layouts(vllm: Profile) -> None:
    core = vllm.compiled.path_sets[vllm.compiled.core_set]  # type: ignore[index]
    for path in (
        "vllm/attention/backends/flash_attn.py",  # 2025
        "vllm/model_executor/layers/attention/backends/flash_attn.py",  # 2026
        "vllm/v1/attention/backends/flash_attn.py",
        "vllm/v1/core/sched/scheduler.py",
        "csrc/attention/paged_attention_v1.cu",
        "csrc/cache_kernels.cu",
        "vllm/model_executor/layers/fused_moe/layer.py",
        "vllm/distributed/device_communicators/custom_all_reduce.py",
        "vllm/distributed/kv_transfer/kv_connector/v1/base.py",
    ):
        assert core.match(path), path
    for path in (
        "csrc/cpu/attention.cpp",
        "csrc/rocm/attention.cu",
        "docs/index.md",
        "vllm/v1/core/README.md",
        # build, CI and packaging files are not the hot path
        "CMakeLists.txt",
        "cmake/utils.cmake",
        "setup.py",
        "docker/Dockerfile",
        # platform backends show up under their platform module
        "vllm/v1/attention/backends/rocm_aiter_fa.py",
        "vllm/model_executor/layers/fused_moe/cpu_fused_moe.py",
        "vllm/v1/worker/xpu_worker.py",
        # quantization kernels, individual connectors, tuned configs
        "csrc/quantization/fp4/nvfp4_quant_kernels.cu",
        "vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py",
        "vllm/model_executor/layers/fused_moe/configs/E=8,N=14336,device_name=NVIDIA_H100.json",
    ):
        assert not core.match(path), path


def test_every_bundled_module_and_kind_has_both_labels() -> None:
    for name in ("vllm", "generic"):
        raw = tomllib.loads((PROFILES_DIR / f"{name}.toml").read_text(encoding="utf-8"))
        for section in ("modules", "kinds"):
            for key, table in raw[section].items():
                assert table.get("en") and table.get("zh"), f"{name}: {section}.{key}"


def test_profile_is_immutable(vllm: Profile) -> None:
    with pytest.raises(AttributeError):
        vllm.version = "2"  # type: ignore[misc]
    with pytest.raises(TypeError):
        vllm.modules["x"] = vllm.modules["rocm"]  # type: ignore[index]
    assert hash(vllm) == hash(vllm)


# -- a user's own profile ---------------------------------------------------------------------------


def test_minimal_profile_borrows_kinds_flags_and_score_from_generic(tmp_path: Path) -> None:
    profile = load_profile(write(tmp_path, MINIMAL + '[modules.api]\nglobs = ["api/**"]\n'))
    assert profile.name == "mine" and profile.version == "1"
    assert list(profile.modules) == ["misc", "api"]
    assert "bugfix" in profile.kinds
    assert profile.flags.breaking.patterns  # from generic.toml
    assert profile.flags.missing_tests.exempt_kinds == ["docs", "ci", "test", "revert", "deps"]
    assert "modules" not in profile.score.model_fields_set or not profile.score.modules


def test_borrowed_tables_drop_references_the_profile_cannot_satisfy(tmp_path: Path) -> None:
    text = MINIMAL + '[kinds.other]\nen = "Other"\n[kinds.docs]\nen = "Docs"\n'
    profile = load_profile(write(tmp_path, text))
    assert profile.flags.missing_tests.exempt_kinds == ["docs"]
    assert set(profile.score.kinds) <= {"docs", "other"}


def test_a_written_table_is_taken_as_written(tmp_path: Path) -> None:
    text = MINIMAL + "[flags.large]\nlines = 10\n"
    profile = load_profile(write(tmp_path, text))
    assert profile.flags.large.lines == 10
    assert profile.flags.large.ignore == []


def test_edited_file_is_reloaded(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL)
    first = load_profile(path)
    path.write_text(MINIMAL.replace('version = "1"', 'version = "2.0"'), encoding="utf-8")
    assert load_profile(path).version == "2.0"
    assert first.version == "1"


# -- rejections: one line naming the file, the key and the reason -----------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            MINIMAL + '[modules.rocm]\nglobs = ["csrc/rocm/**", "**/*rocm*", "[abc"]\n',
            "modules.rocm.globs[2]: bad glob '[abc': unterminated character set",
        ),
        (
            MINIMAL + '[modules.rocm]\nglob = ["csrc/rocm/**"]\n',
            "modules.rocm.glob: unknown key (did you mean 'globs'?)",
        ),
        (
            MINIMAL + '[modules.rocm]\nlables = ["rocm"]\n',
            "modules.rocm.lables: unknown key (did you mean 'labels'?)",
        ),
        (
            "colour = 3\n" + MINIMAL,
            "colour: unknown key (known: name, version, description, repos, learned, key_share, "
            "key_min_score, min_path_share, catch_all, default_kind, modules, kinds, flags, score)",
        ),
        (
            MINIMAL + "colour = 3\n",
            "modules.misc.colour: unknown key (known: en, zh, tags, keywords, patterns, "
            "labels, globs, only_globs, all_globs, exclude, group, synonyms)",
        ),
        (
            MINIMAL + '[flags.core_path]\nglobs = ["src/**"]\n',
            "flags.core_path: unknown key (did you mean 'core-path'?)",
        ),
        (MINIMAL + "[flags.large]\nline = 3\n", "flags.large.line: unknown key (did you mean 'lines'?)"),
        (
            MINIMAL + '[modules.rocm]\npatterns = ["(foo"]\n',
            "modules.rocm.patterns[0]: bad regex '(foo': missing ), unterminated subpattern at position 0",
        ),
        (
            MINIMAL + '[flags.breaking]\nignore = ["a", "b[", "c"]\n',
            "flags.breaking.ignore[1]: bad regex 'b[': unterminated character set at position 1",
        ),
        ('name = "mine"\nversion = 2\n[modules.misc]\n', "version: expected a string, got an integer"),
        (
            MINIMAL + '[modules.rocm]\nglobs = "csrc/rocm/**"\n',
            "modules.rocm.globs: expected an array, got a string",
        ),
        (MINIMAL + "[modules.rocm]\ntags = [1]\n", "modules.rocm.tags[0]: expected a string, got an integer"),
        (MINIMAL + '[flags.large]\nlines = "many"\n', "flags.large.lines: expected an integer, got a string"),
        (
            MINIMAL + "[flags.large]\nenabled = 1\n",
            "flags.large.enabled: expected true or false, got an integer",
        ),
        (MINIMAL + "[flags.large]\nlines = 0\n", "flags.large.lines: must be ≥ 1, got 0"),
        ("key_share = 1.5\n" + MINIMAL, "key_share: must be ≤ 1.0, got 1.5"),
        ("key_share = 0\n" + MINIMAL, "key_share: must be > 0.0, got 0"),
        ('version = "1"\n[modules.misc]\n', "name: missing required key"),
        ('name = "x"\nversion = "1"\n', "modules: missing required key"),
        (
            MINIMAL + '[modules."Bad Name"]\n',
            "modules.\"Bad Name\": bad name 'Bad Name': "
            "use lower-case letters, digits, '-' or '_' (at most 40)",
        ),
        (
            'name = "x"\nversion = "1"\n[modules.api]\n',
            "catch_all: unknown module 'misc': declare it under [modules.misc]",
        ),
        (
            MINIMAL + '[modules.a]\ntags = ["AMD"]\n[modules.b]\ntags = ["amd"]\n',
            "modules.b.tags[0]: 'amd' is already used by modules.a",
        ),
        (
            MINIMAL + '[modules.a]\nsynonyms = ["misc"]\n',
            "modules.a.synonyms[0]: 'misc' already means modules.misc",
        ),
        (
            MINIMAL + '[modules.a]\nkeywords = ["ok", "--"]\n',
            "modules.a.keywords[1]: bad keyword '--': needs a letter or digit",
        ),
        (
            MINIMAL + '[modules.a]\nkeywords = ["q*wen"]\n',
            "modules.a.keywords[0]: bad keyword 'q*wen': '*' is only allowed at the end of a word",
        ),
        (
            MINIMAL + '[modules.a]\nonly_globs = ["docs/{a,b"]\n',
            "modules.a.only_globs[0]: bad glob 'docs/{a,b': unbalanced '{'",
        ),
        (
            MINIMAL + '[modules.a]\nall_globs = ["x", "[z-a]"]\n',
            "modules.a.all_globs[1]: bad glob '[z-a]': bad character range z-a",
        ),
        (
            MINIMAL + '[flags.missing-tests]\nexempt_kinds = ["docz"]\n',
            "flags.missing-tests.exempt_kinds[0]: unknown kind 'docz'",
        ),
        (MINIMAL + "[score.kinds]\nfeatur = 1\n", "score.kinds.featur: unknown kind 'featur'"),
        (MINIMAL + "[score.flags]\ncore_path = 1\n", "score.flags.core_path: unknown flag 'core_path'"),
        (MINIMAL + "[score.modules]\nrocm = 1\n", "score.modules.rocm: unknown module 'rocm'"),
        (
            MINIMAL + '[flags.revert]\ntitle_patterns = ["(?P<x>a)(?P<x>b)"]\n',
            "flags.revert.title_patterns[0]: bad regex '(?P<x>a)(?P<x>b)': "
            "redefinition of group name 'x' as group 2; was group 1 at position 12",
        ),
    ],
)
def test_rejections_name_the_key_and_the_reason(tmp_path: Path, text: str, message: str) -> None:
    assert rejection(tmp_path, text) == message


def test_several_errors_report_the_first_and_count_the_rest(tmp_path: Path) -> None:
    text = "name = 1\nversion = 2\n[modules.misc]\n"
    assert rejection(tmp_path, text) == "name: expected a string, got an integer (+1 more)"


def test_invalid_toml_names_the_line(tmp_path: Path) -> None:
    text = 'name = "mine"\nversion = "1"\n[modules.misc\n'
    assert (
        rejection(tmp_path, text)
        == "invalid TOML: line 3, column 14: Expected ']' at the end of a table declaration"
    )


def test_invalid_utf8_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "my.toml"
    path.write_bytes(b'name = "\xff"\n')
    with pytest.raises(ProfileError, match=r"my\.toml: not UTF-8 text \(byte 8\)$"):
        load_profile(path)


def test_missing_file_and_unknown_bundled_name(tmp_path: Path) -> None:
    with pytest.raises(ProfileError) as info:
        load_profile(tmp_path / "nope.toml")
    assert str(info.value) == f"{tmp_path / 'nope.toml'}: no such file"
    with pytest.raises(ProfileError) as info:
        load_profile("vlm")
    assert str(info.value) == "vlm: no such file (bundled profiles: generic, vllm)"
    with pytest.raises(ProfileError) as info:
        load_profile(tmp_path)
    assert str(info.value) == f"{tmp_path}: not a file"


def test_profile_pickles_by_path_and_version(tmp_path: Path) -> None:
    import pickle

    assert pickle.loads(pickle.dumps(load_profile("vllm"))) is load_profile("vllm")
    path = write(tmp_path, MINIMAL)
    blob = pickle.dumps(load_profile(path))
    path.write_text(MINIMAL.replace('version = "1"', 'version = "2"'), encoding="utf-8")
    with pytest.raises(ProfileError, match="version changed from 1 to 2 while in use"):
        pickle.loads(blob)
    # an edit that keeps the version is caught too: workers must classify with the parent's content
    path.write_text(MINIMAL, encoding="utf-8")
    blob = pickle.dumps(load_profile(path))
    path.write_text(MINIMAL + 'keywords = ["misc"]\n', encoding="utf-8")
    with pytest.raises(ProfileError, match="edited while in use"):
        pickle.loads(blob)


def test_content_hash_follows_the_rules_not_the_layout(tmp_path: Path) -> None:
    first = load_profile(write(tmp_path, MINIMAL, "a.toml"))
    spaced = load_profile(write(tmp_path, "# my rules\n" + MINIMAL.replace(" = ", "   =   "), "b.toml"))
    edited = load_profile(write(tmp_path, MINIMAL + 'keywords = ["misc"]\n', "c.toml"))
    assert first.content_hash == spaced.content_hash
    assert edited.version == first.version and edited.content_hash != first.content_hash
