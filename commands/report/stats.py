"""The numbers behind a digest: this period's PRs and the four comparison windows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from classify.models import FLAG_KINDS
from classify.rules import Profile
from commands.common import key_count, select_key
from commands.period import Period
from storage.prs import BriefPR, PRStore, StoredPR, brief_between

COMPARE_WEEKS = 4
COUNT_KEYS = ("merged", "key", *FLAG_KINDS)


@dataclass
class DigestStats:
    repo: str
    period: Period
    prs: list[StoredPR]
    key: set[int]
    previous: list[tuple[Period, list[BriefPR]]]
    modules_filter: tuple[str, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)
    previous_counts: list[dict[str, int]] = field(default_factory=list)

    @property
    def by_number(self) -> dict[int, StoredPR]:
        return {s.pr.number: s for s in self.prs}

    def flagged(self, kind: str) -> list[StoredPR]:
        """PRs with a flag, most important first."""
        return sorted((s for s in self.prs if kind in s.cls.flag_kinds), key=rank_key)

    def previous_avg(self, name: str) -> float:
        values = [c.get(name, 0) for c in self.previous_counts]
        return sum(values) / len(values) if values else 0.0

    def module_counts(self) -> Counter[str]:
        return Counter(m for s in self.prs for m in dict.fromkeys(s.cls.modules))

    def previous_module_avg(self) -> dict[str, float]:
        total: Counter[str] = Counter()
        for _, briefs in self.previous:
            total.update(m for b in briefs for m in dict.fromkeys(b.modules))
        n = max(1, len(self.previous))
        return {m: c / n for m, c in total.items()}


def rank_key(s: StoredPR) -> tuple[float, int]:
    return (-s.cls.score, -s.pr.number)


def _matches(modules: Sequence[str], wanted: tuple[str, ...]) -> bool:
    return not wanted or any(m in wanted for m in modules)


def _counts(n_merged: int, n_key: int, flag_lists: Sequence[Sequence[str]]) -> dict[str, int]:
    counts = dict.fromkeys(COUNT_KEYS, 0)
    counts["merged"] = n_merged
    counts["key"] = n_key
    for kinds in flag_lists:
        for k in kinds:
            counts[k] += 1
    return counts


def _key_count(briefs: Sequence[BriefPR], profile: Profile) -> int:
    """How many key PRs a comparison window had (same rule as ``select_key``)."""
    eligible = sum(1 for b in briefs if b.score >= profile.key_min_score)
    return min(key_count(len(briefs), profile.key_share), eligible)


def gather(
    store: PRStore, profile: Profile, repo: str, period: Period, modules: tuple[str, ...] = ()
) -> DigestStats:
    prs = [
        s for s in store.merged_between(repo, period.start, period.end) if _matches(s.cls.modules, modules)
    ]
    key = select_key(prs, profile.key_share, profile.key_min_score)
    previous = []
    for p in period.previous(COMPARE_WEEKS):
        briefs = [b for b in brief_between(store, repo, p.start, p.end) if _matches(b.modules, modules)]
        previous.append((p, briefs))
    stats = DigestStats(repo=repo, period=period, prs=prs, key=key, previous=previous, modules_filter=modules)
    stats.counts = _counts(len(prs), len(key), [s.cls.flag_kinds for s in prs])
    for _, briefs in previous:
        stats.previous_counts.append(
            _counts(len(briefs), _key_count(briefs, profile), [b.flags for b in briefs])
        )
    return stats
