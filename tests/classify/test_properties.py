"""Properties: classify never raises on arbitrary input, and its output keeps its invariants."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from classify.engine import classify
from classify.matchers import GlobError, KeywordIndex, glob_to_regex
from classify.models import FLAG_KINDS, FileChange, PullRequest
from classify.rules import load_profile
from classify.text import GIST_MAX, HIGHLIGHT_MAX_CHARS

PROFILES = [load_profile("vllm"), load_profile("generic")]

# text with the characters that matter to the parsers mixed in
_alphabet = st.sampled_from([*list("abcXYZ019 _-./[]()#*`!:;%×→<>|\n\t~\"'"), "é", "推", "\u200b", "\r\n"])
texty = st.lists(
    st.one_of(
        _alphabet,
        st.sampled_from(
            [
                "[ROCm]",
                "[3/N]",
                "[Bugfix]",
                "fix(x):",
                'Revert "',
                "remove ",
                "--flag ",
                "BREAKING",
                " support for ",
                "16–24% faster",
                "1289μs → 1.8μs",
                "−1400 lines",
                "<!--",
                "-->",
                "<details>",
                "## Purpose\n",
                "- [ ] ",
                "Signed-off-by: x",
                "```",
                "cudagraph",
                "CUDA",
                "This reverts commit abcdef1",
                "bump x to 1.2",
            ]
        ),
    ),
    max_size=60,
).map("".join)
paths = st.lists(
    st.sampled_from(
        [
            "vllm",
            "csrc",
            "tests",
            "docs",
            "a.py",
            "b.md",
            "*",
            "[",
            "{",
            "..",
            "rocm",
            "requirements",
            "x.lock",
            "é",
        ]
    ),
    min_size=1,
    max_size=6,
).map("/".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    title=texty,
    body=texty,
    labels=st.lists(texty, max_size=3),
    files=st.lists(st.tuples(paths, st.integers(0, 5000), st.integers(0, 5000)), max_size=8),
    which=st.sampled_from([0, 1]),
)
def test_classify_never_raises_and_keeps_invariants(
    title: str, body: str, labels: list[str], files: list[tuple[str, int, int]], which: int
) -> None:
    profile = PROFILES[which]
    pr = PullRequest(
        repo="o/r",
        number=1,
        title=title,
        body=body,
        labels=labels,
        merged_at=datetime(2026, 1, 1, tzinfo=UTC),
        files=[FileChange(path=p, additions=a, deletions=d) for p, a, d in files],
    )
    cls = classify(pr, profile)
    assert cls.modules and all(m in profile.modules for m in cls.modules)
    assert len(cls.modules) == len(set(cls.modules))
    assert cls.kind in profile.kinds
    assert all(f.kind in FLAG_KINDS and f.evidence for f in cls.flags)
    assert len({f.kind for f in cls.flags}) == len(cls.flags)
    assert abs(cls.score - round(sum(p.points for p in cls.breakdown), 2)) < 1e-9
    assert len(cls.gist) <= GIST_MAX and "\n" not in cls.gist
    assert all(len(h) <= HIGHLIGHT_MAX_CHARS + 2 for h in cls.highlights) and len(cls.highlights) <= 3
    assert (cls.profile, cls.profile_version) == (profile.name, profile.version)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab/*?[]{},!^-\\.")), max_size=20))
def test_globs_either_compile_or_are_rejected_with_a_reason(glob: str) -> None:
    try:
        rx = glob_to_regex(glob)
    except GlobError as exc:
        assert str(exc)
        return
    re.compile(rx)


@settings(max_examples=200, deadline=None)
@given(texty)
def test_keyword_index_finds_every_keyword_of_its_own_text(word: str) -> None:
    index = KeywordIndex()
    try:
        index.add(word, "owner")
    except GlobError:
        return
    if "*" not in word:
        assert index.find(word) == ["owner"]
