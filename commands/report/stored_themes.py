"""A closed period's storylines read from the cache instead of found again (``storage.storylines``).

``find_themes`` is most of a past week's digest; its result depends only on the period's rows, the
comparison windows' titles, the rule profile and the code. ``storylines`` reads the stored result
when the days it was found from are unchanged (their write stamps, and how many comparison windows
the cache covers), else finds them and stores them for the next digest of the period — in this
process or another. What is stored is ``find_themes``' output (before ``describe`` adds the
sentence, which depends on the key PRs and the language): the themes with their PRs as numbers,
bound again to the period's rows when read.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from classify.models import ListedPR
from classify.periods import Period, week_of
from classify.rules import Profile, classifier_code_hash
from commands.report.themes import Theme
from storage import storylines as stored
from storage.prs import PRStore


@functools.cache
def storyline_code_hash() -> str:
    """A hash of the code storylines are found and named with (``commands/report``, the locale,
    the title keys, and the classifier's own hash): a prdigest that finds other storylines does
    not read those an older one stored."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.blake2b(classifier_code_hash().encode(), digest_size=16)
    files = [
        *sorted((root / "report").glob("*.py")),
        *sorted((root / "locale").glob("*.py")),
        root / "title_keys.py",
    ]
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


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
        self.key = (profile.content_hash, storyline_code_hash())
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


def closed_weeks(store: PRStore, repo: str, zone: ZoneInfo, now: datetime) -> list[Period]:
    """The ISO weeks (in ``zone``) of the cache's span that ended by ``now``, newest first."""
    span = store.merged_range(repo)
    if span is None:
        return []
    week = week_of(min(span[1], now), zone)
    first = week_of(span[0], zone).start
    out = []
    while week.start >= first:
        if week.end <= now:
            out.append(week)
        week = week_of(week.start - timedelta(seconds=1), zone)
    return out


def is_current(store: PRStore, profile: Profile, repo: str, period: Period) -> bool:
    """Whether ``period`` has stored storylines that a digest would read (one indexed read)."""
    from commands.report.stats import COMPARE_WEEKS, covered_windows

    kept = StoredStorylines(store, profile, repo, period, (period.previous(COMPARE_WEEKS) or [period])[-1])
    windows = len(covered_windows(period, store.first_merged(repo))[0])
    return (
        stored.load(store.db, repo, period.start, period.end, kept.key, kept.entry_stamp(windows)) is not None
    )


def fill(
    store: PRStore,
    profile: Profile,
    repo: str,
    weeks: Iterable[Period],
    now: datetime,
    *,
    limit: int | None = None,
) -> list[Period]:
    """Find and store the storylines of those of ``weeks`` that have none current, at most ``limit``
    of them; returns the weeks found (storing one that lost a race with a write stores nothing)."""
    from commands.report.stats import gather

    done: list[Period] = []
    for week in weeks:
        if limit is not None and len(done) >= limit:
            break
        if not is_current(store, profile, repo, week):
            gather(store, profile, repo, week, closed_at=now)
            done.append(week)
    return done
