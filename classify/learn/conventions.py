"""The title conventions a team marks the kind of a change with, and what each mark means.

Four conventions are common enough to be ordinary knowledge, not any repository's: conventional
commits (``feat(api): …``, ``fix: …``), bracket tags (``[Bugfix]``, ``[Doc]``), gitmoji (``✨``,
``🐛``, ``📝``, ``🌐``, ``👷``, ``⬆️`` — https://gitmoji.dev) and labels (``bug``, ``enhancement``).
The learner finds which of them a repository uses, and how often, from its titles and labels; a
learned profile then lists the marks this team writes (with their counts) under the kinds they
mean. What a conventional-commit type, a bracket tag or a label means comes from the generic
profile's kinds (``classify/profiles/generic.toml``, passed in as data); what a gitmoji means is
the table below, gitmoji.dev's descriptions read as kinds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from classify.models import PullRequest
from classify.titles import norm, parse_title

# gitmoji.dev: each emoji's description, as the kind of change it says
GITMOJI: dict[str, str] = {
    "✨": "feature", "🎉": "feature", "🚸": "feature", "♿": "feature", "🚩": "feature", "💥": "feature",
    "🦺": "feature", "📱": "feature", "💫": "feature", "🌐": "translation", "🐛": "bugfix", "🚑": "bugfix",
    "🩹": "bugfix", "🥅": "bugfix", "🔒": "bugfix", "🔐": "bugfix", "📝": "docs", "✏": "docs", "📄": "docs",
    "💡": "docs", "👷": "ci", "💚": "ci", "📦": "ci", "⬆": "deps", "⬇": "deps", "➕": "deps", "➖": "deps",
    "📌": "deps", "👽": "deps", "♻": "refactor", "🔥": "refactor", "🚚": "refactor", "⚰": "refactor",
    "🏗": "refactor", "🗑": "refactor", "⚡": "perf", "✅": "test", "🧪": "test", "📸": "test", "🤡": "test",
    "🔧": "chore", "🔨": "chore", "🎨": "chore", "🚨": "chore", "💄": "chore", "👥": "chore", "🔖": "chore",
    "🙈": "chore", "🔊": "chore", "🔇": "chore", "🍱": "chore", "🏷": "chore", "💬": "chore", "🧑": "chore",
    "💸": "chore", "🔀": "chore", "⏪": "revert",
}  # fmt: skip
# the same marks written as gitmoji shortcodes (":sparkles: Add …")
SHORTCODES: dict[str, str] = {
    ":sparkles:": "✨", ":tada:": "🎉", ":children_crossing:": "🚸", ":wheelchair:": "♿", ":boom:": "💥",
    ":globe_with_meridians:": "🌐", ":bug:": "🐛", ":ambulance:": "🚑", ":adhesive_bandage:": "🩹",
    ":goal_net:": "🥅", ":lock:": "🔒", ":memo:": "📝", ":pencil2:": "✏", ":page_facing_up:": "📄",
    ":bulb:": "💡", ":construction_worker:": "👷", ":green_heart:": "💚", ":package:": "📦",
    ":arrow_up:": "⬆", ":arrow_down:": "⬇", ":heavy_plus_sign:": "➕", ":heavy_minus_sign:": "➖",
    ":pushpin:": "📌", ":alien:": "👽", ":recycle:": "♻", ":fire:": "🔥", ":truck:": "🚚", ":coffin:": "⚰",
    ":building_construction:": "🏗", ":wastebasket:": "🗑", ":zap:": "⚡", ":white_check_mark:": "✅",
    ":test_tube:": "🧪", ":camera_flash:": "📸", ":clown_face:": "🤡", ":wrench:": "🔧", ":hammer:": "🔨",
    ":art:": "🎨", ":rotating_light:": "🚨", ":lipstick:": "💄", ":busts_in_silhouette:": "👥",
    ":bookmark:": "🔖", ":see_no_evil:": "🙈", ":loud_sound:": "🔊", ":mute:": "🔇", ":bento:": "🍱",
    ":label:": "🏷", ":speech_balloon:": "💬", ":money_with_wings:": "💸", ":twisted_rightwards_arrows:": "🔀",
    ":rewind:": "⏪",
}  # fmt: skip
TRANSLATION = "translation"
# a kind the generic profile lacks, declared when the team marks translations
TRANSLATION_KIND: dict[str, Any] = {
    "en": "Translation",
    "zh": "翻译",
    "tags": [],
    "keywords": ["translation", "translations", "translate", "translated", "i18n", "l10n", "localization",
                 "localisation"],
}  # fmt: skip
MIN_USES = 2
"""a mark used fewer times than this is not a convention of the team (a one-off)"""


def gitmoji_kind(tag: str) -> str | None:
    """The kind a gitmoji (emoji or shortcode) says, or None."""
    return GITMOJI.get(SHORTCODES.get(tag, tag))


@dataclass
class Marks:
    """How a team marks its titles: every bracket tag, conventional-commit type and scope, gitmoji
    and label, counted over the history, with the spellings each is written in."""

    prs: int = 0
    tags: Counter[str] = field(default_factory=Counter)
    prefixes: Counter[str] = field(default_factory=Counter)
    scopes: Counter[str] = field(default_factory=Counter)
    gitmoji: Counter[str] = field(default_factory=Counter)
    labels: Counter[str] = field(default_factory=Counter)
    spellings: dict[str, Counter[str]] = field(default_factory=dict)
    """normalised mark → its spellings as written"""

    def written(self, key: str) -> str:
        """The spelling the team uses most for a mark (normalised ``key``)."""
        forms = self.spellings.get(key)
        return forms.most_common(1)[0][0] if forms else key

    def share(self, counter: Counter[str]) -> float:
        return sum(counter.values()) / self.prs if self.prs else 0.0


def _spell(marks: Marks, text: str) -> str:
    key = norm(text)
    marks.spellings.setdefault(key, Counter())[text] += 1
    return key


def read_marks(prs: Iterable[PullRequest]) -> Marks:
    """Count every mark of the titles and labels of ``prs``."""
    marks = Marks()
    for pr in prs:
        marks.prs += 1
        parsed = parse_title(pr.title)
        for tag in parsed.tags:
            if gitmoji_kind(tag) is not None or not any(ch.isalnum() for ch in tag):
                marks.gitmoji[SHORTCODES.get(tag, tag)] += 1
            else:
                marks.tags[_spell(marks, tag)] += 1
        if parsed.prefix:
            marks.prefixes[_spell(marks, parsed.prefix)] += 1
            for scope in parsed.scopes:
                marks.scopes[_spell(marks, scope)] += 1
        for label in pr.labels:
            marks.labels[_spell(marks, label)] += 1
    return marks


@dataclass(frozen=True)
class KindMarks:
    """The marks of one kind this team uses: (as written, uses) per convention."""

    tags: tuple[tuple[str, int], ...] = ()
    prefixes: tuple[tuple[str, int], ...] = ()
    labels: tuple[tuple[str, int], ...] = ()


def _base_words(base: Mapping[str, Any], kind: str, key: str) -> set[str]:
    spec = base.get("kinds", {}).get(kind, {})
    return {norm(w) for w in spec.get(key, [])}


def kind_marks(marks: Marks, base: Mapping[str, Any], kinds: Sequence[str]) -> dict[str, KindMarks]:
    """For each kind, the marks the team uses that mean it: the generic profile's tags, prefixes
    and labels of that kind as this team spells them, and the gitmoji that say it."""
    out: dict[str, KindMarks] = {}
    claimed: set[tuple[str, str]] = set()
    for kind in kinds:
        tags = [
            (marks.written(k), n) for k, n in marks.tags.most_common() if k in _base_words(base, kind, "tags")
        ]
        tags += [(g, n) for g, n in marks.gitmoji.most_common() if gitmoji_kind(g) == kind]
        words = _base_words(base, kind, "prefixes") | _base_words(base, kind, "tags")
        prefixes = [(marks.written(k), n) for k, n in marks.prefixes.most_common() if k in words]
        labels = [
            (marks.written(k), n)
            for k, n in marks.labels.most_common()
            if k in _base_words(base, kind, "labels")
        ]
        kept = KindMarks(
            tags=_once(tags, "tag", claimed),
            prefixes=_once(prefixes, "prefix", claimed),
            labels=_once(labels, "label", claimed),
        )
        out[kind] = kept
    return out


def _once(
    found: list[tuple[str, int]], what: str, claimed: set[tuple[str, str]]
) -> tuple[tuple[str, int], ...]:
    """Marks used at least ``MIN_USES`` times, each for one kind only (the first that claims it)."""
    out = []
    for text, n in found:
        key = (what, norm(text))
        if n >= MIN_USES and key not in claimed:
            claimed.add(key)
            out.append((text, n))
    return tuple(out)


def kind_words(marks: Marks, base: Mapping[str, Any]) -> set[str]:
    """Every normalised word that marks a kind (the generic profile's kind tags and prefixes): a
    title tag of this vocabulary says what kind of change, never what it is about."""
    out: set[str] = set()
    for spec in base.get("kinds", {}).values():
        for key in ("tags", "prefixes"):
            out |= {norm(w) for w in spec.get(key, [])}
    return out
