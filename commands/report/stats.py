"""The numbers behind a digest: this period's PRs and the four comparison windows.

The period itself is read PR by PR (every section shows its PRs); the comparison windows are
read as aggregates straight from the indexed tag table, plus their titles for theme detection,
so a digest costs one row scan of one week however large the cache grows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from classify.models import FLAG_KINDS
from classify.rules import Profile
from commands.common import key_numbers, select_key, with_period_parts
from commands.period import Period
from commands.report.themes import Theme, describe, find_themes, rebind, theme_parts
from storage.prs import PRStore, StoredPR

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
    themes: list[Theme] = field(default_factory=list)
    """the period's storylines (``commands.report.themes``), each with its computed sentence"""
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
    store: PRStore, profile: Profile, repo: str, periods: Sequence[Period], modules: Sequence[str] = ()
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
    store: PRStore, profile: Profile, repo: str, period: Period, modules: tuple[str, ...] = ()
) -> DigestStats:
    """The period's PRs, storylines, key PRs and comparison windows.

    Storylines come first because they are part of the key-PR score: a PR that belongs to one of
    the period's themes earns the profile's ``[score] theme`` points (shown in its breakdown), and
    the PRs carry that period score from here on. The points decide which PRs are key, never how
    many (``key_min_score`` applies to a PR's own score), so the comparison windows' key counts,
    read from stored scores, are those their own digests show.
    """
    prs = store.merged_between(repo, period.start, period.end)
    if modules:
        prs = [s for s in prs if any(m in modules for m in s.cls.modules)]
    previous = windows(store, profile, repo, period.previous(COMPARE_WEEKS), modules)
    paths = store.paths(repo, [s.pr.number for s in prs])
    found = find_themes(prs, profile, [w.titles for w in previous], paths)
    parts = theme_parts(found, profile)
    bonus = {n: part.points for n, part in parts.items()}
    key = select_key(prs, profile.key_share, profile.key_min_score, bonus)
    prs = [with_period_parts(s, [parts[s.pr.number]] if s.pr.number in parts else []) for s in prs]
    weekly = period.length == timedelta(days=7)
    themes = describe(rebind(found, prs), key, profile, weekly=weekly)
    flags: Counter[str] = Counter(k for s in prs for k in s.cls.flag_kinds)
    stats = DigestStats(
        repo=repo, period=period, prs=prs, key=key, previous=previous, modules_filter=modules, themes=themes
    )
    stats.counts = _counts(len(prs), len(key), dict(flags))
    return stats
