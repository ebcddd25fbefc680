"""Each repository its own profile: learned at the first import with enough history, learned again
when the history has grown by a quarter (module ids kept, everything derived from the old
classifications out of date, reclassified without network), never instead of a configured one,
and the generic profile — said so — below the minimum. Through the real ``prdigest`` executable
where the user sees the outcome (``import``, ``pr``, ``digest``, ``profile learn``)."""

from __future__ import annotations

import itertools
import json
import sqlite3
import subprocess
import tomllib
from collections.abc import Sequence
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.config.read_settings import ReadSettings
from bot.config.repo_profiles import MIN_LEARN_PRS, RepoProfiles, choose
from bot.ingest.learn import after_write, learn_if_due
from bot.ingest.load import import_file
from storage.db import connect
from storage.learned import read_learned
from storage.prs import PRStore
from storage.storylines import generation
from tests.bot.cli.procs import clean_env, prdigest

REPO = "acme/widget"
START = datetime(2025, 3, 3, 9, tzinfo=UTC)
_numbers = itertools.count(1)
AREAS = (
    ("widget/parser/lexer.py", "[Parser] Handle"),
    ("widget/render/canvas.py", "feat(render): draw"),
    ("widget/io/reader.py", "Read faster"),
    ("docs/guide.md", "docs: explain"),
)


def records(n: int, repo: str = REPO, start: int = 0) -> list[dict[str, Any]]:
    """``n`` merged PRs spread over four areas, one every six hours (numbers from ``start`` + 1)."""
    out = []
    for i in range(start, start + n):
        path, title = AREAS[i % len(AREAS)]
        out.append(
            {
                "repo": repo,
                "number": i + 1,
                "title": f"{title} case {i}",
                "merged_at": (START + timedelta(hours=6 * i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "files": [{"path": path, "additions": 30, "deletions": 5}],
                "additions": 30,
                "deletions": 5,
            }
        )
    return out


def write(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def settings(**values: Any) -> ReadSettings:
    return ReadSettings(**values)


def imported(store: PRStore, path: Path, chosen: ReadSettings) -> list[str]:
    result = import_file(store, RepoProfiles(chosen, store.db), path)
    return after_write(store, chosen, sorted(result.repos), workers=1)


def classified_by(db: Path) -> set[tuple[str, str]]:
    with closing(sqlite3.connect(db)) as conn:
        return {(r[0], r[1]) for r in conn.execute("SELECT DISTINCT profile, profile_version FROM prs")}


def test_too_little_history_keeps_the_generic_profile_and_says_so(tmp_path: Path) -> None:
    store = PRStore(connect(tmp_path / "c.db", create=True))
    said = imported(store, write(tmp_path / "few.jsonl", records(MIN_LEARN_PRS - 1)), settings())
    assert said == [
        f"{REPO}: {MIN_LEARN_PRS - 1} PRs cached, fewer than the {MIN_LEARN_PRS} a profile of its own is "
        "learned from; the generic profile answers until then"
    ]
    assert read_learned(store.db, REPO) is None
    choice = choose(settings(), REPO, store.db)
    assert (choice.how, choice.profile.name, choice.prs) == ("too-few", "generic", MIN_LEARN_PRS - 1)


def test_the_first_import_with_enough_history_learns_and_reclassifies(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    store = PRStore(connect(db, create=True))
    before = generation(store.db)
    said = imported(store, write(tmp_path / "all.jsonl", records(MIN_LEARN_PRS)), settings())
    assert len(said) == 1 and said[0].startswith(f"{REPO}: profile learned from {MIN_LEARN_PRS} PRs")
    row = read_learned(store.db, REPO)
    assert row is not None and row.prs == MIN_LEARN_PRS
    assert generation(store.db) > before
    learned = tomllib.loads(row.toml)
    assert {"parser", "render", "io"} <= set(learned["modules"])
    assert classified_by(db) == {("learned", learned["version"])}  # every PR, without network
    parser = store.get(REPO, 1)
    assert parser is not None and parser.cls.modules == ["parser"]


def test_growth_by_a_quarter_learns_again_and_keeps_module_ids(tmp_path: Path) -> None:
    store = PRStore(connect(tmp_path / "c.db", create=True))
    imported(store, write(tmp_path / "a.jsonl", records(MIN_LEARN_PRS)), settings())
    first = read_learned(store.db, REPO)
    assert first is not None
    # a team renames a module in place (the cache's copy, as a re-learn reads it)
    renamed = first.toml.replace("[modules.parser]", "[modules.lexing]")
    with store.db.conn:
        store.db.conn.execute("UPDATE learned_profiles SET toml = ? WHERE repo = ?", (renamed, REPO))
    small = records(MIN_LEARN_PRS // 4 - 1, start=MIN_LEARN_PRS)
    imported(store, write(tmp_path / "b.jsonl", small), settings())
    assert learn_if_due(store, settings(), REPO).outcome == "current"  # grown by less than a quarter
    assert read_learned(store.db, REPO).toml == renamed  # type: ignore[union-attr]
    before = generation(store.db)
    more = records(5, start=MIN_LEARN_PRS + len(small))
    said = imported(store, write(tmp_path / "c.jsonl", more), settings())
    assert said and "profile learned again from" in said[0]
    again = read_learned(store.db, REPO)
    assert again is not None and again.prs == MIN_LEARN_PRS + len(small) + 5
    modules = tomllib.loads(again.toml)["modules"]
    assert "lexing" in modules and "parser" not in modules  # the directory's id kept
    assert generation(store.db) > before
    item = store.get(REPO, 1)
    assert item is not None and item.cls.modules == ["lexing"]


def test_a_configured_or_bundled_profile_is_never_replaced(tmp_path: Path) -> None:
    store = PRStore(connect(tmp_path / "c.db", create=True))
    rows = records(MIN_LEARN_PRS) + records(MIN_LEARN_PRS, repo="vllm-project/vllm", start=5000)
    for chosen in (
        settings(prdigest_profile="generic"),
        settings(prdigest_repo_profiles=((REPO, "generic"),)),
    ):
        said = imported(store, write(tmp_path / "x.jsonl", rows), chosen)
        assert said == [] and read_learned(store.db, REPO) is None
    imported(store, write(tmp_path / "y.jsonl", rows), settings())
    assert read_learned(store.db, "vllm-project/vllm") is None  # its hand-written profile answers
    assert choose(settings(), "vllm-project/vllm", store.db).how == "bundled"
    assert read_learned(store.db, REPO) is not None


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return prdigest(*args, env=clean_env(**env))


def test_pr_and_digest_say_which_profile_answered(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    few = write(tmp_path / "few.jsonl", records(40, repo="acme/small"))
    assert run("import", str(few), "--db", str(db)).returncode == 0
    small = run("pr", "3", "--repo", "acme/small", "--db", str(db))
    assert small.returncode == 0, small.stderr
    assert (
        "classified by the generic profile: acme/small has 40 PRs cached, and a profile of its own is "
        in small.stdout
    )
    result = run("import", str(write(tmp_path / "all.jsonl", records(MIN_LEARN_PRS))), "--db", str(db))
    assert result.returncode == 0 and f"{REPO}: profile learned from {MIN_LEARN_PRS} PRs" in result.stderr
    pr = run("pr", "1", "--repo", REPO, "--db", str(db))
    assert f"classified by the profile learned from {MIN_LEARN_PRS} PRs of {REPO} on " in pr.stdout
    digest = run("digest", "2025-W11", "--repo", REPO, "--db", str(db))
    assert digest.returncode == 0, digest.stderr
    assert (
        f"Modules and kinds come from the profile learned from {MIN_LEARN_PRS} PRs of {REPO}" in digest.stdout
    )
    vllm = write(tmp_path / "v.jsonl", records(10, repo="vllm-project/vllm", start=9000))
    assert run("import", str(vllm), "--db", str(db)).returncode == 0
    said = run("digest", "2025-W11", "--repo", "vllm-project/vllm", "--db", str(db)).stdout
    assert "Modules and kinds come from" not in said  # a profile the repository is known by says nothing


def test_profile_learn_prints_writes_once_and_diffs(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    assert (
        run("import", str(write(tmp_path / "all.jsonl", records(MIN_LEARN_PRS))), "--db", str(db)).returncode
        == 0
    )
    shown = run("profile", "learn", "--db", str(db))
    assert shown.returncode == 0 and tomllib.loads(shown.stdout)["learned"]["repo"] == REPO
    assert "# prdigest rule profile learned from the history of acme/widget" in shown.stdout
    out = tmp_path / "widget.toml"
    wrote = run("profile", "learn", "--db", str(db), "--out", str(out))
    assert wrote.returncode == 0 and out.read_text() == shown.stdout
    again = run("profile", "learn", "--db", str(db), "--out", str(out))
    assert again.returncode == 2 and again.stderr.strip().endswith(
        "never overwrites a file; give --out a new name"
    )
    assert out.read_text() == shown.stdout
    same = run("profile", "learn", "--db", str(db), "--diff")
    assert same.returncode == 0 and "nothing to change" in same.stdout
    generic = run("profile", "learn", "--db", str(db), "--diff", PRDIGEST_PROFILE="generic")
    assert "+ module parser “Parser”: widget/parser/**" in generic.stdout
    assert "- module python “Python”" in generic.stdout
    missing = run("profile", "learn", "--db", str(db), "--repo", "no/such")
    assert missing.returncode == 2 and "no/such has no PRs in the cache" in missing.stderr


def test_learned_then_written_then_configured_classifies_the_same(tmp_path: Path) -> None:
    """The round trip: the cache's learned profile, written out with --out and set as
    PRDIGEST_RULES, classifies every PR as it did (reclassify changes nothing)."""
    db = tmp_path / "c.db"
    assert (
        run("import", str(write(tmp_path / "all.jsonl", records(MIN_LEARN_PRS))), "--db", str(db)).returncode
        == 0
    )
    out = tmp_path / "widget.toml"
    assert run("profile", "learn", "--db", str(db), "--out", str(out)).returncode == 0
    with closing(sqlite3.connect(db)) as conn:
        before = conn.execute(
            "SELECT number, modules, kind, flags, score FROM prs ORDER BY number"
        ).fetchall()
    result = run("reclassify", "--db", str(db), PRDIGEST_RULES=str(out))
    assert result.returncode == 0, result.stderr
    with closing(sqlite3.connect(db)) as conn:
        after = conn.execute("SELECT number, modules, kind, flags, score FROM prs ORDER BY number").fetchall()
    assert after == before
