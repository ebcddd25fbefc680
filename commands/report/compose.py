"""Assemble the digest Reply: one section per heading of the team's weekly report.

Rules the text keeps, so a team lead can post it unedited:
- every number in a sentence is one of the numbers in the tables and in ``Reply.data`` (the
  same value, formatted once here), and says what it counts;
- "mostly in X, Y" is computed from the same module counts as the module table, and shows them;
- nothing is said twice: the summary counts are the comparison table's first column, highlights
  appear once (with their PR in the quick view or a theme), the details are one command away
  (``risks KIND``, ``pr N``, ``digest PERIOD MODULE``);
- everything prdigest writes is in the reader's language; PR titles stay as written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from classify.models import FLAG_KINDS, FlagKind, ListedPR
from classify.rules import Profile
from classify.storylines import Theme, clean_title, kind_counts
from commands.common import pr_ref
from commands.locale import flag_label, t, zh_spacing
from commands.locale.effects import effect_text
from commands.locale.evidence import evidence_items, paired_code_spans
from commands.locale.words import avg_text, change_words, count, join_list, period_text, tn
from commands.model import Block, Bullet, BulletList, Heading, Paragraph, Reply, Section, Table
from commands.prose.facts import DigestLayout, digest_parts
from commands.report.lead import LEAD_KEY_PRS, lead_blocks
from commands.report.phrases import average_phrase, compare_heading, not_compared, unit
from commands.report.recommend import LabelFn, Recommendation, recommendations
from commands.report.stats import DigestStats, module_tally
from commands.report.trends import Trend, module_trends, movers, others

QUICKVIEW = 8
THEME_ITEMS = 3  # PRs listed under a theme (two when the theme has a one-sentence summary)
RISK_PRS = 5  # PRs linked from one risk line
RISK_NAMED = 3  # breaking changes named with their evidence in the risk section
TOP_MODULES = 3  # modules named in "mostly in …"
TABLE_ROWS = 5  # modules in the trends table
GIST_CHARS = 160
QUOTE_CHARS = 70  # a description quoted as the evidence of a breaking change in the risk section
COMPARE_ROWS: tuple[str, ...] = ("merged", "core-path", "missing-tests", "breaking")
SUMMARY_FLAGS: tuple[FlagKind, ...] = ("core-path", "missing-tests", "breaking")
Hint = Callable[..., str]  # (command, *words) -> the command as the reader types it


def _tags(s: ListedPR, stats: DigestStats, lang: str) -> str:
    tags = ([t(lang, "tag.key")] if s.pr.number in stats.key else []) + [
        flag_label(lang, k) for k in s.cls.flag_kinds if k in SUMMARY_FLAGS
    ]
    if not tags:
        return ""
    return f"（{'、'.join(tags)}）" if lang == "zh" else f" [{' · '.join(tags)}]"


def _entry(s: ListedPR, stats: DigestStats, lang: str) -> Bullet:
    """A theme line: clean title, its first measured effect, tags — and the PR link."""
    text = clean_title(s.pr.title, s.pr.repo)
    if s.cls.highlights:
        text += t(lang, "punct.dash") + effect_text(s.cls.highlights[0], lang)
    return Bullet(text=text + _tags(s, stats, lang), prs=[pr_ref(s)])


# -- executive summary --------------------------------------------------------------------------


def _averages(stats: DigestStats) -> dict[str, float | None]:
    return {k: stats.previous_avg(k) for k in ("merged", *FLAG_KINDS)}


def _summary(stats: DigestStats, label: LabelFn, lang: str) -> Paragraph:
    """The summary line(s): counts against the average, key PRs, the risk counts, a warning."""
    c = stats.counts
    gap = "" if lang == "zh" else " "  # Chinese sentences are not separated by spaces
    unit_word = unit(stats, lang)
    avg = stats.previous_avg("merged")
    text = t(lang, "digest.summary_merged", merged=count(c["merged"], lang), unit=unit_word)
    if avg is not None:
        text += t(
            lang,
            "digest.summary_vs",
            change=change_words(c["merged"], avg, lang),
            average=average_phrase(stats, lang),
            avg=avg_text(avg),
            unit=unit_word,
        )
    text += tn(lang, "digest.summary_key", c["key"])
    if stats.merged_overall is not None:
        text += gap + t(
            lang,
            "digest.summary_filter",
            what=_filter_text(stats, label, lang),
            overall=stats.merged_overall,
            unit=unit_word,
        )
    risks = t(
        lang,
        "digest.summary_risks",
        core=tn(lang, "digest.sum_core", c["core-path"]),
        tests=tn(lang, "digest.sum_tests", c["missing-tests"]),
        breaking=tn(lang, "digest.sum_breaking", c["breaking"]),
    )
    text += gap + risks[:1].upper() + risks[1:]  # "No PR changes core paths, …" starts a sentence
    above = []
    for kind in SUMMARY_FLAGS:
        kind_avg = stats.previous_avg(kind)
        if kind_avg is not None and c[kind] > max(1.2 * kind_avg, kind_avg + 2):
            what = flag_label(lang, kind)
            average = average_phrase(stats, lang)
            above.append(
                t(
                    lang,
                    "digest.warning_item",
                    what=what,
                    now=c[kind],
                    avg=avg_text(kind_avg),
                    average=average,
                )
            )
    if above:  # in the same paragraph: it warns about the counts just stated
        items = ("；" if lang == "zh" else "; ").join(above)
        text += gap + t(lang, "digest.warning_high", average=average_phrase(stats, lang), items=items)
    return Paragraph(text=text)


def _comparison(stats: DigestStats, lang: str) -> list[Block]:
    """The summary's counts beside the periods before: a table (the trends section opens with
    it); nothing when there is nothing to compare with (the lead says why)."""
    c = stats.counts
    unit_word = unit(stats, lang)
    blocks: list[Block] = []
    if stats.compared:
        blocks.append(Heading(text=compare_heading(stats, lang), level=3))
        columns = [t(lang, "digest.col_count"), t(lang, "digest.col_now", unit=unit_word)]
        columns += [w.period.start.strftime("%m-%d") for w in stats.previous]
        averaged = len(stats.previous) > 1  # one earlier period is its own average
        if averaged:
            columns.append(t(lang, "digest.col_avg"))
        rows = []
        for k in COMPARE_ROWS:
            row = [_count_label(k, lang), str(c[k])] + [str(pc[k]) for pc in stats.previous_counts]
            rows.append([*row, avg_text(stats.previous_avg(k))] if averaged else row)
        blocks.append(Table(columns=columns, rows=rows))
    return blocks


def _filter_text(stats: DigestStats, label: LabelFn, lang: str) -> str:
    """Which PRs a filtered digest counts, as ``TagFilter`` keeps them: those touching the modules
    (any of them, all of them, or none but them) or carrying one of the flags — "touching ROCm /
    AMD or with a core-path change flag", not "touching ROCm / AMD, core-path change"."""
    flt = stats.filter
    parts = []
    if stats.modules_filter:
        names = [label(m) for m in stats.modules_filter]
        glue = "word.or" if flt.match == "any" else "word.and"
        parts.append(t(lang, f"digest.filter_{flt.match}", modules=_listed(names, glue, lang)))
    if flt.flags:
        flags = _listed([flag_label(lang, k) for k in flt.flags], "word.or", lang)
        parts.append(t(lang, "digest.filter_flags", flags=flags))
    return t(lang, "word.or").join(parts)


def _listed(items: list[str], glue: str, lang: str) -> str:
    """ "a, b or c" / "a、b 或 c": a list ending with the word ``glue`` names."""
    if len(items) == 1:
        return items[0]
    return t(lang, glue).join([("、" if lang == "zh" else ", ").join(items[:-1]), items[-1]])


def _count_label(kind: str, lang: str) -> str:
    if kind in FLAG_KINDS:
        return flag_label(lang, kind)
    return t(lang, f"count.{kind}")


# -- themes --------------------------------------------------------------------------------------


def _theme_summary(th: Theme, lang: str) -> str | None:
    """The theme's one computed sentence in ``lang`` (``commands.report.storyline_text.describe``)."""
    summary = th.summary.get(lang) or th.summary.get("en")
    return summary if summary and summary.strip() else None


def _themes(
    stats: DigestStats, themes: list[Theme], label: LabelFn, lang: str, layout: DigestLayout
) -> list[Block]:
    """Each storyline: its name, its computed sentence, then its leading PRs (where those lines
    are, and the heading, go into ``layout``: a model may word them instead)."""
    blocks: list[Block] = []
    module_counts = stats.module_counts()
    unit_word = unit(stats, lang)
    for i, th in enumerate(themes, 1):
        n = len(th.prs)
        name = th.label(lang)
        total = module_counts.get(th.module, n) if th.module else n
        inside = _inside(th)
        if th.kind == "burst":
            head = t(lang, "digest.theme_burst", topic=name, prs=count(n, lang), unit=unit_word)
        elif inside < n:  # PRs of other modules joined the story: the heading says how many
            outside = tn(lang, "digest.theme_outside", n - inside)
            key = "digest.theme_module_part_more" if inside < total else "digest.theme_module_all_more"
            head = t(lang, key, module=name, count=count(n, lang), n=inside, total=total, outside=outside)
        elif total > n:
            head = t(lang, "digest.theme_module_part", module=name, count=count(n, lang), total=total)
        else:
            head = t(lang, "digest.theme_module", module=name, prs=count(n, lang))
        blocks.append(Heading(text=f"{i}. {head}", level=3))
        summary = _theme_summary(th, lang)
        items = [_entry(s, stats, lang) for s in th.prs[: THEME_ITEMS - (1 if summary else 0)]]
        start = len(blocks)
        if summary:
            blocks.append(Paragraph(text=summary))
        blocks.append(BulletList(items=items))
        layout.themes.append((start, len(blocks), head))
    if not themes:
        blocks.append(Paragraph(text=t(lang, "digest.no_themes")))
    return blocks


def _inside(th: Theme) -> int:
    """How many of a theme's PRs touch the module it is named after (all of them for a theme that
    is no module's): the heading counts those against the module table's count, and the others —
    joined by the story's words or files — apart ("55 of the 62 PRs that touch it and 13 related
    PRs outside it"), never "68 PRs" beside a table saying 62."""
    if th.module is None:
        return len(th.prs)
    return sum(1 for s in th.prs if th.module in s.cls.modules)


def _details(stats: DigestStats, themes: list[Theme], hint: Hint, lang: str) -> Paragraph:
    """One line naming the commands that show what the digest only summarises, as the reader types
    them (``hint``)."""
    period = _period_word(stats)
    module = next((th.module for th in themes if th.module), None) or "MODULE"
    key = [s for s in stats.ranked() if s.pr.number in stats.key]
    number = key[0].pr.number if key else "N"
    return Paragraph(
        text=t(
            lang,
            "digest.details",
            risks=hint("risks", "all", period),
            module=hint("digest", period, module),
            pr=hint("pr", str(number)),
        )
    )


def _more(stats: DigestStats, kind: str, n: int, hint: Hint, lang: str) -> str:
    """A shortened list names the command that shows it all: "; 4 more (`risks breaking 2026-W19`)"."""
    return t(lang, "digest.risk_more", n=n, command=hint("risks", kind, _period_word(stats)))


def _period_word(stats: DigestStats) -> str:
    label = stats.period.label
    return label if stats.period.kind in ("iso-week", "range") else "week"


# -- trends --------------------------------------------------------------------------------------


def _trend_item(tr: Trend, label: LabelFn, lang: str) -> str:
    avg = avg_text(tr.avg)
    return t(lang, "digest.trend_item", module=label(tr.module), now=tr.now, avg=avg, change=tr.change(lang))


def _trends(stats: DigestStats, trends: list[Trend], label: LabelFn, lang: str) -> list[Block]:
    blocks: list[Block] = []
    unit_word = unit(stats, lang)
    if stats.compared:
        rising, falling = movers(trends)
        lines = []
        if rising:
            lines.append(
                t(
                    lang,
                    "digest.rising",
                    items=join_list([_trend_item(tr, label, lang) for tr in rising], lang, 5),
                )
            )
        if falling:
            lines.append(
                t(
                    lang,
                    "digest.falling",
                    items=join_list([_trend_item(tr, label, lang) for tr in falling], lang, 5),
                )
            )
        if lines:
            blocks.append(BulletList(items=[Bullet(text=line) for line in lines]))
        else:
            blocks.append(Paragraph(text=t(lang, "digest.steady", average=average_phrase(stats, lang))))
        columns = [
            t(lang, "digest.col_module"),
            t(lang, "digest.col_now", unit=unit_word),
            t(lang, "digest.col_avg"),
            t(lang, "digest.col_change"),
        ]
        rows = [
            [label(tr.module), str(tr.now), avg_text(tr.avg), tr.change(lang)]
            for tr in trends[:TABLE_ROWS]
            if tr.now
        ]
    else:
        columns = [t(lang, "digest.col_module"), t(lang, "digest.col_now", unit=unit_word)]
        rows = [[label(tr.module), str(tr.now)] for tr in trends[:TABLE_ROWS] if tr.now]
    if rows:
        blocks.append(Table(columns=columns, rows=rows))
    return blocks


# -- risks ---------------------------------------------------------------------------------------


def _mostly(prs: Sequence[ListedPR], label: LabelFn, lang: str) -> tuple[str, list[tuple[str, int]]]:
    """ "Attention (15), MoE (12), …": the modules most of ``prs`` touch, counted as the module table counts."""
    top = module_tally(prs).most_common(TOP_MODULES)
    items = [t(lang, "digest.module_count", module=label(m), n=n) for m, n in top]
    return join_list(items, lang, TOP_MODULES), top


def _risk_summary(stats: DigestStats, kind: FlagKind) -> dict[str, Any]:
    """A flag kind as the risk section reports it: count, average, top modules, PRs (most
    important first) and the stored evidence of those the section names."""
    flagged = stats.flagged(kind)
    top = module_tally(flagged).most_common(TOP_MODULES)
    evidence = {}
    for s in flagged[:RISK_PRS]:
        flag = s.cls.flag(kind)
        evidence[str(s.pr.number)] = list(flag.evidence) if flag else []
    return {
        "count": len(flagged),
        "avg": stats.previous_avg(kind),
        "modules": [{"module": m, "count": n} for m, n in top],
        "prs": [s.pr.number for s in flagged],
        "evidence": evidence,
    }


def _in_sentence(title: str, repo: str) -> str:
    """A PR title inside a risk line, which ends with our own code span (``risks breaking W``):
    a lone backtick in the title would pair with it, so every backtick gets its pair."""
    return paired_code_spans(clean_title(title, repo))


def _breaking_item(s: ListedPR, lang: str) -> str:
    flag = s.cls.flag("breaking")
    shown = (
        evidence_items("breaking", flag.evidence, lang, s.pr.title, quote_limit=QUOTE_CHARS) if flag else []
    )
    title = _in_sentence(s.pr.title, s.pr.repo)
    if not shown:
        return title
    return f"{title}（{shown[0]}）" if lang == "zh" else f"{title} ({shown[0]})"


def _dependency_item(s: ListedPR, lang: str) -> str:
    flag = s.cls.flag("dependency")
    shown = evidence_items("dependency", flag.evidence, lang, s.pr.title) if flag else []
    if not shown:
        return _in_sentence(s.pr.title, s.pr.repo)
    if flag is not None and any(" " in e for e in flag.evidence):  # versions, added, removed, refreshed
        return join_list(shown, lang, conjunction=False)  # one item of the upgrades' list
    # files alone: a cache classified before a dependency flag had to name what changed
    return t(lang, "digest.dependency_files", files=join_list(shown, lang, 2))


def _tallied(items: list[str], lang: str) -> list[str]:
    """Items in order, each once, with how many PRs share it: "torch → 2.7.0 (3 PRs)"."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return [
        item if n == 1 else t(lang, "digest.tally", item=item, prs=count(n, lang))
        for item, n in counts.items()
    ]


def _revert_item(s: ListedPR, stats: DigestStats, lang: str) -> str:
    flag = s.cls.flag("revert")
    shown = evidence_items("revert", flag.evidence, lang, s.pr.title) if flag else []
    reverted = stats.reverted.get(s.pr.number)
    if reverted is not None:
        return t(
            lang,
            "digest.revert_of",
            number=reverted.pr.number,
            merged=reverted.pr.merged_at.strftime("%Y-%m-%d"),
        )
    return shown[0] if shown else _in_sentence(s.pr.title, s.pr.repo)


def _vs(stats: DigestStats, kind: str, lang: str) -> str:
    avg = stats.previous_avg(kind)
    if avg is None:
        return ""
    return t(lang, "digest.vs_avg", average=average_phrase(stats, lang), avg=avg_text(avg))


def _risks(
    stats: DigestStats, profile: Profile, label: LabelFn, hint: Hint, lang: str, layout: DigestLayout
) -> list[Block]:
    items: list[Bullet] = []
    kinds = layout.risk_kinds  # the flag kind of each line, in order
    core = stats.flagged("core-path")
    if core:
        mostly, _ = _mostly(core, label, lang)
        text = tn(lang, "digest.risk_core", len(core), vs=_vs(stats, "core-path", lang), modules=mostly)
        items.append(Bullet(text=text, prs=[pr_ref(s) for s in core[:RISK_PRS]]))
        kinds.append("core-path")
    tests = stats.flagged("missing-tests")
    if tests:
        mostly, _ = _mostly(tests, label, lang)
        text = tn(
            lang,
            "digest.risk_tests",
            len(tests),
            lines=profile.flags.missing_tests.min_source_lines,
            vs=_vs(stats, "missing-tests", lang),
            modules=mostly,
        )
        items.append(Bullet(text=text, prs=[pr_ref(s) for s in tests[:RISK_PRS]]))
        kinds.append("missing-tests")
    breaking = stats.flagged("breaking")
    if breaking:
        named = join_list([_breaking_item(s, lang) for s in breaking[:RISK_NAMED]], lang, RISK_NAMED)
        more = (
            _more(stats, "breaking", len(breaking) - RISK_NAMED, hint, lang)
            if len(breaking) > RISK_NAMED
            else ""
        )
        text = t(lang, "digest.risk_breaking", n=len(breaking), items=named, more=more)
        items.append(Bullet(text=text, prs=[pr_ref(s) for s in breaking[:RISK_NAMED]]))
        kinds.append("breaking")
    deps = stats.flagged("dependency")
    if deps:
        named = join_list(_tallied([_dependency_item(s, lang) for s in deps], lang), lang, RISK_PRS)
        more = _more(stats, "dependency", len(deps) - RISK_PRS, hint, lang) if len(deps) > RISK_PRS else ""
        text = t(lang, "digest.risk_dependency", n=len(deps), items=named + more)
        items.append(Bullet(text=text, prs=[pr_ref(s) for s in deps[:RISK_PRS]]))
        kinds.append("dependency")
    reverts = stats.flagged("revert")
    if reverts:
        named = join_list([_revert_item(s, stats, lang) for s in reverts[:RISK_PRS]], lang, RISK_PRS)
        more = _more(stats, "revert", len(reverts) - RISK_PRS, hint, lang) if len(reverts) > RISK_PRS else ""
        text = t(lang, "digest.risk_revert", n=len(reverts), items=named + more)
        items.append(Bullet(text=text, prs=[pr_ref(s) for s in reverts[:RISK_PRS]]))
        kinds.append("revert")
    large = sorted(stats.flagged("large"), key=lambda s: (-(s.pr.additions + s.pr.deletions), -s.pr.number))
    if large:
        biggest = large[0].pr.additions + large[0].pr.deletions
        text = tn(
            lang,
            "digest.risk_large",
            len(large),
            lines=f"{profile.flags.large.lines:,}",
            files=profile.flags.large.files,
            biggest=f"{biggest:,}",
        )
        items.append(Bullet(text=text, prs=[pr_ref(s) for s in large[:RISK_PRS]]))
        kinds.append("large")
    if not items:
        return [Paragraph(text=t(lang, "digest.risk_none"))]
    return [BulletList(items=items)]


# -- key-PR quick view ----------------------------------------------------------------------------


def _first_sentences(text: str, limit: int = GIST_CHARS) -> str:
    """The gist cut after the last sentence that fits in ``limit`` characters."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    if end > limit // 3:
        return cut[: end + 1]
    space = cut.rfind(" ")
    return cut[: space if space > 0 else limit].rstrip(" ,;:") + "…"


def _quick_en(s: ListedPR) -> str:
    return _with_effect(_first_sentences(s.cls.gist) if s.cls.gist else "", s)


def _with_effect(gist: str, s: ListedPR) -> str:
    """The gist and the PR's first measured effect, unless the gist says it already (in any case:
    a list item in the gist may start lower-case: "…; up to 42% speedup")."""
    effect = s.cls.highlights[0] if s.cls.highlights else ""
    if not effect or effect.rstrip(".").lower() in gist.lower():
        return gist
    return f"{gist} {effect if effect.endswith(('.', '!', '?')) else effect + '.'}".strip()


def _quick_zh(s: ListedPR, profile: Profile, label: LabelFn) -> str:
    """A computed Chinese sentence: what kind of change, where, its measured effect and risk."""
    modules = [label(m) for m in s.cls.modules[:2] if m != profile.catch_all_module]
    what = profile.kind_label(s.cls.kind, "zh") if s.cls.kind != profile.default_kind else ""
    where = f"涉及{'、'.join(modules)}" if modules else ""
    parts = ["，".join(p for p in (what, where) if p)] if (what or where) else []
    if s.cls.highlights:
        parts.append(effect_text(s.cls.highlights[0], "zh"))
    risky = [flag_label("zh", k) for k in s.cls.flag_kinds if k in ("breaking", "core-path")]
    if risky:
        parts.append("、".join(risky))
    return zh_spacing("；".join(parts) + "。")


def _key_prs(stats: DigestStats) -> list[ListedPR]:
    """The period's key PRs told by the digest, most important first."""
    return [s for s in stats.ranked() if s.pr.number in stats.key][:QUICKVIEW]


def _quick_prs(stats: DigestStats) -> list[ListedPR]:
    """The key PRs of the quick view: those after the lead's."""
    return _key_prs(stats)[LEAD_KEY_PRS:]


def _one_line(s: ListedPR, profile: Profile, label: LabelFn, lang: str) -> str:
    """A key PR in one line for the lead: its gist's first sentence and its measured effect, or
    (without either) its kind and modules; in Chinese the computed sentence."""
    if lang == "zh":
        return _quick_zh(s, profile, label)
    gist = _first_sentences(s.cls.gist.split(". ")[0].rstrip(".") + ".") if s.cls.gist else ""
    gist = _with_effect(gist, s)
    if gist:
        return gist
    modules = [label(m) for m in s.cls.modules[:2] if m != profile.catch_all_module]
    kind = profile.kind_label(s.cls.kind, lang)
    return t(lang, "digest.lead_kind", kind=kind, modules=join_list(modules, lang)) if modules else kind


def _quickview(stats: DigestStats, profile: Profile, label: LabelFn, lang: str) -> list[Block]:
    """The key PRs after the lead's, numbered on from them, with their fuller sentences."""
    key_prs = _quick_prs(stats)
    items = []
    for s in key_prs:
        sentence = _quick_zh(s, profile, label) if lang == "zh" else _quick_en(s)
        title = clean_title(s.pr.title, s.pr.repo)
        items.append(
            Bullet(text=title + (t(lang, "punct.dash") + sentence if sentence else ""), prs=[pr_ref(s)])
        )
    return [BulletList(items=items, ordered=True, start=LEAD_KEY_PRS + 1)] if items else []


# -- assembly ------------------------------------------------------------------------------------


def _bare(command: str, *words: str) -> str:
    return " ".join((command, *words))


def compose(stats: DigestStats, profile: Profile, lang: str, hint: Hint = _bare) -> Reply:
    """The digest of ``stats``; ``hint`` writes a command as the reader types it where they asked
    (``commands.spec.typed``: ``/digest period:2026-W19`` in Discord)."""

    def label(module: str) -> str:
        return profile.module_label(module, lang)

    kind = "week" if stats.comparison.weekly else "period"
    title = t(lang, f"digest.title_{kind}", repo=stats.repo, period=period_text(stats.period, lang))
    if stats.modules_filter:
        title += " · " + ", ".join(label(m) for m in stats.modules_filter)
        if stats.filter.match != "any":
            title += f" ({stats.filter.match})"
    if stats.filter.flags:
        title += " · " + " + ".join(flag_label(lang, k) for k in stats.filter.flags)
    themes = products_first(stats.themes)
    recs = recommendations(stats, themes, label, lang)
    trends = module_trends(stats)
    key_prs = _key_prs(stats)
    summary = [_summary(stats, label, lang)]
    if not stats.compared:
        summary.append(Paragraph(text=not_compared(stats, lang)))
    one_line = partial(_one_line, profile=profile, label=label, lang=lang)
    blocks = lead_blocks(stats, themes, key_prs, summary, one_line, lang)
    if not key_prs:
        blocks.append(Paragraph(text=t(lang, "digest.no_key")))
    layout = DigestLayout()
    sections: list[tuple[str, list[Block]]] = [
        (f"digest.themes_{kind}", _themes(stats, themes, label, lang, layout)),
        ("digest.trends", [*_comparison(stats, lang), *_trends(stats, trends, label, lang)]),
        ("digest.risks", _risks(stats, profile, label, hint, lang, layout)),
        ("digest.quickview", _quickview(stats, profile, label, lang)),
        (
            "digest.recommendations",
            [
                BulletList(items=[Bullet(text=r.text, prs=[pr_ref(s) for s in r.prs]) for r in recs]),
                _details(stats, themes, hint, lang),
            ],
        ),
    ]
    # an empty part (the quick view when the lead shows every key PR) is left out; the parts a
    # model may word (themes, risks, the quick view's key PRs) keep their places before it
    parts = [
        Section(title=t(lang, heading), blocks=body, key=heading.removeprefix("digest."))
        for heading, body in sections
        if body
    ]
    # the JSON form lists every PR: built only when read (the JSON renderer, the chart)
    # read now, not when the JSON form is built: that may happen on another thread than the cache's
    rest = others(stats, trends)
    build = partial(_data, stats, themes, trends, recs, rest, profile, lang)
    # what a language model may word instead (only an edge with a model configured asks)
    prose = partial(digest_parts, stats, profile, lang, layout, parts, partial(_quick_prs, stats), pr_ref)
    return Reply(
        command="digest", title=title, blocks=blocks, sections=parts, data_factory=build, prose=prose
    )


WRITING_KINDS = frozenset({"docs", "translation"})
"""kinds of PRs that change only what is written about the product"""


def products_first(themes: Sequence[Theme]) -> list[Theme]:
    """The storylines in their order, those made only of documentation and translation updates
    after the rest: a month whose first storyline is "update-all — 10 translation updates" above
    the JSON streaming work opens with the wrong news."""
    return sorted(themes, key=lambda th: bool(th.prs) and all(s.cls.kind in WRITING_KINDS for s in th.prs))


def _module_rows(trends: list[Trend], profile: Profile, lang: str) -> list[dict[str, Any]]:
    """Each module's count and average, in the digest's order (the chart's bars)."""
    return [
        {
            "module": tr.module,
            "label": profile.module_label(tr.module, lang),
            "count": tr.now,
            "avg_4w": tr.avg,
        }
        for tr in trends
    ]


def _data(
    stats: DigestStats,
    themes: list[Theme],
    trends: list[Trend],
    recs: list[Recommendation],
    rest: dict[str, object] | None,
    profile: Profile,
    lang: str,
) -> dict[str, Any]:
    """The digest's stable JSON form: the numbers, themes, risks and every PR of the period."""
    module_counts = stats.module_counts()
    ranked = stats.ranked()
    return {
        "repo": stats.repo,
        "period": stats.period.as_dict(),
        "modules_filter": list(stats.modules_filter),
        "match": stats.filter.match,
        "flags_filter": list(stats.filter.flags),
        "merged_overall": stats.merged_overall,
        "counts": stats.counts,
        "comparison": stats.comparison.as_dict(),
        "averages": _averages(stats),
        "large_biggest": max((s.pr.additions + s.pr.deletions for s in stats.flagged("large")), default=None),
        "thresholds": {
            "missing_tests_lines": profile.flags.missing_tests.min_source_lines,
            "large_lines": profile.flags.large.lines,
            "large_files": profile.flags.large.files,
        },
        "previous": [{"period": w.period.as_dict(), "counts": w.counts} for w in stats.previous],
        "themes": [
            {
                "title": th.label(lang),
                "name": dict(th.name),
                "kind": th.kind,
                "key": th.key,
                "module": th.module,
                "module_total": module_counts.get(th.module, 0) if th.module else None,
                # the heading's counts: the theme's PRs touching its module, and those joined from others
                "in_module": _inside(th) if th.module else None,
                "outside_module": len(th.prs) - _inside(th) if th.module else None,
                "count": len(th.prs),
                "prs": th.numbers,
                "lead": list(th.lead),
                "summary": dict(th.summary),
                "kinds": dict(kind_counts(th.prs)),
                "key_count": sum(1 for n in th.numbers if n in stats.key),
                "named": th.named,
                "before": th.before,
                "compared": th.compared,
                "evidence": list(th.evidence),
            }
            for th in themes
        ],
        "modules": _module_rows(trends, profile, lang),
        "other_modules": rest,
        "risks": {kind: _risk_summary(stats, kind) for kind in FLAG_KINDS},
        "key_prs": [s.pr.number for s in ranked if s.pr.number in stats.key],
        "highlights": [{"number": s.pr.number, "text": h} for s in ranked for h in s.cls.highlights],
        "recommendations": [{"text": r.text, "prs": [s.pr.number for s in r.prs]} for r in recs],
        "prs": [
            {
                "number": s.pr.number,
                "title": s.pr.title,
                "url": s.pr.url,
                "author": s.pr.author,
                "merged_at": s.pr.merged_at.isoformat(timespec="seconds")[:19] + "Z",  # as stored
                "modules": s.cls.modules,
                "flags": s.cls.flag_kinds,
                "key": s.pr.number in stats.key,
                "score": s.cls.score,
            }
            for s in stats.prs
        ],
    }
