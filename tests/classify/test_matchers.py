"""Globs (labeler/minimatch style), keyword index, and the literal gates in front of regexes."""

from __future__ import annotations

import re
import warnings

import pytest

from classify.matchers import (
    Gated,
    GatedGroup,
    GlobError,
    KeywordIndex,
    compile_globs,
    glob_to_regex,
    required_literals,
)


def matches(glob: str, path: str) -> bool:
    rx = compile_globs([glob])
    assert rx is not None
    return rx.match(path) is not None


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("*.md", "README.md", True),
        ("*.md", "docs/index.md", False),  # "*" stays in one directory, patterns match the whole path
        ("**/*.md", "README.md", True),
        ("**/*.md", "docs/a/b/index.md", True),
        ("docs/**", "docs/a/b.md", True),
        ("docs/**", "documentation/a.md", False),
        ("docs/", "docs/a/b.md", True),  # trailing slash = everything below
        ("vllm/v1/{core,engine}/**", "vllm/v1/engine/core.py", True),
        ("vllm/v1/{core,engine}/**", "vllm/v1/worker/core.py", False),
        ("**/*rocm*", "vllm/platforms/rocm.py", True),
        ("**/*rocm*", "docker/Dockerfile.rocm_base", True),
        ("**/tests/**", "tests/x.py", True),
        ("**/tests/**", "pkg/tests/x.py", True),
        ("**/tests/**", "pkg/contests/x.py", False),
        ("requirements*.txt", "requirements-rocm.txt", True),
        ("file?.py", "file1.py", True),
        ("file?.py", "file/.py", False),
        ("[abc].py", "b.py", True),
        ("[!abc].py", "b.py", False),
        ("[a-c]x", "cx", True),
        ("/CMakeLists.txt", "CMakeLists.txt", True),
        ("./setup.py", "setup.py", True),
        ("Dockerfile*", "Dockerfile", True),
        ("Dockerfile*", "docker/Dockerfile", False),
        ("**", "any/thing/at/all.py", True),
        ("a\\*b", "a*b", True),
        ("a\\*b", "axb", False),
        ("a+b(c).py", "a+b(c).py", True),
        ("*.MD", "README.md", False),  # case-sensitive, like git
    ],
)
def test_glob_semantics(glob: str, path: str, expected: bool) -> None:
    assert matches(glob, path) is expected


@pytest.mark.parametrize(
    ("glob", "reason"),
    [
        ("", "empty glob"),
        ("/", "glob matches nothing"),
        ("[abc", "unterminated character set"),
        ("src/{a,b", "unbalanced '{'"),
        ("src/a}", "unbalanced '}'"),
        ("[z-a]", "bad character range z-a"),
        ("[!]", "unterminated character set"),
        ("a\\", "trailing backslash"),
    ],
)
def test_bad_globs(glob: str, reason: str) -> None:
    with pytest.raises(GlobError) as info:
        glob_to_regex(glob)
    assert str(info.value) == reason


@pytest.mark.parametrize(
    ("glob", "path"),
    [("[[]x", "[x"), ("[+--]", ","), ("[&&]", "&"), ("[~~]", "~"), ("[||]", "|")],
)
def test_character_sets_never_trigger_nested_set_warnings(glob: str, path: str) -> None:
    """re warns (FutureWarning) about "[[", "--", "&&", "~~" and "||" inside sets, whose meaning
    a later Python may change; the translation escapes them, and the set still means its characters."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rx = re.compile(glob_to_regex(glob))
    assert [w.category for w in caught] == []
    assert rx.fullmatch(path) is not None


def test_keywords_match_whole_words_prefixes_and_phrases() -> None:
    index = KeywordIndex()
    index.add("cuda", "nvidia")
    index.add("cuda graph*", "compile")
    index.add("cudagraph*", "compile")
    index.add("qwen*", "qwen")
    index.add("kv connector*", "kv")
    index.add("gpt-oss", "gpt-oss")
    index.add("p/d", "kv")
    index.add("ck", "rocm")
    assert index.find("Fix cudagraph capture") == ["compile"]  # CUDA must not hit cudagraph
    assert index.find("Fix CUDA graph capture") == ["nvidia", "compile"]  # overlapping owners both found
    assert index.find("Fix cuda_graph capture") == ["nvidia", "compile"]
    assert index.find("[CUDA] faster kernels") == ["nvidia"]
    assert index.find("Support Qwen3-Next and QWEN2.5") == ["qwen"]
    assert index.find("Improve KVConnector API") == ["kv"]
    assert index.find("kv_connector: stats") == ["kv"]
    assert index.find("KV Connectors for P/D") == ["kv"]
    assert index.find("gpt-oss harmony, GPT OSS, gptoss") == ["gpt-oss"]
    assert index.find("Check capacity") == []  # "ck" is a whole word only
    assert index.find("") == []


def test_required_literals_are_read_from_the_regex() -> None:
    assert required_literals(r"\bdrop(?:s|ped)?\s+support\b") == (("support",), ("drop",))
    # the parser factors common prefixes out of alternatives: remove|rename -> "re" + (move|name)
    assert set(required_literals(r"\b(?:remove|rename)d?\s+--")) == {("re",), ("move", "name"), ("--",)}
    assert required_literals(r"(?-i:\bBREAKING)") == (("breaking",),)
    assert required_literals(r"[A-Z]+_[A-Z]+") == (("_",),)
    assert required_literals(r"(?:foo)?bar") == (("bar",),)  # optional parts require nothing
    assert required_literals(r"a|[bc]d") == ()  # an alternative without a literal start
    assert required_literals(r"(unclosed") == ()


def test_gated_patterns_skip_texts_that_cannot_match() -> None:
    gated = Gated(re.compile(r"\bdrop(?:s|ped)?\s+support\s+for\s+\w+", re.I))
    assert gated.search("We DROP SUPPORT FOR py38.", "we drop support for py38.") is not None
    assert not gated.possible("we dropped python 3.8")
    group = GatedGroup((gated, Gated(re.compile(r"(?-i:BREAKING)", re.I))))
    text = "BREAKING: drop support for x"
    assert [m.group(0) for m in group.finditer(text, text.lower())] == ["drop support for x", "BREAKING"]
    assert not group.possible("nothing to see")
    always = GatedGroup((Gated(re.compile(r"\d+")),))
    assert always.possible("no digits")  # no literal to gate on: always run
