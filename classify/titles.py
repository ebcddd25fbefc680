"""Reading the structure of a PR title: bracket tags, conventional-commit prefix, series markers.

Real titles stack tags (``[ROCm][Bugfix]``, ``[Hardware][AMD]``), spell them many ways (``[BugFix]``,
``[Spec Decode]``, ``[torch.compile]``), mix in series markers (``[3/N]``, ``[last/6]``),
conventional-commit prefixes (``fix(rocm):``, ``feat!:``) and gitmoji (``✨ Add …``, ``⬆️ Bump …``,
``:bug: Fix …``). This module only splits them out; the profile decides what each tag means.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_TAG = re.compile(r"\s*[\[【]([^\[\]【】]{0,60})[\]】]\s*[:\-–|]?\s*")
_TRAILING_TAG = re.compile(r"\s*\[([^\[\]]{1,60})\]\s*$")
_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
_SERIES = re.compile(r"^\s*(?:\d+|last|final|n|x)\s*(?:/|of)\s*(?:\d+|n|x)\s*$", re.I)
# "(part 2)", "part 3 of 5", "(2/3)" in the text of a title: the unbracketed series markers
_TEXT_SERIES = re.compile(r"\(\s*\d+\s*/\s*(?:\d+|n)\s*\)|\bpart\s+\d+(?:\s*(?:/|of)\s*(?:\d+|n))?\b", re.I)
_CONVENTIONAL = re.compile(
    r"(?:\((?P<ptype>[A-Za-z][\w/ -]{0,24})\)|(?P<type>[A-Za-z][\w-]{0,24}))"
    r"(?:\((?P<scope>[^()]{1,40})\))?(?P<bang>!)?:\s+"
)
_SPLIT = re.compile(r"\s*[+,&|/]\s*")
# A gitmoji: a leading pictograph (its variation selector, skin tone or joined parts follow it) or
# a ``:shortcode:``, then a space. Each is one tag, written as its base pictograph ("⬆️" and "⬆"
# are one tag, "👷🏻" and "👷" too), so a profile lists it once.
_PICTOGRAPH = (
    "\U0001f000-\U0001faff\u2190-\u21ff\u2300-\u23ff\u2460-\u24ff\u25a0-\u27bf\u2900-\u297f"
    "\u2b00-\u2bff\u3030\u303d\u3297\u3299\u00a9\u00ae\u203c\u2049\u2122\u2139"
)
_EMOJI = re.compile(
    f"\\s*(?:(?P<pic>[{_PICTOGRAPH}])(?:[\\uFE0E\\uFE0F\\u20E3\\U0001F3FB-\\U0001F3FF]|\\u200D[{_PICTOGRAPH}\\u2640\\u2642]\\uFE0F?)*"
    r"|(?P<code>:[a-z0-9_+\-]{1,30}:))"
    f"(?=\\s|[\\[【:{_PICTOGRAPH}]|$)\\s*"
)
_NORM_DROP = str.maketrans("", "", " \t_-.")


def norm(word: str) -> str:
    """The comparison form of a tag, synonym or label: lower case, no spaces, '-', '_' or '.'."""
    return word.lower().translate(_NORM_DROP)


def project_key(repo: str) -> str:
    """The comparison form of a repository's own name ("wandb/wandb" → "wandb"): a word naming
    the project itself says nothing about a PR of it."""
    return norm(repo.rsplit("/", 1)[-1])


def is_series_marker(tag: str) -> bool:
    """``1/N``, ``3/n``, ``12/N``, ``last/6``, ``2 of 5``: position in a PR series, not a topic."""
    return _SERIES.match(tag) is not None


def split_tag(tag: str) -> list[str]:
    """The parts of a composite tag like ``kv_offload+HMA`` or ``Kernel/MoE``."""
    return [p for p in _SPLIT.split(tag) if p]


class ParsedTitle(NamedTuple):
    tags: tuple[str, ...]
    """Bracket tags in title order, series markers removed, as written (not normalised)."""
    prefix: str | None
    """Conventional-commit type (``fix`` in ``fix(rocm): …``) or ``(bugfix):`` style prefix, as written."""
    scopes: tuple[str, ...]
    """Conventional-commit scopes (``rocm`` in ``fix(rocm): …``), split on commas."""
    bang: bool
    """``feat!: …`` — the conventional-commit mark for a breaking change."""
    text: str
    """The title with tags, prefix and the ``(#123)`` squash suffix removed."""
    after_tags: str
    """The title with only the tags and the squash suffix removed (keeps an unknown ``Word:`` prefix)."""
    series: str | None = None
    """The series marker as written (``3/N``, ``part 2``), when the title says it is one of a series."""


def parse_title(title: str) -> ParsedTitle:
    """Split ``title`` into its tags, conventional-commit prefix and remaining text."""
    # cheap end checks first: a "$"-anchored regex search would try every position of the title
    rest = _PR_SUFFIX.sub("", title) if title.rstrip().endswith(")") else title
    tags: list[str] = []
    pos = 0
    tags_end = 0
    prefix: str | None = None
    scopes: tuple[str, ...] = ()
    bang = False
    while True:
        m = _TAG.match(rest, pos)
        if m:
            tags.append(m.group(1).strip())
            pos = tags_end = m.end()
            continue
        e = (
            _EMOJI.match(rest, pos)
            if prefix is None and pos < len(rest) and not rest[pos].isalnum()
            else None
        )
        if e:
            tags.append(e.group("pic") or e.group("code"))
            pos = tags_end = e.end()
            continue
        if prefix is None:
            c = _CONVENTIONAL.match(rest, pos)
            if c:
                prefix = (c.group("type") or c.group("ptype") or "").strip()
                scope = c.group("scope")
                scopes = tuple(s.strip() for s in scope.split(",") if s.strip()) if scope else ()
                bang = c.group("bang") is not None
                pos = c.end()
                continue
        break
    after_tags = rest[tags_end:]
    rest = rest[pos:]
    trailing: list[str] = []
    while rest.rstrip().endswith("]"):
        t = _TRAILING_TAG.search(rest)
        if not t or len(trailing) >= 3:
            break
        trailing.insert(0, t.group(1).strip())
        rest = rest[: t.start()]
        if after_tags.endswith(t.group(0)):
            after_tags = after_tags[: -len(t.group(0))]
    tags.extend(trailing)
    series = next((t for t in tags if t and is_series_marker(t)), None)
    if series is None and ("/" in rest or "art " in rest):
        m = _TEXT_SERIES.search(rest)
        if m:
            series = m.group(0).strip("() ")
    return ParsedTitle(
        tags=tuple(t for t in tags if t and not is_series_marker(t)),
        prefix=prefix,
        scopes=scopes,
        bang=bang,
        text=rest.strip(),
        after_tags=after_tags.strip(),
        series=series,
    )
