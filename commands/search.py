"""``search WORDS [PERIOD]``: full-text search over titles and descriptions (SQLite FTS5)."""

from __future__ import annotations

import re

from commands.common import pr_ref, pr_tags
from commands.locale import t
from commands.model import Block, Invocation, Paragraph, PRItem, Reply, UsageError
from commands.period import is_period, parse_period
from commands.registry import Context, command
from storage.prs import PRStore

_TOKEN = re.compile(r"[\w]+", re.UNICODE)
MAX_RESULTS = 20
MAX_WORDS = 12


def fts_query(words: list[str]) -> str:
    """Turn user words into a safe FTS5 expression: every word must match (as a prefix).

    User text never reaches FTS5 syntax directly, so quotes, ``NEAR``, ``*`` or ``:`` in a
    query cannot cause a syntax error or change the meaning.
    """
    tokens = [tok for w in words for tok in _TOKEN.findall(w)]
    if not tokens:
        raise UsageError("search needs at least one word (letters or digits)")
    # A prefix query on a one- or two-letter word expands to most of the vocabulary: match those exactly.
    return " ".join(f'"{tok}"*' if len(tok) >= 3 else f'"{tok}"' for tok in tokens[:MAX_WORDS])


@command(
    "search",
    usage="search WORDS… [PERIOD]",
    summary={"en": "cmd.search", "zh": "cmd.search"},
    examples=("search AutoWeightsLoader", "search tree attention 2026-W19", "search nixl last-week"),
)
def run(inv: Invocation, ctx: Context) -> Reply:
    words = list(inv.args)
    period = None
    if words and is_period(words[-1]) and len(words) > 1:
        period = parse_period(words.pop(), inv.now, inv.timezone)
    if not words:
        raise UsageError("search needs at least one word")
    match = fts_query(words)
    repo = ctx.resolve_repo(inv)
    lang = inv.lang
    query = " ".join(words)
    results, total = ctx.store.search(
        repo, match, period.start if period else None, period.end if period else None, limit=MAX_RESULTS
    )
    blocks: list[Block] = []
    if not results:
        blocks.append(Paragraph(text=t(lang, "search.none", query=query)))
    else:
        shown_total = f"{total}+" if total >= PRStore.COUNT_CAP else str(total)
        blocks.append(Paragraph(text=t(lang, "search.count", shown=len(results), total=shown_total)))
        for s in results:
            merged = s.pr.merged_at.strftime("%Y-%m-%d")
            lines = [merged + (f" · {s.cls.gist}" if s.cls.gist else "")]
            blocks.append(PRItem(pr=pr_ref(s), tags=pr_tags(s, lang, key=False), lines=lines))
    title = t(lang, "search.title", query=query, repo=repo)
    if period:
        title += f" · {period.label}"
    data = {
        "repo": repo,
        "query": query,
        "period": period.as_dict() if period else None,
        "total": total,
        "total_capped": total >= PRStore.COUNT_CAP,
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
    return Reply(command="search", title=title, blocks=blocks, data=data)
