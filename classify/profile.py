"""A compiled rule profile: what classifying a PR and naming its modules and kinds read.

A profile is data, not code: modules (title tags, synonyms, keywords, labels, path globs), PR kinds,
risk-flag settings and key-PR score weights, written as TOML and loaded, validated and compiled by
``classify.rules.load_profile``. Compiled matchers (one regex per glob set, a word index of every
keyword) live on the immutable ``Profile`` together with a per-path cache, so classifying a PR costs
dictionary lookups for the file paths seen before — and vLLM's paths repeat a lot.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from classify.titles import norm

if TYPE_CHECKING:
    from classify.flag_spec import FlagsSpec
    from classify.matchers import Gated, GatedGroup, KeywordIndex
    from classify.models import ScorePart
    from classify.score_spec import ScoreSpec

PROFILES_DIR = Path(__file__).with_name("profiles")
DEFAULT_PROFILE = "vllm"
LANGS = ("en", "zh")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
PATH_CACHE_LIMIT = 200_000


class ProfileError(Exception):
    """A profile that cannot be used; ``str()`` is one line: ``file: key: reason``."""


# -- the compiled, immutable profile ------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ModuleRule:
    """One module (area/theme) of a profile."""

    name: str
    labels: Mapping[str, str]
    group: str = ""
    synonyms: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    def label(self, lang: str) -> str:
        return self.labels.get(lang) or self.labels.get("en") or self.name


@dataclass(frozen=True, eq=False)
class KindRule:
    """One PR kind (bugfix, feature, …) of a profile."""

    name: str
    labels: Mapping[str, str]

    def label(self, lang: str) -> str:
        return self.labels.get(lang) or self.labels.get("en") or self.name


@dataclass(frozen=True, eq=False)
class PathSet:
    """A named set of globs minus excluded ones, matched against one path at a time."""

    include: re.Pattern[str]
    exclude: re.Pattern[str] | None

    def match(self, path: str) -> bool:
        if self.include.match(path) is None:
            return False
        return self.exclude is None or self.exclude.match(path) is None


@dataclass(frozen=True, eq=False)
class RuleMatchers:
    """How to recognise one module or kind from files, title words and labels."""

    name: str
    any_sets: tuple[int, ...]
    only_set: int | None
    all_sets: tuple[int, ...]
    patterns: tuple[Gated, ...]

    @property
    def has_paths(self) -> bool:
        return bool(self.any_sets or self.only_set is not None or self.all_sets)


@dataclass(frozen=True, eq=False)
class Compiled:
    """Everything the engine matches with, built once per profile."""

    path_sets: tuple[PathSet, ...]
    modules: tuple[RuleMatchers, ...]
    kinds: tuple[RuleMatchers, ...]
    keywords: KeywordIndex
    """every module and kind keyword; owners are "m:<module>" and "k:<kind>" """
    kind_order: Mapping[str, int]
    module_tags: Mapping[str, str]
    kind_tags: Mapping[str, str]
    kind_prefixes: Mapping[str, str]
    module_labels: Mapping[str, str]
    kind_labels: Mapping[str, str]
    core_set: int | None
    test_set: int | None
    source_set: int | None
    exempt_set: int | None
    dependency_set: int | None
    large_ignore_set: int | None
    breaking_labels: frozenset[str]
    breaking_tags: frozenset[str]
    breaking_patterns: GatedGroup
    breaking_ignore: GatedGroup
    dependency_patterns: GatedGroup
    dependency_added: GatedGroup
    dependency_removed: GatedGroup
    lockfile_set: int | None
    revert_title: GatedGroup
    revert_body: GatedGroup
    size_tiers: tuple[tuple[int, float], ...]
    score_labels: Mapping[str, float]
    bot_authors: frozenset[str]
    module_rules_by_set: Mapping[int, tuple[int, ...]]
    """path-set index → indexes (into ``modules``) of the module rules that use it"""
    module_pattern_rules: tuple[int, ...]
    score_parts: dict[tuple[str, float], ScorePart] = field(default_factory=dict)
    """ScorePart objects by (reason, points): reasons come from a small finite set, so they are shared"""
    path_cache: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def path_ids(self, path: str) -> tuple[int, ...]:
        """Indexes of the path sets ``path`` belongs to (cached: paths repeat across PRs)."""
        hit = self.path_cache.get(path)
        if hit is None:
            hit = tuple(i for i, s in enumerate(self.path_sets) if s.match(path))
            if len(self.path_cache) >= PATH_CACHE_LIMIT:
                self.path_cache.clear()
            self.path_cache[path] = hit
        return hit


@dataclass(frozen=True)
class LearnedFrom:
    """Where a learned profile came from: the repository, how many PRs, when, and their span."""

    repo: str
    prs: int
    on: str
    first: str = ""
    last: str = ""


@dataclass(frozen=True, eq=False)
class Profile:
    """A loaded rule profile: identity, modules and kinds with labels, settings, compiled matchers."""

    name: str
    version: str
    source: Path
    description: str
    repos: tuple[str, ...]
    """the repositories this profile answers for when none is configured (a bundled profile's own)"""
    learned: LearnedFrom | None
    """set when ``prdigest profile learn`` wrote it"""
    modules: Mapping[str, ModuleRule]
    kinds: Mapping[str, KindRule]
    key_share: float
    key_min_score: float
    min_path_share: float
    """a module found from a PR's files needs this share of its changed lines (the largest always counts)"""
    # ``score.theme``, kept beside it: whether key PRs depend on the period's storylines. ``pr``
    # asks only this, and a cached profile reads ``score`` (pydantic models) at its first use.
    theme_points: float
    catch_all_module: str
    default_kind: str
    flags: FlagsSpec
    score: ScoreSpec
    compiled: Compiled
    resolve_map: Mapping[str, str]
    # What the classification depends on: the profile's content (after the generic defaults are
    # filled in; TOML comments and layout do not count) and the classifier's own code. Stored with
    # every classification, so ``reclassify`` knows which rows are already up to date — also after
    # an edit that kept the version string, or an upgrade of prdigest.
    content_hash: str

    def module_label(self, name: str, lang: str) -> str:
        """The module's label in ``lang`` ("en"/"zh"), else its English label, else its name."""
        rule = self.modules.get(name)
        return rule.label(lang) if rule else name

    def kind_label(self, name: str, lang: str) -> str:
        rule = self.kinds.get(name)
        return rule.label(lang) if rule else name

    def resolve_module(self, word: str) -> str | None:
        """The module a user means by ``word``: its name, a label, a synonym or a title tag."""
        return self.resolve_map.get(norm(word.strip()))

    def __repr__(self) -> str:
        return f"Profile(name={self.name!r}, version={self.version!r}, source={str(self.source)!r})"


@functools.cache
def classifier_code_hash() -> str:
    """A hash of the classifier's source (this package's modules): a new prdigest that classifies
    differently makes every stored classification out of date, like a new profile does."""
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def content_hash(data: Mapping[str, Any]) -> str:
    """The hash of a profile's effective data (see ``Profile.content_hash``)."""
    import json

    blob = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str).encode()
    return hashlib.blake2b(blob + classifier_code_hash().encode(), digest_size=16).hexdigest()
