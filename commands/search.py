"""``search WORDS [PERIOD]``: full-text search over titles and descriptions (SQLite FTS5)."""

from __future__ import annotations

import re
from typing import Any

from classify.periods import Period
from commands import params as P
from commands.common import pr_ref, pr_tags
from commands.context import Context
from commands.locale import t
from commands.locale.words import period_text
from commands.model import Block, Invocation, Paragraph, PRItem, Reply, UsageError
from commands.spec import command, typed
from storage.prs import PRStore

_TOKEN = re.compile(r"[\w]+", re.UNICODE)
MAX_RESULTS = 20
MAX_WORDS = 12
SHOWN_QUERY = 80  # characters of the query a title or message repeats (JSON keeps it whole)


def fts_query(words: list[str], *, prefix: bool = True) -> str:
    """Turn user words into a safe FTS5 expression: every word must match.

    User text never reaches FTS5 syntax directly, so quotes, ``NEAR``, ``*`` or ``:`` in a
    query cannot cause a syntax error or change the meaning. Whole words already match their
    English forms (the index stems: fix, fixes, fixed); ``prefix`` also matches longer words
    (quant → quantization), except for one- and two-letter words, whose prefixes would match
    most of the vocabulary.
    """
    tokens = [tok for w in words for tok in _TOKEN.findall(w)]
    if not tokens:
        raise UsageError("error.no_letters")
    return " ".join(f'"{tok}"*' if prefix and len(tok) >= 3 else f'"{tok}"' for tok in tokens[:MAX_WORDS])


@command(
    "search",
    params=(P.words(), P.period(trailing=True, default=None), P.page(), P.repo()),
    summary="cmd.search",
    examples=(
        "search AutoWeightsLoader",
        "search tree attention 2026-W19",
        "search nixl last-week",
        "search fix page=2",
    ),
)
def run(inv: Invocation, ctx: Context, *, words: list[str], period: Period | None, page: int | None) -> Reply:
    exact, wide = fts_query(words, prefix=False), fts_query(words)
    repo = ctx.resolve_repo(inv)
    lang = inv.lang
    query = " ".join(words)
    shown = P.shortened(query, SHOWN_QUERY)

    def label(module: str) -> str:  # tags name modules as every other command does
        return ctx.profile.module_label(module, lang)

    start, end = (period.start, period.end) if period else (None, None)
    # Whole words first: ranking a prefix's many spellings costs several times more (~15 ms for
    # "fix" in a 200,000-PR cache against ~5 ms) and adds little once a page is full. Only
    # when whole words find less than a page do prefixes widen the search.
    number = page or 1
    offset = (number - 1) * MAX_RESULTS
    results, total = ctx.store.search(repo, exact, start, end, limit=MAX_RESULTS, offset=offset)
    if total < MAX_RESULTS and wide != exact:
        wider, wider_total = ctx.store.search(repo, wide, start, end, limit=MAX_RESULTS, offset=offset)
        if wider_total > total:
            results, total = wider, wider_total
    again = [*words, *([period.label] if period and period.kind in ("iso-week", "range") else [])]
    blocks: list[Block] = []
    if not total:
        blocks.append(Paragraph(text=t(lang, "search.none", query=shown)))
    elif not results:  # a page past the last
        pages = -(-total // MAX_RESULTS)
        first = typed(inv, "search", *again)
        blocks.append(Paragraph(text=t(lang, "search.past_end", page=number, pages=pages, command=first)))
    else:
        blocks.append(Paragraph(text=_count_line(total, offset, len(results), lang)))
        for s in results:
            merged = s.pr.merged_at.date().isoformat()
            lines = [merged + (f" · {s.cls.gist}" if s.cls.gist else "")]
            blocks.append(PRItem(pr=pr_ref(s), tags=pr_tags(s, lang, key=False, label=label), lines=lines))
    if results and offset + len(results) < min(total, PRStore.COUNT_CAP):
        following = typed(inv, "search", *again, f"page={number + 1}")
        blocks.append(Paragraph(text=t(lang, "search.next", command=following)))
    title = t(lang, "search.title", query=shown, repo=repo)
    if period:
        title += f" · {period_text(period, lang)}"

    def data() -> dict[str, Any]:
        """The JSON form, built when first read (the text and chat renderers never read it)."""
        return {
            "repo": repo,
            "query": query,
            "period": period.as_dict() if period else None,
            "total": total,
            "total_capped": total >= PRStore.COUNT_CAP,
            "page": number,
            "per_page": MAX_RESULTS,
            "prs": [
                {
                    "number": s.pr.number,
                    "title": s.pr.title,
                    "url": s.pr.url,
                    "merged_at": s.pr.merged_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "modules": s.cls.modules,
                    "flags": s.cls.flag_kinds,
                }
                for s in results
            ],
        }

    return Reply(command="search", title=title, blocks=blocks, data_factory=data)


def _count_line(total: int, offset: int, shown: int, lang: str) -> str:
    """ "20 of 23 matches, best first" on the first page, "21–23 of 23 matches" on the next."""
    total_text = f"{total}+" if total >= PRStore.COUNT_CAP else str(total)
    if offset == 0:
        return t(lang, "search.count", shown=shown, total=total_text)
    return t(lang, "search.page", first=offset + 1, last=offset + shown, total=total_text)
