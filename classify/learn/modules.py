"""Modules learned from where a repository's PRs change code, named in the team's own words.

**Where.** Over the history's source files (paths no convention of ``classify.learn.paths``
gives a role), every directory counts the PRs that change something under it. The cut starts at
the top-level directories and goes down where a directory holds too large a share of the PRs to
be one story (``SPLIT_SHARE``) *and* its subdirectories separate them: most of its PRs fall in
its larger subdirectories (``COVERED``), and most of those in just one of them (``APART``). A
directory whose PRs nearly all go through one subdirectory (``python-package/`` →
``python-package/xgboost/``) is a wrapper and is gone through. What a split leaves (files of the
directory itself, small subdirectories) is a module of its own when it holds enough PRs. A
directory holding most of the history (``FORCE_SHARE``: the whole source root) is split whether or
not its parts separate well. Every module holds at least ``MIN_SHARE`` of the PRs; when there
would be more than allowed, the minimum is raised until there are not.

**Named.** The PRs *of* a module are those with most of their changed source lines in it. A title
tag, conventional-commit scope or label that those PRs carry (at least ``MIN_TAGGED`` times) and
that is mostly theirs (``TAG_PRECISION``) becomes the module's tag, so titles route to it; the one
covering most of the module's PRs (``NAME_RECALL``) names it. Without one, the directory's name
is the name, each word written as the team writes it most often in titles ("gpu_hist" → "GPU
hist", "pyspark" → "PySpark").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

SPLIT_SHARE = 0.12
FORCE_SHARE = 0.4
WRAPPER = 0.9
COVERED = 0.3
APART = 0.6
MIN_SHARE = 0.02
MIN_PRS = 3
MIN_TAGGED = 3
TAG_PRECISION = 0.6
NAME_RECALL = 0.5
MOSTLY = 0.5
HOME = 0.3
"""a directory is a module only when at least this share of the PRs changing it mostly change it:
public headers every change touches in passing (``include/``) are where code is declared, not
where a story happens"""


@dataclass
class Node:
    """A directory of the source tree and the PRs that change something under it."""

    path: str
    prs: set[int] = field(default_factory=set)
    children: dict[str, Node] = field(default_factory=dict)


@dataclass(frozen=True)
class Cut:
    """One learned module's place: a directory minus the subdirectories split off from it."""

    path: str
    excluded: tuple[str, ...] = ()
    prs: frozenset[int] = frozenset()

    def holds(self, path: str) -> bool:
        if self.path and not path.startswith(self.path + "/"):
            return False
        return not any(path.startswith(x + "/") for x in self.excluded)


def build_tree(
    lines: Sequence[Sequence[tuple[str, int]]], totals: Sequence[int] | None = None, share: float = 0.0
) -> Node:
    """The directory tree of every PR's files (PR ids are positions in the sequence). A PR counts
    in a directory when its changes there are at least ``share`` of its ``totals`` lines (all its
    files'): the engine does not file a PR under a module it touches in passing either."""
    root = Node("")
    for i, files in enumerate(lines):
        per_dir: dict[str, int] = {}
        for path, n in files:
            parts = path.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                key = "/".join(parts[:depth])
                per_dir[key] = per_dir.get(key, 0) + n
        least = share * totals[i] if totals is not None else 0
        for key, n in per_dir.items():
            if n < least:
                continue
            node = root
            for part in key.split("/"):
                child = node.children.get(part)
                if child is None:
                    prefix = f"{node.path}/" if node.path else ""
                    child = node.children[part] = Node(prefix + part)
                node = child
            node.prs.add(i)
    return root


@dataclass(frozen=True)
class Limits:
    min_prs: int
    split_prs: float
    force_prs: float


def _rest(node: Node, kids: Sequence[Node], source_paths: Sequence[Sequence[str]]) -> frozenset[int]:
    """The PRs changing a file under ``node`` outside every one of ``kids``."""
    out = set()
    prefixes = tuple(k.path + "/" for k in kids)
    mine = node.path + "/" if node.path else ""
    for i in node.prs:
        for p in source_paths[i]:
            if p.startswith(mine) and not p.startswith(prefixes):
                out.add(i)
                break
    return frozenset(out)


def _home(node: Node, source_lines: Sequence[Sequence[tuple[str, int]]], excluded: Sequence[str] = ()) -> int:
    """How many of the PRs changing ``node`` mostly change it (outside ``excluded``)."""
    cut = Cut(node.path, tuple(excluded))
    return len(mostly_in(cut, source_lines, frozenset(node.prs)))


def _separates(node: Node, kids: Sequence[Node]) -> bool:
    covered: Counter[int] = Counter()
    for k in kids:
        covered.update(k.prs)
    if len(covered) < COVERED * len(node.prs):
        return False
    alone = sum(1 for n in covered.values() if n == 1)
    return alone >= APART * len(covered)


@dataclass(frozen=True)
class _Source:
    """Each PR's source files with their lines, and the paths alone."""

    lines: Sequence[Sequence[tuple[str, int]]]

    @property
    def paths(self) -> list[list[str]]:
        return [[p for p, _ in files] for files in self.lines]


def _is_home(node: Node, src: _Source, excluded: Sequence[str] = ()) -> bool:
    return _home(node, src.lines, excluded) >= HOME * len(node.prs)


def choose(node: Node, limits: Limits, src: _Source) -> list[Cut]:
    """The modules under ``node`` (``node`` itself, or its parts): see the module docstring."""
    n = len(node.prs)
    kids = sorted(
        (c for c in node.children.values() if len(c.prs) >= limits.min_prs and _is_home(c, src)),
        key=lambda c: c.path,
    )
    paths = src.paths
    if len(kids) == 1 and len(kids[0].prs) >= WRAPPER * n:
        inner = choose(kids[0], limits, src)
        if len(inner) == 1 and inner[0].path == kids[0].path and not inner[0].excluded:
            return [
                Cut(node.path, (), frozenset(node.prs))
            ]  # nothing inside splits: the wrapper is the module
        rest = _rest(node, kids, paths)
        keep = len(rest) >= limits.min_prs and _home(node, src.lines, [kids[0].path]) >= HOME * len(rest)
        return inner + ([Cut(node.path, (kids[0].path,), rest)] if keep else [])
    split = n > limits.force_prs or (n > limits.split_prs and _separates(node, kids))
    if not kids or not split or (len(kids) < 2 and n <= limits.force_prs):
        return [Cut(node.path, (), frozenset(node.prs))]
    out: list[Cut] = []
    for kid in kids:
        out += choose(kid, limits, src)
    rest = _rest(node, kids, paths)
    split_off = [k.path for k in kids]
    if len(rest) >= limits.min_prs and _home(node, src.lines, split_off) >= HOME * len(rest):
        out.append(Cut(node.path, tuple(split_off), rest))
    return out


def cut_tree(
    source_lines: Sequence[Sequence[tuple[str, int]]], totals: Sequence[int], most: int, share: float = 0.0
) -> list[Cut]:
    """At most ``most`` modules for the PRs' source files (with their changed lines; ``totals``:
    every PR's lines in all its files), each with ≥ ``MIN_SHARE`` of the PRs counting in it
    (``share``: see ``build_tree``) and a home to them (``HOME``)."""
    total = len(totals)
    src = _Source(source_lines)
    root = build_tree(source_lines, totals, share)
    min_prs = max(MIN_PRS, math.ceil(MIN_SHARE * total))
    while True:
        limits = Limits(min_prs, SPLIT_SHARE * total, FORCE_SHARE * total)
        cuts = [
            c
            for top in sorted(root.children.values(), key=lambda c: c.path)
            if len(top.prs) >= min_prs and _is_home(top, src)
            for c in choose(top, limits, src)
        ]
        if len(cuts) <= most or min_prs > total:
            return sorted(cuts, key=lambda c: c.path)
        min_prs = math.ceil(min_prs * 1.25)


def split_role(role_lines: Sequence[Sequence[tuple[str, int]]], total: int, min_prs: int) -> list[Cut]:
    """The directories a role's PRs (those changing only files of the role: documentation,
    translations, dependencies …) separate into, found as ``cut_tree`` finds modules; what a
    split leaves stays with the role's own module. Empty when the role holds at most
    ``SPLIT_SHARE`` of ``total`` or its directories do not separate it."""
    src = _Source(role_lines)
    root = build_tree(role_lines)
    root.prs = {i for i, files in enumerate(role_lines) if files}
    limits = Limits(min_prs, SPLIT_SHARE * total, FORCE_SHARE * total)
    if len(root.prs) <= limits.split_prs:
        return []
    return [c for c in choose(root, limits, src) if c.path and not c.excluded]


# -- names -------------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+]*")
_NOT_PROSE = re.compile(r"```.*?```|`[^`]*`|\S*[/_=<>{}\[\]\\]\S*|\S+[.:]\w\S*", re.S)
_SPLIT_NAME = re.compile(r"[-_./\s]+")


def casing_table(titles: Sequence[str], bodies: Sequence[str] = ()) -> dict[str, str]:
    """Each word of the titles' text and the descriptions (lower case) → the spelling the team
    writes most often; title tags are left out, since a lower-case tag is what this spelling is
    looked up for."""
    from classify.titles import parse_title

    forms: dict[str, Counter[str]] = {}
    for text in [*(parse_title(t).text for t in titles), *bodies]:
        # words as written in prose: not code spans, paths, URLs or identifiers ("wandb/sdk/lib")
        prose = _NOT_PROSE.sub(" ", text)
        for w in _WORD.findall(prose):
            forms.setdefault(w.lower(), Counter())[w] += 1
    out = {}
    for key, counter in forms.items():
        # the commonest spelling; on a tie the one with capitals (an acronym written both ways)
        out[key] = max(counter.items(), key=lambda kv: (kv[1], sum(c.isupper() for c in kv[0])))[0]
    return out


def reader_name(raw: str, casing: Mapping[str, str], *, directory: bool = False) -> str:
    """A directory or an all-lower-case tag as a reader writes it: each lower-case word in the
    team's commonest spelling, separators as spaces, the first letter a capital ("jvm-packages" →
    "JVM packages", "R-package" → "R package"); a tag with capitals is the team's spelling already."""
    if not directory and any(c.isupper() for c in raw):
        return raw
    words = [w for w in _SPLIT_NAME.split(raw) if w]
    shown = [casing.get(w, w) if w.islower() else w for w in words]
    # a word the team writes in lower case mid-title stays so, but a name starts with a capital
    text = " ".join(shown) or raw
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class Term:
    """A title tag, conventional-commit scope or label: normalised key, as written, and which PRs."""

    key: str
    written: str
    source: str  # tag | scope | label
    prs: frozenset[int]


@dataclass(frozen=True)
class Naming:
    tags: tuple[tuple[Term, int], ...]
    """the terms that route to this module, with how many of its PRs carry each"""
    name: Term | None
    """the term naming it, or None (the directory's name)"""


def mostly_in(
    cut: Cut, source_lines: Sequence[Sequence[tuple[str, int]]], candidates: frozenset[int]
) -> set[int]:
    """The PRs of ``candidates`` with most of their changed source lines inside ``cut``."""
    out = set()
    for i in candidates:
        files = source_lines[i]
        total = sum(max(1, n) for _, n in files)
        inside = sum(max(1, n) for p, n in files if cut.holds(p))
        if total and inside >= MOSTLY * total:
            out.add(i)
    return out


def name_modules(
    members: Mapping[str, set[int]], terms: Sequence[Term], skip: Callable[[Term], bool]
) -> dict[str, Naming]:
    """Each module's tags and naming term (see the module docstring); a term goes to one module."""
    best_for_term: dict[str, tuple[float, str]] = {}
    for term in terms:
        if skip(term) or len(term.prs) < MIN_TAGGED:
            continue
        for module, prs in members.items():
            hit = len(term.prs & prs)
            precision = hit / len(term.prs)
            best = best_for_term.get(term.key, (0.0, ""))[0]
            if hit >= MIN_TAGGED and precision >= TAG_PRECISION and precision > best:
                best_for_term[term.key] = (precision, module)
    by_key = {t.key: t for t in terms}
    out: dict[str, Naming] = {}
    for module, prs in members.items():
        mine = [
            (by_key[k], len(by_key[k].prs & prs))
            for k, (_, m) in sorted(best_for_term.items())
            if m == module
        ]
        mine.sort(key=lambda tn: (-tn[1], tn[0].key))
        name = next((t for t, hit in mine if prs and hit >= NAME_RECALL * len(prs)), None)
        out[module] = Naming(tags=tuple(mine), name=name)
    return out
