"""From the places PRs concentrate in to the ``[modules.*]`` tables of a learned profile.

A place is a source directory (``classify.learn.modules.cut_tree``), a role of the tree's
conventions (documentation, tests, CI …: the PRs changing only such files), or a directory a
large role splits into (one language of the translated documentation). Each becomes a module
with a stable id (the id it had in the profile learned before, where the directory is the same),
a label a reader would write, and the globs the engine matches: ``globs`` for a source
directory (any changed file there), ``only_globs`` for a role (every changed file there).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from classify.learn.modules import NAME_RECALL, Cut, Naming, reader_name
from classify.learn.paths import LANGUAGE_NAMES, ROLES, PathRoles, is_language
from classify.text import mid_sentence
from classify.titles import norm, project_key

CATCH_ALL = "other"
ROLE_LABELS: dict[str, tuple[str, str]] = {
    "translations": ("Translations", "翻译"),
    "docs": ("Documentation", "文档"),
    "tests": ("Tests", "测试"),
    "ci": ("CI", "持续集成"),
    "deps": ("Dependencies", "依赖"),
    "build": ("Build & packaging", "构建与打包"),
}
_ID = re.compile(r"[^a-z0-9_-]+")
CONTAINERS = frozenset(
    "lib libs pkg pkgs internal src common util utils base misc shared impl helpers".split()
)
"""directory names of the code's layout in many languages, not of what the code does: a module
named by one alone ("Lib", "Internal") tells a reader nothing, so the directory above names it too"""
_LABEL_NAMESPACE = re.compile(r"^[\w .-]{1,30}?\s*[:/]\s*")


@dataclass(frozen=True)
class Place:
    """Where a module's PRs are: a source directory (``role`` None) or a role's files (all of
    them, ``cut.path == ""``, or those under one directory)."""

    cut: Cut
    role: str | None = None

    @property
    def key(self) -> str:
        if self.role is None:
            return self.cut.path
        return f"@{self.role}" + (f":{self.cut.path}" if self.cut.path else "")


@dataclass
class Module:
    id: str
    place: Place
    spec: dict[str, Any]


def slug(text: str) -> str:
    return _ID.sub("-", text.lower()).strip("-_")[:40].strip("-_") or "module"


def named_parts(path: str, repo: str) -> list[str]:
    """A directory's parts without a trailing one named like the repository (``python-package/xgboost``
    is the Python package: the repository's name says nothing there)."""
    parts = path.split("/")
    project = project_key(repo)
    while len(parts) > 1 and norm(parts[-1]) == project:
        parts.pop()
    return parts


def previous_ids(previous: Mapping[str, Any] | None) -> dict[str, str]:
    """Place key → module id in a profile learned before: a source module's first glob is
    ``DIR/**``; a role's directory module's first only_glob is ``DIR/**``."""
    out: dict[str, str] = {}
    for mid, spec in (previous or {}).get("modules", {}).items():
        for key in ("globs", "only_globs"):
            globs = spec.get(key) or []
            first = str(globs[0]) if globs else ""
            if first.endswith("/**") and "*" not in first[:-3] and "{" not in first:
                out[("" if key == "globs" else "@:") + first[:-3]] = mid
                break
    return out


def assign_ids(
    places: Sequence[Place], sizes: Mapping[str, int], previous: Mapping[str, Any] | None, repo: str
) -> dict[str, str]:
    """Module ids: a role's own name; a directory's the id it had before, else its last part
    (with its parent's when two directories share a name; the larger module gets the shorter)."""
    taken = {CATCH_ALL}
    ids: dict[str, str] = {}
    for p in places:
        if p.role is not None and not p.cut.path:
            ids[p.key] = p.role
            taken.add(p.role)
    taken |= set(ROLE_LABELS)
    before = previous_ids(previous)
    for p in places:
        old = before.get(p.cut.path if p.role is None else "@:" + p.cut.path)
        if p.key not in ids and old is not None and old not in taken:
            ids[p.key] = old
            taken.add(old)
    for p in sorted(places, key=lambda p: (-sizes.get(p.key, 0), p.key)):
        if p.key in ids:
            continue
        parts = named_parts(p.cut.path, repo)
        lead = f"{p.role}-" if p.role else ""
        candidate = ""
        for depth in range(1, len(parts) + 1):
            candidate = slug(lead + "-".join(parts[-depth:]))
            if candidate not in taken:
                break
        if candidate in taken:
            candidate = f"{candidate[:34]}-{len(taken)}"
        ids[p.key] = candidate
        taken.add(candidate)
    return ids


def label(place: Place, naming: Naming | None, casing: Mapping[str, str], repo: str) -> tuple[str, str]:
    """(en, zh) labels: the team's tag for it, else the directory's name as a reader writes it;
    a role's, or a role's and the directory's ("Portuguese translation", "Dependencies: core")."""
    if place.role is not None:
        en, zh = ROLE_LABELS[place.role]
        if not place.cut.path:
            return en, zh
        if place.role == "translations":
            code = next((p for p in reversed(place.cut.path.split("/")) if is_language(p)), place.cut.path)
            names = LANGUAGE_NAMES.get(code.lower().replace("_", "-"))
            return (
                (f"{names[0]} translation", f"{names[1]}翻译")
                if names
                else (f"Translation ({code})", f"翻译（{code}）")
            )
        shown = reader_name(named_parts(place.cut.path, repo)[-1], casing, directory=True)
        return f"{en}: {shown}", f"{zh}：{shown}"
    if naming is not None and naming.name is not None:
        written = naming.name.written
        if naming.name.source == "label":  # "area: io", "component/parser": the name after the namespace
            written = _LABEL_NAMESPACE.sub("", written) or written
        text = reader_name(written, casing)
    else:
        parts = named_parts(place.cut.path, repo)
        text = reader_name(parts[-1], casing, directory=True)
        if len(parts) > 1 and norm(parts[-1]) in CONTAINERS and norm(parts[-2]) not in CONTAINERS:
            # "lib" says where code is kept, not what it is: "SDK lib", "Core pkg"
            text = f"{reader_name(parts[-2], casing, directory=True)} {mid_sentence(text)}"
    return text, text


def spec_for(place: Place, roles: PathRoles, tree: Sequence[str], en: str, zh: str) -> dict[str, Any]:
    """The module table's matching rules (see the module docstring)."""
    d = place.cut.path
    spec: dict[str, Any] = {"en": en, "zh": zh, "group": "area" if place.role is None else "infra"}
    split_off = [f"{x}/**" for x in place.cut.excluded]
    if place.role is None:
        spec["globs"] = [f"{d}/**"]
        exclude = split_off + role_globs_under(roles, tree, d + "/")
    elif not d:
        spec["only_globs"] = list(roles.globs[place.role])
        exclude = earlier_overlapping(roles, tree, place.role) + split_off
    else:
        spec["only_globs"] = [f"{d}/**"]
        exclude = [g for g in role_globs_under(roles, tree, d + "/") if g not in roles.globs[place.role]]
    if exclude:
        spec["exclude"] = exclude
    return spec


def role_globs_under(roles: PathRoles, tree: Sequence[str], prefix: str) -> list[str]:
    """The role globs that give some path under ``prefix`` a role (a module's directory leaves them to it)."""
    found: list[str] = []
    for path in tree:
        if path.startswith(prefix):
            glob = roles.glob_of(path)
            if glob is not None and glob not in found:
                found.append(glob)
    return found


def earlier_overlapping(roles: PathRoles, tree: Sequence[str], role: str) -> list[str]:
    """The globs of earlier roles that claim paths ``role``'s globs also match."""
    out: list[str] = []
    earlier = set(ROLES[: ROLES.index(role)])
    for path in tree:
        if roles.matches(role, path) and roles.role(path) in earlier:
            glob = roles.glob_of(path)
            if glob is not None and glob not in out:
                out.append(glob)
    return out


def unique_labels(modules: Sequence[Module], casing: Mapping[str, str], repo: str) -> None:
    """Two modules never share a label. Directories of one name in different places are told
    apart by the directories above them, as a reader would say it: ``wandb/sdk/internal`` and
    ``core/internal`` are "SDK internal" and "Core internal", not "Internal" twice (nor one of
    them "Internal (other)", which says neither where it is nor what it is apart from)."""
    by_label: dict[str, list[Module]] = {}
    for m in modules:
        if m.place.role is None:
            by_label.setdefault(norm(m.spec["en"]), []).append(m)
    for same in by_label.values():
        if len(same) < 2:
            continue
        parents = [named_parts(m.place.cut.path, repo)[:-1] for m in same]
        for depth in range(1, max(len(p) for p in parents) + 1):
            above = [" ".join(reader_name(x, casing, directory=True) for x in p[-depth:]) for p in parents]
            if len({norm(a) for a in above}) == len(same):
                break
        else:
            above = [m.place.cut.path for m in same]  # the same names all the way up: the paths
        for m, where in zip(same, above, strict=True):
            if where:
                m.spec["en"] = m.spec["zh"] = f"{where} {mid_sentence(m.spec['en'])}"


def route_tags(modules: Sequence[Module], naming: Mapping[str, Naming], sizes: Mapping[str, int]) -> None:
    """Each module's tags and labels: the team's marks that are mostly its PRs' *and* on at least
    ``NAME_RECALL`` of them — its name, in the team's words. A mark on a few of its PRs ([mt] in
    the tree code, [dask] in the Python package) is a story inside it, left to the storylines."""
    for m in modules:
        found = naming.get(m.place.key)
        if found is None:
            continue
        least = NAME_RECALL * sizes.get(m.place.key, 0)
        named = [t for t, hit in found.tags if hit >= least]
        tags = [t.written for t in named if t.source in ("tag", "scope")]
        labels = [t.written for t in named if t.source == "label"]
        if tags:
            m.spec["tags"] = tags
        if labels:
            m.spec["labels"] = labels
