"""The facts of one part of a digest, as the plain JSON a model is given and checked against.

A part is what one request asks for: one theme (its computed heading and sentence, and its
leading PRs), the key-PR quick view (each key PR), or the risk section (each risk line as the
computed digest words it, with its PRs and their evidence). A PR's facts are what the computed
digest knows of it: its title and the gist of its description (the author's words, untrusted:
the prompt quotes them as data), its measured effects, kind, modules and flags with evidence.

Everything a sentence may say must be here: the verifier reads its figures and names from these
same strings (``commands.prose.verify``). A PR's own facts sit in an object with its ``number``,
so that a sentence is checked against the PRs it cites (and the part's own lines), not against
every PR of the part.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from classify.models import FlagKind, ListedPR
from classify.periods import Period
from classify.rules import Profile
from classify.storylines import Theme, clean_title
from commands.locale import flag_label
from commands.locale.effects import effect_text
from commands.locale.evidence import evidence_items
from commands.locale.words import period_text
from commands.model import Bullet, BulletList, ProsePart, PRRef, Section

THEME_PRS = 6  # a theme's PRs the model is told about (its leading ones)
RISK_PRS = 5  # PRs per risk line (as many as the computed line links)
DESCRIPTION_CHARS = 300
EVIDENCE_ITEMS = 3
EVIDENCE_CHARS = 140
# the parts and where the computed digest puts them (``commands.report.compose``)
THEMES_SECTION, RISKS_SECTION, KEY_PRS_SECTION = 0, 2, 3


class DigestView(Protocol):
    """What the facts are read from: a digest's numbers (``commands.report.stats.DigestStats``)."""

    repo: str
    period: Period
    key: set[int]
    themes: list[Theme]

    def flagged(self, kind: str) -> list[ListedPR]: ...


Ref = Callable[[ListedPR], PRRef]


@dataclass
class DigestLayout:
    """Where compose put what a model may word: each theme's lines in the themes section
    (start, stop, its heading) and the flag kind of each line of the risk list."""

    themes: list[tuple[int, int, str]] = field(default_factory=list)
    risk_kinds: list[str] = field(default_factory=list)


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def pr_facts(s: ListedPR, stats: DigestView, profile: Profile, lang: str) -> dict[str, Any]:
    """One PR as the computed digest knows it."""
    title = clean_title(s.pr.title, s.pr.repo)
    out: dict[str, Any] = {"number": s.pr.number, "title": title}
    gist = _cut(s.cls.gist, DESCRIPTION_CHARS)
    if gist and gist.rstrip(".") != title.rstrip("."):
        out["description"] = gist
    effects = s.cls.highlights[:3]
    if effects:
        out["measured_effects"] = list(effects)
        if lang == "zh":
            out["measured_effects_zh"] = [effect_text(e, "zh") for e in effects]
    if s.cls.kind != profile.default_kind:
        out["kind"] = profile.kind_label(s.cls.kind, lang)
    modules = [profile.module_label(m, lang) for m in s.cls.modules[:3] if m != profile.catch_all_module]
    if modules:
        out["modules"] = modules
    flags = [_flag(s, kind, lang) for kind in s.cls.flag_kinds]
    if flags:
        out["flags"] = flags
    out["key_pr"] = s.pr.number in stats.key
    return out


def _flag(s: ListedPR, kind: FlagKind, lang: str) -> dict[str, Any]:
    flag = s.cls.flag(kind)
    shown = evidence_items(kind, flag.evidence, lang, s.pr.title, quote_limit=EVIDENCE_CHARS) if flag else []
    out: dict[str, Any] = {"flag": kind, "label": flag_label(lang, kind)}
    if shown:
        out["evidence"] = [_cut(e, EVIDENCE_CHARS) for e in shown[:EVIDENCE_ITEMS]]
    return out


def _common(stats: DigestView, lang: str, part: str) -> dict[str, Any]:
    return {
        "part": part,
        "language": "Chinese (zh)" if lang == "zh" else "English (en)",
        "repository": stats.repo,
        "period": period_text(stats.period, lang),
    }


def theme_part(
    index: int,
    th: Theme,
    slot: tuple[int, int, str],
    stats: DigestView,
    profile: Profile,
    lang: str,
    ref: Ref,
) -> ProsePart:
    start, stop, heading = slot
    prs = th.prs[:THEME_PRS]
    theme: dict[str, Any] = {"name": th.label(lang), "heading": heading}
    summary = th.summary.get(lang) or th.summary.get("en")
    if summary:
        theme["computed_summary"] = summary
    theme["prs_in_theme"] = len(th.prs)
    if len(th.prs) > len(prs):
        theme["prs_listed_here"] = len(prs)
    facts = {**_common(stats, lang, "theme"), "theme": theme}
    facts["prs"] = [pr_facts(s, stats, profile, lang) for s in prs]
    return ProsePart(
        key=f"theme:{index}",
        kind="theme",
        section=THEMES_SECTION,
        start=start,
        stop=stop,
        facts=facts,
        refs={s.pr.number: ref(s) for s in prs},
    )


def key_prs_part(
    key_prs: Sequence[ListedPR], stats: DigestView, profile: Profile, lang: str, ref: Ref
) -> ProsePart:
    facts = {**_common(stats, lang, "key_prs"), "prs": [pr_facts(s, stats, profile, lang) for s in key_prs]}
    return ProsePart(
        key="key_prs",
        kind="key_prs",
        section=KEY_PRS_SECTION,
        start=0,
        stop=1,
        facts=facts,
        refs={s.pr.number: ref(s) for s in key_prs},
    )


def _risk_entry(s: ListedPR, kind: str, profile: Profile, lang: str) -> dict[str, Any]:
    """A PR under a risk: its title, modules, flags, and the evidence of that risk."""
    out: dict[str, Any] = {"number": s.pr.number, "title": clean_title(s.pr.title, s.pr.repo)}
    modules = [profile.module_label(m, lang) for m in s.cls.modules[:3] if m != profile.catch_all_module]
    if modules:
        out["modules"] = modules
    out["flags"] = [
        _flag(s, k, lang) if k == kind else {"flag": k, "label": flag_label(lang, k)}
        for k in s.cls.flag_kinds
    ]
    return out


def _risk_prs(stats: DigestView, kind: str) -> list[ListedPR]:
    if kind == "large":  # the risk line names the biggest first
        found = stats.flagged("large")
        return sorted(found, key=lambda s: (-(s.pr.additions + s.pr.deletions), -s.pr.number))[:RISK_PRS]
    return stats.flagged(kind)[:RISK_PRS]


def risks_part(
    lines: Sequence[Bullet],
    kinds: Sequence[str],
    stats: DigestView,
    profile: Profile,
    lang: str,
    ref: Ref,
) -> ProsePart:
    risks = []
    refs = {}
    for line, kind in zip(lines, kinds, strict=True):
        prs = _risk_prs(stats, kind)
        entries = []
        for s in prs:
            entry = _risk_entry(s, kind, profile, lang)
            if kind == "large":
                entry["changed_lines"] = f"{s.pr.additions + s.pr.deletions:,} lines"
            entries.append(entry)
            refs[s.pr.number] = ref(s)
        risks.append(
            {
                "risk": kind,
                "label": flag_label(lang, kind),
                "prs_flagged": len(stats.flagged(kind)),
                "computed_line": line.text,
                "prs": entries,
            }
        )
    facts = {**_common(stats, lang, "risks"), "risks": risks}
    return ProsePart(
        key="risks", kind="risks", section=RISKS_SECTION, start=0, stop=1, facts=facts, refs=refs
    )


def digest_parts(
    stats: DigestView,
    profile: Profile,
    lang: str,
    layout: DigestLayout,
    sections: Sequence[Section],
    key_prs: Callable[[], list[ListedPR]],
    ref: Ref,
) -> list[ProsePart]:
    """Every part of a digest a model may word: each theme, the risks, the key PRs."""
    parts = [
        theme_part(i, th, slot, stats, profile, lang, ref)
        for i, (th, slot) in enumerate(zip(stats.themes, layout.themes, strict=False), 1)
        if th.prs
    ]
    risk_blocks = sections[RISKS_SECTION].blocks if len(sections) > RISKS_SECTION else []
    if layout.risk_kinds and risk_blocks and isinstance(risk_blocks[0], BulletList):
        parts.append(risks_part(risk_blocks[0].items, layout.risk_kinds, stats, profile, lang, ref))
    chosen = key_prs()
    if chosen:
        parts.append(key_prs_part(chosen, stats, profile, lang, ref))
    return parts
