"""The numbers behind a digest: this period's PRs and the comparison windows before it.

The period itself is read PR by PR (every section shows its PRs); the comparison windows are
read as aggregates straight from the indexed tag table, plus their titles for theme detection,
so a digest costs one row scan of one week however large the cache grows.

A period of any length is compared with up to four windows of the same length right before it
(the four previous weeks for a week, the four previous 40-day stretches for a 40-day range) —
but only with windows the cache covers: a window that starts before the cache's first PR would
count its missing weeks as zeros, so it is left out, and a period with no covered window before
it is reported as not compared.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial

from classify.key_prs import key_count, key_numbers, select_key, with_period_parts
from classify.models import FLAG_KINDS, ListedPR, StoredPR
from classify.periods import COMPARE_WEEKS, Period, covered_windows
from classify.rules import Profile
from classify.storylines import Theme, find_themes, rebind, theme_parts
from commands.report.storyline_text import describe
from storage.aggregates import TitleCounts
from storage.prs import PRStore, TagFilter

COUNT_KEYS = ("merged", "key", *FLAG_KINDS)


@dataclass(frozen=True)
class Window:
    """A comparison window in aggregate: counts, module counts and titles (empty when the cache's
    aggregates count the titles' topics: see ``windows``)."""

    period: Period
    counts: dict[str, int]
    modules: dict[str, int]
    titles: list[str]


@dataclass(frozen=True)
class Comparison:
    """What the period is compared with: how many earlier windows, of what length, and why fewer."""

    windows: int
    """earlier windows of the same length with data in the cache (0: not compared)"""
    days: int
    """the length of the period (and of each window) in days"""
    weekly: bool
    """the period is a week long (an ISO week, the last 7 days or a 7-day range)"""
    cache_start: datetime | None
    """the cache's first merged PR when it cut the comparison short, else None"""

    def as_dict(self) -> dict[str, object]:
        return {
            "windows": self.windows,
            "days": self.days,
            "weekly": self.weekly,
            "cache_start": self.cache_start.strftime("%Y-%m-%d") if self.cache_start else None,
        }


@dataclass
class DigestStats:
    repo: str
    period: Period
    prs: list[ListedPR]
    key: set[int]
    previous: list[Window]
    modules_filter: tuple[str, ...] = ()
    filter: TagFilter = field(default_factory=TagFilter)
    """the full filter (modules with their match mode, flags); ``modules_filter`` is its modules"""
    themes: list[Theme] = field(default_factory=list)
    """the period's storylines (``classify.storylines``), each with its computed sentence"""
    counts: dict[str, int] = field(default_factory=dict)
    comparison: Comparison = field(default_factory=lambda: Comparison(0, 7, True, None))
    merged_overall: int | None = None
    """with a module filter: every PR merged in the period, to say how many the filter left out"""
    reverted: dict[int, StoredPR] = field(default_factory=dict)
    """revert PR number → the PR it reverted, when that PR is in the cache"""
    outside_before: Callable[[Sequence[str]], list[int]] = field(default=lambda shown: [], repr=False)
    """each comparison window's count of PRs carrying none of the given modules, read from the
    cache when asked: a chart shows a dozen modules and one row for the rest, which per-module
    counts cannot give (a PR of two other modules would count twice)"""
    _flagged: dict[str, list[ListedPR]] | None = field(default=None, repr=False)
    _ranked: list[ListedPR] | None = field(default=None, repr=False)
    _modules: Counter[str] | None = field(default=None, repr=False)

    @property
    def previous_counts(self) -> list[dict[str, int]]:
        return [w.counts for w in self.previous]

    @property
    def compared(self) -> bool:
        return bool(self.previous)

    def flagged(self, kind: str) -> list[ListedPR]:
        """PRs with a flag, most important first (indexed once per digest)."""
        if self._flagged is None:
            index: dict[str, list[ListedPR]] = {}
            for s in self.ranked():
                for f in s.cls.flags:
                    index.setdefault(f.kind, []).append(s)
            self._flagged = index
        return list(self._flagged.get(kind, []))

    def ranked(self) -> list[ListedPR]:
        """The period's PRs, most important first (sorted once per digest; a copy)."""
        if self._ranked is None:
            self._ranked = sorted(self.prs, key=rank_key)
        return list(self._ranked)

    def previous_avg(self, name: str) -> float | None:
        """The average of ``name`` over the comparison windows; None when there is none."""
        values = [w.counts.get(name, 0) for w in self.previous]
        return sum(values) / len(values) if values else None

    def module_counts(self) -> Counter[str]:
        """How many of the period's PRs touch each module (counted once per digest; a copy)."""
        if self._modules is None:
            self._modules = module_tally(self.prs)
        return Counter(self._modules)

    def previous_module_avg(self) -> dict[str, float]:
        return module_avg(self.previous)


def module_avg(windows: Sequence[Window]) -> dict[str, float]:
    """Each module's PRs per window, averaged over ``windows``."""
    total: Counter[str] = Counter()
    for w in windows:
        total.update(w.modules)
    n = max(1, len(windows))
    return {m: c / n for m, c in total.items()}


def rank_key(s: ListedPR) -> tuple[float, int]:
    return (-s.cls.score, -s.pr.number)


def module_tally(prs: Sequence[ListedPR]) -> Counter[str]:
    """How many of ``prs`` touch each module (a PR counts once per module, as in the module table)."""
    return Counter(itertools.chain.from_iterable(dict.fromkeys(s.cls.modules) for s in prs))


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
    """The comparison windows: from the write-time aggregates where they answer (no filter, whole
    quarter-hours), else their PRs in one read of a covering index and tag counts from the tag index."""
    return windows_and_titles(store, profile, repo, periods, modules)[0]


def windows_and_titles(
    store: PRStore,
    profile: Profile,
    repo: str,
    periods: Sequence[Period],
    modules: Sequence[str] | TagFilter = (),
) -> tuple[list[Window], Sequence[Sequence[str]] | TitleCounts]:
    """``windows`` and what theme novelty compares with: the windows' title-topic counts stored
    in the cache, or (filters, another profile) their titles."""
    flt = modules if isinstance(modules, TagFilter) else TagFilter(tuple(modules))
    spans = [(p.start, p.end) for p in periods]
    stored = None if flt else store.window_aggregates(repo, spans)
    if stored is not None:
        eligible = store.scored_at_least(repo, spans, profile.key_min_score)
        out = [
            Window(period, _counts(merged, min(key_count(merged, profile.key_share), ok), flags), mods, [])
            for period, (merged, flags, mods), ok in zip(periods, stored, eligible, strict=True)
        ]
        titles = store.title_counts(repo, spans, profile.content_hash, [w.counts["merged"] for w in out])
        if titles is not None:
            return out, titles
    rows = store.window_rows(repo, spans, modules)
    out = []
    for period, prs in zip(periods, rows, strict=True):
        triples = ((n, sc, size) for n, sc, size, _ in prs)
        key = len(key_numbers(triples, profile.key_share, profile.key_min_score))
        flags = store.tag_counts(repo, "flag", period.start, period.end, modules)
        module_counts = store.tag_counts(repo, "module", period.start, period.end, modules)
        out.append(Window(period, _counts(len(prs), key, flags), module_counts, [r[3] for r in prs]))
    return out, [w.titles for w in out]


def gather(
    store: PRStore,
    profile: Profile,
    repo: str,
    period: Period,
    modules: tuple[str, ...] | TagFilter = (),
    *,
    closed_at: datetime | None = None,
) -> DigestStats:
    """The period's PRs, storylines, key PRs and comparison windows.

    ``closed_at``: the moment of the question when the caller uses stored storylines: an
    unfiltered calendar period (not the rolling last 7 days, which ends at every question's own
    second) that ended by then has its storylines read from the cache when they are
    current, and stored when they were found (``commands.report.stored_themes``).

    Storylines come first because they are part of the key-PR score: a PR that belongs to one of
    the period's themes earns the profile's ``[score] theme`` points (shown in its breakdown), and
    the PRs carry that period score from here on. The points decide which PRs are key, never how
    many (``key_min_score`` applies to a PR's own score), so the comparison windows' key counts,
    read from stored scores, are those their own digests show.
    """
    flt = modules if isinstance(modules, TagFilter) else TagFilter(tuple(modules))
    kept = None
    if closed_at is not None and not flt and period.kind != "rolling" and period.end <= closed_at:
        from commands.report.stored_themes import StoredStorylines

        kept = StoredStorylines(
            store, profile, repo, period, (period.previous(COMPARE_WEEKS) or [period])[-1]
        )
    prs = store.merged_between(repo, period.start, period.end)
    overall = len(prs) if flt else None
    if flt:  # modules with their match mode, or any listed flag (a subscription's view)
        prs = [s for s in prs if flt.matches(s.cls.modules, s.cls.flag_kinds)]
    first = store.first_merged(repo)
    periods, cut = covered_windows(period, first)
    previous, history = windows_and_titles(store, profile, repo, periods, flt)
    days = max(1, round(period.length.total_seconds() / 86400))
    comparison = Comparison(
        windows=len(previous),
        days=days,
        weekly=days == 7,
        cache_start=first if cut else None,
    )

    def find() -> list[Theme]:
        return find_themes(prs, profile, history, store.paths(repo, [s.pr.number for s in prs]))

    found = find() if kept is None else kept.themes(len(periods), prs, find)
    parts = theme_parts(found, profile)
    bonus = {n: part.points for n, part in parts.items()}
    key = select_key(prs, profile.key_share, profile.key_min_score, bonus)
    prs = [with_period_parts(s, [parts[s.pr.number]] if s.pr.number in parts else []) for s in prs]
    themes = describe(
        rebind(found, prs),
        key,
        profile,
        weekly=comparison.weekly,
        module_before=module_avg(previous) if previous else None,
    )
    flags: Counter[str] = Counter(k for s in prs for k in s.cls.flag_kinds)
    stats = DigestStats(
        repo=repo,
        period=period,
        prs=prs,
        key=key,
        previous=previous,
        modules_filter=flt.modules,
        filter=flt,
        themes=themes,
        comparison=comparison,
        merged_overall=overall,
        outside_before=partial(
            store.outside_counts, repo, [(w.period.start, w.period.end) for w in previous], modules=flt
        ),
    )
    stats.counts = _counts(len(prs), len(key), dict(flags))
    stats.reverted = _reverted(store, repo, stats.flagged("revert"))
    return stats


def _reverted(store: PRStore, repo: str, reverts: Sequence[ListedPR]) -> dict[int, StoredPR]:
    """The PRs the period's reverts undo (named as ``#123`` in their evidence), from the cache."""
    out: dict[int, StoredPR] = {}
    for s in reverts:
        flag = s.cls.flag("revert")
        refs = [e for e in (flag.evidence if flag else []) if e.startswith("#") and e[1:].isdigit()]
        if refs:
            found = store.get(repo, int(refs[0][1:]))
            if found is not None:
                out[s.pr.number] = found
    return out
