"""The one-line gist of a PR: what it does, in the author's own words, never the title again.

From the cleaned description (``classify.text.clean_body``: no template comments, checklists or
trailers), the first paragraph of a section that says what the PR does ("Purpose", "Summary",
untitled text…), else of any usable section; sections about testing, results, benchmarks or
screenshots never give one. A paragraph is prose only: never a markdown table row, code (a fenced
or indented block, a shell or REPL line, a line that is one code span), a checklist, a template
heading ("## Purpose", "**Test Plan**", "Test Plan:") or prompt left in place ("What does the
PR do?", "Include a concise description of the PR contents."), a list of links, issue references
or images. And a gist adds to the title: a sentence that repeats the title or merely extends it
(its words are the title's but for one or two) is left out, and the next sentence or paragraph
says what the PR does instead; with nothing else to say there is no gist (the title says it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from classify.text import (
    BULLET,
    GIST_MAX,
    clean_body,
    is_table_row,
    mid_sentence,
    plain,
    shorten,
    without_final_period,
)

_HEADING = re.compile(r"\s{0,3}(?:#{1,6}\s*(?P<h>.*?)\s*#*\s*$|\*\*(?P<b>[^*]{1,60})\*\*\s*:?\s*$)")
# "Test Plan:", "Motivation" — a template's section name on a line of its own, without markdown
_LABEL_LINE = re.compile(r"\s*(?P<l>[A-Za-z][\w /&'()-]{0,40}?)\s*:\s*$")
_PREFERRED = (
    "purpose",
    "summary",
    "description",
    "motivation",
    "overview",
    "whatthisprdoes",
    "whatdoesthisprdo",
    "tldr",
    "changes",
    "what",
    "why",
    "context",
    "background",
    "problem",
)
_SKIPPED = (
    "test",
    "checklist",
    "documentation",
    "optional",
    "release",
    "benchmark",
    "result",
    "accuracy",
    "screenshot",
    "note",
    "reviewer",
    "before",
    "after",
    "howtotest",
    "repro",
    "log",
    "eval",
)
_SECTION_NAME_DROP = str.maketrans("", "", " _-.:;!?()[]/&*`'\"#")
# an issue or PR reference: "#12", "org/repo#12", a URL, "@someone", a tracker key ("WB-123"), the
# same as a markdown link ("[WB-123](https://…)"), or a template's placeholder ("#NNNN", "WB-NNNNN")
_REF = (
    r"(?:\[[^\]]{1,80}\]\([^)\s]*\)|(?:[\w.-]+/[\w.-]+)?#(?:\d+|x+|n+)|https?://\S+|@[\w-]+"
    r"|(?-i:[A-Z][A-Z0-9]{1,9}-(?:\d+|N+)))"
)
_NOISE_LINE = re.compile(
    r"\s*(?:[-*+]\s+)?(?:(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|related(?:\s+(?:to|issues?|prs?))?|part\s+of|"
    r"follow[- ]?up(?:\s+(?:to|of|on))?|refs?|see(?:\s+also)?|cc|/cc|depends\s+on|requires|supersedes)"
    r"\b\s*:?\s*)?" + _REF + r"(?:\s*(?:,|;|&|and)?\s*" + _REF + r")*\s*\.?\s*(?:\(.*?\))?\s*$"
    r"|\s*(?:!\[[^\]]*\]\([^)]*\)\s*)+$|\s*>\s*\[!\w+\]\s*$",
    re.I,
)
# a line that is only a link ("- [the design doc](https://…)"): a list of links says nothing itself
_LINK_LINE = re.compile(r"\s*(?:[-*+]|\d{1,2}[.)])?\s*(?:\[[^\]]*\]\([^)]*\)|<?https?://\S+>?)\s*[.,;]?\s*$")
_CODE_LINE = re.compile(r"\s*(?:\$ |>>> |\.\.\. |`[^`]+`\s*$)")
# a commit a tool wrote, in a squash merge's list of commits: GitHub's "Apply suggestions from
# code review", git's "Merge branch 'main' into …", pre-commit.ci's "[pre-commit.ci] auto fixes…"
_TOOL_COMMIT = re.compile(
    r"\s*(?:[-*+]\s+)?\W*(?:apply\s+suggestions?\s+from\s+code\s+review|merge\s+(?:remote-tracking\s+)?branch\b"
    r"|merge\s+pull\s+request\s+#|\[pre-commit\.ci\]|auto[- ]?format(?:ting)?\b|pre-commit\s+(?:auto\s+)?fix)",
    re.I,
)
# a line of data, not prose: "dependency-name: actions/setup-python", "update_type: minor"
_DATA_LINE = re.compile(r"\s*(?:[-*+]\s+)?[a-z]+(?:[-_][a-z]+)+:\s*\S*\s*$")


def _section(raw: str) -> str:
    return raw.lower().translate(_SECTION_NAME_DROP)


def _wanted(section: str) -> int:
    """2: a section whose first paragraph says what the PR does; 1: usable; 0: skip."""
    if not section or section.startswith(_PREFERRED):
        return 2
    return 0 if section.startswith(_SKIPPED) else 1


def _noise(raw: str) -> bool:
    return bool(
        _NOISE_LINE.match(raw)
        or is_table_row(raw)
        or _LINK_LINE.match(raw)
        or _CODE_LINE.match(raw)
        or _DATA_LINE.match(raw)
        or _TOOL_COMMIT.match(raw)
    )


def _heading(raw: str, s: str) -> str | None:
    """The section name a line announces ("## Test Plan", "**Motivation**", "Test Plan:"), or None."""
    if s[:1] in ("#", "*"):
        head = _HEADING.match(raw)
        if head:
            return head.group("h") or head.group("b") or ""
    label = _LABEL_LINE.match(raw)
    if label and len(label.group("l").split()) <= 4:
        return label.group("l")
    return None


def paragraphs(text: str) -> Iterator[list[str]]:
    """The description's prose paragraphs in the order a gist prefers them: those of sections that
    say what the PR does (see ``_wanted``) first, then those of other usable sections."""
    later: list[list[str]] = []
    section_wanted = 2
    current: list[str] = []
    in_code = False
    for raw in [*text.split("\n"), ""]:
        s = raw.strip()
        if s[:3] in ("```", "~~~"):
            in_code = not in_code
            s = ""
        elif in_code:
            continue
        head = _heading(raw, s) if s else None
        if not s or head is not None:
            named = _section(current[0]) if len(current) == 1 else ""
            if named and _wanted(named) != 1 and len(current[0].split()) <= 3:
                # "Description" on a line of its own (a setext heading once its "---" is cleaned away)
                section_wanted, current = _wanted(named), []
            if current and not all(line.startswith("    ") for line in current):  # not indented code
                if section_wanted == 2:
                    yield current
                else:
                    later.append(current)
            current = []
            if head is not None:
                section_wanted = _wanted(_section(head))
            continue
        if section_wanted and not _noise(raw):
            current.append(raw)
    yield from later


def _joined(lines: list[str]) -> str:
    bullets = False
    parts = []
    for ln in lines:
        b = BULLET.match(ln)
        if b:
            bullets = True
            ln = ln[b.end() :]
        ln = plain(ln.lstrip(" >"))
        if ln:
            parts.append(ln)
    if not bullets:
        return " ".join(parts)
    # list items as one sentence: "Drop X; add tests for Y; use Z" (not "Drop X.; Add tests …")
    items = [*(without_final_period(x) for x in parts[:-1]), *parts[-1:]]
    return "; ".join([*items[:1], *(mid_sentence(x) for x in items[1:])])


# -- echoes of the title ----------------------------------------------------------------------------

_GLUE = frozenset(
    "a an the to of for in on at by as and or with from into onto via is are be been this that these "
    "those it its so now also just when where which while".split()
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])")
_NEW_WORDS = 3
"""a sentence adding fewer content words than this to the title's merely extends it"""


_URL = re.compile(r"\(?<?https?://[^\s)>]*[)>]?")


def _content(text: str) -> list[str]:
    return [
        w.lower() for w in re.findall(r"[A-Za-z0-9]+", plain(_URL.sub(" ", text))) if w.lower() not in _GLUE
    ]


def _same(word: str, other: str) -> bool:
    """One word inflected another way ("move", "moves", "moved"; "fix", "fixes"): the shorter
    (three letters at least) begins the longer, which adds at most three letters."""
    short, long_ = (word, other) if len(word) <= len(other) else (other, word)
    return word == other or (len(short) >= 3 and long_.startswith(short) and len(long_) - len(short) <= 3)


def echoes(sentence: str, title: str) -> bool:
    """Whether ``sentence`` only repeats ``title`` or merely extends it: fewer than three of its
    content words are new to the title, and it either has at least half of the title's or is
    short enough that one new word is all it adds ("Update all" beside "Update translations")."""
    words, said = _content(sentence), set(_content(title))
    if not words:
        return True
    if not said:
        return False
    new = [w for w in words if not any(_same(w, t) for t in said)]
    shared = sum(1 for t in said if any(_same(w, t) for w in words))
    return len(new) < _NEW_WORDS and (shared * 2 >= len(said) or len(new) <= max(1, len(words) // 5))


# a template's prompt left in place by its author: a question ("What does the PR do?", "How was
# this PR tested?") or an instruction to whoever fills it in ("Include a concise description of
# the PR contents.", "Describe your changes here", "Please fill in the motivation below")
_PROMPT = re.compile(
    r"^[^.!]*\?\W*$"
    r"|^\W*(?:please\s+)?(?:include|describe|explain|provide|summari[sz]e|list|fill\s+(?:in|out)|write|give|"
    r"mention|link|add|replace)\b[^.!?]*?\b(?:(?:the|this|your)\s+(?:pr|pull\s+request|changes?|contents?)\b|"
    r"here\b|below\b|above\b|if\s+applicable\b)",
    re.I,
)


def _beyond_title(text: str, title: str) -> str:
    """``text`` without a template's prompts and without its leading sentences that echo the
    title ("" when nothing else is said)."""
    sentences = [x for x in _SENTENCE.split(text) if not _PROMPT.match(x)]
    while sentences and echoes(sentences[0], title):
        sentences.pop(0)
    return " ".join(sentences)


def gist(body: str, title: str = "", *, cleaned: str | None = None) -> str:
    """One line (≤ 200 chars) saying what the PR does beyond its title, or "" (see the module
    docstring)."""
    text = clean_body(body) if cleaned is None else cleaned
    if not text:
        return ""
    for lines in paragraphs(text):
        kept = _beyond_title(_joined(lines), title)
        if len(_WORD.findall(kept)) >= 2:  # words, not "N/A" or "-"
            return shorten(kept, GIST_MAX)
    return ""


_WORD = re.compile(r"[A-Za-z]{2,}")
