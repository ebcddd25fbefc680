"""How ``deliver`` and ``deliveries`` print the ledger: a table with its headers, runs folded.

A subscription made long ago, or a dry run without ``--now`` against an old demo cache, owes many
weeks at once; each was missed for the same reason, so they are one line ("skipped … 2026-01-05 …
2026-11-23 (46 weeks)"), not 46. The reason a row stores names its due time, which the table shows
in its own column: it is not said twice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from bot.delivery.deliverer import Outcome
from storage.deliveries import Delivery
from storage.prs import iso

DELIVERY_COLUMNS = ("id", "sub", "week of", "state", "due", "reason")
_DUE = re.compile(r"due \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z, and ")


def reason_without_due(reason: str) -> str:
    """ "missed: due 2026-05-11T09:00:00Z, and no prdigest ran …" → "missed: no prdigest ran …"."""
    return _DUE.sub("", reason)


def table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows under their column headers, each column as wide as its widest cell; the last column
    (free text) is not padded."""
    cells = [list(columns), *(list(r) for r in rows)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns) - 1)]
    return [
        "  ".join([*(c.ljust(w) for c, w in zip(r, widths, strict=False)), r[-1]]).rstrip() for r in cells
    ]


def delivery_table(rows: Sequence[Delivery]) -> list[str]:
    body = [
        [
            str(d.id),
            f"#{d.subscription_id}",
            str(d.period_start),
            d.state,
            iso(d.due_at),
            reason_without_due(d.reason),
        ]
        for d in rows
    ]
    return table(DELIVERY_COLUMNS, body)


def folded(outcomes: Sequence[Outcome]) -> list[str]:
    """One line per outcome, consecutive skipped weeks of one subscription for one reason as one."""
    lines: list[str] = []
    run: list[Outcome] = []

    def flush() -> None:
        if len(run) == 1:
            lines.append(run[0].line())
        elif run:
            first, last = run[0], run[-1]
            what = replace(first, reason=reason_without_due(first.reason)).line()
            head = f"{first.period_start}"
            lines.append(what.replace(head, f"{head} … {last.period_start} ({len(run)} weeks)", 1))
        run.clear()

    for o in outcomes:
        same = (
            run
            and o.state == "skipped"
            and (o.subscription, reason_without_due(o.reason))
            == (
                run[-1].subscription,
                reason_without_due(run[-1].reason),
            )
        )
        if not same:
            flush()
        if o.state == "skipped":
            run.append(o)
        else:
            lines.append(o.line())
    flush()
    return lines
