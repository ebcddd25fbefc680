"""bench/learned_profiles.py: the judge's checks on hand-made cases, the windows it measures, and
the figures of one small synthetic repository imported as a new user would (a profile learned)."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

from bench import learned_profiles as lp
from classify.models import FileChange

START = datetime(2025, 1, 6, 10, tzinfo=UTC)


def test_echoes_table_rows_and_versionless_entries_are_recognised() -> None:
    assert lp.is_echo("Add the polymorphic_serialization option.", "Add `polymorphic_serialization` option")
    assert lp.is_echo("Bump PyO3 to 0.28, jiter to 0.13", "Bump PyO3 to 0.28, jiter to 0.13")
    assert not lp.is_echo("Lets a model declare how its subclasses are serialised.", "Add polymorphic option")
    assert lp.is_table_row("DFlash | 9 | 2475 → 2904 | +17.33% | 2649 → 3213 | +21.29% | 3.46 → 3.25")
    assert not lp.is_table_row(
        "UP007 turns Union[X, Y] into X | Y, and UP045 turns Optional[X] into X | None."
    )
    assert lp.is_versionless_dependency(["pydantic-core/package.json", "setup.py"])
    assert not lp.is_versionless_dependency(["xgrammar 0.1.29 → 0.2.0"])
    assert not lp.is_versionless_dependency(["uv.lock refreshed"])


def test_version_and_branch_names_are_recognised() -> None:
    for bad in ("v2.13.0b3", "main", "cherry-pick", "patch", "release/2.1"):
        assert lp.is_version_or_branch(bad), bad
    for good in ("E2E", "DDP", "Qwen models", "Speculative decoding"):
        assert not lp.is_version_or_branch(good), good


def _pr(title: str, paths: list[str], author: str = "dev") -> SimpleNamespace:
    return SimpleNamespace(title=title, author=author, files=[FileChange(path=p) for p in paths])


def test_chores_are_recognised_apart_from_the_products_rules() -> None:
    assert lp.chore_reason(_pr("Bump x from 1 to 2", ["requirements.txt"], "dependabot[bot]")) == "bot"
    assert lp.chore_reason(_pr("🌐 Add Korean translation", ["docs/ko/a.md"])) == "translation"
    assert lp.chore_reason(_pr("Fix typo", ["src/a.py"])) == "typo"
    assert lp.chore_reason(_pr("🔖 Release version 0.140.0", ["fastapi/__init__.py"])) == "own version"
    assert lp.chore_reason(_pr("chore: bump go version from 1.23.4 -> 1.23.6", [".go-version"])) is None
    assert lp.chore_reason(_pr("Refresh", ["uv.lock"])) == "lockfile"
    assert lp.chore_reason(_pr("Rewrite the guide", ["docs/guide.md", "README.md"])) == "docs only"
    assert lp.chore_reason(_pr("Add a feature", ["src/a.py", "docs/a.md"])) is None


def test_windows_are_weeks_or_months_of_at_least_fifteen_prs() -> None:
    busy = [START + timedelta(hours=6 * i) for i in range(4 * 7 * 4)]  # 28 a week for four weeks
    unit, periods = lp.windows(busy)
    assert unit == "weeks" and len(periods) == 4 and all(p.kind == "iso-week" for p in periods)
    quiet = [START + timedelta(days=i) for i in range(120)]  # 7 a week: calendar months instead
    unit, periods = lp.windows(quiet)
    assert unit == "months" and [p.label for p in periods] == ["2025-01", "2025-02", "2025-03", "2025-04"]
    assert lp.windows([START])[1] == []  # a window of one PR is not measured


def test_a_modules_main_directory_is_the_one_most_of_its_prs_touch() -> None:
    assert lp.main_directory([["src/a/x.py"], ["src/a/y.py", "README.md"], ["src/b/z.py"]]) == ("src", 1.0)
    assert lp.main_directory([["src/a/x.py"], ["src/a/y.py"], ["docs/z.md"]]) == ("src/a", 2 / 3)
    assert lp.main_directory([["pyproject.toml"], ["uv.lock"]]) == ("(root)", 1.0)


def _records(path: Path, n: int) -> Path:
    rows = []
    areas = ("app/parser/lex.py", "app/render/draw.py", "docs/guide.md", "app/io/read.py")
    for i in range(n):
        area = areas[i % len(areas)]
        rows.append(
            {
                "repo": "acme/app",
                "number": i + 1,
                "title": f"Work on {area.split('/')[1]} case {i}",
                "merged_at": (START + timedelta(hours=5 * i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "files": [{"path": area, "additions": 40}],
                "additions": 40,
            }
        )
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_synthetic_repository_imported_as_a_new_user_would_meets_the_thresholds(tmp_path: Path) -> None:
    eval_dir = tmp_path / "eval"
    eval_dir.mkdir()
    _records(eval_dir / "acme__app.prs.jsonl.gz", 240)
    (eval_dir / "acme__app.notes.json").write_text("[]", encoding="utf-8")
    (result,) = lp.run(eval_dir, tmp_path / "c.db", "auto")
    s = result.summary()
    assert result.profile.startswith("learned ")
    assert s["catch_all_share"] == 0 and s["modules_under_2pct"] == 0 and result.coherence == 1.0
    assert s["echo_gists"] == 0 and s["table_rows"] == 0 and s["kind_accuracy"] is None
    assert s["repeated_gists"] == 0
    assert result.unit == "weeks" and len(result.windows) == 7
    report = lp.report([result], per_window=True)
    assert "acme/app — profile learned" in report and "themes:" in report


def test_the_chance_of_a_full_window_separates_a_burst_from_a_coarse_module() -> None:
    # by hand: P(X >= 2) for X ~ Binomial(3, 0.5) = (3 + 1) / 8
    assert lp.binomial_tail(3, 2, 0.5) == 0.5
    assert lp.binomial_tail(10, 0, 0.1) == 1.0
    coarse = lp.binomial_tail(20, 9, 0.4)  # a module with 40% of the history fills 9 of 20 often
    burst = lp.binomial_tail(20, 9, 0.05)  # one with 5% does so only in a week of its own
    assert coarse > lp.CHANCE > burst
    week = lp.WindowFigures(
        label="2026-W19",
        n=20,
        themes=[],
        top_module=("deps", 0.45),
        catch_all=0,
        key=0,
        chores=[],
        key_with_prose=0,
        key_with_prose_gist=0,
        dependency_entries=9,
        versionless=[],
        top_by_bots=8,
        top_history_share=0.05,
    )
    assert week.top_chance == burst
    assert "deps holds 5% of the history; 9+ of 20 by chance p=" in lp._over_note(week)
    assert lp._over_note(week).endswith("8 of the 9 by bots")


def test_breaking_flags_are_judged_against_the_notes_breaking_sections() -> None:
    notes = [{"sections": {"Removed": [1, 2], "Fixed": [3], "Breaking Changes": ["4"]}}]
    assert lp.breaking_cited(notes) == {1, 2, 4}
    prs = [
        SimpleNamespace(pr=SimpleNamespace(number=n), cls=SimpleNamespace(flag_kinds=flags))
        for n, flags in ((1, ["breaking"]), (2, []), (3, ["breaking"]), (5, ["large"]))
    ]
    # flagged 1 and 3; 1 is cited; the sections cite 1, 2 (4 is not in the cache); 1 of them flagged
    assert lp.breaking_figures(prs, lp.breaking_cited(notes)) == (2, 1, 2, 1)  # type: ignore[arg-type]
    assert lp.breaking_figures(prs, set()) is None  # type: ignore[arg-type]
