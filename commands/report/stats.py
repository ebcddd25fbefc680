"""The numbers behind a digest: this period's PRs and the four comparison windows.

The period itself is read PR by PR (every section shows its PRs); the comparison windows are
read as aggregates straight from the indexed tag table, plus their titles for theme detection,
so a digest costs one row scan of one week however large the cache grows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from classify.models import FLAG_KINDS
from classify.rules import Profile
from commands.common import key_numbers, select_key
from commands.period import Period
from storage.prs import PRStore, StoredPR, TagFilter

COMPARE_WEEKS = 4
COUNT_KEYS = ("merged", "key", *FLAG_KINDS)


@dataclass(frozen=True)
class Window:
    """A comparison window in aggregate: counts, module counts and titles."""

    period: Period
    counts: dict[str, int]
    modules: dict[str, int]
    titles: list[str]


@dataclass
class DigestStats:
    repo: str
    period: Period
    prs: list[StoredPR]
    key: set[int]
    previous: list[Window]
    modules_filter: tuple[str, ...] = ()
    filter: TagFilter = field(default_factory=TagFilter)
    counts: dict[str, int] = field(default_factory=dict)
    _flagged: dict[str, list[StoredPR]] | None = field(default=None, repr=False)

    @property
    def previous_counts(self) -> list[dict[str, int]]:
        return [w.counts for w in self.previous]

    def flagged(self, kind: str) -> list[StoredPR]:
        """PRs with a flag, most important first (indexed once per digest)."""
        if self._flagged is None:
            index: dict[str, list[StoredPR]] = {}
            for s in sorted(self.prs, key=rank_key):
                for f in s.cls.flags:
                    index.setdefault(f.kind, []).append(s)
            self._flagged = index
        return list(self._flagged.get(kind, []))

    def previous_avg(self, name: str) -> float:
        values = [w.counts.get(name, 0) for w in self.previous]
        return sum(values) / len(values) if values else 0.0

    def module_counts(self) -> Counter[str]:
        return Counter(m for s in self.prs for m in dict.fromkeys(s.cls.modules))

    def previous_module_avg(self) -> dict[str, float]:
        total: Counter[str] = Counter()
        for w in self.previous:
            total.update(w.modules)
        n = max(1, len(self.previous))
        return {m: c / n for m, c in total.items()}


def rank_key(s: StoredPR) -> tuple[float, int]:
    return (-s.cls.score, -s.pr.number)


def _counts(merged: int, key: int, flags: dict[str, int]) -> dict[str, int]:
    counts = dict.fromkeys(COUNT_KEYS, 0)
    counts["merged"] = merged
    counts["key"] = key
    for kind, n in flags.items():
        if kind in counts:
            counts[kind] = n
    return counts


def windows(
    store: PRStore,
    profile: Profile,
    repo: str,
    periods: Sequence[Period],
    modules: Sequence[str] | TagFilter = (),
) -> list[Window]:
    """The comparison windows: their PRs in one read of a covering index, tag counts from the tag index."""
    rows = store.window_rows(repo, [(p.start, p.end) for p in periods], modules)
    out = []
    for period, prs in zip(periods, rows, strict=True):
        triples = ((n, sc, size) for n, sc, size, _ in prs)
        key = len(key_numbers(triples, profile.key_share, profile.key_min_score))
        flags = store.tag_counts(repo, "flag", period.start, period.end, modules)
        module_counts = store.tag_counts(repo, "module", period.start, period.end, modules)
        out.append(Window(period, _counts(len(prs), key, flags), module_counts, [r[3] for r in prs]))
    return out


def gather(
    store: PRStore,
    profile: Profile,
    repo: str,
    period: Period,
    modules: tuple[str, ...] | TagFilter = (),
) -> DigestStats:
    """The digest's numbers; ``modules`` is a module list (any-match) or a full ``TagFilter``."""
    flt = modules if isinstance(modules, TagFilter) else TagFilter(tuple(modules))
    prs = store.merged_between(repo, period.start, period.end)
    if flt:
        prs = [s for s in prs if flt.matches(s.cls.modules, s.cls.flag_kinds)]
    key = select_key(prs, profile.key_share, profile.key_min_score)
    previous = windows(store, profile, repo, period.previous(COMPARE_WEEKS), flt)
    flags: Counter[str] = Counter(k for s in prs for k in s.cls.flag_kinds)
    stats = DigestStats(
        repo=repo, period=period, prs=prs, key=key, previous=previous, modules_filter=flt.modules, filter=flt
    )
    stats.counts = _counts(len(prs), len(key), dict(flags))
    return stats
