"""Storylines in words: the sentence each storyline of a period gets once its key PRs are known.

Finding and naming the storylines is the domain's (``classify.storylines``); saying what they hold
— how many PRs of which kinds, how many key, which lead, how often titles named the topic before —
is said here, in every language the locale has.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from classify.models import ListedPR
from classify.rules import Profile
from classify.storylines import LEAD_PRS, Theme, kind_counts, zh_glue
from commands.locale import t
from commands.locale.words import avg_text

# -- the sentence ------------------------------------------------------------------------------------------


def _count(lang: str, key: str, n: int, **values: object) -> str:
    """A counted phrase: English has a ``.one`` form for one; Chinese counts with measure words."""
    if n == 1 and lang == "en":
        one = t(lang, f"{key}.one", n=n, **values)
        if one != f"{key}.one":
            return one
    return t(lang, key, n=n, **values)


def join(lang: str, items: Sequence[str]) -> str:
    """``a, b and c`` / ``a、b 和 c``."""
    if len(items) <= 1:
        return "".join(items)
    if lang == "zh":
        return zh_glue(["、".join(items[:-1]), "和", items[-1]])
    return ", ".join(items[:-1]) + " and " + items[-1]


def _kinds(prs: Sequence[ListedPR], profile: Profile, lang: str) -> str:
    parts = []
    for kind, n in kind_counts(prs):
        key = f"theme.kind.{kind}"
        if t(lang, key, n=n) == key:
            parts.append(t(lang, "theme.kind.any", n=n, kind=profile.kind_label(kind, lang).lower()))
        else:
            parts.append(_count(lang, key, n))
    return join(lang, parts)


def describe(
    themes: Sequence[Theme],
    key: Iterable[int],
    profile: Profile,
    *,
    weekly: bool = True,
    module_before: Mapping[str, float] | None = None,
) -> list[Theme]:
    """Each theme with its computed sentence in every language, naming its lead PRs.

    "6 refactors and 1 fix; led by #43785, #43788 and #43753." — "14 fixes, 6 performance changes,
    5 new features and 15 other changes; 6 of them key, led by #43449, #43363 and #43271; the
    module averaged 36.5 PRs a week in the 4 weeks before." Every number is the theme's own: the
    kinds of its PRs, the key PRs among them, and how often the earlier windows had it — for a
    module theme the module's average of the trends table (``module_before``), for a tag or words
    the titles naming them. A theme's size and whether it is new are the heading's to say.
    """
    keys = set(key)
    per = "week" if weekly else "period"
    out = []
    for th in themes:
        ordered = sorted(th.prs, key=lambda s: (s.pr.number not in keys, -s.cls.score, -s.pr.number))
        lead = tuple(s.pr.number for s in ordered[:LEAD_PRS])
        n_key = sum(1 for s in th.prs if s.pr.number in keys)
        before = th.before
        if th.module is not None and module_before is not None and th.compared:
            before = module_before.get(th.module, 0.0)
        summary = {}
        for lang in ("en", "zh"):
            refs = join(lang, [f"#{n}" for n in lead])
            kinds = _kinds(th.prs, profile, lang)
            if n_key:
                text = t(lang, "theme.sentence_key", kinds=kinds, key=n_key, lead=refs)
            else:
                text = t(lang, "theme.sentence", kinds=kinds, lead=refs)
            if before:  # none before: the heading says the topic is new
                avg = avg_text(before)  # as the trends table shows the module's average
                what = "module" if th.module is not None else "titles"
                text += t(lang, f"theme.before_{what}.{per}", now=th.named, avg=avg, k=th.compared)
            summary[lang] = text + t(lang, "theme.end")
        out.append(replace(th, prs=ordered, summary=summary, lead=lead, before=before))
    return out
