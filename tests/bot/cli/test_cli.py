"""The real `prdigest` executable: output, exit codes, and one clear line for every bad input."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).with_name("prdigest"))


def cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("PRDIGEST_", "GITHUB_", "SLACK_"))}
    full_env.update(env or {})
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=full_env)


def assert_one_line_usage(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("prdigest: ")
    for needle in needles:
        assert needle in lines[0]


def test_demo_prints_the_latest_full_week(tmp_path: Path) -> None:
    result = cli("demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("vllm-project/vllm weekly digest · 2026-W19")
    for heading in ("Executive summary", "Key changes this week", "Risk observations", "Recommendations"):
        assert heading in result.stdout
    assert (tmp_path / "prdigest-demo.db").exists()
    again = cli("demo", "--format", "json", cwd=tmp_path)
    assert "0 new" in again.stderr
    assert json.loads(again.stdout)["counts"]["merged"] >= 150


def _demo_digest(cwd: Path) -> dict[str, object]:
    result = cli("demo", "--format", "json", cwd=cwd)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_an_older_demos_cache_is_moved_aside_not_counted_twice(tmp_path: Path) -> None:
    """An upgrade renumbered the bundled PRs: the older demo's rows must not join the new ones in
    the digest (the week counted twice), and its file is kept, not deleted."""
    fresh = _demo_digest(tmp_path)
    with sqlite3.connect(tmp_path / "prdigest-demo.db") as conn:  # what an older bundle left: other numbers
        conn.execute("UPDATE prs SET number = number + 100000 WHERE number % 2 = 0")
    result = cli("demo", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "moved it to prdigest-demo.db." in result.stderr
    assert json.loads(result.stdout)["counts"] == fresh["counts"]
    kept = [p for p in tmp_path.iterdir() if p.name.endswith(".bak")]
    assert len(kept) == 1
    with sqlite3.connect(kept[0]) as conn:
        assert conn.execute("SELECT count(*) FROM prs WHERE number > 100000").fetchone()[0] > 0


def test_the_demo_refuses_to_mix_its_prs_into_a_real_cache(tmp_path: Path) -> None:
    record = {
        "repo": "acme/widgets",
        "number": 7,
        "title": "Add a widget",
        "author": "dev",
        "created_at": "2026-05-01T10:00:00Z",
        "merged_at": "2026-05-02T10:00:00Z",
        "files": [{"path": "src/widget.py", "additions": 10, "deletions": 0}],
    }
    records = tmp_path / "real.jsonl"
    records.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert cli("import", str(records), "--db", "real.db", cwd=tmp_path).returncode == 0
    before = (tmp_path / "real.db").read_bytes()
    assert_one_line_usage(
        cli("demo", "--db", "real.db", cwd=tmp_path), "real.db", "no demo load put there", "--db"
    )
    assert (tmp_path / "real.db").read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".bak")]


@pytest.mark.parametrize("how", ["imported", "mixed"])
def test_a_cache_of_the_demos_own_repository_that_no_demo_made_is_refused(tmp_path: Path, how: str) -> None:
    """`prdigest import my.jsonl --db x.db && prdigest demo --db x.db`: the user's PRs of
    vllm-project/vllm, never synced, are no older demo — and neither is a demo cache into which
    the user imported one PR of their own. One line, exit 2, nothing moved or changed."""
    record = {
        "repo": "vllm-project/vllm",
        "number": 7,
        "title": "Fix the scheduler",
        "merged_at": "2026-05-02T10:00:00Z",
        "files": [{"path": "vllm/core/scheduler.py", "additions": 3, "deletions": 1}],
    }
    (tmp_path / "my.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    if how == "mixed":
        assert cli("demo", "--db", "x.db", cwd=tmp_path).returncode == 0
    assert cli("import", "my.jsonl", "--db", "x.db", cwd=tmp_path).returncode == 0

    def files() -> dict[str, bytes]:  # a reader may add SQLite's -wal/-shm beside the cache
        return {p.name: p.read_bytes() for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))}

    before = files()
    result = cli("demo", "--db", "x.db", cwd=tmp_path)
    assert_one_line_usage(result, "x.db", "no demo load put there", "--db")
    assert files() == before


def test_commands_on_the_demo_cache(demo_db: Path) -> None:
    db = str(demo_db)
    risks = cli("risks", "core-path", "2026-W19", "--db", db, "--format", "json")
    assert risks.returncode == 0 and json.loads(risks.stdout)["kind"] == "core-path"
    number = json.loads(risks.stdout)["prs"][0]["number"]
    pr = cli("pr", str(number), "--db", db, "--lang", "zh")
    assert pr.returncode == 0 and f"#{number}" in pr.stdout and "核心路径变更" in pr.stdout
    md = cli("digest", "2026-W19", "--db", db, "--format", "markdown")
    assert md.returncode == 0 and md.stdout.startswith("# vllm-project/vllm weekly digest")
    search = cli("search", "tree", "attention", "--db", db)
    assert search.returncode == 0 and "Tree Attention" in search.stdout


def test_settings_come_from_the_environment(demo_db: Path) -> None:
    result = cli("digest", "2026-W19", env={"PRDIGEST_DB": str(demo_db), "PRDIGEST_LANG": "zh"})
    assert result.returncode == 0 and "执行摘要" in result.stdout


def test_pr_not_cached_exits_1_with_a_hint(demo_db: Path) -> None:
    result = cli("pr", "1", "--db", str(demo_db))
    assert result.returncode == 1
    assert "not in the cache" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("dance",), ("No such command 'dance'",)),
        (("digest", "--colour"), ("No such option", "--colour")),
        (("digest", "--format", "yaml"), ("'yaml' is not one of",)),
        (("pr", "abc"), ("'abc' is not a PR number",)),
        (("pr", "0"), ("out of range",)),
        (("pr", "123456789012345678901234567890"), ("out of range",)),
        (("digest", "2026-W99"), ("2026-W99 is not an ISO week",)),
        (("digest", "yesterday-ish"), ("unknown module 'yesterday-ish'",)),
        (("digest", "2026-W19", "warp-drive"), ("unknown module 'warp-drive'",)),
        (("risks", "nonsense"), ("unknown risk kind 'nonsense'",)),
        (("search",), ("search needs at least one word",)),
        (("search", "..."), ("at least one word",)),
    ],
)
def test_bad_input_gets_one_line_and_exit_2(
    demo_db: Path, args: tuple[str, ...], needles: tuple[str, ...]
) -> None:
    assert_one_line_usage(cli(*args, "--db", str(demo_db)) if args[0] != "dance" else cli(*args), *needles)


def test_missing_database_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "missing.db"
    assert_one_line_usage(cli("digest", "--db", str(path)), "does not exist")
    assert not path.exists()


def test_a_non_sqlite_database_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my precious notes\n")
    assert_one_line_usage(cli("digest", "--db", str(path)), "not a SQLite file")
    assert_one_line_usage(cli("import", str(path), "--db", str(path)), "not a SQLite file")
    assert path.read_text() == "my precious notes\n"


def test_a_foreign_sqlite_database_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    assert_one_line_usage(cli("risks", "--db", str(path)), "not a prdigest cache")
    assert path.read_bytes() == before


def test_a_directory_as_database(tmp_path: Path) -> None:
    assert_one_line_usage(cli("digest", "--db", str(tmp_path)), "is a directory")


def test_a_broken_profile_is_rejected_with_file_key_and_reason(demo_db: Path, tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(
        (Path(__file__).parents[3] / "classify" / "profiles" / "generic.toml").read_text()
        + "\n[bogus_section]\nx = 1\n"
    )
    result = cli("digest", "--db", str(demo_db), env={"PRDIGEST_RULES": str(rules)})
    assert_one_line_usage(result, "rule profile rejected", str(rules), "bogus_section")


def test_a_bad_setting_names_the_variable(demo_db: Path) -> None:
    assert_one_line_usage(
        cli("digest", "--db", str(demo_db), env={"PRDIGEST_TIMEZONE": "Mars/Olympus"}),
        "PRDIGEST_TIMEZONE",
        "Mars/Olympus",
    )
    assert_one_line_usage(cli("digest", "--db", str(demo_db), env={"PRDIGEST_LANG": "fr"}), "PRDIGEST_LANG")


def test_import_is_idempotent_and_validates_first(tmp_path: Path, demo_db: Path) -> None:
    db = tmp_path / "c.db"
    good = tmp_path / "prs.jsonl"
    record = {
        "repo": "o/r",
        "number": 5,
        "title": "[Bugfix] Fix a crash",
        "merged_at": "2026-05-05T10:00:00Z",
        "files": [{"path": "src/app.py", "additions": 3, "deletions": 1}],
        "additions": 3,
        "deletions": 1,
    }
    good.write_text(json.dumps(record) + "\n" + json.dumps({**record, "number": 6}) + "\n")
    first = cli("import", str(good), "--db", str(db))
    assert first.returncode == 0 and "2 new" in first.stdout
    second = cli("import", str(good), "--db", str(db))
    assert second.returncode == 0 and "0 new, 0 updated, 2 unchanged" in second.stdout

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**record, "number": 7}) + "\n" + json.dumps({**record, "number": -1}) + "\n")
    assert_one_line_usage(cli("import", str(bad), "--db", str(db)), f"{bad}:2: number")
    count = sqlite3.connect(db).execute("SELECT count(*) FROM prs").fetchone()[0]
    assert count == 2, "nothing from the bad file was imported"
    assert_one_line_usage(cli("import", str(tmp_path / "nope.jsonl"), "--db", str(db)), "no such file")


def test_reclassify_rewrites_classifications_without_network(demo_db: Path, tmp_path: Path) -> None:
    generic = cli("reclassify", "--db", str(demo_db), env={"PRDIGEST_PROFILE": "generic"})
    assert generic.returncode == 0 and "with profile generic" in generic.stdout
    profiles = {r[0] for r in sqlite3.connect(demo_db).execute("SELECT DISTINCT profile FROM prs")}
    assert profiles == {"generic"}
    back = cli("reclassify", "--db", str(demo_db))
    assert back.returncode == 0 and "with profile vllm" in back.stdout
    same = cli("reclassify", "--db", str(demo_db))
    assert same.returncode == 0 and same.stdout.startswith("unchanged: all 1247 PRs"), same.stdout


# What `prdigest --help` loaded, printed by a child interpreter running the console entry point.
_MODULES_AFTER_HELP = """
import json, sys
from bot.cli.main import main
sys.argv = ["prdigest", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


@pytest.mark.parametrize("argv", [["--help"], ["digest", "--help"], ["digest", "--nope"], ["help"]])
def test_help_and_usage_errors_import_no_database_or_network_code(argv: list[str], tmp_path: Path) -> None:
    """A one-shot answer that needs no cache loads no SQLite, sqlite-utils or HTTP client (start-up
    is most of what a terminal user waits for)."""
    run = subprocess.run(
        [sys.executable, "-c", _MODULES_AFTER_HELP, *argv],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["code"] == (2 if "--nope" in argv else 0), run.stderr
    loaded = {m.split(".")[0] for m in out["modules"]}
    assert "bot.cli.main" in out["modules"]  # the real path was taken
    assert not loaded & {"sqlite3", "_sqlite3", "sqlite_utils", "httpx", "slack_bolt", "slack_sdk", "discord"}
    if argv == ["--help"]:  # the command list comes from the registry's table and the locale alone
        assert not loaded & {"pydantic", "pydantic_core", "bot.config.settings", "commands.model", "classify"}
    if argv == ["help"]:  # settings without pydantic (bot.config.settings), plain Reply classes
        assert not loaded & {"pydantic", "pydantic_core", "annotated_types"}
        assert "bot.config.settings" in out["modules"]
        assert not {"classify.profile_cache", "classify.profile_schema"} & set(
            out["modules"]
        )  # no profile read
    assert "storage.db" not in out["modules"] and "bot.ingest.load" not in out["modules"]


@pytest.mark.parametrize("argv", [["pr", "42121"], ["risks", "core-path", "2026-W19"], ["search", "fp8"]])
def test_a_one_shot_read_imports_only_what_it_uses(argv: list[str], demo_db: Path, tmp_path: Path) -> None:
    """Once a full check has remembered the schema, a one-shot read opens the cache with sqlite3
    alone: no sqlite-utils (nor its plugin scan), no pydantic (settings from ``bot.config.settings``,
    plain row and Reply classes, the cached profile's plain part), no other command's code, no
    network client, no entry-point scan: the start is most of a one-shot command's time."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    run = partial(subprocess.run, capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env)
    first = run([sys.executable, "-c", _MODULES_AFTER_HELP, *argv, "--db", str(demo_db)])
    assert "sqlite_utils" in json.loads(first.stdout.strip().splitlines()[-1])["modules"]  # the full check
    again = run([sys.executable, "-c", _MODULES_AFTER_HELP, *argv, "--db", str(demo_db)])
    out = json.loads(again.stdout.strip().splitlines()[-1])
    assert out["code"] == 0, again.stderr
    loaded = set(out["modules"])
    assert "storage.db" in loaded and "sqlite3" in loaded  # the real path was taken
    unwanted = {"sqlite_utils", "pydantic_settings", "pluggy", "httpx"}
    unwanted |= {
        "pydantic",
        "pydantic_core",
        "classify.score_spec",
        "classify.records",
    }
    unwanted |= {"commands.digest", "commands.report.compose", "classify.storylines", "classify.engine"}
    assert not loaded & unwanted


def test_help_needs_no_database(tmp_path: Path) -> None:
    result = cli("help", "digest", cwd=tmp_path)
    assert result.returncode == 0 and "digest [PERIOD] [MODULE…] [FLAG…] [any|all|only]" in result.stdout
    assert not (tmp_path / "prdigest.db").exists()
    assert cli("--help").returncode == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["help", "digest"],  # (`help` alone lists the commands and loads no rule profile at all)
        ["risks", "core-path", "2026-W19"],
        ["search", "fp8"],
        ["pr", "42121"],
    ],
)
def test_a_read_from_the_cached_profile_builds_no_rule_schema(
    argv: list[str], demo_db: Path, tmp_path: Path
) -> None:
    """With the compiled profile in the cache directory, a one-shot read uses its plain part (names,
    labels, module words) and never imports the TOML schema's pydantic models or the compiler
    (``classify.profile_schema``, ~13 ms of a start)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    run = partial(subprocess.run, capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env)
    first = run([sys.executable, "-c", _MODULES_AFTER_HELP, *argv, "--db", str(demo_db)])
    assert "classify.profile_schema" in json.loads(first.stdout.strip().splitlines()[-1])["modules"]
    assert list((tmp_path / "xdg" / "prdigest").glob("profile-*.pickle"))  # compiled once, then cached
    again = run([sys.executable, "-c", _MODULES_AFTER_HELP, *argv, "--db", str(demo_db)])
    out = json.loads(again.stdout.strip().splitlines()[-1])
    assert out["code"] == 0, again.stderr
    loaded = set(out["modules"])
    assert "classify.profile_cache" in loaded and "classify.rules" in loaded  # the real path was taken
    assert "classify.profile_schema" not in loaded and "classify.engine" not in loaded
    if argv[0] != "pr":  # `pr` reads the [score] table: do the week's storylines decide its key PRs?
        assert "classify.score_spec" not in loaded
