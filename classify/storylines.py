"""Storyline themes: the stories of a period, found in what its PRs share.

A theme is what a reader would call a story of the week — an initiative (a migration series, a
refactor in N parts), a platform's push (CPU, ROCm), a subsystem's arc (speculative decoding,
KV transfer, tool parsers) — not a bucket of everything that touched a module or a file type.
Every step works from the period's own data and the profile's vocabulary:

1. **Topics.** Each PR offers what it could share with others: its title tags and
   conventional-commit scopes (a kind tag such as ``[Bugfix]`` says what kind of change it is,
   not what it is about, and is left out; a tag or title keyword the profile knows names its
   module, except infrastructure and language buckets), its title words and two-word phrases.
   How much a PR is about a topic depends on where it appears: its first tag most, a keyword in
   passing least; an area named after a model's name is the subject ("the Gemma 4 tool parser").
   Its changed files, when known, do not make a story; they tie PRs to one (steps 1b and 4).
1b. **Places.** A title topic that names a *place* — the name of a directory or file that the
   period's PRs work in (at least 30% of a PR's files), spelt the same (``tool parser`` and
   ``tool_parsers/``), abbreviated by a tag (``[coll]`` and ``collective/``; a tag also names a
   directory further up, ``[sycl]`` and ``plugin/sycl/tree/``) or a keyword of the module —
   takes the PRs working there as members too, each about it by half its share of files.
   These are synonyms from the repository's own vocabulary; a place one PR in ten works in is a
   package, not a subsystem, and one named like the repository is the project itself.
2. **Candidates.** A title topic shared by at least ``MIN_PRS`` PRs and by at most ``MAX_SHARE``
   of them (a label on a third of all PRs is a bucket, not a story). Bots' PRs tell no story.
3. **Strength.** The sum over its PRs of their weight (their key-PR score, so docs and chores
   weigh little) × how much they are about it, × how far that kind of topic is trusted (an
   author's tag more than a plain word), × its *specificity*: how rare it was in the earlier
   windows' titles (a label on a quarter of all PRs, week after week, is a bucket).
4. **Greedy cover.** A name, phrase or tag *bursting* against the earlier windows (new this week)
   is told first; then the strongest remaining candidate. It grows by the topics that tell the
   same story (``_grow``: their titles are mostly the seed's PRs, or their PRs mostly work in the
   seed's own files — those its PRs change over and over and are a fair share of the changes
   to), up to ``GROWTH`` times its size. Its PRs leave the pool — a PR
   is in at most one theme — and a topic mostly told already is not told again; words joining by
   shared files never carry a PR whose first tag names another story. ``SPARE_THEMES`` more than
   are told.
4b. **Standing.** News first, then the stories found by *standing* (``_standing``): strength, up
   to twice for a coherent story of many changes in the one subsystem its name names (the
   tool-call parsers' small fixes in ``tool_parsers/``), and only the share a module theme holds of
   its module's activity (a slice of a bucket, "22 of the 44 PRs that touch it", stands lower).
   The first ``MAX_THEMES`` are told.
5. **Name.** The tag, module or words that cover most of the theme, as written; a short tag is
   spelt out when the theme's own words or files show what it abbreviates (``EM`` → "External
   Memory"); a phrase takes the noun it qualifies when the theme's titles share it as widely
   ("smooth MM" → "smooth MM objective"); a series whose titles mostly start with the same action,
   or mostly declare themselves refactors (``refactor: …``), says so ("AutoWeightsLoader
   migration", "type hint fixes", "run refactoring"). A module theme takes the profile's
   labels (English and Chinese). A name is a subject, never a verb of change (stopwords, see
   ``classify.topics.CHANGE_VERBS``) nor a word of the repository's ordinary vocabulary
   (``_ordinary``: "run", "file", "version" — a story it seeds takes the best subject covering it,
   or is not told); a file name becomes the label of the module holding the file
   (``requirements_dev.txt`` → "Dependencies").
6. **Sentence.** ``describe`` adds, once the key PRs are known, one computed sentence per
   language: how many PRs of which kinds, how many key, which lead, and how often titles named the
   topic before.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple, Protocol

from classify.engine import is_bot
from classify.models import ListedPR, ScorePart
from classify.rules import Profile
from classify.text import without_final_period
from classify.titles import is_series_marker, norm, parse_title, project_key, split_tag
from classify.topics import (
    CHANGE_VERBS,
    STOPWORDS,
    display_case,
    release_marked,
    release_mechanics,
    stem,
    topic_text,
)
from classify.topics import abbreviates as _abbreviates
from classify.topics import leading_verb as _leading_verb

MAX_THEMES = 7
SPARE_THEMES = 3  # stories found beyond those told, so that the best standing ones are told
_ANY_TAG = re.compile(r"[\[【]([^\[\]【】]{1,60})[\]】]")
_SCOPE = re.compile(r"\s*\(?[A-Za-z][\w-]{0,24}\)?\(([^()]{1,40})\)!?:\s")  # feat(rocm): …
_TERM_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.+\-]*[A-Za-z0-9]")  # classify.topics' words
_NAME_LIKE = re.compile(r"[A-Za-z].*[A-Z]|\d|[-_.+]")
NOT_STORIES = frozenset({"infra", "language"})
MODEL_GROUP, AREA_GROUP = "model", "area"
MIN_PRS = 3
MAX_SHARE = 0.3
ABSORB = 3 / 4
ABSORBED = frozenset({"tag", "name", "phrase"})
FILE_JOINED = frozenset({"name", "phrase", "word"})
SPECIFIC_FILE_SHARE = 0.1
AT_HOME = 0.5
SHARED_FILES = 2 / 3
OWN_SHARE = 0.4  # a file is a story's own when its PRs are this share of the period's PRs changing it
MIN_BURST_PRS = 4
BURSTING = frozenset({"tag", "name", "phrase"})  # a plain word bursting is often chance
BURST = 2.0
MAX_BURSTS = 3
TAKEN = 0.5
GROWTH = 2.0
ANCESTOR = "^"  # marks a directory further up than a file's own (``_file_places``)
PLACE_SHARE = 0.3  # a PR works in a place when this share of its files lie there
PLACE_ABOUT = 0.5  # how much working in a named place makes a PR about the story (a title says more)
LEAD_PRS = 3
ACTION_SHARE = 0.6
SCATTERED = 0.4
HEAD_WORDS = 2  # a compound's head noun comes within this many topic words after its modifiers  # a word whose PRs work in this many different directories per PR has no place of its own
# how far each kind of topic is trusted to be a story (a tag is the author's own word for it)
TRUST = {"tag": 1.0, "module": 0.9, "name": 0.8, "phrase": 0.8, "word": 0.45}
# what a title's leading verb makes of a series: "Migrate X to Y" ×5 is a migration
DECLARED_REFACTOR = frozenset({"refactor", "refactoring"})  # conventional-commit types
ACTIONS = ("migrate", "port", "tune", "deprecate", "remove", "refactor", "optimize", "fix")
# what a series of each action is called, in each language a storyline is named in
ACTION_NAMES = {
    "migrate": {"en": "migration", "zh": "迁移"},
    "port": {"en": "port", "zh": "移植"},
    "tune": {"en": "tuning", "zh": "调优"},
    "deprecate": {"en": "deprecations", "zh": "弃用"},
    "remove": {"en": "removals", "zh": "移除"},
    "refactor": {"en": "refactoring", "zh": "重构"},
    "optimize": {"en": "optimisation", "zh": "优化"},
    "fix": {"en": "fixes", "zh": "修复"},
}


@dataclass(frozen=True)
class Theme:
    """One storyline of a period, ready to render.

    ``name`` and ``summary`` hold the same text in every language the locale has ("en", "zh");
    ``summary`` is empty until ``describe`` has seen the period's key PRs.
    """

    key: str
    """what seeded it, stable across runs: ``tag:em``, ``module:rocm``, ``word:autoweightsloader``,
    ``word:quantile``"""
    kind: str
    """``burst`` (new against the earlier windows), ``series`` (a tag or a numbered series),
    ``module`` (a profile module) or ``topic`` (shared words)"""
    name: Mapping[str, str]
    prs: list[ListedPR]
    """every PR of the story, key PRs first, then by score"""
    module: str | None = None
    """the profile module it is, when it is one"""
    before: float | None = None
    """PRs a window that the naming topic had in the earlier windows (None: no history)"""
    compared: int = 0
    """how many earlier windows ``before`` averages over"""
    named: int = 0
    """PRs of the period whose titles carry the naming topic (what ``before`` compares with)"""
    evidence: tuple[str, ...] = ()
    """what joined the PRs, e.g. ``tag [EM]``, ``words "ellpack"``, ``file src/data/cat.h``"""
    summary: Mapping[str, str] = field(default_factory=dict)
    lead: tuple[int, ...] = ()
    """the PRs the summary names"""
    strength: float = 0.0
    """how strongly the period tells this story (what picked it): its PRs' weights × trust × rarity"""
    standing: float | None = None
    """how it stands among the period's stories (what orders them after the news): its strength,
    up to twice for a coherent subsystem story, a module's slice for its share (None: its strength)"""
    told: frozenset[int] | None = None
    """the PRs whose titles tell the story (None: all); the others joined by the files they change"""

    @property
    def title(self) -> str:
        return self.name.get("en", self.key)

    def label(self, lang: str) -> str:
        return self.name.get(lang) or self.title

    @property
    def numbers(self) -> list[int]:
        return [s.pr.number for s in self.prs]


def clean_title(title: str, repo: str = "") -> str:
    """A title as a digest shows it: without its [Tags], conventional-commit prefix, trailing
    (#123) or closing full stop (a title is a heading, and a dash or a PR link follows it), and
    starting with a capital as an item of a list does ("refactor(artifacts): use codegen for …"
    → "Use codegen for …") — unless its first word is a name written in lower case: the project's
    own (``repo``: "wandb beta sync …"), or two letters ("uv", "io")."""
    text = without_final_period(parse_title(title).text or title.strip())
    first = text.split(" ", 1)[0]
    if len(first) > 2 and first.isalpha() and first.islower() and norm(first) != project_key(repo):
        return text[0].upper() + text[1:]
    return text


# -- topics --------------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Topic:
    key: str
    source: str  # tag | module | name | phrase | word | file | dir
    forms: dict[str, int] = field(default_factory=dict)
    """each spelling of it in the titles, with how often"""
    members: set[int] = field(default_factory=set)
    weight: dict[int, float] = field(default_factory=dict)
    """how much each PR is about it: 1 for a title's first tag, less for what it mentions in passing"""
    titled: frozenset[int] = frozenset()
    """the PRs whose titles carry it (``members`` adds those working in a place it names)"""
    places: tuple[str, ...] = ()
    """the directories and files it names (``_name_places``)"""

    @property
    def text(self) -> str:
        if not self.forms:
            return self.key.split(":", 1)[1]
        return max(self.forms.items(), key=lambda kv: kv[1])[0]  # the commonest; ties: the first seen


# How much a PR is about a topic, by where the topic appears: the first title tag (or, in an
# untagged title, the first area keyword) is what the PR is about; a later tag says a little about
# it, an area keyword after that only that the PR touches it. Words count in between.
PRIMARY = 1.0
OTHER_TAG = 0.5
SECONDARY = 0.25
WORD = 0.8
# bounds of the per-process caches: per word, term or path (small entries) and per title or per
# PR's file list (~1.5 KB each: 10,000 are ~20–40 weeks of vLLM; the server's storyline fill, which
# reads every week, keeps its heap within ~100 MB at these bounds)
FEATURE_CACHE = 50_000
TITLE_CACHE = 10_000


# a title's features as ``_topics`` files them: (tag keys, plain word keys, (topic key, source, key,
# as written, weight) for each feature)
Filed = tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str, str, str, float], ...]]


class _Vocabulary:
    """What the profile says about title words: kind words (dropped) and module words (named)."""

    def __init__(self, profile: Profile) -> None:
        c = profile.compiled
        self.profile = profile
        self.kind_tags = set(c.kind_tags) | set(c.kind_prefixes) | set(c.breaking_tags)
        self.module_tags = c.module_tags
        # infrastructure (CI, docs, tests) and language buckets (Python, C++) are not stories
        self.skip = {name for name, m in profile.modules.items() if m.group in NOT_STORIES}
        self.skip.add(profile.catch_all_module)
        self._cache: dict[str, tuple[bool, tuple[str, ...]]] = {}
        self._filed: dict[str, Filed] = {}
        self._topic_keys: dict[tuple[str, str], str] = {}
        self._keys: dict[str, frozenset[str]] = {}
        self._tags: dict[str, tuple[tuple[str, str, str], ...]] = {}
        self._terms: dict[str, str | None] = {}
        self._names: dict[str, tuple[str, ...]] = {}
        self._named: dict[str, bool] = {}
        self._norms: dict[str, str] = {}
        self._about: dict[str, tuple[bool, tuple[tuple[str, str, bool, bool, str], ...]]] = {}

    def word(self, key: str) -> tuple[bool, tuple[str, ...]]:
        """(is a kind word, modules it is a keyword of) for a stemmed word or phrase."""
        hit = self._cache.get(key)
        if hit is None:
            owners = self.profile.compiled.keywords.find(key)
            kind = any(o.startswith("k:") for o in owners) and " " not in key
            modules = tuple(o[2:] for o in owners if o.startswith("m:") and o[2:] not in self.skip)
            hit = self._cache[key] = (kind, modules)
        return hit

    def tags(self, title: str) -> Iterable[tuple[str, str, str]]:
        """(source, key, as written) for each topic tag of a title: a module's tag names the module."""
        parsed = parse_title(title)
        for tag in (*parsed.tags, *parsed.scopes):
            yield from self.tag(tag)

    def tag(self, tag: str) -> tuple[tuple[str, str, str], ...]:
        """The topics one tag names (cached: a repository uses a few dozen tags over and over)."""
        hit = self._tags.get(tag)
        if hit is not None:
            return hit
        out: list[tuple[str, str, str]] = []
        whole = norm(tag)
        parts = [tag] if whole in self.module_tags or whole in self.kind_tags else split_tag(tag)
        for part in parts:
            k = norm(part)
            module = self.module_tags.get(k)
            if module is not None:  # a module's tag names it, even when a kind uses the word too
                if module not in self.skip:
                    out.append(("module", module, self.profile.module_label(module, "en")))
            elif len(k) >= 2 and not k.isdigit() and not self._kind_like(part) and not is_series_marker(part):
                out.append(("tag", k, part))
        hit = self._tags[tag] = tuple(out)
        return hit

    def norm(self, word: str) -> str:
        """``classify.titles.norm``, cached (a digest compares every title word with its tags)."""
        hit = self._norms.get(word)
        if hit is None:
            hit = self._norms[word] = norm(word)
        return hit

    def _kind_like(self, tag: str) -> bool:
        """``[Bugfix]``, ``[skip ci]``, ``[CI/Build]``: a tag saying what kind of change, not what about."""
        return norm(tag) in self.kind_tags or any(norm(w) in self.kind_tags for w in tag.split())

    def features(self, title: str) -> tuple[tuple[str, str, str, float], ...]:
        """(source, key, as written, how much the PR is about it) for every title topic; cached
        (as ``filed``), since a digest reads the same titles week after week."""
        return tuple(entry[1:] for entry in self.filed(title)[2])

    def filed(self, title: str) -> Filed:
        """``features`` as ``_topics`` files them, worked out in one pass over the title's tags and
        words (each looked up in per-word caches) and cached, since a digest reads the same titles
        week after week (its own and four earlier windows): the title's tag keys, its plain words'
        keys, and each feature with its topic key (``_topic_key``, one string for all titles)."""
        hit = self._filed.get(title)
        if hit is not None:
            return hit
        out: list[tuple[str, str, str, str, float]] = []
        full_of = self._topic_keys
        tags: list[str] = []
        plain: list[str] = []
        primary = True  # nothing took the primary slot yet (else exactly one entry holds it)
        model_lead = False  # the entry holding it is a model family's module
        if "[" in title or "【" in title or ":" in title:  # tags and scopes need one of these
            parsed = parse_title(title)
            for tag in (*parsed.tags, *parsed.scopes):
                for source, key, form in self.tag(tag):
                    if primary:
                        model_lead = source == "module" and self._is_model(key)
                    full = full_of.get((source, key)) or self._topic_key(source, key)
                    out.append((full, source, key, form, PRIMARY if primary else OTHER_TAG))
                    if source == "tag":
                        tags.append(key)
                    primary = False
        # the title's words and two-word phrases as ``classify.topics.title_terms`` reads them,
        # through this vocabulary's per-word caches (a digest reads hundreds of new titles)
        seen: set[str] = set()
        last, last_form, last_name, last_i = "", "", False, -2
        term_of, named_of, about = self._terms, self._named, self._about
        for i, w in enumerate(_TERM_WORD.findall(topic_text(title))):
            found_key = term_of.get(w, "")
            if found_key == "":
                found_key = self._term(w)
            if found_key is None:
                continue
            key = found_key
            named = named_of.get(w)
            if named is None:
                named = self._name_like(w)
            named = named or (i > 0 and w[0].isupper())
            if last_i == i - 1:  # the phrase comes right after its first word, as in title_terms
                terms: tuple[tuple[str, str, bool], ...] = (
                    (f"{last} {key}", f"{last_form} {w}", last_name or named),
                    (key, w, named),
                )
            else:
                terms = ((key, w, named),)
            last, last_form, last_name, last_i = key, w, named, i
            for term, form, name in terms:
                if term in seen:
                    continue
                seen.add(term)
                found = about.get(term)
                if found is None:
                    found = self._about_term(term)
                kind_word, modules = found
                for m, label, area, model, full in modules:
                    if not primary and area and model_lead:
                        # "the Gemma 4 tool parser": the area that follows a model's name is the
                        # subject, the model says which one (the last noun is the compound's head)
                        out = [
                            (*o[:4], SECONDARY) if o[4] == PRIMARY and o[1] == "module" else o for o in out
                        ]
                        primary = True
                    if primary:
                        model_lead = model
                    out.append((full, "module", m, label, PRIMARY if primary else SECONDARY))
                    primary = False
                if not kind_word:
                    source = "phrase" if " " in term else ("name" if name else "word")
                    full = full_of.get(("word", term)) or self._topic_key("word", term)
                    out.append((full, source, term, form, WORD))
                    if source != "phrase":
                        plain.append(term)
        if len(self._filed) >= TITLE_CACHE:
            self._filed.clear()
        hit = self._filed[title] = (tuple(tags), tuple(plain), tuple(out))
        return hit

    def _topic_key(self, source: str, key: str) -> str:
        if len(self._topic_keys) >= FEATURE_CACHE:
            self._topic_keys.clear()
        full = self._topic_keys[(source, key)] = _topic_key(source, key)
        return full

    def _about_term(self, term: str) -> tuple[bool, tuple[tuple[str, str, bool, bool, str], ...]]:
        """(is a kind word, (module, English label, is an area, is a model family, topic key) for
        each module it is a keyword of) for a title word or phrase (cached)."""
        kind_word, modules = self.word(term)
        groups = self.profile.modules
        entries = []
        for m in modules:
            group = groups.get(m)
            area = group is not None and group.group == AREA_GROUP
            full = self._topic_keys.get(("module", m)) or self._topic_key("module", m)
            entries.append((m, self.profile.module_label(m, "en"), area, self._is_model(m), full))
        if len(self._about) >= FEATURE_CACHE:
            self._about.clear()
        hit = self._about[term] = (kind_word, tuple(entries))
        return hit

    def _is_model(self, module: str) -> bool:
        """Whether ``module`` is a model family's: an area keyword after it, when it alone holds a
        title's primary slot, is the title's subject instead (``features``)."""
        group = self.profile.modules.get(module)
        return group is not None and group.group == MODEL_GROUP

    def keys(self, title: str) -> frozenset[str]:
        """The topic keys of a title, for counting them in earlier windows: the keys ``features``
        gives, by a leaner path (no forms, no weights; a digest reads thousands of earlier titles,
        most of them once)."""
        hit = self._keys.get(title)
        if hit is not None:
            return hit
        keys: set[str] = set()
        if "[" in title or "【" in title or "(" in title:
            scope = _SCOPE.match(_ANY_TAG.sub(" ", title)) if "(" in title else None
            for tag in [*_ANY_TAG.findall(title), *(scope.group(1).split(",") if scope else ())]:
                keys.update(_topic_key(src, key) for src, key, _ in self.tag(tag.strip()))
        last, last_i = "", -2
        for i, w in enumerate(_TERM_WORD.findall(topic_text(title))):
            key = self._term(w)
            if key is None:
                continue
            keys.update(self._key_names(key))
            if last_i == i - 1:
                keys.update(self._key_names(f"{last} {key}"))
            last, last_i = key, i
        hit = frozenset(keys)
        if len(self._keys) >= TITLE_CACHE:
            self._keys.clear()
        self._keys[title] = hit
        return hit

    def _term(self, word: str) -> str | None:
        """A title word's topic key, or None when ``title_terms`` would drop it (cached)."""
        hit = self._terms.get(word, "")
        if hit != "":
            return hit
        key: str | None = None
        if not word.isdigit() and (len(word) >= 3 or word.isupper()):
            stemmed = stem(word)
            if stemmed not in STOPWORDS and word.lower() not in STOPWORDS:
                key = stemmed
        self._terms[word] = key
        return key

    def _name_like(self, word: str) -> bool:
        hit = self._named.get(word)
        if hit is None:
            hit = self._named[word] = bool(_NAME_LIKE.search(word)) or (word.isupper() and len(word) >= 2)
        return hit

    def _key_names(self, key: str) -> tuple[str, ...]:
        """The topic keys a title word or phrase stands for: its modules, and itself unless it only
        says what kind of change it is (cached)."""
        hit = self._names.get(key)
        if hit is None:
            kind_word, modules = self.word(key)
            hit = (*(f"module:{m}" for m in modules), *(() if kind_word else (f"word:{key}",)))
            self._names[key] = hit
        return hit


@functools.lru_cache(maxsize=8)
def _vocabulary(profile: Profile) -> _Vocabulary:
    return _Vocabulary(profile)


def _topic_key(source: str, key: str) -> str:
    return f"{'word' if source in ('name', 'phrase') else source}:{key}"


def _topics(prs: Sequence[ListedPR], vocab: _Vocabulary) -> dict[str, _Topic]:
    """Every title topic shared by at least two PRs, with its PRs and how much each is about it.

    Two passes over the period's title features (``_Vocabulary.filed``): one collecting its tags
    and plain words (to spot a word spelt as a tag), one filing every feature under its topic key."""
    weights: dict[str, dict[int, float]] = {}
    forms: dict[str, dict[str, int]] = {}
    sources: dict[str, str] = {}
    names: set[str] = set()
    filed = [(s.pr.number, vocab.filed(s.pr.title)) for s in prs]
    tag_keys: set[str] = set()
    words: set[str] = set()
    for _, (tags, plain, _) in filed:
        if tags:
            tag_keys.update(tags)
        words.update(plain)
    # a word spelt as one of the period's tags ("SYCL." in one title, [sycl] in another) is that tag
    as_tag = {key: tag for key in words if (tag := vocab.norm(key)) in tag_keys} if tag_keys else {}
    # one tag, spelt a letter short in some titles ([col] beside [coll], [test] beside [tests])
    longer = {k[:-1]: k for k in tag_keys if len(k) >= 4 and k[:-1] in tag_keys}
    remap = bool(as_tag or longer)
    for n, (_, _, entries) in filed:
        for full, source, key, form, weight in entries:
            if remap:
                if source == "tag":
                    if key in longer:
                        key = longer[key]
                        full = "tag:" + key
                elif key in as_tag and (source == "word" or source == "name"):
                    same = as_tag[key]
                    source, key = "tag", longer.get(same, same)
                    full = "tag:" + key
            members = weights.get(full)
            if members is None:
                members = weights[full] = {n: weight}
                forms[full] = {form: 1}
                sources[full] = source
            else:
                if weight > members.get(n, 0.0):
                    members[n] = weight
                spelled = forms[full]
                spelled[form] = spelled.get(form, 0) + 1
            if source == "name":
                names.add(full)
    topics: dict[str, _Topic] = {}
    for full, members in weights.items():
        if len(members) >= 2:
            source = "name" if full in names and sources[full] == "word" else sources[full]
            topics[full] = _Topic(full, source, forms[full], set(members), members, frozenset(members))
    return topics


# -- places ----------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=FEATURE_CACHE)
def abbreviates(short: str, phrase: str) -> bool:
    """``classify.topics.abbreviates``, cached: every tag of a period is tried on every place."""
    return _abbreviates(short, phrase)


@functools.lru_cache(maxsize=TITLE_CACHE)
def leading_verb(title: str) -> str | None:
    """``classify.topics.leading_verb``, cached: a theme's name reads every title of the theme."""
    return _leading_verb(title)


@functools.lru_cache(maxsize=TITLE_CACHE)
def _in_series(title: str) -> bool:
    return parse_title(title).series is not None


_PLACE_SPLIT = re.compile(r"[_\-.\s]+")


def _place_key(name: str) -> str:
    """A directory or file name as title words would say it: ``tool_parsers`` → ``tool parser``."""
    return " ".join(stem(w) for w in _PLACE_SPLIT.split(name) if w)


@functools.lru_cache(maxsize=FEATURE_CACHE)
def _file_places(path: str) -> tuple[str, ...]:
    """The places a changed file lies in: its directory's name and its own name without extension
    or test affix (``tests/cpp/collective/test_tracker.cc`` → collective, tracker), and, marked
    ``ANCESTOR``, the directories between the top level and its own (``plugin/sycl/tree/x.cc`` →
    ^sycl). Only a tag names a marked place — the author's word for a component whose files lie
    in subsystem directories of its own (``[sycl]``); a plain word naming one ("tree", "kernel")
    would make a bucket of everything below it. The top level holds whole packages (``src``,
    ``python-package``), never a place. Cached: a repository's digests read the same paths week
    after week."""
    parts = path.lower().split("/")
    name = parts[-1].split(".", 1)[0].removeprefix("test_").removesuffix("_test")
    near = [_place_key(p) for p in (parts[-2] if len(parts) > 1 else "", name) if p]
    far = [ANCESTOR + _place_key(p) for p in parts[1:-2]]
    return tuple(dict.fromkeys([*near, *far]))


@functools.lru_cache(maxsize=TITLE_CACHE)
def _works_in(files: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    """The places one PR works in, with the share of its files there (cached by its file list)."""
    per: Counter[str] = Counter(p for f in files for p in _file_places(f))
    return tuple((place, n / len(files)) for place, n in per.items() if n / len(files) >= PLACE_SHARE)


def _places(prs: Sequence[ListedPR], paths: Mapping[int, Sequence[str]]) -> dict[str, dict[int, float]]:
    """Where the period's PRs work: place → {PR: share of its files there}, for the PRs with at
    least ``PLACE_SHARE`` of their files there. A place one PR in ten works in is a package, not a
    subsystem (``models/`` in vLLM), nor is one named like the repository
    (``python-package/xgboost/`` in dmlc/xgboost is the project itself)."""
    out: dict[str, dict[int, float]] = {}
    own = {_place_key(part) for s in prs[:1] for part in s.pr.repo.lower().split("/")}
    own |= {ANCESTOR + name for name in own}
    for s in prs:
        files = paths.get(s.pr.number, ())
        for place, share in _works_in(tuple(files)) if files else ():
            there = out.get(place)
            if there is None:
                out[place] = {s.pr.number: share}
            else:
                there[s.pr.number] = share
    most = max(2, int(SPECIFIC_FILE_SHARE * len(prs)))
    return {k: v for k, v in out.items() if 2 <= len(v) <= most and k not in own}


def _name_places(
    topics: Mapping[str, _Topic], places: Mapping[str, Mapping[int, float]], vocab: _Vocabulary
) -> None:
    """Synonyms from the repository's own vocabulary: a title topic that names a place (a
    directory or file the period's PRs work in) takes the PRs working there as members too, each
    about it by ``PLACE_ABOUT`` × its share of files there — a fix in ``tool_parsers/`` is part of
    the tool-parser story even when its title names only the model.

    A topic names a place when it has the same words (``tool parser`` and ``tool_parsers/``), is
    a tag abbreviating it (``[coll]`` and ``collective/``, ``[EM]`` and ``external_memory.rst``) or
    is a module the place's words are a keyword of."""
    if not places:
        return
    by_module: dict[str, list[str]] = {}
    for place in places:
        if len(place) >= 3 and not place.startswith(ANCESTOR):
            for module in vocab.word(place)[1]:
                by_module.setdefault(module, []).append(place)
    for tp in topics.values():
        what = tp.key.split(":", 1)[1]
        if tp.source == "module":
            named = tuple(by_module.get(what, ()))
        elif tp.source == "tag":
            named = tuple(
                p
                for p in places
                if what == p.removeprefix(ANCESTOR).replace(" ", "")
                or abbreviates(what, p.removeprefix(ANCESTOR))
            )
        else:
            named = (what,) if what in places else ()
        for place in named:
            for n, share in places[place].items():
                about = PLACE_ABOUT * share
                if about > tp.weight.get(n, 0.0):
                    tp.weight[n] = about
                tp.members.add(n)
        tp.places = named


# -- history -------------------------------------------------------------------------------------------


class TitleKeys:
    """A profile's title topic keys as a ``storage.aggregates.TitleKeyer``: what writers count
    into the cache's aggregates so a digest need not re-read earlier windows' titles. Counts are
    stamped with the profile's content hash, which covers this code too (``classifier_code_hash``)."""

    def __init__(self, profile: Profile) -> None:
        self.stamp = profile.content_hash
        self._vocab = _vocabulary(profile)

    def __call__(self, title: str) -> frozenset[str]:
        return self._vocab.keys(title)


class TopicCounts(Protocol):
    """The earlier windows' title-topic counts as a store keeps them (``storage.aggregates.TitleCounts``):
    looked up by key, ``fetch``ed many at once, and the titles at the windows' edges counted by
    the caller's vocabulary (``count_edges``)."""

    windows: int
    with_data: int
    prs: int

    def count_edges(self, keys: Callable[[str], Iterable[str]]) -> None: ...
    def fetch(self, keys: Iterable[str]) -> None: ...
    def __getitem__(self, key: str) -> int: ...


class _History:
    """How often a topic's words appeared in the earlier windows' titles (tags and words alike):
    counted here from the titles, or read from the counts a store keeps (``TopicCounts``)."""

    def __init__(self, previous: Sequence[Sequence[str]] | TopicCounts, vocab: _Vocabulary) -> None:
        self.counts: Counter[str] | TopicCounts
        if not isinstance(previous, Sequence):
            self.windows, self.with_data, self.prs = previous.windows, previous.with_data, previous.prs
            previous.count_edges(vocab.keys)  # the partial quarter-hours at the windows' ends
            self.counts = previous
            return
        self.windows = len(
            previous
        )  # the caller's windows are the ones the cache covers: an empty one is a zero
        self.with_data = sum(1 for titles in previous if titles)
        self.prs = sum(len(titles) for titles in previous)
        self.counts = Counter(
            itertools.chain.from_iterable(vocab.keys(title) for titles in previous for title in titles)
        )

    @property
    def known(self) -> bool:
        return self.with_data >= 2 and self.prs >= 2 * MIN_PRS

    def per_window(self, key: str) -> float | None:
        if not self.known:
            return None
        return self.counts[key] / self.windows

    def novelty(self, key: str, now: int, total: int) -> float:
        """How much more common the topic is now than before (1 without history; 0.7–2.5)."""
        if not self.known:
            return 1.0
        now_rate = now / max(1, total)
        before_rate = (self.counts[key] + 0.5) / max(1, self.prs)
        return min(2.5, max(0.7, math.sqrt(now_rate / before_rate)))

    def specificity(self, key: str, now: int, total: int) -> float:
        """How rare the topic usually is: log of (PRs / PRs with it) over the earlier windows, or
        over this one without a history — a story stands out; a label on a quarter of all PRs
        ("quantization", "kernels") is a bucket."""
        if self.known:
            return math.log((self.prs + 1) / (self.counts[key] + 0.5))
        return math.log((total + 1) / (now + 0.5))


# -- the greedy cover ------------------------------------------------------------------------------------


def _weight(s: ListedPR) -> float:
    """A PR's weight in a theme's strength: its key-PR score, so docs and CI chores weigh little."""
    return max(0.1, 1.0 + s.cls.score / 3.0)


def _specific_files(prs: Sequence[ListedPR], paths: Mapping[int, Sequence[str]]) -> dict[int, frozenset[str]]:
    """Each PR's files that some other PR of the period touches too, but not one in ten of them:
    the files that can tie a story together (``setup.py`` or ``src/common.h`` tie everything)."""
    files = [(s.pr.number, frozenset(paths.get(s.pr.number, ()))) for s in prs]
    df: Counter[str] = Counter(itertools.chain.from_iterable(f for _, f in files))
    most = max(2, int(SPECIFIC_FILE_SHARE * len(prs)))
    specific = frozenset(f for f, c in df.items() if 2 <= c <= most)
    return {n: f & specific for n, f in files}


def find_themes(
    prs: Sequence[ListedPR],
    profile: Profile,
    previous: Sequence[Sequence[str]] | TopicCounts = (),
    paths: Mapping[int, Sequence[str]] | None = None,
) -> list[Theme]:
    """The period's storylines, strongest first (see the module's docstring).

    ``previous`` holds the titles of each earlier window (for novelty and "new this week");
    ``paths`` the changed files of the period's PRs, when the caller has them.
    """
    search = _Search(prs, profile, previous, paths or {})
    while len(search.found) < MAX_THEMES + SPARE_THEMES:
        best = search.pick()
        if best is None or not search.room_for(best):
            break
        search.tell(best)
    return search.themes()


class _Found(NamedTuple):
    """A story found: its seed, the topics that joined it, its PRs, what names it, its strength
    and standing when found, and whether it is news."""

    seed: _Topic
    joined: list[_Topic]
    members: set[int]
    namer: _Topic
    power: float
    standing: float
    news: bool


class _Search:
    """One period's candidate topics and what finding its stories has decided so far.

    Each candidate keeps its PRs not yet in a story (``free``) and its strength (``power``). A
    story taking some of a candidate's PRs only marks its strength stale (it can only have
    fallen: every term is positive): it is recomputed when the old value would still beat the
    best so far, so the choice is the one fresh values would make, at a few recomputations per
    round.
    """

    def __init__(
        self,
        prs: Sequence[ListedPR],
        profile: Profile,
        previous: Sequence[Sequence[str]] | TopicCounts,
        paths: Mapping[int, Sequence[str]],
    ) -> None:
        self.vocab = vocab = _vocabulary(profile)
        self.paths = paths
        bots = profile.compiled.bot_authors
        self.prs = prs = [s for s in prs if not is_bot(s.pr.author, bots)]  # dependency bots tell no story
        self.by_number = by_number = {s.pr.number: s for s in prs}
        self.topics = topics = _topics(prs, vocab)
        self.history = history = _History(previous, vocab)
        self.specific = _specific_files(prs, paths)
        self.holders: dict[str, list[int]] = {}  # the PRs changing each of those files
        for n, files in self.specific.items():
            for f in files:
                self.holders.setdefault(f, []).append(n)
        self.changed = {f: len(ns) for f, ns in self.holders.items()}  # how many PRs change each
        total = len(prs)
        self.cap = cap = max(MIN_PRS, int(MAX_SHARE * total))
        self.places = places = _places(prs, paths)
        _name_places(topics, places, vocab)
        # each title's release mark, read once for all the topics it shares
        marks = {s.pr.title: release_marked(s.pr.title) for s in prs}
        # the project's own name ("FastAPI People", "wandb.init") is in titles about anything
        own = {project_key(s.pr.repo) for s in prs}
        self.candidates = candidates = [
            tp
            for tp in topics.values()
            if MIN_PRS <= len(tp.members) <= cap
            and not _mechanics(tp, by_number, marks)
            and not (tp.source in ("name", "word") and norm(tp.text) in own)
        ]
        if not isinstance(previous, Sequence) and history.known:
            previous.fetch(tp.key for tp in candidates)  # one read for all (namers are read when named)
        # novelty and rarity are the titles' (the earlier windows are known by their titles only)
        self.novelty = {tp.key: history.novelty(tp.key, len(tp.titled), total) for tp in candidates}
        self.specificity = {tp.key: history.specificity(tp.key, len(tp.titled), total) for tp in candidates}
        self.weight = {s.pr.number: _weight(s) for s in prs}
        # which candidates are ordinary words, decided only for those that would name a story
        self.ordinary = _Ordinary(candidates, lambda tp: _ordinary(tp, history, by_number, paths, places))
        # for each PR, how many candidate tags it has as its first (see ``_grow``)
        self.firsts = Counter(
            n for tp in candidates if tp.source == "tag" for n, w in tp.weight.items() if w >= PRIMARY
        )
        self.free = {tp.key: set(tp.members) for tp in candidates}
        self.power = {tp.key: self.strength(tp, tp.members) for tp in candidates}
        self.stale: set[str] = set()
        self.found: list[_Found] = []
        self.bursts = 0
        self.unnamed: set[str] = set()  # seeds whose stories nothing but an ordinary word names
        self.touching: dict[str, int] = {}  # PRs touching a module, counted for the modules stories name
        self.index = _TopicIndex(topics)
        self.alive = (
            candidates  # those that can still seed a story (free PRs only shrink, unnamed only grows)
        )

    def strength(self, tp: _Topic, members: set[int]) -> float:
        weight = self.weight
        return sum(weight[n] * tp.weight[n] for n in members) * TRUST[tp.source] * self.specificity[tp.key]

    def pick(self) -> tuple[bool, float, str, _Topic] | None:
        """The strongest candidate that can still seed a story — a burst (news) before any steady
        one — as (burst, strength, key, topic); None when none can."""
        best: tuple[bool, float, str, _Topic] | None = None
        still: list[_Topic] = []
        for tp in self.alive:
            key = tp.key
            left = self.free[key]
            if len(left) < MIN_PRS or len(left) < TAKEN * len(tp.members) or key in self.unnamed:
                continue  # mostly told already by an earlier theme, or a story with no subject
            still.append(tp)
            # a topic bursting against the earlier windows is news: it comes before steady areas
            burst = (
                self.novelty[key] >= BURST
                and tp.source in BURSTING
                and len(left) >= MIN_BURST_PRS
                and self.bursts < MAX_BURSTS
            )
            if best is not None and (burst, self.power[key], key) <= best[:3]:
                continue  # not even its strength before it fell beats the best
            if key in self.stale:
                self.power[key] = self.strength(tp, left)
                self.stale.discard(key)
            rank = (burst, self.power[key], key)
            if best is None or rank > best[:3]:
                best = (*rank, tp)
        self.alive = still
        return best

    def room_for(self, best: tuple[bool, float, str, _Topic]) -> bool:
        """Whether a story this strong can still be told: news always; a steady one while it may
        stand among the best (standing is at most twice the strength)."""
        if len(self.found) < MAX_THEMES or best[0]:
            return True
        steady = sorted((f.standing for f in self.found if not f.news), reverse=True)
        slots = MAX_THEMES - (len(self.found) - len(steady))
        return not (slots <= 0 or (len(steady) >= slots and 2 * best[1] < steady[slots - 1]))

    def tell(self, best: tuple[bool, float, str, _Topic]) -> None:
        """Grow ``best``'s seed into a story and take its PRs — unless only an ordinary word names it."""
        seed = best[3]
        joined, members = _grow(
            seed,
            set(self.free[seed.key]),
            self.index,
            self.free,
            self.novelty,
            self.specific,
            self.changed,
            self.cap,
            self.firsts,
            self.holders,
        )
        namer = _namer(seed, members, self.topics, self.ordinary, self.index)
        if namer.key in self.ordinary:
            self.unnamed.add(seed.key)  # no subject to name it by: not a story ("file", "version")
            return
        self.bursts += best[0]
        for tp in self.candidates:
            left = self.free[tp.key]
            if not left.isdisjoint(members):
                left -= members
                self.stale.add(tp.key)
        module = namer.key.split(":", 1)[1] if namer.source == "module" else None
        news = namer.source != "module" and self.history.per_window(namer.key) == 0
        named = {p for tp in [seed, *joined] for p in tp.places}
        if module is not None and module not in self.touching:
            self.touching[module] = sum(1 for s in self.prs if module in s.cls.modules)
        stand = best[1] * _standing(members, module, named, self.places, self.touching)
        self.found.append(_Found(seed, joined, members, namer, best[1], stand, news))

    def themes(self) -> list[Theme]:
        """News first (in the order found), then the stories by standing; the rest are left untold."""
        found = self.found
        shown = sorted(range(len(found)), key=lambda i: (not found[i].news, -found[i].standing, i))[
            :MAX_THEMES
        ]
        themes = []
        for f in (found[i] for i in shown):
            topics = [f.seed, *f.joined]
            theme = _theme(
                f.seed,
                topics,
                f.members,
                f.namer,
                self.by_number,
                self.topics,
                self.vocab,
                self.history,
                self.paths,
            )
            told = frozenset(n for n in f.members if any(n in tp.titled for tp in topics))
            themes.append(
                replace(theme, strength=round(f.power, 2), standing=round(f.standing, 2), told=told)
            )
        return themes


def _mechanics(tp: _Topic, by_number: Mapping[int, ListedPR], marks: Mapping[str, bool]) -> bool:
    """A tag or word that says where changes go, not what they are about — a version, or what
    titles naming versions or other PRs share (backports, cherry-picks, release branches) — is
    no story (``classify.topics.release_mechanics``: a rule, not a list of words). ``marks``
    holds the period's titles' release marks: a title shares topics with many others, and
    parsing it again for each was a fifth of a computed week's digest."""
    if tp.source not in ("tag", "name", "phrase", "word"):
        return False
    titles = [by_number[n].pr.title for n in tp.titled if n in by_number]
    return release_mechanics(tp.text, titles, marked=marks.__getitem__)


def _team_spelling(tp: _Topic, topics: Mapping[str, _Topic]) -> str:
    """An all-lower-case tag as the team writes it in its titles ("e2e" → "E2E", "jvm-packages" →
    "JVM packages"): the commonest spelling with capitals, else each part's, else a capital first."""
    text = tp.text
    if any(c.isupper() for c in text):
        return text
    capitalised = [(n, f) for f, n in tp.forms.items() if any(c.isupper() for c in f)]
    if capitalised:
        return max(capitalised)[1]
    parts = [p for p in re.split(r"[-_]+", text) if p]
    spelt = []
    for part in parts:
        word = topics.get(f"word:{stem(part)}")
        forms = [(n, f) for f, n in (word.forms.items() if word else ()) if any(c.isupper() for c in f)]
        spelt.append(max(forms)[1] if forms and " " not in max(forms)[1] else part)
    joined = " ".join(spelt) if len(parts) > 1 else spelt[0] if spelt else text
    return joined[:1].upper() + joined[1:]


def _main_directory(files: Sequence[str]) -> str:
    """Where a PR mostly works: the commonest of its files' directories, two levels deep at most
    (``wandb/sdk/artifacts/x.py`` → ``wandb/sdk``; a top-level file → ``.``)."""
    dirs = Counter("/".join(f.split("/")[:-1][:2]) or "." for f in files)
    return dirs.most_common(1)[0][0]


def _ordinary(
    tp: _Topic,
    history: _History,
    by_number: Mapping[int, ListedPR],
    paths: Mapping[int, Sequence[str]],
    places: Mapping[str, Mapping[int, float]],
) -> bool:
    """Whether a plain word is the repository's ordinary vocabulary rather than a subject: a
    lower-case word (not a name, tag, module or phrase) that the earlier windows' titles used too,
    and whose PRs this period work in different directories — each in its own, by document
    frequency across directories ("run", "file", "version", "setting", "request" in wandb/wandb;
    "release" in dmlc/xgboost). A word whose PRs share a directory, or work in the one it names
    ("automations"), is a subject ("leet", "mailbox").
    Without the PRs' files nothing is ordinary."""
    text = tp.text
    if tp.source not in ("word", "name") or not text.isalpha() or not text.islower():
        return False
    titled = [n for n in tp.titled if n in by_number]
    if any(len(places[p].keys() & titled) >= 2 for p in tp.places):
        return False  # its PRs work in the directory it names
    if history.known and not history.counts[tp.key]:
        return False  # new this period: this period's word, not the repository's
    mains = [_main_directory(paths[n]) for n in titled if paths.get(n)]
    if len(mains) < MIN_PRS:
        return False
    distinct = len(set(mains))
    return distinct >= 2 and distinct > SCATTERED * len(mains)


def _standing(
    members: set[int],
    module: str | None,
    named: Iterable[str],
    places: Mapping[str, Mapping[int, float]],
    touching: Mapping[str, int],
) -> float:
    """How much a found story stands out as one, beside its strength (which picks the seeds and the
    order the PRs are taken in): a coherent story of many changes in one subsystem — most of its PRs
    working in the place its name names, most of that place's PRs in it — counts more, up to twice;
    a module theme holding only part of its module's activity, the rest being told by other
    stories, is a slice of a bucket and counts for that part ("Model support — 22 of the 44 PRs
    that touch it")."""
    coherence = max(
        (len(members.intersection(places[p])) / len(members.union(places[p])) for p in named), default=0.0
    )
    share = 1.0
    if module is not None and touching.get(module):
        share = min(1.0, len(members) / touching[module])
    return share * (1 + coherence)


def _grow(
    seed: _Topic,
    core: set[int],
    index: _TopicIndex,
    free: Mapping[str, set[int]],
    novelty: Mapping[str, float],
    specific: Mapping[int, frozenset[str]],
    changed: Mapping[str, int],
    cap: int,
    firsts: Mapping[int, int],
    holders: Mapping[str, Sequence[int]],
) -> tuple[list[_Topic], set[int]]:
    """The topics that tell the seed's story too, and the PRs they bring, by either of two tests:

    - *shared titles*: three quarters of a tag's, name's or phrase's PRs not yet in a theme are
      PRs of the seed ("ellpack" under ``[EM]``) — they join (when files are known, those that
      work where the seed's PRs work);
    - *shared files*: title words (not another tag: that is the author's name for another story)
      whose PRs mostly work where the seed's PRs work — two thirds of them change mostly files
      that at least two of the seed's PRs change, and that the seed's PRs are at least
      ``OWN_SHARE`` of the changes to ("Store categories from pandas" in the files of the
      ``[enc]`` series; not "Fix git ignore" when two of the series' PRs are among eight changing
      ``.gitignore``) — those PRs join.

    Areas (profile modules) and topics bursting more than the seed stay stories of their own.
    The best-supported topics join first, and the theme grows to at most ``GROWTH`` times the seed
    and never past the size of a bucket (``MAX_SHARE`` of the period).
    """
    recurring = Counter(f for n in core for f in specific.get(n, ()))
    # the story's own files: at least two of its PRs change them, and they are a fair share
    # (``OWN_SHARE``) of the PRs changing them — a ``.gitignore`` two of its PRs touch among many
    # others is everybody's file and ties nothing to it
    footprint = {f for f, c in recurring.items() if c >= 2 and c >= OWN_SHARE * changed[f]}
    home: set[int] = set(core)
    # only a PR changing a footprint file can be at home: those are found through the file index
    for n in {n for f in footprint for n in holders[f]}:
        files = specific[n]
        if len(files & footprint) >= AT_HOME * len(files):
            home.add(n)

    # a PR whose first tag names another story belongs to that story, whatever words it shares:
    # ``firsts`` counts the candidate tags each PR has first; the seed's own does not count
    own = {n for n, w in seed.weight.items() if w >= PRIMARY} if seed.source == "tag" else set()
    elsewhere = {n for n, c in firsts.items() if c > (n in own)}
    offers: list[tuple[float, str, _Topic, set[int]]] = []
    # a topic with none of its PRs at home can join by neither test: only those sharing one are
    # looked at (the offers are sorted by their own terms, so the order looked in does not matter)
    for tp, _ in index.sharing(home, 1, free):
        mine = free[tp.key]
        if len(mine) < MIN_PRS or mine <= core or tp is seed or tp.source == "module":
            continue
        if novelty[tp.key] > novelty[seed.key] + 0.5:
            continue
        inside = len(mine & core) / len(mine)
        if tp.source in ABSORBED and inside >= ABSORB:
            # when files are known, a newcomer must also work where the seed's PRs work
            offers.append((inside, tp.key, tp, mine & home if footprint else set(mine)))
        elif tp.source in FILE_JOINED and footprint and len(mine) <= len(core):
            at_home = mine & home
            if len(at_home) >= SHARED_FILES * len(mine):
                offers.append((len(at_home) / len(mine), tp.key, tp, at_home))
    members = set(core)
    limit = min(max(GROWTH * len(core), len(core) + MIN_PRS), max(cap, len(core)))
    joined: list[_Topic] = []
    for _, _, tp, offered in sorted(offers, key=lambda o: (-o[0], o[1])):
        bring = offered if tp.source == "tag" else offered - elsewhere
        if len(members | bring) <= limit:
            members |= bring
            joined.append(tp)
    return joined, members


def _theme(
    seed: _Topic,
    joined: list[_Topic],
    members: set[int],
    namer: _Topic,
    by_number: Mapping[int, ListedPR],
    topics: Mapping[str, _Topic],
    vocab: _Vocabulary,
    history: _History,
    paths: Mapping[int, Sequence[str]],
) -> Theme:
    prs = sorted((by_number[n] for n in members), key=lambda s: (-s.cls.score, -s.pr.number))
    before = history.per_window(namer.key)
    module = namer.key.split(":", 1)[1] if namer.source == "module" else None
    name = _name(namer, prs, vocab, topics, members, paths)
    if before is not None and before == 0 and namer.source != "module":
        kind = "burst"
    elif namer.source == "module":
        kind = "module"
    elif namer.source == "tag" or sum(1 for s in prs if _in_series(s.pr.title)) >= 2:
        kind = "series"
    else:
        kind = "topic"
    evidence = tuple(_evidence(tp) for tp in [seed, *[tp for tp in joined if tp is not seed]][:6])
    return Theme(
        key=namer.key,
        kind=kind,
        name=name,
        prs=prs,
        module=module,
        before=before,
        compared=history.windows if before is not None else 0,
        named=len(namer.titled),
        evidence=evidence,
    )


def _evidence(tp: _Topic) -> str:
    what = tp.key.split(":", 1)[1]
    if tp.source == "tag":
        return f"tag [{tp.text}]"
    if tp.source == "module":
        return f"module {what}"
    return f'words "{tp.text}"'


class _Ordinary:
    """Which candidate topics are ordinary words (``_ordinary``), decided on first asking and
    remembered: a story's name is looked for among a few topics, so most candidates are never
    asked about (deciding costs a look at every PR's files). A topic that is not a candidate is
    never ordinary."""

    def __init__(self, candidates: Iterable[_Topic], test: Callable[[_Topic], bool]) -> None:
        self._candidates = {tp.key: tp for tp in candidates}
        self._test = test
        self._known: dict[str, bool] = {}

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        hit = self._known.get(key)
        if hit is None:
            tp = self._candidates.get(key)
            hit = self._known[key] = tp is not None and self._test(tp)
        return hit


class _TopicIndex:
    """The topics each PR is a member of, to find the topics sharing PRs with a theme without
    intersecting every topic of the period with it (``_namer`` and ``_grow`` ask once per story
    found; a busy week has ~600 topics, a story touches a few dozen)."""

    def __init__(self, topics: Mapping[str, _Topic]) -> None:
        self._order = list(topics.values())
        self._by_pr: dict[int, list[int]] = {}
        by_pr, get = self._by_pr, self._by_pr.get
        for i, tp in enumerate(self._order):
            for n in tp.members:
                found = get(n)
                if found is None:
                    by_pr[n] = [i]
                else:
                    found.append(i)

    def sharing(
        self, members: Iterable[int], at_least: int, among: Container[str] | None = None
    ) -> list[tuple[_Topic, int]]:
        """(topic, how many of ``members`` it has) for the topics with ``at_least`` of them (and
        a key in ``among``, when given), in the order of ``topics``."""
        by_pr = self._by_pr
        counts = Counter(itertools.chain.from_iterable(by_pr.get(n, ()) for n in members))
        order = self._order
        return [
            (order[i], c)
            for i, c in sorted(counts.items())
            if c >= at_least and (among is None or order[i].key in among)
        ]


def _namer(
    seed: _Topic,
    members: set[int],
    topics: Mapping[str, _Topic],
    ordinary: Container[str] = (),
    index: _TopicIndex | None = None,
) -> _Topic:
    """The tag, module or words that best stand for the theme: covering most of it, mostly inside it;
    of two covering as much, the phrase ("smooth MM" rather than "MM": it says more of the same PRs).
    A word of the repository's ordinary vocabulary (``_ordinary``) names nothing (asked only of a
    topic that would otherwise rank first so far: ``ordinary`` may decide it on asking)."""
    best = seed
    best_rank: tuple[float, bool, int] = (-1.0, False, 0)
    for tp, inside in (index or _TopicIndex(topics)).sharing(members, 2):
        if len(tp.members) < 2 or inside < ABSORB * len(tp.members):
            continue
        rank = (inside * TRUST[tp.source], " " in tp.key, -len(tp.key))
        if rank > best_rank and tp.key not in ordinary:
            best, best_rank = tp, rank
    if len(seed.members & members) * TRUST[seed.source] >= best_rank[0] and seed.key not in ordinary:
        return seed
    return best


def _name(
    namer: _Topic,
    prs: Sequence[ListedPR],
    vocab: _Vocabulary,
    topics: Mapping[str, _Topic],
    members: set[int],
    paths: Mapping[int, Sequence[str]],
) -> dict[str, str]:
    """The theme's name in each language: a module's labels, else the words as written (spelt out
    if a short tag), with the series' common action when there is one ("… migration", "… 迁移")."""
    profile = vocab.profile
    if namer.source == "module":
        module = namer.key.split(":", 1)[1]
        return {"en": profile.module_label(module, "en"), "zh": profile.module_label(module, "zh")}
    text = namer.text
    if namer.source in ("name", "word") and _FILE_NAME.fullmatch(text):
        subject = _file_subject(text, prs, profile, paths)  # None: a dotted name, not a file
        if subject is not None:
            return subject
    routed = profile.resolve_module(text) if namer.source == "tag" else None
    label = profile.module_label(routed, "en") if routed else ""
    if label and norm(label) == norm(text):  # the tag of a module spelt as its label is ("sdk" → "SDK")
        text = label
    elif namer.source == "tag" and len(text) <= 4:
        text = _spelt_out(text, prs, vocab, topics, paths) or _team_spelling(namer, topics)
    elif namer.source == "tag":
        text = _team_spelling(namer, topics)
    elif namer.source == "phrase":
        text = _headed(namer, prs, vocab, topics, members)
    action = _action(prs)
    if namer.source != "tag":  # a tag is the author's own word for the story, kept as written
        text = _without_leading_verbs(text)
    if not text:  # nothing but verbs ("Tune"): the action says it, or where the story happens
        if action is not None:
            return {lang: _sentence_case(ACTION_NAMES[action][lang]) for lang in ("en", "zh")}
        return _where(prs, profile) or {"en": namer.text, "zh": namer.text}
    # English names start with a capital, as the module labels beside them do; Chinese keeps a
    # Latin name as written ("zqrun 重构")
    en = text if namer.source == "tag" else _sentence_case(text)
    if action is None:
        return {"en": en, "zh": text}
    return {
        "en": f"{_attributive(en)} {ACTION_NAMES[action]['en']}",
        "zh": zh_glue([_attributive(text), ACTION_NAMES[action]["zh"]]),
    }


# general English verbs of change (``classify.topics.CHANGE_VERBS`` and the series' ``ACTIONS``
# with a few more): a theme's name is a subject, and a title's leading verb is no part of it
VERBS_OF_CHANGE = (
    CHANGE_VERBS
    | frozenset(ACTIONS)
    | frozenset(
        "enable disable improve upgrade support use clean handle set optimise adjust refine unify "
        "reenable re-enable reland bump make".split()
    )
)


def _verb_of_change(word: str) -> bool:
    """Whether ``word`` is a verb of change in a base, third-person or past form ("Tune",
    "removes", "skipped", "re-enabled"); "fused" or "tuning" are not (a participle of a verb
    that changes nothing, a gerund: "Fused MoE" and "Triton tuning" name things)."""
    w = word.lower().removeprefix("re-")
    if not w.isalpha():
        return False
    bases = {w}
    for suffix in ("s", "es", "d", "ed"):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            base = w[: -len(suffix)]
            bases.add(base)
            if len(base) >= 3 and base[-1] == base[-2]:  # skipped → skip
                bases.add(base[:-1])
    return not bases.isdisjoint(VERBS_OF_CHANGE)


def _without_leading_verbs(text: str) -> str:
    """A name without the verbs of change it starts with: "Tune Triton config" → "Triton config",
    "skipped AMD" → "AMD" (a phrase taken from "Re-enable 21 skipped AMD CI tests")."""
    words = text.split(" ")
    while words and _verb_of_change(words[0]):
        words.pop(0)
    return " ".join(words)


def _sentence_case(text: str) -> str:
    """A name starting with a capital, as the module labels beside it do ("Tool parser" next to
    "Kernels & custom ops"): a lower-case plain first word is capitalised, an identifier
    (``wandb.Image``, ``vLLM``) is kept as written."""
    first, _, rest = text.partition(" ")
    if first.isalpha() and first.islower():
        first = first[:1].upper() + first[1:]
    return f"{first} {rest}" if rest else first


def _where(prs: Sequence[ListedPR], profile: Profile) -> dict[str, str] | None:
    """The label of the module most of a theme's PRs touch (the catch-all aside), or None."""
    tally = Counter(m for s in prs for m in dict.fromkeys(s.cls.modules) if m != profile.catch_all_module)
    if not tally:
        return None
    module = tally.most_common(1)[0][0]
    return {lang: profile.module_label(module, lang) for lang in ("en", "zh")}


_FILE_NAME = re.compile(r"[\w\-/]+\.[A-Za-z]{1,5}")  # requirements_dev.txt, setup.py, ci/jobs.yml


def _file_subject(
    name: str, prs: Sequence[ListedPR], profile: Profile, paths: Mapping[int, Sequence[str]]
) -> dict[str, str] | None:
    """A file name as a theme's name becomes the subject it belongs to: the label of the profile
    module whose path rules hold the file, as the theme's PRs change it (``requirements_dev.txt`` →
    "Dependencies", wherever the generic profile's ``**/requirements*.txt`` finds it); a file no
    module holds is named by its words (``noxfile.py`` → "Noxfile"). None when no PR of the theme
    changes a file of that name: ``wandb.init`` is a dotted name, not a file."""
    c = profile.compiled
    low = name.lower()
    found = [
        f
        for s in prs
        for f in paths.get(s.pr.number, ())
        if f.lower() == low or f.lower().endswith("/" + low)
    ]
    for path in [*found, name]:
        for set_id in c.path_ids(path):
            for i in c.module_rules_by_set.get(set_id, ()):
                module = c.modules[i].name
                if module != profile.catch_all_module:
                    return {lang: profile.module_label(module, lang) for lang in ("en", "zh")}
    if not found:
        return None
    words = display_case(" ".join(_PLACE_SPLIT.split(name.rsplit("/", 1)[-1].split(".", 1)[0])).strip())
    return {"en": words, "zh": words}


def _attributive(text: str) -> str:
    """A name before an action noun, as English compounds it: the modifier's last plain word in
    the singular ("type hints" + fixes → "type hint fixes")."""
    head, _, last = text.rpartition(" ")
    if not last.isalpha() or not last.islower() or stem(last) == last:
        return text
    return f"{head} {stem(last)}".strip()


def _headed(
    namer: _Topic,
    prs: Sequence[ListedPR],
    vocab: _Vocabulary,
    topics: Mapping[str, _Topic],
    members: set[int],
) -> str:
    """A phrase naming a theme, with the noun it qualifies when the theme's titles share one as
    widely: "smooth MM" → "smooth MM objective" ("Implement smooth MM quantile objective", "Remove
    obsolete objective leaf update"), as a reader names the thing the modifier describes. The
    noun must follow the phrase closely (``HEAD_WORDS``) in a title that has both, be in as many of the theme's different
    titles (two at least: a revert repeats its original's title) and not be the repository's own
    name ("beta sync" is not "beta sync wandb" in wandb/wandb), an adverb or a verb of change
    ("wandb login", not "wandb login anonymously would write" from one title and its revert)."""
    phrase = namer.key.split(":", 1)[1]
    own = {stem(part) for s in prs[:1] for part in re.split(r"[/\-_.]", s.pr.repo.lower()) if part}
    # what each title says: a revert says its original's words again, and is no second title
    said = {s.pr.number: tuple(key for _, key, _, _ in vocab.features(s.pr.title)) for s in prs}

    def titles(numbers: Iterable[int]) -> int:
        return len({said[n] for n in numbers if n in said})

    covered = max(2, titles(namer.members & members))
    heads: Counter[str] = Counter()
    for s in prs:
        after = -1  # topic words since the phrase (-1: not yet seen)
        for source, key, form, _ in vocab.features(s.pr.title):
            if key == phrase:
                after = 0
                continue
            if after < 0 or source in ("tag", "module", "phrase") or key in phrase.split():
                continue
            after += 1
            if after <= HEAD_WORDS and source == "word" and key not in own and _noun_like(key):
                tp = topics.get(f"word:{key}")
                if tp is not None and titles(tp.members & members) >= covered:
                    heads[form.lower()] += 1
    if not heads:
        return namer.text
    return f"{namer.text} {heads.most_common(1)[0][0]}"


def _noun_like(word: str) -> bool:
    """Whether a word can be the noun a phrase qualifies: not an adverb ("anonymously") nor a verb
    of change (``classify.topics.CHANGE_VERBS``; most are stopwords already)."""
    return not (word.endswith("ly") and len(word) > 4) and word not in CHANGE_VERBS


def _spelt_out(
    short: str,
    prs: Sequence[ListedPR],
    vocab: _Vocabulary,
    topics: Mapping[str, _Topic],
    paths: Mapping[int, Sequence[str]],
) -> str | None:
    """What a short tag abbreviates: the theme's own title words or phrases first, then the
    directory and file names of its files, then the words the period's titles share."""
    own: Counter[str] = Counter()
    for s in prs:
        for source, key, form, _ in vocab.features(s.pr.title):
            if source not in ("tag", "module") and abbreviates(short, key):
                own[form.lower()] += 1
    if own:
        return display_case(own.most_common(1)[0][0])
    places: Counter[str] = Counter()
    for s in prs:
        for path in paths.get(s.pr.number, ()):
            for part in path.lower().rsplit(".", 1)[0].split("/"):
                if abbreviates(short, part):
                    places[part] += 1
    if places:
        return display_case(places.most_common(1)[0][0].replace("_", "-"))
    anywhere = Counter(
        {
            tp.text.lower(): len(tp.members)
            for tp in topics.values()
            if tp.source not in ("tag", "module") and abbreviates(short, tp.key.split(":", 1)[1])
        }
    )
    return display_case(anywhere.most_common(1)[0][0]) if anywhere else None


def _action(prs: Sequence[ListedPR]) -> str | None:
    """The action a series' titles mostly share (``ACTION_SHARE``, ``MIN_PRS`` at least): said by
    their leading verb ("Migrate X to Y") or, when that names none, declared by the conventional-commit
    type when it is a refactor ("refactor: require run in …" → "run refactoring")."""
    actions = Counter(_title_action(s.pr.title) for s in prs)
    action, n = actions.most_common(1)[0] if actions else (None, 0)
    if action is None or n < MIN_PRS or n < ACTION_SHARE * len(prs):
        return None
    return action


def _as_action(verb: str | None) -> str | None:
    if verb is None:
        return None
    stemmed = verb.removesuffix("s").removesuffix("e")
    for action in ACTIONS:
        if action.removesuffix("e") == stemmed or verb in (action, action + "s", action + "d", action + "ed"):
            return action
    return None


@functools.lru_cache(maxsize=TITLE_CACHE)
def _title_action(title: str) -> str | None:
    said = _as_action(leading_verb(title))
    if said is not None:
        return said
    # a declared "fix:" or "perf:" is the change's kind, which the theme's sentence counts; a
    # declared refactor is the series' story ("a refactor in N parts")
    prefix = parse_title(title).prefix
    return "refactor" if prefix and prefix.lower() in DECLARED_REFACTOR else None


def theme_parts(themes: Sequence[Theme], profile: Profile) -> dict[int, ScorePart]:
    """The score part each PR of a storyline earns in its period: ``[score] theme`` points for
    the period's leading story, in proportion to its standing for the others (themes smaller than
    ``theme_min_prs`` earn nothing), with the theme named as evidence. A PR whose title does not
    tell the story — only the files it changes tie it in — earns half (rounded to half points).

    A PR of one of the ``theme_kinds`` (the generic profile: docs) has its kind's penalty lifted
    too: the story's own documentation is part of the story — release notes list the External
    Memory tutorial under External Memory — while docs on their own still weigh little."""
    points = profile.score.theme
    lifted = frozenset(profile.score.theme_kinds)
    out: dict[int, ScorePart] = {}
    # by standing, as the stories are told: a coherent story (SYCL in its own directory) counts
    # as much as its place among them, not only as its PRs weigh
    top = max((_standing_of(th) for th in themes), default=0.0)
    if not points or top <= 0:
        return out
    for th in themes:
        share = _standing_of(th) / top
        earned = round(points * share * 2) / 2  # in half points, as a reader would weigh it
        if len(th.prs) < profile.score.theme_min_prs or not earned:
            continue
        part = ScorePart(
            reason=f'part of the theme "{th.title}" ({len(th.prs)} PRs)',
            points=earned,
            rule="theme",
            detail=th.title,
        )
        # a PR whose title does not tell the story, only its files tie it in, earns half
        aside = ScorePart(
            reason=f'part of the theme "{th.title}" ({len(th.prs)} PRs) by the files it changes',
            points=round(earned) / 2,
            rule="theme",
            detail=th.title,
        )
        for s in th.prs:
            mine = part if th.told is None or s.pr.number in th.told else aside
            penalty = -profile.score.kinds.get(s.cls.kind, 0.0)
            if s.cls.kind in lifted and penalty > 0:
                kind = profile.kind_label(s.cls.kind, "en").lower()
                reason = f'part of the theme "{th.title}" ({len(th.prs)} PRs), which lifts the {kind} penalty'
                mine = replace(mine, reason=reason, points=mine.points + penalty)
            out[s.pr.number] = mine
    return out


def _standing_of(theme: Theme) -> float:
    return theme.strength if theme.standing is None else theme.standing


def rebind(themes: Sequence[Theme], prs: Sequence[ListedPR]) -> list[Theme]:
    """The themes holding ``prs``' objects for their numbers (after their scores were updated)."""
    by_number = {s.pr.number: s for s in prs}
    return [replace(th, prs=[by_number.get(s.pr.number, s) for s in th.prs]) for th in themes]


# -- what the sentences need -----------------------------------------------------------------


_ZH_PUNCT = frozenset("、，。：；（）《》“”！？")


def _cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def zh_glue(parts: Sequence[str]) -> str:
    """Chinese text from parts, with a space only where Chinese meets Latin letters or digits
    ("AutoWeightsLoader 迁移", "3 个重构和 1 个修复"), never around full-width punctuation."""
    out = ""
    for part in parts:
        a, b = out[-1:], part[:1]
        plain = a and b and not (a in _ZH_PUNCT or b in _ZH_PUNCT or a.isspace() or b.isspace())
        if plain and _cjk(a) != _cjk(b):
            out += " "
        out += part
    return out


def kind_counts(prs: Sequence[ListedPR]) -> list[tuple[str, int]]:
    """The kinds a theme's sentence names: its three commonest, then every other PR as "other"."""
    counts = Counter(s.cls.kind for s in prs).most_common()
    shown = [(k, n) for k, n in counts if k != "other"][:3]
    rest = len(prs) - sum(n for _, n in shown)
    return shown + ([("other", rest)] if rest else [])
