"""The digest's lead: what a reader sees without opening anything.

A chat digest is one message and a thread; most readers never open the thread. So the lead holds
the highlights, in the order the team's own report gives them: the summary line(s), the top
storylines by name with one line each, the top key PRs with their link and one-line gist — and
the chart, which delivery adds at its end. The thread (the Reply's sections) holds the rest:
every storyline with its PRs, the trends, the risks, the other key PRs, the recommendations.

No PR is named twice in the lead: a storyline's line names its best PR that is not already one
of the top key PRs below it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from classify.models import ListedPR
from classify.storylines import Theme, clean_title
from commands.common import pr_ref
from commands.locale import t
from commands.locale.effects import effect_text
from commands.locale.words import count
from commands.model import Block, Bullet, BulletList, Heading, Paragraph
from commands.report.phrases import unit
from commands.report.stats import DigestStats

LEAD_THEMES = 3
LEAD_KEY_PRS = 3


def lead_blocks(
    stats: DigestStats,
    themes: Sequence[Theme],
    key_prs: Sequence[ListedPR],
    summary: Sequence[Paragraph],
    one_line: Callable[[ListedPR], str],
    lang: str,
) -> list[Block]:
    """The lead under the summary's heading: the ``summary`` lines, up to three storylines, the top
    key PRs each with ``one_line`` (its gist, or its kind and module)."""
    top = list(key_prs[:LEAD_KEY_PRS])
    blocks: list[Block] = [Heading(text=t(lang, "digest.summary"), level=2), *summary]
    if themes:
        shown = {s.pr.number for s in top}
        lines = [storyline(th, stats, shown, lang) for th in themes[:LEAD_THEMES]]
        blocks += [Heading(text=t(lang, "digest.lead_themes"), level=3), BulletList(items=lines)]
    if top:
        items = [
            Bullet(
                text=clean_title(s.pr.title, s.pr.repo) + t(lang, "punct.dash") + one_line(s), prs=[pr_ref(s)]
            )
            for s in top
        ]
        blocks += [Heading(text=t(lang, "digest.lead_key"), level=3), BulletList(items=items, ordered=True)]
    return blocks


def storyline(th: Theme, stats: DigestStats, shown: set[int], lang: str) -> Bullet:
    """ "ROCm / AMD — 41 PRs, 3 key: Fuse the GDN Triton kernels … — Decode throughput improves
    by 5-8%" with the link of the PR it names: the story's best PR not among ``shown``."""
    n = len(th.prs)
    n_key = sum(1 for s in th.prs if s.pr.number in stats.key)
    word = unit(stats, lang)
    if th.kind == "burst":
        size = t(lang, "digest.lead_theme_new", prs=count(n, lang), unit=word)
    elif n_key:
        size = t(lang, "digest.lead_theme_key", prs=count(n, lang), key=n_key)
    else:
        size = count(n, lang)
    best = next((s for s in th.prs if s.pr.number not in shown), th.prs[0] if th.prs else None)
    if best is None:
        return Bullet(text=t(lang, "digest.lead_theme", name=th.label(lang), size=size, pr="").rstrip("：: "))
    pr = clean_title(best.pr.title, best.pr.repo)
    if best.cls.highlights:
        pr += t(lang, "digest.lead_effect", effect=effect_text(best.cls.highlights[0], lang))
    return Bullet(
        text=t(lang, "digest.lead_theme", name=th.label(lang), size=size, pr=pr), prs=[pr_ref(best)]
    )
