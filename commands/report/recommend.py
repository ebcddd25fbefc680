"""Recommendations derived from the numbers: each one says why and names its PRs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from commands.locale import t
from commands.report.stats import DigestStats
from commands.report.themes import Theme
from storage.prs import StoredPR


@dataclass(frozen=True)
class Recommendation:
    text: str
    prs: list[StoredPR]


LabelFn = Callable[[str], str]


def top_modules(prs: list[StoredPR], label: LabelFn, lang: str, n: int = 3) -> str:
    counts: Counter[str] = Counter(m for s in prs for m in s.cls.modules[:1])
    sep = "、" if lang == "zh" else ", "
    return sep.join(label(m) for m, _ in counts.most_common(n)) or "—"


def recommendations(
    stats: DigestStats, themes: list[Theme], label: LabelFn, lang: str
) -> list[Recommendation]:
    out: list[Recommendation] = []
    untested = stats.flagged("missing-tests")
    if untested and len(untested) >= max(3, 0.1 * len(stats.prs)):
        out.append(
            Recommendation(t(lang, "rec.tests", modules=top_modules(untested, label, lang)), untested[:5])
        )
    core = stats.flagged("core-path")
    core_avg = stats.previous_avg("core-path")
    if core and len(core) > 1.2 * core_avg + 1:
        out.append(
            Recommendation(
                t(
                    lang,
                    "rec.core",
                    now=len(core),
                    avg=f"{core_avg:.0f}",
                    modules=top_modules(core, label, lang),
                ),
                core[:5],
            )
        )
    breaking = stats.flagged("breaking")
    if breaking:
        out.append(Recommendation(t(lang, "rec.breaking", n=len(breaking)), breaking[:6]))
    deps = stats.flagged("dependency")
    if deps:
        names = []
        for s in deps[:4]:
            flag = s.cls.flag("dependency")
            names.append(flag.evidence[0] if flag and flag.evidence else f"#{s.pr.number}")
        out.append(Recommendation(t(lang, "rec.dependency", deps="; ".join(names)), deps[:4]))
    for theme in themes:
        if theme.kind == "burst":
            out.append(
                Recommendation(t(lang, "rec.burst", topic=theme.label(lang), n=len(theme.prs)), theme.prs[:5])
            )
    reverts = stats.flagged("revert")
    if reverts:
        out.append(Recommendation(t(lang, "rec.revert", n=len(reverts)), reverts[:5]))
    large = stats.flagged("large")
    if len(large) >= 5:
        out.append(Recommendation(t(lang, "rec.large", n=len(large)), large[:5]))
    if not out:
        out.append(Recommendation(t(lang, "rec.none"), []))
    return out
