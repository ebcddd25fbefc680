"""A closed period's storylines read from the cache instead of found again (``storage.storylines``).

``classify.storylines.find_themes`` is most of a past week's digest; its result depends only on the period's rows, the
comparison windows' titles, the rule profile and the code. ``storylines`` reads the stored result
when the days it was found from are unchanged (their write stamps, and how many comparison windows
the cache covers), else finds them and stores them for the next digest of the period — in this
process or another. What is stored is ``find_themes``' output (before ``describe`` adds the
sentence, which depends on the key PRs and the language), keyed by the profile's content hash
(which covers the code that found it): the themes with their PRs as numbers,
bound again to the period's rows when read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from classify.models import ListedPR
from classify.periods import Period
from classify.rules import Profile, classifier_code_hash
from classify.storylines import Theme
from storage import storylines as stored
from storage.prs import PRStore


def dumps(themes: Sequence[Theme]) -> str:
    """``find_themes``' result as JSON (PRs as numbers)."""
    return json.dumps(
        [
            {
                "key": th.key,
                "kind": th.kind,
                "name": dict(th.name),
                "prs": th.numbers,
                "module": th.module,
                "before": th.before,
                "compared": th.compared,
                "named": th.named,
                "evidence": list(th.evidence),
                "summary": dict(th.summary),
                "lead": list(th.lead),
                "strength": th.strength,
                "standing": th.standing,
                "told": None if th.told is None else sorted(th.told),
            }
            for th in themes
        ],
        ensure_ascii=False,
        separators=(",", ":"),
    )


def loads(text: str, prs: Sequence[ListedPR]) -> list[Theme] | None:
    """The themes of ``dumps`` bound to ``prs`` (None when one of their PRs is not among them)."""
    by_number = {s.pr.number: s for s in prs}
    out = []
    for d in json.loads(text):
        members = [by_number.get(n) for n in d["prs"]]
        if any(m is None for m in members):
            return None
        out.append(
            Theme(
                key=d["key"],
                kind=d["kind"],
                name=d["name"],
                prs=[m for m in members if m is not None],
                module=d["module"],
                before=d["before"],
                compared=d["compared"],
                named=d["named"],
                evidence=tuple(d["evidence"]),
                summary=d["summary"],
                lead=tuple(d["lead"]),
                strength=d["strength"],
                standing=d["standing"],
                told=None if d["told"] is None else frozenset(d["told"]),
            )
        )
    return out


class StoredStorylines:
    """The stored storylines of one closed period, looked up before its rows are read.

    ``begin`` reads the write stamps of every day the storylines depend on (the period and the
    four candidate comparison windows before it) *before* the rows are read, so a write that lands
    in between makes the stored entry look stale rather than a stale entry look current.
    """

    def __init__(self, store: PRStore, profile: Profile, repo: str, period: Period, earliest: Period) -> None:
        self.store = store
        self.repo = repo
        self.period = period
        self.key = (profile.content_hash, classifier_code_hash())
        self.days = stored.day_span(earliest.start, period.end)
        self.stamp = stored.stamps(store.db, repo, *self.days)

    def entry_stamp(self, windows: int) -> str:
        """What an entry must carry to be current: the days' stamps and the covered windows."""
        return f"windows={windows};{self.stamp}"

    def themes(self, windows: int, prs: Sequence[ListedPR], find: Callable[[], list[Theme]]) -> list[Theme]:
        """The stored storylines when they are current, else ``find()``'s, stored for next time."""
        stamp = self.entry_stamp(windows)
        db, p = self.store.db, self.period
        text = stored.load(db, self.repo, p.start, p.end, self.key, stamp)
        found = loads(text, prs) if text is not None else None
        if found is not None:
            return found
        found = find()
        stored.save(db, self.repo, p.start, p.end, self.key, stamp, self.days, self.stamp, dumps(found))
        return found
