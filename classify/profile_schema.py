"""A rule profile's TOML schema, its one-line error messages and the compiler.

Imported only when a profile is compiled (``classify.rules.load_profile`` on a miss of its
caches): the schema is ~20 pydantic models whose classes cost more to build than a one-shot read
spends on its answer. ``classify.rules`` holds the compiled ``Profile`` itself.
"""

from __future__ import annotations

import difflib
import functools
import re
import tomllib
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field, ValidationError

from classify.matchers import (
    Gated,
    GatedGroup,
    GlobError,
    KeywordIndex,
    compile_globs,
    glob_to_regex,
    parse_keyword,
)
from classify.models import FLAG_KINDS
from classify.rules import (
    _NAME,
    LANGS,
    PROFILES_DIR,
    Compiled,
    KindRule,
    LearnedFrom,
    ModuleRule,
    PathSet,
    Profile,
    ProfileError,
    RuleMatchers,
    content_hash,
)
from classify.score_spec import TABLE_CONFIG, ScoreSpec, Strs
from classify.titles import norm

# -- schema (what the TOML may contain) ---------------------------------------------------------


class _Section(BaseModel):
    model_config = TABLE_CONFIG


class _RuleSpec(_Section):
    """What modules and kinds share: how a PR is recognised as belonging to them."""

    en: str = ""
    zh: str = ""
    tags: Strs = []
    keywords: Strs = []
    patterns: Strs = []
    labels: Strs = []
    globs: Strs = []
    only_globs: Strs = []
    all_globs: Strs = []
    exclude: Strs = []


class ModuleSpec(_RuleSpec):
    group: str = ""
    synonyms: Strs = []


class KindSpec(_RuleSpec):
    prefixes: Strs = []


class CorePathSpec(_Section):
    enabled: bool = True
    globs: Strs = []
    exclude: Strs = []
    max_evidence: Annotated[int, Field(ge=1, le=100)] = 5


# Schema defaults are deliberately bare: a profile that leaves out [kinds], a [flags.*] table or
# [score] gets the generic profile's (see _with_generic_defaults), so the defaults live in one
# readable TOML file rather than twice.


class MissingTestsSpec(_Section):
    enabled: bool = True
    min_source_lines: Annotated[int, Field(ge=1)] = 50
    source_globs: Strs = []
    test_globs: Strs = []
    exempt_globs: Strs = []
    exempt_kinds: Strs = []


class BreakingSpec(_Section):
    enabled: bool = True
    labels: Strs = []
    tags: Strs = []
    conventional_bang: bool = True
    patterns: Strs = []
    ignore: Strs = []


class DependencySpec(_Section):
    enabled: bool = True
    globs: Strs = []
    exclude: Strs = []
    patterns: Strs = []
    added_patterns: Strs = []
    removed_patterns: Strs = []
    lockfiles: Strs = []
    max_evidence: Annotated[int, Field(ge=1, le=100)] = 5


class LargeSpec(_Section):
    enabled: bool = True
    lines: Annotated[int, Field(ge=1)] = 1000
    files: Annotated[int, Field(ge=1)] = 30
    ignore: Strs = []


class RevertSpec(_Section):
    enabled: bool = True
    title_patterns: Strs = []
    body_patterns: Strs = []


class FlagsSpec(_Section):
    core_path: CorePathSpec = Field(default=CorePathSpec(), alias="core-path")
    missing_tests: MissingTestsSpec = Field(default=MissingTestsSpec(), alias="missing-tests")
    breaking: BreakingSpec = BreakingSpec()
    dependency: DependencySpec = DependencySpec()
    large: LargeSpec = LargeSpec()
    revert: RevertSpec = RevertSpec()


class LearnedSpec(_Section):
    """Where a learned profile came from (``prdigest profile learn``): what ``pr`` and ``digest``
    say answered, and what a re-learn compares the cache's growth with."""

    repo: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")]
    prs: Annotated[int, Field(ge=0)]
    on: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
    first: str = ""
    last: str = ""


class ProfileSpec(_Section):
    name: Annotated[str, Field(min_length=1)]
    version: Annotated[str, Field(min_length=1)]
    description: str = ""
    repos: list[Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")]] = []
    learned: LearnedSpec | None = None
    key_share: Annotated[float, Field(gt=0, le=1)] = 0.12
    key_min_score: float = 0.0
    min_path_share: Annotated[float, Field(ge=0, lt=1)] = 0.0
    catch_all: str = "misc"
    default_kind: str = "other"
    modules: Annotated[dict[str, ModuleSpec], Field(min_length=1)]
    kinds: dict[str, KindSpec] = {}
    flags: FlagsSpec = FlagsSpec()
    score: ScoreSpec = ScoreSpec()


# -- loading and compiling ---


def load_file(path: Path, shown: str) -> Profile:
    """Read, validate and compile the profile at ``path`` (``shown`` names it in errors)."""
    try:
        raw = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ProfileError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{shown}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{shown}: invalid TOML: {_toml_reason(exc)}") from None
    return profile_from_data(data, source=path, shown=shown)


@functools.cache
def _generic_data() -> dict[str, Any]:
    return tomllib.loads((PROFILES_DIR / "generic.toml").read_text(encoding="utf-8"))


def _with_generic_defaults(data: Mapping[str, Any]) -> dict[str, Any]:
    """Fill a profile's missing [kinds], [flags.*] tables and [score] from the generic profile.

    Only whole missing tables are filled (a table the author wrote is taken as written), and
    references the author's profile cannot satisfy (kinds it does not declare, its modules) are
    left out of the borrowed tables.
    """
    out = dict(data)
    generic = _generic_data()
    if "kinds" not in out:
        out["kinds"] = generic["kinds"]
        if "default_kind" not in out:
            out["default_kind"] = generic["default_kind"]
    kinds = out.get("kinds")
    known_kinds = set(kinds) if isinstance(kinds, dict) else set()
    flags = out.get("flags", {})
    if isinstance(flags, dict):
        flags = dict(flags)
        for name, table in generic["flags"].items():
            if name not in flags:
                table = dict(table)
                if "exempt_kinds" in table:
                    table["exempt_kinds"] = [k for k in table["exempt_kinds"] if k in known_kinds]
                flags[name] = table
        out["flags"] = flags
    if "score" not in out:
        score = {k: v for k, v in generic["score"].items() if k != "modules"}
        score["kinds"] = {k: v for k, v in score.get("kinds", {}).items() if k in known_kinds}
        out["score"] = score
    return out


def profile_from_data(data: Mapping[str, Any], *, source: Path, shown: str | None = None) -> Profile:
    """Validate and compile already-parsed TOML data (``shown`` names the file in errors)."""
    shown = shown if shown is not None else source.name
    if source.resolve() != (PROFILES_DIR / "generic.toml").resolve():
        data = _with_generic_defaults(data)
    try:
        spec = ProfileSpec.model_validate(dict(data))
    except ValidationError as exc:
        raise ProfileError(f"{shown}: {_first_error(exc)}") from None
    try:
        return _compile(spec, source, content_hash(data))
    except _KeyError as exc:
        raise ProfileError(f"{shown}: {exc.key}: {exc.reason}") from None


def _toml_reason(exc: tomllib.TOMLDecodeError) -> str:
    msg = str(exc)
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", msg)
    if m:
        return f"line {m.group(1)}, column {m.group(2)}: {msg[: m.start()]}"
    m = re.search(r"\s*\(at end of document\)$", msg)
    if m:
        return f"at end of file: {msg[: m.start()]}"
    return msg


# -- error messages -------------------------------------------------------------------------------

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def key_path(loc: tuple[int | str, ...] | list[int | str]) -> str:
    """``('modules', 'rocm', 'globs', 2)`` → ``modules.rocm.globs[2]`` (odd keys quoted as in TOML)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            key = part if _BARE_KEY.match(part) else '"' + part.replace('"', '\\"') + '"'
            out += ("." if out else "") + key
    return out or "(top level)"


def _toml_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def _model_at(loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The schema model that the key path ``loc`` points into (to suggest the right key)."""
    tp: Any = ProfileSpec
    i = 0
    while i < len(loc):
        if not (isinstance(tp, type) and issubclass(tp, BaseModel)):
            return None
        key = loc[i]
        found = next((f for n, f in tp.model_fields.items() if (f.alias or n) == key), None)
        if found is None:
            return None
        ann: Any = found.annotation
        i += 1
        while True:
            if typing.get_origin(ann) is Annotated:
                ann = typing.get_args(ann)[0]
            elif typing.get_origin(ann) in (dict, list) and i < len(loc):
                ann = typing.get_args(ann)[-1]
                i += 1
            elif isinstance(ann, types.UnionType):
                ann = typing.get_args(ann)[0]
            else:
                break
        tp = ann
    return tp if isinstance(tp, type) and issubclass(tp, BaseModel) else None


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    err = errors[0]
    loc = tuple(err["loc"])
    kind = err["type"]
    value = err.get("input")
    ctx = err.get("ctx") or {}
    if kind == "extra_forbidden":
        reason = "unknown key"
        model = _model_at(loc[:-1])
        if model is not None:
            known = [f.alias or n for n, f in model.model_fields.items()]
            close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
            reason += f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(known)})"
    elif kind == "missing":
        reason = "missing required key"
    elif kind == "string_type":
        reason = f"expected a string, got {_toml_type(value)}"
    elif kind in ("int_type", "int_from_float"):
        reason = f"expected an integer, got {_toml_type(value)}"
    elif kind == "float_type":
        reason = f"expected a number, got {_toml_type(value)}"
    elif kind == "bool_type":
        reason = f"expected true or false, got {_toml_type(value)}"
    elif kind == "list_type":
        reason = f"expected an array, got {_toml_type(value)}"
    elif kind in ("dict_type", "model_type", "model_attributes_type"):
        reason = f"expected a table, got {_toml_type(value)}"
    elif kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        op = {"greater_than": ">", "greater_than_equal": "≥", "less_than": "<", "less_than_equal": "≤"}[kind]
        bound = next(iter(ctx.values()), "?")
        reason = f"must be {op} {bound}, got {value!r}"
    elif kind == "too_short":
        reason = "must not be empty"
    else:
        reason = str(err["msg"]).removeprefix("Value error, ")
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{key_path(loc)}: {reason}{more}"


class _KeyError(Exception):
    def __init__(self, key: tuple[int | str, ...], reason: str) -> None:
        super().__init__(reason)
        self.key = key_path(key)
        self.reason = reason


# -- compilation ----------------------------------------------------------------------------------


class _Builder:
    """Collects path sets and checks every glob and regex with the key it came from."""

    def __init__(self) -> None:
        self.sets: list[PathSet] = []
        self._by_key: dict[tuple[tuple[str, ...], tuple[str, ...]], int] = {}

    def globs(self, globs: list[str], where: tuple[int | str, ...]) -> None:
        for i, g in enumerate(globs):
            try:
                glob_to_regex(g)
            except GlobError as exc:
                raise _KeyError((*where, i), f"bad glob {g!r}: {exc}") from None

    def path_set(
        self,
        globs: list[str],
        where: tuple[int | str, ...],
        exclude: list[str] | None = None,
        exclude_where: tuple[int | str, ...] = (),
    ) -> int | None:
        if not globs:
            return None
        exclude = exclude or []
        self.globs(globs, where)
        self.globs(exclude, exclude_where)
        key = (tuple(globs), tuple(exclude))
        if key not in self._by_key:
            inc = compile_globs(globs)
            assert inc is not None
            self._by_key[key] = len(self.sets)
            self.sets.append(PathSet(include=inc, exclude=compile_globs(exclude)))
        return self._by_key[key]


def _regex(pattern: str, where: tuple[int | str, ...]) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.IGNORECASE)
    except (re.error, OverflowError, ValueError) as exc:
        raise _KeyError(where, f"bad regex {pattern!r}: {exc}") from None


def _regexes(patterns: list[str], where: tuple[int | str, ...]) -> tuple[Gated, ...]:
    return tuple(Gated(_regex(p, (*where, i))) for i, p in enumerate(patterns))


def _check_name(name: str, where: tuple[int | str, ...]) -> None:
    if not _NAME.match(name):
        raise _KeyError(where, f"bad name {name!r}: use lower-case letters, digits, '-' or '_' (at most 40)")


def _rule(b: _Builder, name: str, spec: _RuleSpec, where: tuple[int | str, ...]) -> RuleMatchers:
    ex = spec.exclude
    exw = (*where, "exclude")
    any_set = b.path_set(spec.globs, (*where, "globs"), ex, exw)
    only_set = b.path_set(spec.only_globs, (*where, "only_globs"), ex, exw)
    b.globs(spec.all_globs, (*where, "all_globs"))
    all_sets = tuple(
        s
        for i, g in enumerate(spec.all_globs)
        if (s := b.path_set([g], (*where, "all_globs", i), ex, exw)) is not None
    )
    for i, kw in enumerate(spec.keywords):
        try:
            parse_keyword(kw)
        except GlobError as exc:
            raise _KeyError((*where, "keywords", i), f"bad keyword {kw!r}: {exc}") from None
    return RuleMatchers(
        name=name,
        any_sets=(any_set,) if any_set is not None else (),
        only_set=only_set,
        all_sets=all_sets,
        patterns=_regexes(spec.patterns, (*where, "patterns")),
    )


def _rules_by_set(rules: list[RuleMatchers]) -> dict[int, tuple[int, ...]]:
    by_set: dict[int, list[int]] = {}
    for i, rule in enumerate(rules):
        sets = [*rule.any_sets, *rule.all_sets, *([rule.only_set] if rule.only_set is not None else [])]
        for s in sets:
            if i not in by_set.setdefault(s, []):
                by_set[s].append(i)
    return {s: tuple(ix) for s, ix in by_set.items()}


def _keyword_index(modules: Mapping[str, ModuleSpec], kinds: Mapping[str, KindSpec]) -> KeywordIndex:
    """One index for module and kind keywords, so a title is tokenised and scanned once."""
    index = KeywordIndex()
    for prefix, rules in (("m:", modules), ("k:", kinds)):
        for name, spec in rules.items():
            for kw in spec.keywords:
                index.add(kw, prefix + name)
    return index


def _words(owner: dict[str, str], words: list[str], name: str, section: str, field_name: str) -> None:
    for i, word in enumerate(words):
        key = norm(word)
        if not key:
            raise _KeyError((section, name, field_name, i), "empty value")
        other = owner.get(key)
        if other is not None and other != name:
            raise _KeyError((section, name, field_name, i), f"{word!r} is already used by {section}.{other}")
        owner[key] = name


def _labels(spec: _RuleSpec, name: str) -> dict[str, str]:
    return {lang: text for lang in LANGS if (text := getattr(spec, lang).strip())}


def _compile(spec: ProfileSpec, source: Path, content_hash: str) -> Profile:
    b = _Builder()
    modules: dict[str, ModuleRule] = {}
    module_m: list[RuleMatchers] = []
    module_tags: dict[str, str] = {}
    module_labels: dict[str, str] = {}
    for name, m in spec.modules.items():
        _check_name(name, ("modules", name))
        module_m.append(_rule(b, name, m, ("modules", name)))
        _words(module_tags, m.tags, name, "modules", "tags")
        _words(module_labels, m.labels, name, "modules", "labels")
        modules[name] = ModuleRule(
            name=name,
            labels=types.MappingProxyType(_labels(m, name)),
            group=m.group,
            synonyms=tuple(m.synonyms),
            tags=tuple(m.tags),
        )
    kinds: dict[str, KindRule] = {}
    kind_m: list[RuleMatchers] = []
    kind_tags: dict[str, str] = {}
    kind_prefixes: dict[str, str] = {}
    kind_labels: dict[str, str] = {}
    for name, k in spec.kinds.items():
        _check_name(name, ("kinds", name))
        kind_m.append(_rule(b, name, k, ("kinds", name)))
        _words(kind_tags, k.tags, name, "kinds", "tags")
        _words(kind_prefixes, k.prefixes, name, "kinds", "prefixes")
        _words(kind_labels, k.labels, name, "kinds", "labels")
        kinds[name] = KindRule(name=name, labels=types.MappingProxyType(_labels(k, name)))

    if spec.catch_all not in modules:
        raise _KeyError(
            ("catch_all",), f"unknown module {spec.catch_all!r}: declare it under [modules.{spec.catch_all}]"
        )
    if kinds and spec.default_kind not in kinds:
        kind = spec.default_kind
        raise _KeyError(("default_kind",), f"unknown kind {kind!r}: declare it under [kinds.{kind}]")
    mt = spec.flags.missing_tests
    for i, kind in enumerate(mt.exempt_kinds):
        if kind not in kinds:
            raise _KeyError(("flags", "missing-tests", "exempt_kinds", i), f"unknown kind {kind!r}")
    for i, kind in enumerate(spec.score.theme_kinds):
        if kind not in kinds:
            raise _KeyError(("score", "theme_kinds", i), f"unknown kind {kind!r}")
    for table, known, what in (
        (spec.score.kinds, kinds, "kind"),
        (spec.score.modules, modules, "module"),
        (spec.score.flags, dict.fromkeys(FLAG_KINDS), "flag"),
    ):
        for key in table:
            if key not in known:
                section = {"kind": "kinds", "module": "modules", "flag": "flags"}[what]
                raise _KeyError(("score", section, key), f"unknown {what} {key!r}")

    # what a user may type to mean a module: name > tag > synonym > label
    resolve: dict[str, str] = {norm(name): name for name in modules}
    synonyms: dict[str, str] = {}
    for name, m in spec.modules.items():
        for j, syn in enumerate(m.synonyms):
            other = resolve.get(norm(syn)) or module_tags.get(norm(syn))
            if other is not None and other != name:
                raise _KeyError(("modules", name, "synonyms", j), f"{syn!r} already means modules.{other}")
        _words(synonyms, m.synonyms, name, "modules", "synonyms")
    for words in (module_tags, synonyms):
        for key, name in words.items():
            resolve.setdefault(key, name)
    for name, rule in modules.items():
        for text in rule.labels.values():
            resolve.setdefault(norm(text), name)

    f = spec.flags
    core = f.core_path
    core_where: tuple[int | str, ...] = ("flags", "core-path")
    core_set = b.path_set(core.globs, (*core_where, "globs"), core.exclude, (*core_where, "exclude"))
    test_set = b.path_set(mt.test_globs, ("flags", "missing-tests", "test_globs"))
    source_set = b.path_set(mt.source_globs, ("flags", "missing-tests", "source_globs"))
    exempt_set = b.path_set(mt.exempt_globs, ("flags", "missing-tests", "exempt_globs"))
    dep = f.dependency
    dep_where: tuple[int | str, ...] = ("flags", "dependency")
    dep_set = b.path_set(dep.globs, (*dep_where, "globs"), dep.exclude, (*dep_where, "exclude"))
    lock_set = b.path_set(dep.lockfiles, (*dep_where, "lockfiles"))
    large_set = b.path_set(f.large.ignore, ("flags", "large", "ignore"))

    compiled = Compiled(
        path_sets=tuple(b.sets),
        modules=tuple(module_m),
        kinds=tuple(kind_m),
        keywords=_keyword_index(spec.modules, spec.kinds),
        kind_order=types.MappingProxyType({name: i for i, name in enumerate(kinds)}),
        module_tags=types.MappingProxyType(module_tags),
        kind_tags=types.MappingProxyType(kind_tags),
        kind_prefixes=types.MappingProxyType(kind_prefixes),
        module_labels=types.MappingProxyType(module_labels),
        kind_labels=types.MappingProxyType(kind_labels),
        core_set=core_set if core.enabled else None,
        test_set=test_set,
        source_set=source_set,
        exempt_set=exempt_set,
        dependency_set=dep_set,
        large_ignore_set=large_set,
        breaking_labels=frozenset(norm(x) for x in f.breaking.labels),
        breaking_tags=frozenset(norm(x) for x in f.breaking.tags),
        breaking_patterns=GatedGroup(_regexes(f.breaking.patterns, ("flags", "breaking", "patterns"))),
        breaking_ignore=GatedGroup(_regexes(f.breaking.ignore, ("flags", "breaking", "ignore"))),
        dependency_patterns=GatedGroup(_regexes(dep.patterns, ("flags", "dependency", "patterns"))),
        dependency_added=GatedGroup(_regexes(dep.added_patterns, (*dep_where, "added_patterns"))),
        dependency_removed=GatedGroup(_regexes(dep.removed_patterns, (*dep_where, "removed_patterns"))),
        lockfile_set=lock_set,
        revert_title=GatedGroup(_regexes(f.revert.title_patterns, ("flags", "revert", "title_patterns"))),
        revert_body=GatedGroup(_regexes(f.revert.body_patterns, ("flags", "revert", "body_patterns"))),
        size_tiers=tuple(sorted((t.lines, t.points) for t in spec.score.size)),
        score_labels=types.MappingProxyType({norm(k): v for k, v in spec.score.labels.items()}),
        bot_authors=frozenset(a.strip().lower() for a in spec.score.bot_authors),
        module_rules_by_set=types.MappingProxyType(_rules_by_set(module_m)),
        module_pattern_rules=tuple(i for i, r in enumerate(module_m) if r.patterns),
    )
    learned = spec.learned
    return Profile(
        name=spec.name,
        version=spec.version,
        source=source,
        description=spec.description,
        repos=tuple(spec.repos),
        learned=LearnedFrom(learned.repo, learned.prs, learned.on, learned.first, learned.last)
        if learned
        else None,
        modules=types.MappingProxyType(modules),
        kinds=types.MappingProxyType(kinds),
        key_share=spec.key_share,
        key_min_score=spec.key_min_score,
        min_path_share=spec.min_path_share,
        theme_points=spec.score.theme,
        catch_all_module=spec.catch_all,
        default_kind=spec.default_kind,
        flags=spec.flags,
        score=spec.score,
        compiled=compiled,
        resolve_map=types.MappingProxyType(resolve),
        content_hash=content_hash,
    )
