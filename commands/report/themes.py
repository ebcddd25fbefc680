"""Group the period's notable PRs into themes.

Two kinds of theme, as in the hand-written report:
- a *burst*: a word that suddenly appears in several titles (four "AutoWeightsLoader"
  migrations in one week, none before) becomes a theme of its own;
- a *module* theme: the remaining PRs grouped by module, heaviest (by key-PR score) first.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from classify.titles import parse_title
from commands.report.stats import DigestStats, rank_key
from storage.prs import StoredPR

MAX_THEMES = 7
MAX_BURSTS = 3
MIN_BURST_PRS = 4

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.+\-]*[A-Za-z0-9]")
_NAME_LIKE = re.compile(r"[A-Za-z].*[A-Z]|\d|[-_.+]")
STOPWORDS = frozenset(
    """
    a an the and or of to in on for with from by at as is are be into via per not no fix fixes fixed
    add adds added support supports update updates updated remove removes removed use uses bump
    upgrade improve improves refactor refactors clean cleanup make makes allow allows enable enables
    disable disables handle move moves rename renames revert reverts when if that this test tests
    testing bugfix bug misc doc docs ci build core model models kernel frontend perf feature feat
    chore new more default option options config issue error errors case cases path paths after
    before only also re-enable re-land reland follow-up followup multi-node non-blocking pre-commit
    """.split()
)


@dataclass
class Theme:
    title: str
    kind: str  # "burst" or "module"
    prs: list[StoredPR]
    key: str  # the burst word or the module name


def clean_title(title: str) -> str:
    """A title without its [Tags], conventional-commit prefix or trailing (#123)."""
    return parse_title(title).text or title.strip()


def stem(word: str) -> str:
    """Fold plurals so "kernels" counts with "kernel" (a new spelling is not a new topic)."""
    w = word.lower()
    if len(w) > 4 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


_BRACKETS = re.compile(r"\[[^\]]{0,60}\]|\(#\d+\)")
_PREFIX = re.compile(r"^\s*[A-Za-z]+(?:\([^)]{0,40}\))?!?:\s")


def _topic_text(title: str) -> str:
    """The title without [tags], a conventional-commit prefix or (#123) — a cheap cut of
    ``clean_title`` for word statistics, which run over thousands of titles per digest."""
    return _PREFIX.sub("", _BRACKETS.sub(" ", title).strip())


@lru_cache(maxsize=32_768)
def title_terms(title: str) -> tuple[tuple[str, bool], ...]:
    """The title's topic words (stemmed, no stopwords, first occurrence first), each with whether
    it reads as a name here: AutoWeightsLoader, MXFP4, Kimi-VL, or a capitalised word mid-title —
    rather than an ordinary English word that happens to recur ("caching", "unify").

    Cached: a long-running bot computes the same weeks' titles digest after digest.
    """
    terms: dict[str, bool] = {}
    for i, w in enumerate(_WORD.findall(_topic_text(title))):
        if len(w) < 4:
            continue
        term = stem(w)
        if term in STOPWORDS:
            continue
        named = terms.get(term, False) or bool(_NAME_LIKE.search(w)) or (i > 0 and w[0].isupper())
        terms[term] = named
    return tuple(terms.items())


def _display_form(word: str, titles: Iterable[str]) -> str:
    forms: Counter[str] = Counter(w for title in titles for w in _WORD.findall(title) if stem(w) == word)
    return forms.most_common(1)[0][0] if forms else word


def _previous_counts(words: Iterable[str], titles: Iterable[str]) -> Counter[str]:
    """How often each candidate word (or its plural) appears in earlier titles.

    One tokenising pass over all of them, counted in C by ``Counter``; a word's count is that of
    the spellings that stem to it (titles rarely repeat a word, so occurrences ≈ titles).
    """
    tokens = Counter(_WORD.findall("\n".join(titles).lower()))
    counts: Counter[str] = Counter()
    for word in set(words):
        n = sum(tokens[form] for form in (word, word + "s") if stem(form) == word)
        if n:
            counts[word] = n
    return counts


def bursts(stats: DigestStats) -> list[Theme]:
    """Names in ≥4 titles this period that were rare in the four windows before.

    Needs at least two earlier windows with data: without a history everything looks new.
    """
    if sum(1 for w in stats.previous if w.titles) < 2:
        return []
    now: dict[str, list[StoredPR]] = defaultdict(list)
    named: set[str] = set()
    for s in stats.prs:
        for term, is_name in title_terms(s.pr.title):
            now[term].append(s)
            if is_name:
                named.add(term)
    # cheap tests first: only names that are frequent now (but not everywhere) are looked up before
    frequent = {
        w: members
        for w, members in now.items()
        if w in named and MIN_BURST_PRS <= len(members) < 0.5 * max(1, len(stats.prs))
    }
    if not frequent:
        return []
    before = _previous_counts(frequent, (t for w in stats.previous for t in w.titles))
    n_prev = max(1, len(stats.previous))
    candidates = []
    for word, members in frequent.items():
        avg = before[word] / n_prev
        if len(members) >= 3 * (avg + 0.5):
            candidates.append((len(members) / (avg + 0.5), len(members), word, members))
    candidates.sort(key=lambda c: (-c[0], -c[1], c[2]))
    chosen: list[Theme] = []
    covered: set[int] = set()
    for _, _, word, members in candidates:
        numbers = {s.pr.number for s in members}
        if len(numbers & covered) >= 0.5 * len(numbers):
            continue  # the same PRs already make a theme under another word
        title = _display_form(word, (s.pr.title for s in members))
        chosen.append(Theme(title, "burst", sorted(members, key=rank_key), word))
        covered |= numbers
        if len(chosen) == MAX_BURSTS:
            break
    return chosen


def module_themes(
    stats: DigestStats, taken: set[int], limit: int, catch_all: Iterable[str] = ()
) -> list[Theme]:
    """Greedy: the module whose notable PRs weigh most becomes a theme, its PRs leave the pool."""
    skip = set(catch_all)
    pool = [
        s for s in stats.prs if s.pr.number not in taken and (s.pr.number in stats.key or s.cls.score > 0)
    ]
    themes: list[Theme] = []
    while pool and len(themes) < limit:
        weight: dict[str, float] = defaultdict(float)
        for s in pool:
            bonus = 2.0 if s.pr.number in stats.key else 1.0
            for m in s.cls.modules:
                if m not in skip:
                    weight[m] += max(s.cls.score, 0.1) * bonus
        if not weight:
            break
        module = max(weight, key=lambda m: (weight[m], m))
        members = [s for s in pool if module in s.cls.modules]
        if len(members) < 2 and not any(s.pr.number in stats.key for s in members):
            break
        themes.append(
            Theme(
                module,
                "module",
                sorted(members, key=lambda s: (s.pr.number not in stats.key, *rank_key(s))),
                module,
            )
        )
        numbers = {s.pr.number for s in members}
        pool = [s for s in pool if s.pr.number not in numbers]
    return themes


def find_themes(stats: DigestStats, catch_all: Iterable[str] = ()) -> list[Theme]:
    found = bursts(stats)
    taken = {s.pr.number for th in found for s in th.prs}
    found += module_themes(stats, taken, MAX_THEMES - len(found), catch_all)
    return found
