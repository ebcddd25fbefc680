"""Assemble the digest Reply: one section per heading of the team's weekly report."""

from __future__ import annotations

from typing import Any

from classify.models import FLAG_KINDS
from classify.rules import Profile
from commands.common import pr_ref
from commands.locale import flag_label, t
from commands.model import Block, Bullet, BulletList, Facts, Heading, Paragraph, PRItem, Reply, Section, Table
from commands.report.recommend import LabelFn, recommendations, top_modules
from commands.report.stats import DigestStats, rank_key
from commands.report.themes import Theme, clean_title, find_themes
from commands.report.trends import MAX_ROWS, module_trends, movers
from storage.prs import StoredPR

QUICKVIEW = 8
SUMMARY_HIGHLIGHTS = 3
RISK_LIST = 6
SUMMARY_COUNTS = ("merged", "key", "core-path", "missing-tests", "breaking")


def _delta(now: int, avg: float) -> str:
    if avg == 0:
        return "n/a"
    return f"{round((now - avg) / avg * 100):+d}%"


def _entry(s: StoredPR, stats: DigestStats, lang: str) -> Bullet:
    """A theme line: clean title, first highlight, tags — and the PR link."""
    text = clean_title(s.pr.title)
    if s.cls.highlights:
        text += f" — {s.cls.highlights[0]}"
    tags = ([t(lang, "tag.key")] if s.pr.number in stats.key else []) + [
        flag_label(lang, k) for k in s.cls.flag_kinds if k in ("core-path", "missing-tests", "breaking")
    ]
    if tags:
        text += f" [{' · '.join(tags)}]"
    return Bullet(text=text, prs=[pr_ref(s)])


def _summary(stats: DigestStats, themes: list[Theme], label: LabelFn, lang: str) -> list[Block]:
    gap = "" if lang == "zh" else " "  # Chinese sentences are not separated by spaces
    c = stats.counts
    avg_merged = stats.previous_avg("merged")
    sep = "、" if lang == "zh" else ", "
    text = t(
        lang,
        "digest.summary_text",
        merged=c["merged"],
        delta=_delta(c["merged"], avg_merged),
        avg=f"{avg_merged:.0f}",
        key=c["key"],
    )
    if themes:
        text += gap + t(
            lang,
            "digest.summary_themes",
            themes=sep.join(th.title if th.kind == "burst" else label(th.key) for th in themes[:5]),
        )
    text += gap + t(
        lang, "digest.summary_risks", core=c["core-path"], tests=c["missing-tests"], breaking=c["breaking"]
    )
    warnings = []
    for kind in ("core-path", "missing-tests", "breaking"):
        avg = stats.previous_avg(kind)
        if c[kind] > max(1.2 * avg, avg + 2):
            warnings.append(
                t(lang, "digest.warning_high", what=flag_label(lang, kind), now=c[kind], avg=f"{avg:.0f}")
            )
    blocks: list[Block] = [Paragraph(text=text)]
    blocks.append(Paragraph(text=gap.join(warnings) if warnings else t(lang, "digest.warning_ok")))
    blocks.append(Facts(items=[(_count_label(k, lang), str(c[k])) for k in SUMMARY_COUNTS]))
    highlighted = [s for s in sorted(stats.prs, key=rank_key) if s.cls.highlights][:SUMMARY_HIGHLIGHTS]
    if highlighted:
        blocks.append(
            BulletList(
                items=[
                    Bullet(text=f"{clean_title(s.pr.title)} — {s.cls.highlights[0]}", prs=[pr_ref(s)])
                    for s in highlighted
                ]
            )
        )
    if stats.previous:
        columns = [t(lang, "digest.col_week"), t(lang, "digest.col_now")] + [
            w.period.start.strftime("%m-%d") for w in stats.previous
        ]
        rows = [
            [_count_label(k, lang), str(c[k])] + [str(pc[k]) for pc in stats.previous_counts]
            for k in ("merged", "core-path", "missing-tests", "breaking", "dependency")
        ]
        blocks.append(Heading(text=t(lang, "digest.compare"), level=3))
        blocks.append(Table(columns=columns, rows=rows))
    return blocks


def _count_label(kind: str, lang: str) -> str:
    if kind in FLAG_KINDS:
        return flag_label(lang, kind)
    return t(lang, f"count.{kind}")


def _themes(stats: DigestStats, themes: list[Theme], label: LabelFn, lang: str) -> list[Block]:
    blocks: list[Block] = []
    for i, th in enumerate(themes, 1):
        name = (
            t(lang, "digest.theme_burst", topic=th.title, n=len(th.prs))
            if th.kind == "burst"
            else t(lang, "digest.theme_module", module=label(th.key), n=len(th.prs))
        )
        blocks.append(Heading(text=f"{i}. {name}", level=3))
        items = [_entry(s, stats, lang) for s in th.prs[:5]]
        if len(th.prs) > 5:
            items.append(Bullet(text=t(lang, "digest.theme_more", n=len(th.prs) - 5)))
        blocks.append(BulletList(items=items))
    return blocks


def _trends(stats: DigestStats, themes: list[Theme], label: LabelFn, lang: str) -> list[Block]:
    trends = module_trends(stats)
    rising, falling = movers(trends)
    blocks: list[Block] = []
    lines = []
    if rising:
        lines.append(
            t(
                lang,
                "digest.rising",
                items=", ".join(f"{label(tr.module)} {tr.now} ({tr.change})" for tr in rising),
            )
        )
    if falling:
        lines.append(
            t(
                lang,
                "digest.falling",
                items=", ".join(f"{label(tr.module)} {tr.now} ({tr.change})" for tr in falling),
            )
        )
    for th in themes:
        if th.kind == "burst":
            lines.append(t(lang, "digest.theme_burst", topic=th.title, n=len(th.prs)))
    blocks.append(
        BulletList(items=[Bullet(text=line) for line in lines])
        if lines
        else Paragraph(text=t(lang, "digest.steady"))
    )
    blocks.append(
        Table(
            columns=[
                t(lang, "digest.col_module"),
                t(lang, "digest.col_now"),
                t(lang, "digest.col_avg"),
                t(lang, "digest.col_change"),
            ],
            rows=[[label(tr.module), str(tr.now), f"{tr.avg:g}", tr.change] for tr in trends[:MAX_ROWS]],
        )
    )
    return blocks


def _risks(stats: DigestStats, label: LabelFn, lang: str) -> list[Block]:
    blocks: list[Block] = []
    items: list[Bullet] = []
    core = stats.flagged("core-path")
    if core:
        items.append(
            Bullet(
                text=t(
                    lang,
                    "digest.risk_core",
                    n=len(core),
                    avg=f"{stats.previous_avg('core-path'):.0f}",
                    modules=top_modules(core, label, lang),
                ),
                prs=[pr_ref(s) for s in core[:RISK_LIST]],
            )
        )
    tests = stats.flagged("missing-tests")
    if tests:
        items.append(
            Bullet(
                text=t(lang, "digest.risk_tests", n=len(tests), modules=top_modules(tests, label, lang)),
                prs=[pr_ref(s) for s in tests[:RISK_LIST]],
            )
        )
    if items:
        blocks.append(BulletList(items=items))
    for kind, key in (
        ("breaking", "digest.risk_breaking"),
        ("dependency", "digest.risk_dependency"),
        ("revert", "digest.risk_revert"),
        ("large", "digest.risk_large"),
    ):
        flagged = stats.flagged(kind)
        if not flagged:
            continue
        blocks.append(Paragraph(text=t(lang, key, n=len(flagged))))
        lines = []
        for s in flagged[:RISK_LIST]:
            flag = s.cls.flag(kind)  # type: ignore[arg-type]
            evidence = "; ".join(flag.evidence[:2]) if flag else ""
            lines.append(Bullet(text=f"{clean_title(s.pr.title)} — {evidence}", prs=[pr_ref(s)]))
        if len(flagged) > RISK_LIST:
            lines.append(
                Bullet(text=f"… +{len(flagged) - RISK_LIST}", prs=[pr_ref(s) for s in flagged[RISK_LIST:]])
            )
        blocks.append(BulletList(items=lines))
    if not blocks:
        blocks.append(Paragraph(text=t(lang, "digest.risk_none")))
    return blocks


def _quickview(stats: DigestStats, lang: str, label: LabelFn) -> list[Block]:
    key_prs = sorted((s for s in stats.prs if s.pr.number in stats.key), key=rank_key)[:QUICKVIEW]
    blocks: list[Block] = []
    for s in key_prs:
        lines = [s.cls.gist] if s.cls.gist else []
        lines += [h for h in s.cls.highlights[:2] if h not in s.cls.gist]
        tags = [label(m) for m in s.cls.modules[:2]] + [flag_label(lang, k) for k in s.cls.flag_kinds]
        blocks.append(PRItem(pr=pr_ref(s), tags=tags, lines=lines))
    return blocks


def compose(stats: DigestStats, profile: Profile, lang: str) -> Reply:
    def label(module: str) -> str:
        return profile.module_label(module, lang)

    title = t(lang, "digest.title", repo=stats.repo, period=stats.period.label)
    if stats.modules_filter:
        title += " · " + ", ".join(label(m) for m in stats.modules_filter)
        if stats.filter.match != "any":
            title += f" ({stats.filter.match})"
    if stats.filter.flags:
        title += " · " + " + ".join(flag_label(lang, k) for k in stats.filter.flags)
    themes = find_themes(stats, catch_all=(profile.catch_all_module,))
    recs = recommendations(stats, themes, label, lang)
    sections: list[tuple[str, list[Block]]] = [
        ("digest.summary", _summary(stats, themes, label, lang)),
        ("digest.themes", _themes(stats, themes, label, lang)),
        ("digest.trends", _trends(stats, themes, label, lang)),
        ("digest.risks", _risks(stats, label, lang)),
        ("digest.quickview", _quickview(stats, lang, label)),
        (
            "digest.recommendations",
            [BulletList(items=[Bullet(text=r.text, prs=[pr_ref(s) for s in r.prs]) for r in recs])],
        ),
    ]
    (lead_heading, lead), *rest = sections
    blocks: list[Block] = [Heading(text=t(lang, lead_heading), level=2), *lead]
    data: dict[str, Any] = {
        "repo": stats.repo,
        "period": stats.period.as_dict(),
        "modules_filter": list(stats.modules_filter),
        "match": stats.filter.match,
        "flags_filter": list(stats.filter.flags),
        "counts": stats.counts,
        "previous": [{"period": w.period.as_dict(), "counts": w.counts} for w in stats.previous],
        "themes": [
            {
                "title": th.title,
                "kind": th.kind,
                "module": th.key if th.kind == "module" else None,
                "prs": [s.pr.number for s in th.prs],
            }
            for th in themes
        ],
        "modules": [{"module": tr.module, "count": tr.now, "avg_4w": tr.avg} for tr in module_trends(stats)],
        "key_prs": [s.pr.number for s in sorted(stats.prs, key=rank_key) if s.pr.number in stats.key],
        "highlights": [
            {"number": s.pr.number, "text": h}
            for s in sorted(stats.prs, key=rank_key)
            for h in s.cls.highlights
        ],
        "recommendations": [{"text": r.text, "prs": [s.pr.number for s in r.prs]} for r in recs],
        "prs": [
            {
                "number": s.pr.number,
                "title": s.pr.title,
                "url": s.pr.url,
                "author": s.pr.author,
                "merged_at": s.pr.merged_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "modules": s.cls.modules,
                "flags": s.cls.flag_kinds,
                "key": s.pr.number in stats.key,
                "score": s.cls.score,
            }
            for s in stats.prs
        ],
    }
    parts = [Section(title=t(lang, heading), blocks=body) for heading, body in rest]
    return Reply(command="digest", title=title, blocks=blocks, sections=parts, data=data)
