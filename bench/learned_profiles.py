"""Benchmark: does a repository's digest read well with the profile prdigest gives it?

    uv run --frozen python -m bench.learned_profiles [--eval-dir ../shared/eval-dev]
                                                     [--profile auto|NAME|FILE] [--repo OWNER/NAME]
                                                     [--json OUT] [--windows]

Each dev repository of ``../shared/eval-dev`` is imported into a scratch cache as a new user
would (``--profile auto``, the default: no profile set, so the product picks one — a learned
profile once the history is long enough) or with one profile forced on every repository (a
bundled name or a TOML file: today's default ``vllm``, or ``generic``). Then, per repository and
per window of at least ``MIN_WINDOW`` PRs (ISO weeks; calendar months where the median week is
smaller), the figures the learned-profile work is judged by:

- **themes**: the share of windows whose digest tells at least one storyline (target ≥ 3 of 4);
- **modules**: how many the profile declares and how many get PRs (target ≤ 25), how many hold
  fewer than 2% of the repository's PRs, the windows where one module holds more than 40% of the
  window's PRs — with, for each, how likely the module would fill the window so by its share of
  the history alone (a module too coarse does so often; a week's series or batch of bumps does
  not) — and the share of PRs left in the catch-all (target ≤ 10%);
- **coherence**: for each module, the share of its PRs that touch its *main directory* — the
  directory (one to three levels deep) that most of its PRs touch, the deeper on a tie — averaged
  over modules (target ≥ 0.7);
- **wording**: gists that repeat or merely extend their title, gists or highlights that are a
  quoted markdown table row, gists that three or more PRs share word for word (a template's
  text: "What does the PR do? Include a concise description…"; bots' PRs aside), dependency
  risk entries that name no version (target 0 each), and theme names that are a version or a
  branch (target 0);
- **key PRs**: those a maintainer would call chores — docs-only, typo/grammar/docstring fixes,
  bumps of the repository's own version, lockfile refreshes, translations, bots' PRs (target 0);
  the share of key PRs whose description has prose that still show a gist (≥ 60%);
- **kinds** (where the notes file every PR by section, as fastapi's do): the share of cited PRs
  whose kind matches their release-note section, and the user-facing share of key PRs.

The checks here are the judge's, written apart from the product's rules: chores, echoes, table
rows and branch names are recognised by patterns of this file, not by calling the code they judge.
Not a test: nothing here asserts; ``tests/bench/test_learned_profiles.py`` checks the arithmetic.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import re
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from classify.periods import Period
from classify.rules import Profile
from commands.report.stats import DigestStats, gather
from storage.prs import PRStore, StoredPR

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_EVAL_DIR = ROOT.parent / "shared" / "eval-dev"
MIN_WINDOW = 15
MAX_MODULES = 25
MIN_MODULE_SHARE = 0.02
MAX_WINDOW_SHARE = 0.4
MAX_CATCH_ALL = 0.1
MIN_COHERENCE = 0.7
MIN_THEMED = 0.75
MIN_GIST_SHOWN = 0.6
CHANCE = 0.05
REPEATED = 3
"""a window over 40% whose top module would fill it this much by chance this often is a module too
coarse for the window; below it, the week itself is the burst"""

# -- the judge's patterns ---------------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+")
_TABLE_ROW = re.compile(r"\S\s*\|\s*\S.*\|")  # two cell separators between text: a table row
_VERSION = re.compile(r"(?<![a-z0-9])v?\d+(?:\.\d+)+[a-z0-9.+-]*(?![a-z0-9])", re.I)
_BRANCH_WORDS = frozenset(
    "main master develop dev trunk stable nightly release releases backport backports cherry pick "
    "cherrypick cherry-pick patch hotfix".split()
)
_DOC_FILE = re.compile(
    r"(?:^|/)(?:docs?|documentation)/|\.(?:md|rst|adoc|txt)$|(?:^|/)(?:README|LICENSE|NOTICE)", re.I
)
_TYPO = re.compile(r"\b(?:typos?|grammar|spelling|misspell\w*|docstrings?|wording)\b", re.I)
_OWN_VERSION = re.compile(
    r"\b(?:release|bump|prepare|set)\b[^.]{0,30}?\bversion\b|^\W*(?:release|version)\s+v?\d|\bbump\s+version\b"
    r"|\brelease\s+(?:notes?\s+for\s+)?v?\d+\.\d+",
    re.I,
)
_LOCKFILE = re.compile(r"(?:^|/)(?:[\w.-]+\.lock|package-lock\.json|pnpm-lock\.yaml|go\.sum|yarn\.lock)$")
_TRANSLATION = re.compile(r"\btranslat\w*|\bi18n\b|\bl10n\b|\blocali[sz]ation\b|🌐", re.I)
_BOTS = frozenset("dependabot renovate github-actions pre-commit-ci mergify".split())


def words(text: str) -> list[str]:
    """Lower-case words with a plural or third-person "s" folded."""
    out = []
    for w in _WORD.findall(text.lower()):
        out.append(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def _title_text(title: str) -> str:
    """The title without leading tags, emoji or a conventional-commit prefix."""
    text = re.sub(r"^(?:\s*\[[^\]]*\]\s*|\s*[^\w\s\[(`'\"]+\s*)*", "", title)
    return re.sub(r"^[A-Za-z]+(?:\([^)]*\))?!?:\s*", "", text)


_GLUE = frozenset(
    "a an the of to in on at for and or with by from into as is are be it its this that".split()
)


def is_echo(gist: str, title: str) -> bool:
    """A gist that repeats its title or merely extends it: nearly all of its words (English glue
    aside) are the title's, or it starts with the title and adds fewer than three words."""
    g = [w for w in words(gist) if w not in _GLUE]
    t = [w for w in words(_title_text(title)) if w not in _GLUE]
    if not g or not t:
        return False
    title_words = set(t)
    new = [w for w in g if w not in title_words]
    if len(new) <= max(1, len(g) // 5):
        return True
    return g[: len(t)] == t and len(g) - len(t) < 3


def is_table_row(text: str) -> bool:
    """Cells between pipes: at least three, most of them a few words ("DFlash | 9 | 2475 → 2904 |
    +17.33%"), not prose that mentions a type union ("X | Y")."""
    if not _TABLE_ROW.search(text):
        return False
    cells = [c.strip() for c in text.strip().strip("|").split("|")]
    short = sum(1 for c in cells if len(c.split()) <= 4)
    return len(cells) >= 3 and short * 3 >= 2 * len(cells)


def is_versionless_dependency(evidence: Sequence[str]) -> bool:
    """A dependency flag whose evidence names no version change, no added or removed package and
    no lockfile refresh: only the files it touched."""
    return not any("→" in e or re.search(r"\b(?:added|removed|refreshed)\b", e) for e in evidence)


def is_version_or_branch(name: str) -> bool:
    text = name.strip().lower()
    if _VERSION.search(text):
        return True
    parts = [p for p in re.split(r"[\s/_]+", text) if p]
    return bool(parts) and all(p in _BRANCH_WORDS or p.isdigit() for p in parts)


def chore_reason(pr: Any) -> str | None:
    """Why a PR is a chore no key-PR list should hold, or None (``pr``: a ``PullRequest``)."""
    author = pr.author.strip().lower().removeprefix("app/")
    if author.endswith("[bot]") or author in _BOTS:
        return "bot"
    paths = [f.path for f in pr.files]
    title = pr.title
    if "🌐" in title or (_TRANSLATION.search(title) and paths and all(_DOC_FILE.search(p) for p in paths)):
        return "translation"
    if _TYPO.search(title):
        return "typo"
    another = re.search(r"\bfrom\s+v?\d[\w.]*\s*(?:->|→|to)\s*v?\d", title)  # a tool's or package's upgrade
    if not another and (_OWN_VERSION.search(_title_text(title)) or _OWN_VERSION.search(title)):
        return "own version"
    if paths and all(_LOCKFILE.search(p) for p in paths):
        return "lockfile"
    if paths and all(_DOC_FILE.search(p) for p in paths):
        return "docs only"
    return None


def has_prose(body: str) -> bool:
    """A description with a sentence of the author's own: a line of ≥ 6 words outside code,
    tables, headings, checklists and HTML comments."""
    text = re.sub(r"<!--.*?-->", " ", body, flags=re.S)
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in "#|<>" or re.match(r"[-*+]\s*\[[ xX]?\]", s):
            continue
        if len(re.findall(r"[A-Za-z]{2,}", s)) >= 6:
            return True
    return False


# -- windows ------------------------------------------------------------------------------------


def _week_start(moment: datetime) -> datetime:
    day = moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


def _month_start(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def _next_month(start: datetime) -> datetime:
    return (
        start.replace(year=start.year + 1, month=1)
        if start.month == 12
        else start.replace(month=start.month + 1)
    )


def windows(merged: Sequence[datetime], minimum: int = MIN_WINDOW) -> tuple[str, list[Period]]:
    """ISO weeks, or calendar months when the median week holds fewer than ``minimum`` PRs; only
    the windows holding at least ``minimum`` PRs."""
    if not merged:
        return "weeks", []
    weeks = Counter(_week_start(m) for m in merged)
    first, last = min(weeks), max(weeks)
    all_weeks = [first + timedelta(weeks=k) for k in range((last - first).days // 7 + 1)]
    median = statistics.median(weeks.get(w, 0) for w in all_weeks)
    if median >= minimum:
        out = [
            Period(w, w + timedelta(weeks=1), f"{w.isocalendar()[0]}-W{w.isocalendar()[1]:02d}", "iso-week")
            for w in all_weeks
            if weeks.get(w, 0) >= minimum
        ]
        return "weeks", out
    months = Counter(_month_start(m) for m in merged)
    out = [
        Period(m, _next_month(m), m.strftime("%Y-%m"), "range")
        for m in sorted(months)
        if months[m] >= minimum
    ]
    return "months", out


# -- per-repository figures ----------------------------------------------------------------------


def binomial_tail(n: int, k: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p): were a window's PRs drawn from the history at random,
    the chance that a module with share ``p`` gets ``k`` or more of ``n``. A tiny chance says the
    window is a burst of the week (a series, a batch of bumps), not a module too coarse."""
    if k <= 0:
        return 1.0
    return min(1.0, sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1)))


def main_directory(paths_per_pr: Iterable[Sequence[str]]) -> tuple[str | None, float]:
    """The directory (1–3 levels) most of these PRs touch (the deeper on a tie) and its share."""
    prs = list(paths_per_pr)
    counts: Counter[str] = Counter()
    for paths in prs:
        dirs: set[str] = set()
        for p in paths:
            parts = p.split("/")[:-1]
            if not parts:
                dirs.add("(root)")  # a top-level file: the repository's root is its directory
            for depth in range(1, min(3, len(parts)) + 1):
                dirs.add("/".join(parts[:depth]))
        counts.update(dirs)
    if not prs or not counts:
        return None, 0.0
    best = max(counts, key=lambda d: (counts[d], d.count("/")))
    return best, counts[best] / len(prs)


@dataclass
class WindowFigures:
    label: str
    n: int
    themes: list[str]
    top_module: tuple[str, float]
    catch_all: int
    key: int
    chores: list[tuple[int, str]]
    key_with_prose: int
    key_with_prose_gist: int
    dependency_entries: int
    versionless: list[int]
    user_facing_key: int = 0
    key_in_notes: int = 0
    top_by_bots: int = 0
    top_history_share: float = 0.0
    """the top module's share of the whole history: with it, how likely a window this full is by chance"""

    @property
    def top_chance(self) -> float:
        """P(a module holding ``top_history_share`` of the PRs holds this many of the window's by chance)."""
        return binomial_tail(self.n, round(self.top_module[1] * self.n), self.top_history_share)


@dataclass
class RepoFigures:
    repo: str
    profile: str
    prs: int
    unit: str
    windows: list[WindowFigures]
    modules_declared: int
    modules_used: int
    small_modules: list[tuple[str, float]]
    catch_all: int
    coherence: float | None
    coherence_by_module: dict[str, tuple[str | None, float, int]]
    echo_gists: list[int]
    table_rows: list[int]
    repeated_gists: list[int]
    """PRs (bots' aside) whose gist is word for word another two PRs' too: a template's text, not
    what this PR does"""
    bad_theme_names: list[str]
    kind_accuracy: float | None = None
    kind_cited: int = 0
    breaking: tuple[int, int, int, int] | None = None
    """(PRs flagged breaking, of them cited in the notes' breaking sections, PRs those sections
    cite, of them flagged), where the notes have such sections"""
    kind_confusion: dict[str, Counter[str]] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        w = self.windows
        themed = sum(1 for x in w if x.themes)
        over = [x.label for x in w if x.top_module[1] > MAX_WINDOW_SHARE]
        key = sum(x.key for x in w)
        chores = sum(len(x.chores) for x in w)
        prose = sum(x.key_with_prose for x in w)
        prose_gist = sum(x.key_with_prose_gist for x in w)
        in_notes = sum(x.key_in_notes for x in w)
        return {
            "repo": self.repo,
            "profile": self.profile,
            "prs": self.prs,
            "windows": f"{len(w)} {self.unit}",
            "themed_windows": f"{themed}/{len(w)}",
            "themed_share": themed / len(w) if w else None,
            "modules_declared": self.modules_declared,
            "modules_used": self.modules_used,
            "modules_under_2pct": len(self.small_modules),
            "windows_over_40pct": f"{len(over)}/{len(w)}",
            "max_window_share": max((x.top_module[1] for x in w), default=0.0),
            "windows_over_40pct_by_size": sum(
                1 for x in w if x.top_module[1] > MAX_WINDOW_SHARE and x.top_chance >= CHANCE
            ),
            "catch_all_share": self.catch_all / self.prs if self.prs else None,
            "coherence": self.coherence,
            "echo_gists": len(self.echo_gists),
            "table_rows": len(self.table_rows),
            "repeated_gists": len(self.repeated_gists),
            "versionless_dependency_entries": sum(len(x.versionless) for x in w),
            "dependency_entries": sum(x.dependency_entries for x in w),
            "chore_key_prs": f"{chores}/{key}",
            "gist_shown_with_prose": prose_gist / prose if prose else None,
            "bad_theme_names": len(self.bad_theme_names),
            "kind_accuracy": self.kind_accuracy,
            "user_facing_key_share": (sum(x.user_facing_key for x in w) / in_notes) if in_notes else None,
        }


# fastapi's release-note sections and the kinds that agree with each (user-facing sections first)
SECTION_KINDS: dict[str, frozenset[str]] = {
    "Features": frozenset({"feature"}),
    "Fixes": frozenset({"bugfix"}),
    "Refactors": frozenset({"refactor", "perf"}),
    "Upgrades": frozenset({"deps"}),
    "Breaking Changes": frozenset({"feature", "refactor", "bugfix", "deps"}),
    "Security": frozenset({"bugfix", "deps", "security"}),
    "Docs": frozenset({"docs"}),
    "Translations": frozenset({"translation"}),
    "Internal": frozenset({"chore", "ci", "test", "deps", "build", "release", "other", "style", "config"}),
}
USER_FACING = frozenset({"Features", "Fixes", "Refactors", "Upgrades", "Breaking Changes", "Security"})


_BREAKING_SECTION = re.compile(r"breaking|remov|deprecat", re.I)


def breaking_cited(notes: Sequence[Mapping[str, Any]]) -> set[int]:
    """The PRs the release notes cite under a breaking-change section ("Breaking Changes",
    "Removed", "Removing Deprecated Features", "Deprecated")."""
    return {
        int(n)
        for rel in notes
        for section, numbers in rel.get("sections", {}).items()
        if _BREAKING_SECTION.search(section)
        for n in numbers
    }


def breaking_figures(prs: Sequence[StoredPR], cited: set[int]) -> tuple[int, int, int, int] | None:
    if not cited:
        return None
    flagged = {s.pr.number for s in prs if "breaking" in s.cls.flag_kinds}
    known = cited & {s.pr.number for s in prs}
    return len(flagged), len(flagged & cited), len(known), len(known & flagged)


def kind_sections(notes: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """PR number → the release-note section citing it, where every section is a kind of change."""
    out: dict[int, str] = {}
    for rel in notes:
        for section, numbers in rel.get("sections", {}).items():
            if section in SECTION_KINDS:
                for n in numbers:
                    out.setdefault(int(n), section)
    return out


def measure(
    store: PRStore,
    profile: Profile,
    repo: str,
    sections: Mapping[int, str] | None = None,
    *,
    gather_fn: Callable[..., DigestStats] = gather,
) -> RepoFigures:
    """Every figure of the module docstring for ``repo`` as the cache holds it."""
    everything = store.history(repo)
    assert everything, f"{repo}: not in the cache"
    unit, periods = windows([s.pr.merged_at for s in everything])
    catch = profile.catch_all_module
    per_module: dict[str, list[StoredPR]] = {}
    for s in everything:
        for m in s.cls.modules:
            per_module.setdefault(m, []).append(s)
    n = len(everything)
    small = [(m, len(v) / n) for m, v in per_module.items() if m != catch and len(v) / n < MIN_MODULE_SHARE]
    coherence: dict[str, tuple[str | None, float, int]] = {}
    for m, members in per_module.items():
        if m == catch:
            continue
        d, share = main_directory([f.path for f in s.pr.files] for s in members if s.pr.files)
        coherence[m] = (d, share, len(members))
    echo = [s.pr.number for s in everything if s.cls.gist and is_echo(s.cls.gist, s.pr.title)]
    rows = [
        s.pr.number
        for s in everything
        if is_table_row(s.cls.gist) or any(is_table_row(h) for h in s.cls.highlights)
    ]
    people = [s for s in everything if s.cls.gist and chore_reason(s.pr) != "bot"]
    said = Counter(s.cls.gist for s in people)
    repeated = [s.pr.number for s in people if said[s.cls.gist] >= REPEATED]
    figures = RepoFigures(
        repo=repo,
        profile=f"{profile.name} {profile.version}",
        prs=n,
        unit=unit,
        windows=[],
        modules_declared=len([m for m in profile.modules if m != catch]),
        modules_used=len([m for m in per_module if m != catch]),
        small_modules=sorted(small, key=lambda x: x[1]),
        catch_all=sum(1 for s in everything if s.cls.modules == [catch]),
        coherence=statistics.mean(v[1] for v in coherence.values()) if coherence else None,
        coherence_by_module=coherence,
        echo_gists=echo,
        table_rows=rows,
        repeated_gists=repeated,
        bad_theme_names=[],
    )
    full = {s.pr.number: s for s in everything}
    history_share = {m: len(v) / n for m, v in per_module.items()}
    for period in periods:
        stats = gather_fn(store, profile, repo, period)
        figures.windows.append(_window(stats, profile, sections, full, history_share))
        figures.bad_theme_names += [
            th.name["en"] for th in stats.themes if is_version_or_branch(th.name["en"])
        ]
    if sections:
        _kinds(figures, everything, sections)
    return figures


def _window(
    stats: DigestStats,
    profile: Profile,
    sections: Mapping[int, str] | None,
    full: Mapping[int, StoredPR],
    history_share: Mapping[str, float] | None = None,
) -> WindowFigures:
    """One window's figures; ``full`` holds every PR with its files and body (a digest reads neither)."""
    catch = profile.catch_all_module
    counts: Counter[str] = Counter(m for s in stats.prs for m in set(s.cls.modules) if m != catch)
    n = len(stats.prs)
    top = counts.most_common(1)[0] if counts else ("—", 0)
    key = [full[s.pr.number] for s in stats.prs if s.pr.number in stats.key]
    chores = [(s.pr.number, r) for s in key if (r := chore_reason(s.pr)) is not None]
    prose = [s for s in key if has_prose(s.pr.body)]
    deps = stats.flagged("dependency")
    versionless = [
        s.pr.number for s in deps if (f := s.cls.flag("dependency")) and is_versionless_dependency(f.evidence)
    ]
    noted = [s for s in key if sections and s.pr.number in sections]
    return WindowFigures(
        label=stats.period.label,
        n=n,
        themes=[th.name["en"] for th in stats.themes],
        top_module=(top[0], top[1] / n if n else 0.0),
        catch_all=sum(1 for s in stats.prs if s.cls.modules == [catch]),
        key=len(key),
        chores=chores,
        key_with_prose=len(prose),
        key_with_prose_gist=sum(1 for s in prose if s.cls.gist),
        dependency_entries=len(deps),
        versionless=versionless,
        user_facing_key=sum(1 for s in noted if sections and sections[s.pr.number] in USER_FACING),
        key_in_notes=len(noted),
        top_by_bots=sum(
            1 for s in stats.prs if top[0] in s.cls.modules and chore_reason(full[s.pr.number].pr) == "bot"
        ),
        top_history_share=(history_share or {}).get(top[0], 0.0),
    )


def _kinds(figures: RepoFigures, prs: Sequence[StoredPR], sections: Mapping[int, str]) -> None:
    right = total = 0
    confusion: dict[str, Counter[str]] = {}
    for s in prs:
        section = sections.get(s.pr.number)
        if section is None:
            continue
        total += 1
        right += s.cls.kind in SECTION_KINDS[section]
        confusion.setdefault(section, Counter())[s.cls.kind] += 1
    figures.kind_accuracy = right / total if total else None
    figures.kind_cited = total
    figures.kind_confusion = confusion


# -- report ------------------------------------------------------------------------------------------


def _f(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def report(results: Sequence[RepoFigures], per_window: bool = False) -> str:
    lines: list[str] = []
    for r in results:
        s = r.summary()
        lines.append(f"{r.repo} — profile {r.profile}, {r.prs} PRs, {s['windows']} of ≥ {MIN_WINDOW} PRs")
        lines.append(
            f"  themes: {s['themed_windows']} windows with a storyline ({_f(s['themed_share'], 2)}; target ≥ {MIN_THEMED})"
        )
        lines.append(
            f"  modules: {r.modules_declared} declared, {r.modules_used} with PRs (≤ {MAX_MODULES}); "
            f"{len(r.small_modules)} under 2% of PRs; windows with a module over 40%: {s['windows_over_40pct']} "
            f"(max {_f(s['max_window_share'], 2)}; {s['windows_over_40pct_by_size']} as likely from the module's "
            f"size alone, p ≥ {CHANCE}); catch-all {_f(s['catch_all_share'], 3)} (≤ {MAX_CATCH_ALL})"
        )
        lines.append(
            f"  coherence (module PRs in its main directory, mean): {_f(r.coherence, 3)} (≥ {MIN_COHERENCE})"
        )
        lines.append(
            f"  wording: echo gists {len(r.echo_gists)}, table rows {len(r.table_rows)}, "
            f"gists repeated word for word on {REPEATED}+ PRs {len(r.repeated_gists)}, "
            f"versionless dependency entries {s['versionless_dependency_entries']} of {s['dependency_entries']}, "
            f"version/branch theme names {len(r.bad_theme_names)}"
        )
        lines.append(
            f"  key PRs: chores {s['chore_key_prs']}; gist shown for key PRs with prose: "
            f"{_f(s['gist_shown_with_prose'], 2)} (≥ {MIN_GIST_SHOWN})"
        )
        if r.breaking is not None:
            flagged, right, cited, found = r.breaking
            lines.append(
                f"  breaking changes: {flagged} PRs flagged, {right} of them cited in the notes' breaking "
                f"sections; those sections cite {cited}, {found} flagged"
            )
        if r.kind_accuracy is not None:
            lines.append(
                f"  kinds against the release notes' sections: {_f(r.kind_accuracy)} of {r.kind_cited} cited PRs; "
                f"user-facing share of key PRs {_f(s['user_facing_key_share'])}"
            )
            for section, got in sorted(r.kind_confusion.items(), key=lambda kv: -sum(kv[1].values())):
                listed = ", ".join(f"{k} {n}" for k, n in got.most_common(5))
                lines.append(f"    {section:<17} {listed}")
        if per_window:
            for w in r.windows:
                lines.append(
                    f"    {w.label:<9} N={w.n:<4} top {w.top_module[0]} {w.top_module[1]:.0%}  "
                    f"catch-all {w.catch_all}  key {w.key} chores {len(w.chores)}  themes: {'; '.join(w.themes) or '—'}"
                )
                if w.top_module[1] > MAX_WINDOW_SHARE:
                    lines.append(_over_note(w))
            worst = sorted(r.coherence_by_module.items(), key=lambda kv: kv[1][1])[:8]
            lines.append(
                "    least coherent modules: " + "; ".join(f"{m} {d} {v:.2f} ({k})" for m, (d, v, k) in worst)
            )
            if r.bad_theme_names:
                lines.append(f"    version/branch theme names: {', '.join(r.bad_theme_names[:10])}")
        lines.append("")
    return "\n".join(lines)


def _over_note(w: WindowFigures) -> str:
    """Why a window is over the share: how full it would be by chance, and how much is bots' work."""
    k = round(w.top_module[1] * w.n)
    return (
        f"              over {MAX_WINDOW_SHARE:.0%}: {w.top_module[0]} holds {w.top_history_share:.0%} of the history; "
        f"{k}+ of {w.n} by chance p={w.top_chance:.1g}; {w.top_by_bots} of the {k} by bots"
    )


# -- running --------------------------------------------------------------------------------------


def repo_files(eval_dir: Path) -> dict[str, tuple[Path, Path]]:
    """OWNER/NAME → (its PR file, its notes file) for every dev repository."""
    out: dict[str, tuple[Path, Path]] = {}
    for path in sorted(eval_dir.glob("*.prs.jsonl.gz")):
        stem = path.name.removesuffix(".prs.jsonl.gz")
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            repo = json.loads(fh.readline())["repo"]
        out[repo] = (path, eval_dir / f"{stem}.notes.json")
    return out


ProfileFor = Callable[[PRStore, str], Profile]


def run(eval_dir: Path, db_path: Path, choice: str, only: Sequence[str] = ()) -> list[RepoFigures]:
    """Import every dev repository (or ``only`` these) with ``choice`` and measure each."""
    from bot.ingest.load import import_file
    from storage.db import connect

    files = repo_files(eval_dir)
    wanted = [r for r in files if not only or r in only]
    store = PRStore(connect(db_path, create=True))
    forced: Profile | None = None
    if choice != "auto":
        from classify.rules import load_profile

        forced = load_profile(choice)
    results = []
    for repo in wanted:
        prs_path, notes_path = files[repo]
        if forced is not None:
            import_file(store, forced, prs_path)
            profile = forced
        else:
            profile = _auto_import(store, prs_path, repo)
        notes = json.loads(notes_path.read_text(encoding="utf-8")) if notes_path.is_file() else []
        sections = kind_sections(notes) if repo_has_kind_sections(notes) else None
        figures = measure(store, profile, repo, sections)
        figures.breaking = breaking_figures(store.history(repo), breaking_cited(notes))
        results.append(figures)
    store.db.conn.close()
    return results


def repo_has_kind_sections(notes: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the notes file every PR under a kind of change (fastapi's do; xgboost's open with
    theme sections, wandb's cite a seventh of the PRs)."""
    named = Counter(s for rel in notes for s in rel.get("sections", {}))
    return (
        bool(named)
        and sum(n for s, n in named.items() if s in SECTION_KINDS) >= 0.9 * sum(named.values())
        and ("Translations" in named or "Internal" in named)
    )


def _auto_import(store: PRStore, prs_path: Path, repo: str) -> Profile:
    """Import as ``prdigest import`` does with no profile set (each repository its own, learned
    once its history is long enough), and return the profile the repository got."""
    from bot.config.repo_profiles import RepoProfiles, choose
    from bot.config.settings import Settings
    from bot.ingest.learn import after_write
    from bot.ingest.load import import_file

    settings = Settings(_env_file=None, prdigest_profile="", prdigest_rules=None, prdigest_repo_profiles=())
    result = import_file(store, RepoProfiles(settings, store.db), prs_path)
    for note in after_write(store, settings, sorted(result.repos)):
        print(f"learned_profiles: {note}", file=sys.stderr)
    return choose(settings, repo, store.db).profile


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL_DIR)
    ap.add_argument(
        "--profile", default="auto", help="auto (as a new user gets), a bundled name, or a TOML file"
    )
    ap.add_argument("--repo", action="append", default=[], help="only this dev repository (repeatable)")
    ap.add_argument("--db", type=Path, help="scratch cache (default: a temporary file)")
    ap.add_argument("--json", type=Path, help="also write the summaries as JSON here")
    ap.add_argument("--windows", action="store_true", help="print each window's figures")
    args = ap.parse_args(argv)
    if not (args.eval_dir / "README.md").is_file():
        print(f"learned_profiles: no eval-dev data at {args.eval_dir}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="prdigest-learned-") as tmp:
        results = run(args.eval_dir, args.db or Path(tmp) / "eval.db", args.profile, args.repo)
    print(report(results, args.windows))
    if args.json:
        args.json.write_text(json.dumps([r.summary() for r in results], indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
