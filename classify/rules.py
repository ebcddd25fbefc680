"""Rule profiles: TOML files that say how PRs are classified, loaded, validated and compiled once.

A profile is data, not code: modules (title tags, synonyms, keywords, labels, path globs), PR kinds,
risk-flag settings and key-PR score weights. ``load_profile`` rejects anything doubtful — an unknown
key (typos must not pass silently), a bad glob or regex, a wrong type, a threshold out of range —
with one line naming the file, the key and the reason, e.g.::

    my.toml: modules.rocm.globs[2]: bad glob '[abc': unterminated character set

Compiled matchers (one regex per glob set, a word index of every keyword) live on the
immutable ``Profile`` together with a per-path cache, so classifying a PR costs dictionary
lookups for the file paths seen before — and vLLM's paths repeat a lot.

This module holds the compiled ``Profile`` and what names a profile file; the TOML schema (pydantic
models), its error messages and the compiler are in ``classify.profile_schema``, imported when a
profile is actually compiled. A one-shot read (``prdigest pr N``) gets its profile from the cache
(``bot.config.profile_cache``) and never builds the schema's classes (issue 14, point 1).
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
    from classify.matchers import Gated, GatedGroup, KeywordIndex
    from classify.models import ScorePart
    from classify.profile_schema import FlagsSpec
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

    def __reduce__(self) -> tuple[Any, tuple[str, str, str]]:
        """Pickled as "the profile at this path with this content" (e.g. for worker processes)."""
        return (_reload, (str(self.source), self.version, self.content_hash))


def _reload(source: str, version: str, content_hash: str) -> Profile:
    """The profile a worker process classifies with: the very one its parent loaded, or an error
    (results stored under the parent's ``content_hash`` must come from that content)."""
    profile = load_profile(Path(source))
    if profile.version != version:
        raise ProfileError(f"{source}: version changed from {version} to {profile.version} while in use")
    if profile.content_hash != content_hash:
        raise ProfileError(f"{source}: edited while in use (version {version} kept)")
    return profile


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


# -- loading --------------------------------------------------------------------------------------


def bundled_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILES_DIR.glob("*.toml"))


def profile_path(name_or_path: str | Path | None = None) -> tuple[Path, str]:
    """The file a profile name or path means, and how errors name it: None → vllm, a bundled
    name, or a TOML file path (``ProfileError`` when it is not a readable file)."""
    if name_or_path is None or (isinstance(name_or_path, str) and not name_or_path.strip()):
        name_or_path = DEFAULT_PROFILE
    shown = str(name_or_path)
    bundled = PROFILES_DIR / f"{name_or_path}.toml"
    if isinstance(name_or_path, str) and _NAME.match(name_or_path) and bundled.is_file():
        path = bundled
        shown = path.name
    else:
        path = Path(name_or_path).expanduser()
    try:
        path.stat()
    except FileNotFoundError:
        hint = f" (bundled profiles: {', '.join(bundled_profiles())})" if not path.suffix else ""
        raise ProfileError(f"{shown}: no such file{hint}") from None
    except OSError as exc:
        raise ProfileError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    if not path.is_file():
        raise ProfileError(f"{shown}: not a file")
    return path, shown


def load_profile(name_or_path: str | Path | None = None) -> Profile:
    """Load, validate and compile a profile: None → vllm, a bundled name, or a TOML file path."""
    path, shown = profile_path(name_or_path)
    try:
        stat = path.stat()
    except OSError as exc:
        raise ProfileError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    profile = _CACHE.get(key)
    if profile is None:
        from classify.profile_schema import load_file

        profile = load_file(Path(key[0]), shown)
        if len(_CACHE) >= 16:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = profile
    return profile


# (resolved path, mtime, size) -> Profile: one compiled profile (and path cache) per file version
_CACHE: dict[tuple[str, int, int], Profile] = {}


def profile_from_data(data: Mapping[str, Any], *, source: Path, shown: str | None = None) -> Profile:
    """Validate and compile already-parsed TOML data (``shown`` names the file in errors)."""
    from classify.profile_schema import profile_from_data as compile_data

    return compile_data(data, source=source, shown=shown)


def effective_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """A profile's data as it is compiled: the tables it leaves out filled from the generic profile."""
    from classify.profile_schema import _with_generic_defaults

    return _with_generic_defaults(data)
