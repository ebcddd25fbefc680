"""The words a PR title is about: the raw material of storyline themes.

A theme is found from what several PRs of a period share — a title tag, a name, a phrase, a
file — so titles are reduced here to comparable *terms*:

- a word is folded to a light stem (``kernels`` → ``kernel``, ``categories`` → ``category``) so
  a new spelling is not a new topic;
- stopwords (English glue and the verbs every title starts with) are dropped;
- a word that reads as a name (``AutoWeightsLoader``, ``MXFP4``, ``Kimi-VL``, a capitalised word
  mid-title) is marked, because a recurring name is more likely a story than a recurring verb;
- two neighbouring kept words also form a phrase (``external memory``, ``tool parser``).

Also the small language facts a theme's name needs: whether a short tag abbreviates a phrase
(``EM`` → "external memory", ``mt`` → "multi-target", ``coll`` → "collective"), and the action
shared by a series of titles ("Migrate X to …" ×7 → a migration). No repository knowledge:
every word list here is ordinary English.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from classify.titles import parse_title

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.+\-]*[A-Za-z0-9]|[A-Z][A-Z0-9]")
_NAME_LIKE = re.compile(r"[A-Za-z].*[A-Z]|\d|[-_.+]")
_BRACKETS = re.compile(r"\[[^\]]{0,60}\]|\(#\d+\)")
_PREFIX = re.compile(r"^\s*[A-Za-z]+(?:\([^)]{0,40}\))?!?:\s")
_PARTS = re.compile(r"[-_.+/]")

# The verbs of change a title starts with: ordinary English, never a repository's list. A word of
# this list says what was done, not to what, so it never names a theme ("avoid", "create").
CHANGE_VERBS = frozenset(
    """
    add fix remove update bump drop avoid ignore create delete skip prevent ensure reduce increase
    introduce implement replace expose pin retry raise return include expand show hide require
    restore resolve rework extract convert speed simplify allow move rename revert
    """.split()
)

# English glue, and the verbs and nouns that say *what kind* of change a title is rather than
# what it is about (a profile's kind keywords are dropped as well, see ``themes``).
STOPWORDS = CHANGE_VERBS | frozenset(
    """
    a an the and or of to in on for with from by at as is are be been into via per not no nor
    it its this that these those when if then than so but also only just more less most all any
    each every some other new old now yet still after before during without within across over
    under up down out off again further same own too very can could should would will may might
    must do does did done has have had having use uses used using make makes made via vs
    fix fixes fixed fixing add adds added adding support supports supported update updates
    updated remove removes removed removing bump upgrade improve improves improved refactor
    refactors clean cleanup cleanups enable enables disable disables allow allows handle handles
    move moves moved rename renames revert reverts reverted test tests testing bugfix bug bugs
    misc minor small typo typos doc docs ci build feature feat chore option options issue issues
    error errors case cases path paths follow-up followup re-enable reland pre-commit set get
    change changes changed correct correctly properly proper better default first last one two
    via part step wip nit nits initial basic simple simplify various several additional extra instead
    """.split()
)


def stem(word: str) -> str:
    """A light English stem: plurals folded (``kernels`` → ``kernel``, ``categories`` → ``category``,
    ``patches`` → ``patch``), everything else as written, lower case."""
    w = word.lower()
    if len(w) <= 3 or not w.endswith("s") or w.endswith(("ss", "us", "is")):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "xes", "sses", "zes")):
        return w[:-2]
    return w[:-1]


class Term(NamedTuple):
    """One topic word or phrase of a title."""

    key: str
    """comparison form: stems joined by a space"""
    text: str
    """as written in the title"""
    name: bool
    """reads as a name (mixed case, digits, joined parts, or capitalised mid-title)"""


def topic_text(title: str) -> str:
    """The title without [tags], a conventional-commit prefix or (#123): what it is about."""
    return _PREFIX.sub("", _BRACKETS.sub(" ", title).strip())


@lru_cache(maxsize=32_768)
def title_terms(title: str, extra_stopwords: frozenset[str] = frozenset()) -> tuple[Term, ...]:
    """The title's topic words and two-word phrases, first occurrence first (no duplicates).

    Cached: a long-running bot computes the same weeks' titles digest after digest.
    """
    words = _WORD.findall(topic_text(title))
    kept: list[tuple[int, str, str, bool]] = []
    for i, w in enumerate(words):
        if w.isdigit() or (len(w) < 3 and not w.isupper()):
            continue
        key = stem(w)
        if key in STOPWORDS or key in extra_stopwords or w.lower() in STOPWORDS:
            continue
        named = bool(_NAME_LIKE.search(w)) or (i > 0 and w[0].isupper()) or (w.isupper() and len(w) >= 2)
        kept.append((i, key, w, named))
    terms: dict[str, Term] = {}
    for j, (i, key, w, named) in enumerate(kept):
        if key not in terms:
            terms[key] = Term(key, w, named)
        if j + 1 < len(kept) and kept[j + 1][0] == i + 1:
            _, key2, w2, named2 = kept[j + 1]
            phrase = f"{key} {key2}"
            if phrase not in terms:
                terms[phrase] = Term(phrase, f"{w} {w2}", named or named2)
    return tuple(terms.values())


def leading_verb(title: str) -> str | None:
    """The first word of a title's text when it is a verb-like word (``Migrate``, ``Fix``), lower case."""
    text = parse_title(title).text
    m = re.match(r"[A-Za-z]+", text)
    return m.group(0).lower() if m else None


def _initials(phrase: str) -> str:
    return "".join(p[0] for p in _PARTS.sub(" ", phrase).split() if p)


def abbreviates(short: str, phrase: str) -> bool:
    """Whether ``short`` (a tag like ``EM``, ``mt``, ``coll``) abbreviates ``phrase``: its
    initials (``external memory``, ``multi-target``) or the start of its one word (``collective``)."""
    s = short.lower()
    p = phrase.lower()
    if len(s) < 2 or len(p) <= len(s) or not s.isalpha():
        return False
    parts = _PARTS.sub(" ", p).split()
    if len(parts) >= 2:
        return _initials(p) == s
    return p.startswith(s) and len(p) >= len(s) + 3


def display_case(phrase: str) -> str:
    """A phrase found in lower-case titles, capitalised as a heading: ``external memory`` →
    ``External Memory``; words that already carry capitals are kept as written."""
    return " ".join(w if any(c.isupper() for c in w) else w[:1].upper() + w[1:] for w in phrase.split(" "))


# -- release mechanics --------------------------------------------------------------------------------

# a version: "v2.13.0b3", "3.1", "2.x", "v2" (a name with a number in it, "Qwen2.5", is not)
_VERSION_TERM = re.compile(
    r"v\d+(?:\.(?:\d+|x))*(?:(?:a|b|rc|alpha|beta|dev|post|pre)\d*)?|\d+(?:\.(?:\d+|x))+(?:(?:a|b|rc|alpha|beta|dev|post|pre)\d*)?",
    re.I,
)
_PR_REF = re.compile(r"#\d+")


def is_version(term: str) -> bool:
    """Whether a tag or word is a version (``v2.13.0b3``, ``3.1``, ``2.x``); a name with a number in
    it (``Qwen2.5``, ``gpt-4o``, ``e2e``) is not."""
    text = term.strip()
    return bool(_VERSION_TERM.fullmatch(text)) and any(c.isdigit() for c in text)


# a title bumping the repository's own version: "Release version 0.141.1", "Bump version to 2.3",
# "Prepare the 2.3 release" (a dependency's version is named with "from … to …", another rule's)
OWN_VERSION = re.compile(
    r"^\W*(?:release|releasing)\b(?!\s+notes?\b)(?:\s+version)?\s+v?\d"
    r"|\b(?:bump|bumps|bumped|update|set|prepare|increment)\b[\w\s]{0,12}?\bversions?\b(?!\s+(?:of|constraint|range|pin))"
    r"|\bprepare\b[\w\s.]{0,24}\brelease\b|\bversion\s+bump\b",
    re.I,
)


def release_marked(title: str) -> bool:
    """Whether a title carries another PR's number (backports and cherry-picks cite the original:
    the whole title is read, a cherry-pick's "(#12)" included), a version as a tag of its own
    ("[2.13] …"; a version inside a name, "Llama 3.1", is the name's), or bumps the repository's
    own version ("🔖 Release version 0.141.1": what such titles share is the release, no story)."""
    parsed = parse_title(title)
    return (
        bool(_PR_REF.search(title))
        or any(is_version(tag) for tag in parsed.tags)
        or bool(OWN_VERSION.search(parsed.after_tags or title))
    )


def release_mechanics(
    term: str,
    titles: list[str] | tuple[str, ...],
    branches: frozenset[str] | set[str] = frozenset(),
    marked: Callable[[str], bool] = release_marked,
) -> bool:
    """Whether a title tag says where a change goes rather than what it is about: a version, the
    name of a branch PRs merge into (``branches``, normalised), or a tag whose titles are mostly
    ``release_marked``. ``marked`` is that test, or what a caller that asks about many tags of
    the same titles worked out once per title."""
    if is_version(term):
        return True
    if term.lower().replace(" ", "").replace("_", "").replace("-", "").replace(".", "") in branches:
        return True
    if len(titles) < 2:
        return False
    return sum(1 for title in titles if marked(title)) >= 0.5 * len(titles)
