"""Learn a rule profile from a repository's history: modules, kinds, paths and core paths.

Pure: the caller reads the cache, the clone's tree and ``CODEOWNERS`` and passes them in
(``History``); ``learn`` returns the profile as data with the comments that explain it
(``Learned``), and ``Learned.toml()`` the file a team edits. See ``classify.learn.paths`` (the
tree's conventions), ``classify.learn.modules`` (where PRs concentrate, and their names) and
``classify.learn.conventions`` (how titles mark the kind of a change).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from classify.learn import conventions as conv
from classify.learn.codeowners import core_globs
from classify.learn.model import History, Learned
from classify.learn.modules import (
    MIN_PRS,
    MIN_SHARE,
    Cut,
    Term,
    casing_table,
    cut_tree,
    mostly_in,
    name_modules,
    split_role,
)
from classify.learn.notes import explain
from classify.learn.paths import ROLES, PathRoles, path_roles, translation_globs
from classify.learn.places import (
    CATCH_ALL,
    Module,
    Place,
    assign_ids,
    label,
    route_tags,
    spec_for,
    unique_labels,
)
from classify.models import PullRequest
from classify.titles import is_series_marker, norm, parse_title, split_tag
from classify.topics import release_mechanics

MAX_MODULES = 25
"""modules a learned profile declares at most (the catch-all not counted)"""
MIN_PATH_SHARE = 0.1
"""a learned module found from a PR's files needs this share of its changed lines: a PR is about
the places it changes most, not every file it touches in passing"""
BODY_CHARS = 2000
"""how much of each description the spellings of words are read from"""
PROFILE_NAME = "learned"
# the kind whose only_globs are each role's paths (a PR changing only docs is a docs change)
ROLE_KINDS = {"translations": "translation", "docs": "docs", "tests": "test", "ci": "ci", "deps": "deps"}


@dataclass
class _PRFacts:
    """One PR as the learner reads it: each file with its lines and role."""

    files: list[tuple[str, int, str | None]]

    @property
    def source(self) -> list[tuple[str, int]]:
        return [(p, n) for p, n, role in self.files if role is None]

    def only_role(self) -> str | None:
        roles = {role for _, _, role in self.files}
        return next(iter(roles)) if len(roles) == 1 else None


def learn(history: History) -> Learned:
    """The profile ``history`` shows: see the package's modules for each part."""
    prs = sorted(history.prs, key=lambda p: (p.merged_at, p.number))
    total = len(prs)
    tree = list(history.tree) if history.tree is not None else sorted({f.path for p in prs for f in p.files})
    roles = _roles(tree, prs)
    facts = [
        _PRFacts([(f.path, f.additions + f.deletions, roles.role(f.path)) for f in p.files]) for p in prs
    ]
    min_prs = max(MIN_PRS, round(MIN_SHARE * total + 0.4999))
    places = _role_places(facts, total, min_prs)
    totals = [sum(n for _, n, _ in f.files) for f in facts]
    cuts = cut_tree([f.source for f in facts], totals, MAX_MODULES - len(places), MIN_PATH_SHARE)
    places = [Place(c) for c in cuts] + places
    members = {p.key: _members(p, facts) for p in places}
    marks = conv.read_marks(prs)
    casing = casing_table([p.title for p in prs], [p.body[:BODY_CHARS] for p in prs])
    naming = name_modules(members, _terms(prs, marks), _skip(prs, marks, history.base))
    sizes = {k: len(v) for k, v in members.items()}
    ids = assign_ids(places, sizes, history.previous, history.repo)
    modules = []
    for p in places:
        en, zh = label(p, naming.get(p.key), casing, history.repo)
        modules.append(Module(ids[p.key], p, spec_for(p, roles, tree, en, zh)))
    unique_labels(modules, casing, history.repo)
    route_tags(modules, naming, sizes)
    modules.sort(key=lambda m: (m.place.role is not None, -sizes[m.place.key], m.id))
    learned = Learned(data=_profile_data(history, prs, modules, roles, marks))
    explain(learned, history, prs, marks, naming, members, modules, tree)
    return learned


def _role_places(facts: Sequence[_PRFacts], total: int, min_prs: int) -> list[Place]:
    """The roles holding enough PRs (those changing only files of the role), each split by
    directory when it is large and its directories separate it (``split_role``)."""
    out: list[Place] = []
    for role in ROLES:
        lines = [[(p, n) for p, n, _ in f.files] if f.files and f.only_role() == role else [] for f in facts]
        held = sum(1 for x in lines if x)
        if held < min_prs:
            continue
        parts = [Place(c, role) for c in split_role(lines, total, min_prs)]
        parts = [p for p in parts if len(_members(p, facts)) >= min_prs]
        rest = Place(Cut("", tuple(p.cut.path for p in parts)), role)
        out += parts
        if not parts or len(_members(rest, facts)) >= min_prs:
            out.append(rest)
    return out


def _members(place: Place, facts: Sequence[_PRFacts]) -> set[int]:
    """The PRs a module is home to: for a directory, those with most of their source lines
    there; for a role, those changing only its files (under its directory)."""
    cut = place.cut
    if place.role is None:
        return mostly_in(cut, [f.source for f in facts], cut.prs)
    return {
        i
        for i, f in enumerate(facts)
        if f.files and f.only_role() == place.role and all(cut.holds(p) for p, _, _ in f.files)
    }


def _skip(prs: Sequence[PullRequest], marks: conv.Marks, base: Mapping[str, Any]) -> Callable[[Term], bool]:
    """Which title marks never name or route to a module: kind words ([Bugfix], [skip ci]),
    numbers, series markers, and release mechanics (versions, branches, backports)."""
    kind_keys = conv.kind_words(marks, base)
    branches = {norm(p.base_branch) for p in prs if p.base_branch}

    def skip(term: Term) -> bool:
        titles = [prs[i].title for i in sorted(term.prs)]
        return (
            term.key in kind_keys
            or any(norm(w) in kind_keys for w in term.written.split())
            or term.key.isdigit()
            or is_series_marker(term.written)
            or release_mechanics(term.written, titles, branches)
        )

    return skip


def _roles(tree: Sequence[str], prs: Sequence[PullRequest]) -> PathRoles:
    """The tree's conventions, with translations found from the language directories."""
    per_dir: Counter[str] = Counter()
    for p in prs:
        dirs = {"/".join(f.path.split("/")[:k]) for f in p.files for k in (1, 2, 3)}
        per_dir.update(dirs)
    return path_roles(tree, translation_globs(tree, per_dir))


def _terms(prs: Sequence[PullRequest], marks: conv.Marks) -> list[Term]:
    """Every title tag (composite tags split), conventional-commit scope and label, with its PRs."""
    found: dict[tuple[str, str], set[int]] = {}
    for i, pr in enumerate(prs):
        parsed = parse_title(pr.title)
        for tag in parsed.tags:
            if conv.gitmoji_kind(tag) is not None or not any(ch.isalnum() for ch in tag):
                continue
            for part in {tag, *split_tag(tag)}:
                found.setdefault(("tag", norm(part)), set()).add(i)
        for scope in parsed.scopes:
            for part in split_tag(scope):
                found.setdefault(("scope", norm(part)), set()).add(i)
        for name in pr.labels:
            found.setdefault(("label", norm(name)), set()).add(i)
    out = []
    for (source, key), members in sorted(found.items()):
        if key:
            out.append(Term(key=key, written=marks.written(key), source=source, prs=frozenset(members)))
    return out


def _profile_data(
    history: History,
    prs: Sequence[PullRequest],
    modules: Sequence[Module],
    roles: PathRoles,
    marks: conv.Marks,
) -> dict[str, Any]:
    base = history.base
    first, last = prs[0].merged_at.date() if prs else None, prs[-1].merged_at.date() if prs else None
    data: dict[str, Any] = {
        "name": PROFILE_NAME,
        "version": history.learned_on.isoformat(),
        "description": f"Learned from {len(prs):,} merged PRs of {history.repo}"
        + (f", {first} to {last}" if first else ""),
        "key_share": base.get("key_share", 0.12),
        "key_min_score": base.get("key_min_score", 1.5),
        "min_path_share": MIN_PATH_SHARE,
        "catch_all": CATCH_ALL,
        "default_kind": base.get("default_kind", "other"),
        "learned": {
            "repo": history.repo,
            "prs": len(prs),
            "on": history.learned_on.isoformat(),
            "first": str(first or ""),
            "last": str(last or ""),
        },
        "modules": {m.id: m.spec for m in modules},
    }
    data["modules"][CATCH_ALL] = {"en": "Other", "zh": "其他", "group": "infra"}  # every profile has one
    data["kinds"] = _kinds(base, roles, marks)
    data["flags"] = _flags(history, base, roles)
    return data


def _kinds(base: Mapping[str, Any], roles: PathRoles, marks: conv.Marks) -> dict[str, Any]:
    """The generic profile's kinds with this team's marks (and a translation kind where it has
    translations), their words kept for titles without marks, their paths the tree's."""
    base_kinds: dict[str, Any] = dict(base.get("kinds", {}))
    translated = bool(roles.globs.get("translations")) or marks.gitmoji.get("🌐", 0) >= conv.MIN_USES
    names = list(base_kinds)
    if translated and conv.TRANSLATION not in names:
        names.insert(names.index("docs") if "docs" in names else 0, conv.TRANSLATION)
        base_kinds[conv.TRANSLATION] = conv.TRANSLATION_KIND
    found = conv.kind_marks(marks, base, names)
    path_kinds = {kind: role for role, kind in ROLE_KINDS.items()}
    out: dict[str, Any] = {}
    for name in names:
        spec = base_kinds[name]
        kind: dict[str, Any] = {k: spec[k] for k in ("en", "zh") if k in spec}
        got = found[name]
        for key, values in (("tags", got.tags), ("prefixes", got.prefixes), ("labels", got.labels)):
            if values:
                kind[key] = [text for text, _ in values]
        for key in ("keywords", "patterns"):
            if spec.get(key):
                kind[key] = list(spec[key])
        role = path_kinds.get(name)
        if role is not None and roles.globs.get(role):
            kind["only_globs"] = list(roles.globs[role])
        elif role is None:
            for key in ("only_globs", "globs", "all_globs"):
                if spec.get(key):
                    kind[key] = list(spec[key])
        out[name] = kind
    return out


def _flags(history: History, base: Mapping[str, Any], roles: PathRoles) -> dict[str, Any]:
    flags_base: Mapping[str, Any] = base.get("flags", {})
    out: dict[str, Any] = {}
    owned = core_globs(history.codeowners, roles.role) if history.codeowners else []
    if owned:
        out["core-path"] = {"globs": [o.glob for o in owned], "max_evidence": 5}
    else:
        out["core-path"] = {"enabled": False}
    mt = dict(flags_base.get("missing-tests", {}))
    if roles.globs.get("tests"):
        mt["test_globs"] = list(roles.globs["tests"])
    exempt = [g for r in ("translations", "docs", "ci") for g in roles.globs.get(r, ())]
    vendored = [g for g in roles.globs.get("deps", ()) if g.endswith("/**")]
    mt["exempt_globs"] = exempt + vendored
    mt["exempt_kinds"] = [k for k in mt.get("exempt_kinds", []) if k in base.get("kinds", {})] + (
        [conv.TRANSLATION] if roles.globs.get("translations") else []
    )
    out["missing-tests"] = mt
    dep = dict(flags_base.get("dependency", {}))
    if roles.globs.get("deps"):
        dep["globs"] = [g for g in roles.globs["deps"] if not g.endswith("/**")] or list(roles.globs["deps"])
    out["dependency"] = dep
    large = dict(flags_base.get("large", {}))
    large["ignore"] = list(dict.fromkeys([*large.get("ignore", []), *vendored]))
    out["large"] = large
    return out
