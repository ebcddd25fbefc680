"""The comments of a learned profile: what each part was learned from, in numbers a team can check.

Every module says how many PRs it holds and which paths and title marks put them there; the
kinds say which marks this team uses; the head says what was read (how many PRs, a clone's tree,
CODEOWNERS), what could not be learned and why, and how to edit and use the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from classify.learn import conventions as conv
from classify.learn.model import History, Learned
from classify.learn.modules import Cut, Naming
from classify.learn.places import CATCH_ALL, Module
from classify.models import PullRequest

EXCLUDED_SHOWN = 4
ROLE_WHAT = {
    "translations": "translated documentation",
    "docs": "documentation and examples",
    "tests": "tests",
    "ci": "CI configuration",
    "deps": "dependency manifests, lockfiles and vendored code",
    "build": "build and packaging files",
}


def _pct(n: int, total: int) -> str:
    return f"{n / total:.1%}" if total else "0%"


def _counted(items: Sequence[tuple[str, int]], limit: int = 8) -> str:
    shown = ", ".join(f"{text} {n}" for text, n in items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def _conventions(marks: conv.Marks) -> list[str]:
    lines = []
    for what, counter in (
        ("conventional-commit types", marks.prefixes),
        ("bracket tags", marks.tags),
        ("gitmoji", marks.gitmoji),
        ("labels", marks.labels),
    ):
        if counter:
            top = [(marks.written(k) if what != "gitmoji" else k, n) for k, n in counter.most_common()]
            lines.append(f"  {what} on {marks.share(counter):.0%} of titles: {_counted(top)}")
        else:
            lines.append(f"  {what}: none")
    return lines


def _head(history: History, prs: Sequence[PullRequest], marks: conv.Marks, tree: Sequence[str]) -> list[str]:
    first = prs[0].merged_at.date() if prs else "—"
    last = prs[-1].merged_at.date() if prs else "—"
    read = f"{len(prs):,} merged PRs ({first} to {last})"
    read += (
        f" and a clone's tree ({len(tree):,} files)"
        if history.tree is not None
        else " (no clone: the tree is the files they changed)"
    )
    owners = "CODEOWNERS" if history.codeowners else "no CODEOWNERS file"
    return [
        f"prdigest rule profile learned from the history of {history.repo} (prdigest profile learn).",
        f"Learned on {history.learned_on} from {read}; {owners}.",
        "",
        "Edit it as you like: rename a module (en/zh), move globs between modules, add the tags your",
        "team writes. Keep the module ids (the names in [modules.ID]): subscriptions filter by them.",
        "Use it with PRDIGEST_RULES=this-file.toml (or for one repository, PRDIGEST_REPO_PROFILES),",
        "then run `prdigest reclassify`. The vocabulary is the generic profile's (see generic.toml).",
        "",
        "Title conventions found:",
        *_conventions(marks),
    ]


def explain(
    learned: Learned,
    history: History,
    prs: Sequence[PullRequest],
    marks: conv.Marks,
    naming: Mapping[str, Naming],
    members: Mapping[str, set[int]],
    modules: Sequence[Module],
    tree: Sequence[str],
) -> None:
    """Fill ``learned.comments`` and ``learned.notes``."""
    total = len(prs)
    c = learned.comments
    for i, m in enumerate(modules):
        lines = list(MODULES_HEAD) if i == 0 else []
        place, mine = m.place, members[m.place.key]
        if place.role is None:
            lines += _cut_lines(place.cut, mine, naming[place.key], total)
        else:
            where = f" under {place.cut.path}/" if place.cut.path else ""
            if place.cut.excluded:
                where += f" (not {_listed(place.cut.excluded)})"
            lines.append(
                f"{len(mine)} PRs ({_pct(len(mine), total)}) change only {ROLE_WHAT[place.role]}{where}"
            )
        c[("modules", m.id)] = lines
    c[("modules", CATCH_ALL)] = ["the catch-all: PRs no module above claims"]
    c[("kinds",)] = _kind_head(marks)
    _flag_notes(learned, history)
    head = _head(history, prs, marks, tree)
    c[()] = [*head, "", *(f"Not learned: {n}" for n in learned.notes)] if learned.notes else head


MODULES_HEAD = (
    "Modules: the directories where this repository's PRs concentrate, at the depth that",
    "separates them (each holds at least 2% of the PRs), named by the title tags, scopes and",
    "labels their PRs carry, else by the directory; then the tree's translations, docs, tests,",
    "CI, dependency and build paths. A PR's modules: its tags first, then the paths it changes.",
    "",
)


def _listed(dirs: Sequence[str]) -> str:
    shown = ", ".join(d + "/" for d in dirs[:EXCLUDED_SHOWN])
    return shown + (f" and {len(dirs) - EXCLUDED_SHOWN} more" if len(dirs) > EXCLUDED_SHOWN else "")


def _cut_lines(cut: Cut, members: set[int], naming: Naming, total: int) -> list[str]:
    n = len(cut.prs)
    where = f"{cut.path}/" + (f" (not {_listed(cut.excluded)})" if cut.excluded else "")
    lines = [f"{n} PRs ({_pct(n, total)}) change {where}; {len(members)} of them mostly there"]
    if naming.tags:
        marks = [(f"{_mark(t.source, t.written)}", hit) for t, hit in naming.tags]
        lines.append(f"their titles and labels say: {_counted(marks)}")
    if naming.name is None:
        lines.append("named after the directory (no tag, scope or label is on half of its PRs)")
    return lines


def _mark(source: str, written: str) -> str:
    return {"tag": f"[{written}]", "scope": f"({written})", "label": f"label {written}"}.get(source, written)


def _kind_head(marks: conv.Marks) -> list[str]:
    return [
        "Kinds, decided in this order: a revert; the first title tag, gitmoji or conventional-commit",
        "type naming a kind; labels; only_globs (every changed file matches); title keywords and",
        "patterns (kinds earlier in the file win); else default_kind. Tags, prefixes and labels below",
        "are the ones this team uses (at least twice); keywords and patterns are the generic profile's.",
    ]


def _flag_notes(learned: Learned, history: History) -> None:
    flags = learned.data["flags"]
    c = learned.comments
    if flags["core-path"].get("enabled") is False:
        reason = (
            "the repository has no CODEOWNERS file"
            if not history.codeowners
            else "its CODEOWNERS names owners only for the whole tree or for docs, CI and tests"
        )
        learned.notes.append(f"core paths: {reason}; core paths are never guessed from words")
        c[("flags", "core-path")] = [
            "Core paths come from CODEOWNERS only: " + reason + ", so none are flagged.",
            "List the paths whose changes need your closest review under globs and remove enabled = false.",
        ]
    else:
        c[("flags", "core-path")] = [
            "Core paths: the paths CODEOWNERS names owners for (not docs, CI or tests)."
        ]
    c[("flags", "missing-tests")] = ["Test and exempt paths from the tree's conventions."]
    c[("flags", "dependency")] = ["Dependency manifests and lockfiles this tree has."]
