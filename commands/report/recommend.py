"""Recommendations derived from the numbers: each one says why and names its PRs.

Every count a recommendation states is the count the risk section and the tables show (the
modules it names are the top of the same module tally as "mostly in …").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from classify.models import ListedPR
from classify.storylines import Theme
from commands.locale import t
from commands.locale.words import avg_text, join_list, tn
from commands.report.phrases import average_phrase
from commands.report.stats import DigestStats, module_tally


@dataclass(frozen=True)
class Recommendation:
    text: str
    prs: list[ListedPR]


LabelFn = Callable[[str], str]
MAX_PRS = 5
MAX_PACKAGES = 4  # packages a recommendation names
MAX_RECOMMENDATIONS = 5  # the most pressing first; the digest stays as short as the team's report


def top_modules(prs: list[ListedPR], label: LabelFn, lang: str, n: int = 3) -> str:
    """The modules most of ``prs`` touch (counted as the module table counts), by name."""
    return join_list([label(m) for m, _ in module_tally(prs).most_common(n)], lang)


def _packages(deps: list[ListedPR], change: str) -> tuple[list[str], list[ListedPR]]:
    """The packages ``deps`` upgrade (``change="→"``: "xgrammar 0.1 → 0.2") or remove
    (``" removed"``) by name, and the PRs that do: only what the evidence names that way is a
    package (a PR that only changed a requirements file names none); CI actions are left out."""
    names: list[str] = []
    prs: list[ListedPR] = []
    for s in deps:
        flag = s.cls.flag("dependency")
        evidence = flag.evidence[:2] if flag else []
        named = [
            e.split(" ", 1)[0] for e in evidence if (change in e if change == "→" else e.endswith(change))
        ]
        named = [name for name in named if not ci_action(name)]
        if named:
            prs.append(s)
        names += [name for name in named if name not in names]
    return names, prs


def ci_action(name: str) -> bool:
    """A GitHub Action (``actions/checkout``): ``owner/name``, unlike a package (an npm scope is
    ``@scope/name``)."""
    return "/" in name and not name.startswith("@")


def _ci_only(s: ListedPR) -> bool:
    """A dependency PR that upgrades CI actions and nothing else."""
    flag = s.cls.flag("dependency")
    upgrades = [e for e in (flag.evidence if flag else []) if "→" in e]
    return bool(upgrades) and all(ci_action(e.split(" ", 1)[0]) for e in upgrades)


def _refreshes_only(s: ListedPR) -> bool:
    flag = s.cls.flag("dependency")
    return flag is not None and all(e.endswith(" refreshed") for e in flag.evidence)


def _package_list(names: list[str], lang: str) -> str:
    """ "xgrammar, torch, openai-harmony and AITER", or with "and others" (等) past ``MAX_PACKAGES``."""
    if len(names) <= MAX_PACKAGES:
        return join_list(names, lang)
    return t(lang, "rec.dependency_others", names=join_list(names[:MAX_PACKAGES], lang, conjunction=False))


def _dependency_recommendations(deps: list[ListedPR], lang: str, unit: str) -> list[Recommendation]:
    """Test against what was upgraded; check nothing still needs what was removed (a removed
    package is never "upgraded"); a lockfile refresh alone asks nothing of anyone."""
    out: list[Recommendation] = []
    names, named = _packages(deps, "→")
    removed, removing = _packages(deps, " removed")
    if names:
        text = t(lang, "rec.dependency", deps=_package_list(names, lang))
        out.append(Recommendation(text, named[:MAX_PACKAGES]))
    elif not removed and not all(_refreshes_only(s) for s in deps):
        out.append(Recommendation(tn(lang, "rec.dependency_unnamed", len(deps)), deps[:MAX_PACKAGES]))
    if removed:
        text = t(lang, "rec.dependency_removed", deps=_package_list(removed, lang), unit=unit)
        out.append(Recommendation(text, removing[:MAX_PACKAGES]))
    return out


def recommendations(
    stats: DigestStats, themes: list[Theme], label: LabelFn, lang: str
) -> list[Recommendation]:
    out: list[Recommendation] = []
    unit = t(lang, "word.week" if stats.comparison.weekly else "word.period")
    untested = stats.flagged("missing-tests")
    if untested and len(untested) >= max(3, 0.1 * len(stats.prs)):
        out.append(
            Recommendation(
                t(lang, "rec.tests", modules=top_modules(untested, label, lang)), untested[:MAX_PRS]
            )
        )
    core = stats.flagged("core-path")
    core_avg = stats.previous_avg("core-path")
    if core and core_avg is not None and len(core) > 1.2 * core_avg + 1:
        text = t(
            lang,
            "rec.core",
            now=len(core),
            average=average_phrase(stats, lang),
            avg=avg_text(core_avg),
            modules=top_modules(core, label, lang),
        )
        out.append(Recommendation(text, core[:MAX_PRS]))
    breaking = stats.flagged("breaking")
    if breaking:
        out.append(Recommendation(tn(lang, "rec.breaking", len(breaking)), breaking[:MAX_PRS]))
    # a CI action (actions/checkout) runs the project's workflows, not the project: a release is
    # never "tested against" it, so the recommendation is about the other upgrades only
    deps = [s for s in stats.flagged("dependency") if not _ci_only(s)]
    if deps:
        out += _dependency_recommendations(deps, lang, unit)
    for theme in themes:
        if theme.kind == "burst":
            text = t(lang, "rec.burst", topic=theme.label(lang), n=len(theme.prs), unit=unit)
            out.append(Recommendation(text, theme.prs[:MAX_PRS]))
    reverts = stats.flagged("revert")
    if reverts:
        out.append(Recommendation(tn(lang, "rec.revert", len(reverts), unit=unit), reverts[:MAX_PRS]))
    large = stats.flagged("large")
    if len(large) >= 5:
        out.append(Recommendation(t(lang, "rec.large", n=len(large), unit=unit), large[:MAX_PRS]))
    if not out:
        out.append(Recommendation(t(lang, "rec.none"), []))
    return out[:MAX_RECOMMENDATIONS]
