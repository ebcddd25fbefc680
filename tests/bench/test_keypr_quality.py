"""bench/keypr_quality.py: its measures on hand-made picks, a run on a tiny synthetic eval set, and
(when ../shared/eval-dev is there) the figures on the real release notes."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bench import keypr_quality as kq

START = datetime(2025, 1, 1, tzinfo=UTC)


def window(prs: set[int], cited: set[int], highlights: dict[str, set[int]]) -> kq.EvalWindow:
    hl = frozenset().union(*highlights.values()) if highlights else frozenset()
    return kq.EvalWindow(
        repo="o/a",
        release="1.1.0",
        start=START,
        end=START + timedelta(days=10),
        prs=frozenset(prs),
        cited=frozenset(cited | hl),
        highlights=hl,
        sections={k: frozenset(v) for k, v in highlights.items()},
    )


def test_counts_and_figures_follow_the_eval_dev_readme() -> None:
    w = window(set(range(1, 21)), {1, 2, 3, 4}, {"Speed": {5, 6}})  # N 20, C 6, H 2
    picks = kq.Picks(key=frozenset({1, 5, 7}), ranking=(5, 8, 1, 2))
    c = kq.counts(w, picks)
    assert (c.n, c.k, c.c, c.h, c.kc, c.kh, c.rh) == (20, 3, 6, 2, 2, 1, 1)
    f = c.figures()
    assert f["precision"] == pytest.approx(2 / 3) and f["base"] == pytest.approx(6 / 20)
    assert f["lift"] == pytest.approx((2 / 3) / (6 / 20))
    assert f["recall"] == pytest.approx(2 / 6) and f["highlight_recall"] == pytest.approx(1 / 2)
    assert f["highlight_r_precision"] == pytest.approx(1 / 2)  # of the 2 best-ranked, 5 is in H
    assert f["precision_h"] == pytest.approx(1 / 3) and f["lift_h"] == pytest.approx((1 / 3) / (2 / 20))


def test_figures_without_highlights_or_citations_are_not_made_up() -> None:
    f = kq.counts(window({1, 2}, set(), {}), kq.Picks(key=frozenset({1}), ranking=(1, 2))).figures()
    assert f["highlight_recall"] is None and f["highlight_r_precision"] is None
    assert f["base"] == 0 and f["lift"] is None and f["recall"] is None


def test_pooled_figures_sum_the_counts_and_means_average_windows() -> None:
    a, b = kq.Counts(n=10, k=1, c=5, kc=1), kq.Counts(n=30, k=3, c=3, kc=0)
    pooled = kq.Counts()
    pooled += a
    pooled += b
    assert pooled.figures()["precision"] == pytest.approx(1 / 4)
    assert kq.mean([a.figures()["precision"], b.figures()["precision"], None]) == pytest.approx(0.5)


def test_largest_diff_baseline() -> None:
    sizes = {n: 100 - n for n in range(1, 21)}
    sizes[7] = sizes[3] = 500  # a tie goes to the lower number
    base = kq.largest_diff(sizes)
    assert base.ranking[:3] == (3, 7, 1) and base.key == {3, 7}  # 12% of 20 = 2.4 → 2
    assert kq.largest_diff({5: 1}).key == {5}  # at least one
    assert kq.largest_diff({}).key == frozenset()


def test_theme_recovery_needs_most_of_the_section_in_a_focused_theme() -> None:
    w = window(set(range(1, 41)), set(), {"External Memory": {1, 2, 3, 4, 5}, "SYCL": {10, 11, 12}})
    themes = (
        ("EM", frozenset({1, 2, 3, 20})),  # 3 of 5 = 60%, 4 PRs ≤ 10: recovered
        ("Everything", frozenset(range(1, 30))),  # all of SYCL, but 29 PRs > 2 × 3
        ("Half SYCL", frozenset({10})),
    )
    em, sycl = kq.recovery(w, kq.Picks(key=frozenset(), ranking=(), themes=themes))
    assert (em.theme, em.held, em.size, em.theme_size, em.recovered) == ("EM", 3, 5, 4, True)
    assert (sycl.theme, sycl.held, sycl.recovered) == ("Everything", 3, False)
    none = kq.recovery(w, kq.Picks(key=frozenset(), ranking=()))
    assert [(r.theme, r.held, r.recovered) for r in none] == [(None, 0, False), (None, 0, False)]


def _write_eval_dir(root: Path) -> None:
    """Two releases of o/a: 1.0 (no earlier release: no window) and 1.1 over 24 PRs."""
    records = []
    for n in range(1, 25):
        series = n <= 4
        title = f"[EM] Page cache step {n}" if series else f"chore: tidy module q{n}"
        path = f"src/data/cache{n % 2}.cc" if series else f"src/misc/m{n}.py"
        size = 40 if series else 10 + n
        merged = START + timedelta(days=1, hours=n)
        records.append(
            {
                "repo": "o/a",
                "number": n,
                "title": title,
                "body": "",
                "author": "dev",
                "merged_at": merged.isoformat().replace("+00:00", "Z"),
                "files": [{"path": path, "additions": size, "deletions": 0}],
                "additions": size,
                "deletions": 0,
                "url": f"https://github.com/o/a/pull/{n}",
            }
        )
    records.append({**records[0], "number": 99, "merged_at": "2024-06-01T00:00:00Z"})  # before the window
    with gzip.open(root / "o__a.prs.jsonl.gz", "wt", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
    at = lambda d: (START + timedelta(days=d)).isoformat()  # noqa: E731
    notes: list[dict[str, Any]] = [
        {"release": "1.0.0", "date": "2025-01-01", "window_start": None, "from_main": True,
         "sections": {"Changes": [99]}, "highlight_sections": []},
        {"release": "1.1.0", "date": "2025-01-10", "window_start": "2025-01-01", "from_main": True,
         "window_start_at": at(0), "window_end_at": at(9),
         "sections": {"Page Cache": [1, 2, 3, 4], "Other": [24, 99]}, "highlight_sections": ["Page Cache"]},
        {"release": "1.0.1", "date": "2025-01-05", "window_start": None, "from_main": False,
         "sections": {"Changes": [5]}, "highlight_sections": []},
    ]  # fmt: skip
    (root / "o__a.notes.json").write_text(json.dumps(notes), encoding="utf-8")
    (root / "README.md").write_text("synthetic eval-dev\n", encoding="utf-8")


def test_the_bench_runs_end_to_end_on_a_tiny_synthetic_eval_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_eval_dir(tmp_path)
    (w,) = kq.load_windows(tmp_path)
    assert (w.release, len(w.prs), w.cited, w.highlights) == ("1.1.0", 24, {1, 2, 3, 4, 24}, {1, 2, 3, 4})
    assert w.sections == {"Page Cache": frozenset({1, 2, 3, 4})}
    out_json = tmp_path / "figures.json"
    assert kq.main(["--eval-dir", str(tmp_path), "--json", str(out_json), "--windows", "--themes"]) == 0
    printed = capsys.readouterr().out
    assert "o/a: 1 windows" in printed and "largest-diff" in printed and "theme recovery" in printed
    figures = json.loads(out_json.read_text())["o/a"]
    base = figures["methods"]["largest-diff"]["pooled"]
    # 12% of 24 → 3 largest: the 40-line series PRs 1–3 (ties to the lower number), all cited
    assert base["precision"] == 1.0 and base["recall"] == pytest.approx(3 / 5)
    assert base["highlight_r_precision"] == 1.0  # the four largest are the series
    ours = figures["methods"]["prdigest"]["pooled"]
    assert ours["lift"] == pytest.approx(ours["precision"] / ours["base"])
    assert ours["base"] == pytest.approx(5 / 24)
    (section,) = figures["themes"]
    assert section["section"] == "Page Cache" and section["recovered"] and section["held"] == 4


def test_a_missing_eval_dir_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert kq.main(["--eval-dir", str(tmp_path / "nowhere")]) == 2
    assert "no eval-dev data" in capsys.readouterr().err


@pytest.fixture(scope="module")
def real_figures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not (kq.DEFAULT_EVAL_DIR / "README.md").is_file():
        pytest.skip(f"release-note ground truth not found at {kq.DEFAULT_EVAL_DIR} (../shared/eval-dev)")
    out = tmp_path_factory.mktemp("kq") / "figures.json"
    assert kq.main(["--json", str(out)]) == 0
    figures: dict[str, Any] = json.loads(out.read_text())
    return figures


def test_the_baseline_matches_the_eval_dev_readme(real_figures: dict[str, Any]) -> None:
    wandb = real_figures["wandb/wandb"]["methods"]["largest-diff"]["mean"]
    assert (round(wandb["precision"], 3), round(wandb["base"], 3), round(wandb["lift"], 2)) == (
        0.198,
        0.142,
        1.61,
    )
    xgb = real_figures["dmlc/xgboost"]["methods"]["largest-diff"]["mean"]
    assert round(xgb["highlight_recall"], 3) == 0.234


def test_key_prs_and_themes_on_the_real_release_notes(real_figures: dict[str, Any]) -> None:
    wandb = real_figures["wandb/wandb"]["methods"]
    assert wandb["prdigest"]["mean"]["lift"] >= 3.0 > wandb["largest-diff"]["mean"]["lift"]
    xgb = real_figures["dmlc/xgboost"]
    ours, base = xgb["methods"]["prdigest"]["mean"], xgb["methods"]["largest-diff"]["mean"]
    assert ours["highlight_r_precision"] >= base["highlight_r_precision"] + 0.2
    recovered = {(t["release"], t["section"]) for t in xgb["themes"] if t["recovered"]}
    assert {
        ("3.0.0", "External Memory Support"),
        ("3.0.0", "SYCL"),
        ("3.1.0", "Categorical Re-coder"),
        ("3.1.0", "External Memory"),
    } <= recovered
