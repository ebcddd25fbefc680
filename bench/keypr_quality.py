"""Benchmark: are prdigest's key PRs and themes the ones maintainers pick in their release notes?

    uv run --frozen python -m bench.keypr_quality [--eval-dir ../shared/eval-dev] [--profile generic]
                                                  [--json OUT] [--windows] [--themes]

Ground truth is ``../shared/eval-dev/`` (its README says how to measure): for each repository,
every PR merged on the default branch, and the release notes as PR numbers. For each release
window (a release cut from the default branch, with a previous release on that branch):

- N = the window's PRs, C = those its notes cite, H = those of C in highlight sections;
- K = prdigest's key PRs of one date-range digest over the window (the profile's usual share);
- precision |K∩C|/|K|, base rate |C|/N, lift = precision/base, recall |K∩C|/|C|,
  highlight recall |K∩H|/|H|, and highlight R-precision: of the window's |H| highest-ranked PRs
  (the order key PRs are picked in), the share in H;
- theme recovery per highlight section S: the digest theme holding most of S, recovered when it
  holds ≥ 60% of S while staying focused (at most 2·|S| PRs).

The same figures are computed in the same run for the naive baseline of the eval-dev README
("largest diff first": the 12% of PRs with the most lines changed, rounded, at least one, ties
to the lower number). Means are over windows; pooled figures sum the counts over windows.

The PR files are imported into a scratch cache (a temporary directory unless ``--db``) and
classified with the chosen profile (``generic`` by default: these are not vLLM). Not a test:
nothing here asserts; ``tests/bench/test_keypr_quality.py`` checks the arithmetic.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bot.ingest.load import import_file
from classify.rules import Profile, load_profile
from commands.common import ranked_numbers
from commands.period import Period
from commands.report.stats import DigestStats, gather
from commands.report.themes import Theme
from storage.db import connect
from storage.prs import PRStore

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_EVAL_DIR = ROOT.parent / "shared" / "eval-dev"
BASELINE_SHARE = 0.12
RECOVERED_SHARE = 0.6
FOCUS_FACTOR = 2.0


# -- ground truth ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvalWindow:
    """One release window: its PRs (N), the cited ones (C), highlights (H) and highlight sections."""

    repo: str
    release: str
    start: datetime  # exclusive, as in the notes
    end: datetime  # inclusive
    prs: frozenset[int]
    cited: frozenset[int]
    highlights: frozenset[int]
    sections: dict[str, frozenset[int]]


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def load_windows(eval_dir: Path) -> list[EvalWindow]:
    """Every measurable window of every ``*.notes.json`` with its ``*.prs.jsonl.gz`` beside it."""
    out: list[EvalWindow] = []
    for notes_path in sorted(eval_dir.glob("*.notes.json")):
        stem = notes_path.name.removesuffix(".notes.json")
        merged: dict[int, datetime] = {}
        repo = ""
        with gzip.open(eval_dir / f"{stem}.prs.jsonl.gz", "rt", encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rec = json.loads(line)
                    repo = rec["repo"]
                    merged[int(rec["number"])] = _parse_time(rec["merged_at"])
        for rel in json.loads(notes_path.read_text(encoding="utf-8")):
            if not rel.get("from_main") or not rel.get("window_start") or not rel.get("window_start_at"):
                continue
            start, end = _parse_time(rel["window_start_at"]), _parse_time(rel["window_end_at"])
            prs = frozenset(n for n, at in merged.items() if start < at <= end)
            sections = {name: frozenset(nums) & prs for name, nums in rel["sections"].items()}
            cited = frozenset().union(*sections.values()) if sections else frozenset()
            highlight = [s for s in rel.get("highlight_sections", []) if s in sections]
            hl = frozenset().union(*(sections[s] for s in highlight)) if highlight else frozenset()
            out.append(
                EvalWindow(
                    repo=repo,
                    release=rel["release"],
                    start=start,
                    end=end,
                    prs=prs,
                    cited=cited,
                    highlights=hl,
                    sections={s: sections[s] for s in highlight},
                )
            )
    return out


# -- measures --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Picks:
    """What one method picked in one window: key PRs, the full ranking, and themes (if any)."""

    key: frozenset[int]
    ranking: tuple[int, ...]
    themes: tuple[tuple[str, frozenset[int]], ...] = ()


@dataclass(frozen=True)
class Recovery:
    section: str
    size: int
    theme: str | None
    held: int
    theme_size: int

    @property
    def share(self) -> float:
        return self.held / self.size if self.size else 0.0

    @property
    def recovered(self) -> bool:
        return self.share >= RECOVERED_SHARE and self.theme_size <= FOCUS_FACTOR * self.size


@dataclass
class Counts:
    """The counts behind every figure, so windows can be averaged or pooled."""

    n: int = 0
    k: int = 0
    c: int = 0
    h: int = 0
    kc: int = 0
    kh: int = 0
    rh: int = 0  # PRs of H among the |H| best-ranked

    def __iadd__(self, o: Counts) -> Counts:
        for name in ("n", "k", "c", "h", "kc", "kh", "rh"):
            setattr(self, name, getattr(self, name) + getattr(o, name))
        return self

    def figures(self) -> dict[str, float | None]:
        def div(a: int, b: int) -> float | None:
            return a / b if b else None

        precision, base = div(self.kc, self.k), div(self.c, self.n)
        precision_h, base_h = div(self.kh, self.k), div(self.h, self.n)
        return {
            "precision": precision,
            "base": base,
            "lift": precision / base if precision is not None and base else None,
            "recall": div(self.kc, self.c),
            "highlight_recall": div(self.kh, self.h),
            "highlight_r_precision": div(self.rh, self.h),
            "precision_h": precision_h,
            "base_h": base_h,
            "lift_h": precision_h / base_h if precision_h is not None and base_h else None,
        }


def counts(window: EvalWindow, picks: Picks) -> Counts:
    h = len(window.highlights)
    top = set(picks.ranking[:h])
    return Counts(
        n=len(window.prs),
        k=len(picks.key),
        c=len(window.cited),
        h=h,
        kc=len(picks.key & window.cited),
        kh=len(picks.key & window.highlights),
        rh=len(top & window.highlights),
    )


def recovery(window: EvalWindow, picks: Picks) -> list[Recovery]:
    """For each highlight section, the theme holding most of it (recovered ones preferred)."""
    out = []
    for name, section in window.sections.items():
        best: Recovery | None = None
        for title, members in picks.themes:
            r = Recovery(name, len(section), title, len(members & section), len(members))
            if best is None or (r.recovered, r.held, -r.theme_size) > (
                best.recovered,
                best.held,
                -best.theme_size,
            ):
                best = r
        out.append(best or Recovery(name, len(section), None, 0, 0))
    return out


def largest_diff(sizes: dict[int, int], share: float = BASELINE_SHARE) -> Picks:
    """The eval-dev README's naive baseline: most lines changed first, ties to the lower number."""
    ranking = tuple(sorted(sizes, key=lambda n: (-sizes[n], n)))
    k = max(1, round(len(sizes) * share)) if sizes else 0
    return Picks(key=frozenset(ranking[:k]), ranking=ranking)


def mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


# -- running prdigest over the windows ------------------------------------------------------------


def window_period(window: EvalWindow) -> Period:
    """The window as a digest period: merged_at has whole seconds, so (start, end] = [start+1s, end+1s)."""
    second = timedelta(seconds=1)
    return Period(window.start + second, window.end + second, window.release, "range")


def prdigest_picks(stats: DigestStats, themes: Sequence[Theme]) -> Picks:
    return Picks(
        key=frozenset(stats.key),
        ranking=tuple(ranked_numbers(stats.prs)),
        themes=tuple((th.name["en"], frozenset(s.pr.number for s in th.prs)) for th in themes),
    )


@dataclass
class WindowResult:
    window: EvalWindow
    methods: dict[str, Counts]
    recoveries: list[Recovery] = field(default_factory=list)
    themes: list[tuple[str, int]] = field(default_factory=list)


def evaluate(
    store: PRStore, profile: Profile | Mapping[str, Profile], windows: Sequence[EvalWindow]
) -> list[WindowResult]:
    """prdigest and the baseline over every window (the cache must hold the windows' PRs);
    ``profile``: one for every repository, or each repository's."""
    out = []
    for w in windows:
        used = profile[w.repo] if isinstance(profile, Mapping) else profile
        stats = gather(store, used, w.repo, window_period(w))
        missing = w.prs - {s.pr.number for s in stats.prs}
        if missing:
            raise SystemExit(f"{w.repo} {w.release}: {len(missing)} PRs of the window are not in the cache")
        themes = stats.themes
        ours = prdigest_picks(stats, themes)
        base = largest_diff({s.pr.number: s.pr.additions + s.pr.deletions for s in stats.prs})
        out.append(
            WindowResult(
                window=w,
                methods={"prdigest": counts(w, ours), "largest-diff": counts(w, base)},
                recoveries=recovery(w, ours),
                themes=[(th.name["en"], len(th.prs)) for th in themes],
            )
        )
    return out


def summary(results: Sequence[WindowResult]) -> dict[str, Any]:
    """Per repository and method: mean figures over windows and pooled figures."""
    out: dict[str, Any] = {}
    for repo in dict.fromkeys(r.window.repo for r in results):
        mine = [r for r in results if r.window.repo == repo]
        per_method: dict[str, Any] = {}
        for method in mine[0].methods:
            figs = [r.methods[method].figures() for r in mine]
            pooled = Counts()
            for r in mine:
                pooled += r.methods[method]
            per_method[method] = {
                "windows": len(mine),
                "mean": {k: mean(f[k] for f in figs) for k in figs[0]},
                "pooled": pooled.figures(),
            }
        recs = [rc for r in mine for rc in r.recoveries]
        out[repo] = {
            "methods": per_method,
            "themes": [
                {
                    "release": r.window.release,
                    "section": rc.section,
                    "size": rc.size,
                    "theme": rc.theme,
                    "held": rc.held,
                    "theme_size": rc.theme_size,
                    "share": round(rc.share, 3),
                    "recovered": rc.recovered,
                }
                for r in mine
                for rc in r.recoveries
            ],
            "sections_recovered": f"{sum(rc.recovered for rc in recs)}/{len(recs)}",
        }
    return out


# -- report ----------------------------------------------------------------------------------------


def _f(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def report(results: Sequence[WindowResult], per_window: bool, themes: bool) -> str:
    lines: list[str] = []
    data = summary(results)
    cols = ("precision", "base", "lift", "recall", "highlight_recall", "highlight_r_precision")
    head = ["precision", "base", "lift", "recall", "hl recall", "hl R-prec"]
    for repo, info in data.items():
        n_win = next(iter(info["methods"].values()))["windows"]
        lines.append(f"{repo}: {n_win} windows")
        lines.append(f"  {'method':<24}" + "".join(f"{h:>11}" for h in head))
        for method, figs in info["methods"].items():
            for how in ("mean", "pooled"):
                row = figs[how]
                lines.append(
                    f"  {method + ' (' + how + ')':<24}" + "".join(f"{_f(row[c]):>11}" for c in cols)
                )
        has_h = any(r.window.highlights for r in results if r.window.repo == repo)
        if has_h:
            lines.append("  against H (highlights only):")
            for method, figs in info["methods"].items():
                row = figs["mean"]
                lines.append(
                    f"    {method:<22} precision {_f(row['precision_h'])}  base {_f(row['base_h'])}"
                    f"  lift {_f(row['lift_h'], 2)}"
                )
        if info["themes"]:
            lines.append(
                f"  theme recovery (≥ 60% of a section in one theme of ≤ 2× its size): {info['sections_recovered']}"
            )
            for t in info["themes"]:
                mark = "yes" if t["recovered"] else "no "
                theme = f"{t['theme']!r} ({t['theme_size']} PRs)" if t["theme"] else "—"
                lines.append(
                    f"    {mark} {t['release']:<7} {t['section'][:42]:<42} {t['held']:>3}/{t['size']:<3}"
                    f" {t['share']:>5.0%}  in {theme}"
                )
        if per_window:
            lines.append(
                "  per window (prdigest lift | baseline lift | prdigest hl R-prec | baseline hl R-prec):"
            )
            for r in results:
                if r.window.repo != repo:
                    continue
                a, b = r.methods["prdigest"].figures(), r.methods["largest-diff"].figures()
                lines.append(
                    f"    {r.window.release:<8} N={len(r.window.prs):<4} |C|={len(r.window.cited):<4}"
                    f" lift {_f(a['lift'], 2):>5} | {_f(b['lift'], 2):>5}"
                    f"   R-prec {_f(a['highlight_r_precision'], 2):>5} | {_f(b['highlight_r_precision'], 2):>5}"
                )
        if themes:
            for r in results:
                if r.window.repo == repo:
                    listed = "; ".join(f"{name} ({n})" for name, n in r.themes)
                    lines.append(f"    themes {r.window.release}: {listed}")
        lines.append("")
    return "\n".join(lines)


def build_cache(eval_dir: Path, profile: Profile, db_path: Path) -> PRStore:
    store = PRStore(connect(db_path, create=True))
    for path in sorted(eval_dir.glob("*.prs.jsonl.gz")):
        import_file(store, profile, path)
    return store


def _auto_cache(eval_dir: Path, db_path: Path) -> tuple[PRStore, dict[str, Profile]]:
    """Every dev repository imported with no profile set (``bench.learned_profiles``), and the
    profile each got."""
    from bench.learned_profiles import _auto_import, repo_files

    store = PRStore(connect(db_path, create=True))
    chosen = {repo: _auto_import(store, prs, repo) for repo, (prs, _) in repo_files(eval_dir).items()}
    return store, chosen


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL_DIR)
    ap.add_argument(
        "--profile",
        default="generic",
        help="bundled profile name, TOML path, or auto (each repository its learned profile); default: generic",
    )
    ap.add_argument("--db", type=Path, help="scratch cache to (re)use; default: a temporary file")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON here")
    ap.add_argument("--windows", action="store_true", help="print each window's figures")
    ap.add_argument("--themes", action="store_true", help="print each window's themes")
    args = ap.parse_args(argv)
    if not (args.eval_dir / "README.md").is_file():
        print(f"keypr_quality: no eval-dev data at {args.eval_dir}", file=sys.stderr)
        return 2
    windows = load_windows(args.eval_dir)
    with tempfile.TemporaryDirectory(prefix="prdigest-keypr-") as tmp:
        db_path = args.db or Path(tmp) / "eval.db"
        if (
            args.profile == "auto"
        ):  # as a new user gets it: each repository a profile learned from its history
            store, chosen = _auto_cache(args.eval_dir, db_path)
            results = evaluate(store, chosen, windows)
            shown = ", ".join(f"{repo}: {p.name} {p.version}" for repo, p in chosen.items())
        else:
            profile = load_profile(args.profile)
            store = build_cache(args.eval_dir, profile, db_path)
            results = evaluate(store, profile, windows)
            shown = f"{profile.name} {profile.version}; key share {profile.key_share:g}, min score {profile.key_min_score:g}"
        store.db.conn.close()
    print(f"profile {shown}")
    print(report(results, args.windows, args.themes))
    if args.json:
        args.json.write_text(json.dumps(summary(results), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
