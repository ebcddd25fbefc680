"""Write failures and odd files through the real executable (issue 10, points 5, 6, 9 and 10).

Each failure must be one line naming the cause, exit 1 (2 for a setup problem), no traceback,
and leave the cache intact: ``integrity_check`` passes and it still holds what it held (plus
whole batches).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest

from tests.bot.cli.procs import (
    EXE,
    clean_env,
    error_line,
    prdigest,
    require_plain_user,
    start,
    table_rows,
    write_prs,
)
from tests.bot.ingest.gitrepo import linear_history

DEMO_PRS = 1247


def _count(db: Path, where: str = "1") -> int:
    return int(table_rows(db, f"SELECT count(*) FROM prs WHERE {where}")[0][0])  # type: ignore[arg-type]


def _intact(db: Path) -> None:
    assert table_rows(db, "PRAGMA integrity_check") == [("ok",)]


def _execute(db: Path, sql: str) -> None:
    """Change a cache behind prdigest's back, leaving the .db file complete (log checkpointed)."""
    conn = sqlite3.connect(db)
    try:
        with conn:
            conn.execute(sql)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


# -- disk full (point 5) ------------------------------------------------------------------------------


def test_import_on_a_full_disk_is_one_line_and_keeps_whole_batches(demo_db: Path, tmp_path: Path) -> None:
    records = write_prs(tmp_path / "prs.jsonl", 3000, repo="octo/a")
    limit = demo_db.stat().st_size + 1_000_000  # room for a few batches, not for 3,000 PRs
    result = prdigest("import", str(records), "--db", str(demo_db), file_size_limit=limit)
    line = error_line(result, 1)
    assert line.startswith(f"prdigest: cannot write to {demo_db}: the file-size limit of this process")
    assert "the cache is intact" in line
    _intact(demo_db)
    assert _count(demo_db, "repo = 'vllm-project/vllm'") == DEMO_PRS
    assert _count(demo_db, "repo = 'octo/a'") % 500 == 0
    again = prdigest("import", str(records), "--db", str(demo_db))
    assert again.returncode == 0 and _count(demo_db, "repo = 'octo/a'") == 3000, again.stderr


def test_reclassify_on_a_full_disk_is_one_line(demo_db: Path) -> None:
    before = table_rows(demo_db, "SELECT number, profile, cls_hash FROM prs ORDER BY number")
    result = prdigest(
        "reclassify", "--db", str(demo_db), "--workers", "1",
        env=clean_env(PRDIGEST_PROFILE="generic"), file_size_limit=1_000_000,  # the log may not pass 1 MB
    )  # fmt: skip
    assert "file-size limit" in error_line(result, 1)
    _intact(demo_db)
    # The demo's 1,247 PRs are one reclassify batch: it was rolled back as a whole.
    assert table_rows(demo_db, "SELECT number, profile, cls_hash FROM prs ORDER BY number") == before


# -- read-only file and folder (points 5 and 9) ---------------------------------------------------------


def test_a_read_only_database_file_is_named_as_such(demo_db: Path, tmp_path: Path) -> None:
    require_plain_user(tmp_path)
    extra = write_prs(tmp_path / "extra.jsonl", 50, repo="octo/a")
    clone = linear_history(tmp_path / "clone", 3)
    demo_db.chmod(0o444)
    try:
        result = prdigest("import", str(extra), "--db", str(demo_db), plain_user=True)
        sync = prdigest(
            "sync", "--git", str(clone), "--repo", "octo/b", "--db", str(demo_db), plain_user=True
        )
        reading = prdigest("pr", "1", "--db", str(demo_db), "--format", "json", plain_user=True)
    finally:
        demo_db.chmod(0o644)
    why = f"the file is read-only for this user (permission denied); make it writable (chmod u+w {demo_db})"
    assert error_line(result, 2) == f"prdigest: cannot write to {demo_db}: {why}"
    assert error_line(sync, 2, prefix="prdigest sync: ") == f"prdigest sync: cannot write to {demo_db}: {why}"
    assert "Traceback" not in reading.stderr and reading.returncode in (0, 1)  # reading still works
    _intact(demo_db)
    assert _count(demo_db) == DEMO_PRS


def test_a_database_in_a_read_only_folder_is_a_permission_problem(demo_db: Path, tmp_path: Path) -> None:
    require_plain_user(tmp_path)
    extra = write_prs(tmp_path / "extra.jsonl", 50, repo="octo/a")
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "cache.db"
    shutil.copy(demo_db, db)
    folder.chmod(0o555)
    try:
        result = prdigest("import", str(extra), "--db", str(db), plain_user=True)
        create = prdigest("import", str(extra), "--db", str(folder / "new.db"), plain_user=True)
    finally:
        folder.chmod(0o755)
    line = error_line(result, 2)
    # SQLite needs the folder even to open a WAL cache (it creates cache.db-shm there).
    assert line.startswith(f"prdigest: cannot open {db}: its folder {folder} is not writable for this user")
    assert "permission denied" in line and "not a usable SQLite file" not in line
    assert error_line(create, 2) == (
        f"prdigest: cannot create database {folder / 'new.db'}: folder {folder} is not writable for "
        "this user (permission denied)"
    )
    assert not (folder / "new.db").exists()
    _intact(db)
    assert _count(db) == DEMO_PRS


# -- files (point 9) ------------------------------------------------------------------------------------


def test_after_demo_the_db_file_alone_holds_every_pr(tmp_path: Path) -> None:
    result = prdigest("demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    wal = tmp_path / "prdigest-demo.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0  # the digest it printed may leave an empty log
    copy = tmp_path / "copy" / "demo.db"
    copy.parent.mkdir()
    shutil.copy(tmp_path / "prdigest-demo.db", copy)  # the .db alone, as a person would copy it
    assert _count(copy) == DEMO_PRS


def test_every_writing_command_leaves_the_db_complete(demo_db: Path, tmp_path: Path) -> None:
    extra = write_prs(tmp_path / "extra.jsonl", 300, repo="octo/a")
    for args in (("import", str(extra)), ("reclassify", "--workers", "1")):
        assert prdigest(*args, "--db", str(demo_db)).returncode == 0
        assert not Path(f"{demo_db}-wal").exists(), args
    copy = tmp_path / "copy.db"
    shutil.copy(demo_db, copy)
    assert _count(copy) == DEMO_PRS + 300


def test_an_empty_file_is_never_written_to(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    extra = write_prs(tmp_path / "extra.jsonl", 10, repo="octo/a")
    for args in (("import", str(extra)), ("digest",), ("sync", "--git", str(tmp_path))):
        result = prdigest(*args, "--db", str(empty))
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        if args[0] != "sync":  # sync checks its --git path first
            assert "is an empty file (0 bytes), not a prdigest cache; it was left untouched" in error_line(
                result, 2
            )
    assert empty.stat().st_size == 0


def test_a_dotenv_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    data = b"PRDIGEST_LANG=zh\nPRDIGEST_REPO=caf\xe9/x\n"  # Latin-1, as an old editor saves it
    (tmp_path / ".env").write_bytes(data)
    result = prdigest("digest", cwd=tmp_path)
    assert error_line(result, 2) == (
        f"prdigest: {tmp_path / '.env'} is not UTF-8 text (byte 0xe9 at offset {data.index(0xE9)}); "
        "save it as UTF-8"
    )


# -- a cache from a newer prdigest (point 6) -------------------------------------------------------------


def test_a_cache_with_newer_migrations_is_refused_for_writing(demo_db: Path, tmp_path: Path) -> None:
    _execute(
        demo_db,
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
        "VALUES ('prdigest', '0042_from_the_future', '2030-01-01')",
    )
    before = demo_db.read_bytes()
    extra = write_prs(tmp_path / "extra.jsonl", 10, repo="octo/a")
    for args in (("import", str(extra)), ("reclassify",)):
        line = error_line(prdigest(*args, "--db", str(demo_db)), 2)
        assert line == (
            f"prdigest: database {demo_db} was made by a newer prdigest; upgrade prdigest to use it "
            "(it has migration 0042_from_the_future, unknown to this one); it was left untouched"
        )
    assert demo_db.read_bytes() == before
    reading = prdigest("digest", "2026-W19", "--db", str(demo_db))  # its tables are as ours: readable
    assert reading.returncode == 0, reading.stderr


def test_a_renamed_column_is_refused_not_a_traceback(demo_db: Path) -> None:
    _execute(demo_db, "ALTER TABLE prs RENAME COLUMN gist TO summary")
    for args in (("digest", "2026-W19"), ("reclassify",)):
        line = error_line(prdigest(*args, "--db", str(demo_db)), 2)
        assert "does not have the schema its migrations make (table prs has no column gist)" in line
        assert "made by a newer prdigest; upgrade" in line


# -- backup and imported urls (point 10) -----------------------------------------------------------------


def test_backup_of_a_live_cache_is_consistent(demo_db: Path, tmp_path: Path) -> None:
    extra = write_prs(tmp_path / "extra.jsonl", 3000, repo="octo/a")
    writer = start("import", str(extra), "--db", str(demo_db))
    copies: list[tuple[Path, object]] = []
    done = threading.Event()

    def back_up() -> None:
        n = 0
        while not done.is_set() and n < 20:
            n += 1
            target = tmp_path / f"backup-{n}.db"
            copies.append((target, prdigest("backup", str(target), "--db", str(demo_db))))

    worker = threading.Thread(target=back_up)
    worker.start()
    writer.communicate(timeout=180)
    done.set()
    worker.join()
    assert writer.returncode == 0
    assert copies
    for target, result in copies:
        assert result.returncode == 0, result.stderr  # type: ignore[attr-defined]
        assert not Path(f"{target}-wal").exists()  # self-contained
        _intact(target)
        imported = _count(target, "repo = 'octo/a'")
        assert imported % 500 == 0 and _count(target, "repo = 'vllm-project/vllm'") == DEMO_PRS
        assert result.stdout.startswith(f"backed up {DEMO_PRS + imported} PRs to {target}")  # type: ignore[attr-defined]
        tags = table_rows(
            target,
            "SELECT count(*) FROM pr_tags t LEFT JOIN prs p USING (repo, number) WHERE p.number IS NULL",
        )
        assert tags == [(0,)]


def test_backup_never_overwrites(demo_db: Path, tmp_path: Path) -> None:
    target = tmp_path / "precious.db"
    target.write_text("do not touch")
    assert error_line(prdigest("backup", str(target), "--db", str(demo_db)), 2) == (
        f"prdigest: {target} already exists; a backup never overwrites a file, so choose a new name"
    )
    assert target.read_text() == "do not touch"
    missing = tmp_path / "nope" / "b.db"
    assert "directory" in error_line(prdigest("backup", str(missing), "--db", str(demo_db)), 2)


def test_backup_on_a_full_disk_leaves_nothing_behind(demo_db: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "b.db"
    target.parent.mkdir()
    result = prdigest("backup", str(target), "--db", str(demo_db), file_size_limit=1_000_000)
    assert "file-size limit" in error_line(result, 1)
    assert list(target.parent.iterdir()) == []


def test_imported_urls_point_at_their_own_pr(tmp_path: Path) -> None:
    records = [
        {"repo": "octo/a", "number": 1, "title": "Fine", "merged_at": "2026-05-01T10:00:00Z",
         "url": "https://github.com/octo/a/pull/1"},
        {"repo": "octo/a", "number": 2, "title": "Phish", "merged_at": "2026-05-01T11:00:00Z",
         "url": "https://evil.example/login"},
        {"repo": "octo/a", "number": 3, "title": "Other PR", "merged_at": "2026-05-01T12:00:00Z",
         "url": "https://github.com/octo/a/pull/999"},
        {"repo": "octo/a", "number": 4, "title": "No url", "merged_at": "2026-05-01T13:00:00Z"},
    ]  # fmt: skip
    path = tmp_path / "prs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    db = tmp_path / "cache.db"
    result = prdigest("import", str(path), "--db", str(db))
    assert result.returncode == 0
    assert result.stderr.strip().splitlines() == [
        "prdigest: 2 url(s) did not point at their own PR and were rebuilt from repo and number (the first at line 2)",
        "prdigest: octo/a: 4 PRs cached, fewer than the 200 a profile of its own is learned from; the generic "
        "profile answers until then",
    ]
    urls = dict(table_rows(db, "SELECT number, url FROM prs"))  # type: ignore[arg-type]
    assert urls == {n: f"https://github.com/octo/a/pull/{n}" for n in (1, 2, 3, 4)}
    ghes = prdigest("import", str(path), "--db", str(tmp_path / "ghes.db"),
                    env=clean_env(PRDIGEST_GITHUB_API_URL="https://ghe.example.com/api/v3"))  # fmt: skip
    assert "4 url(s)" in ghes.stderr
    assert table_rows(tmp_path / "ghes.db", "SELECT url FROM prs WHERE number = 2") == [
        ("https://ghe.example.com/octo/a/pull/2",)
    ]


# -- a read-only file system ----------------------------------------------------------------------------

_ON_A_READ_ONLY_MOUNT = r"""
mount -t tmpfs -o size=64m tmpfs "$MNT" || exit 77
cp "$DB" "$MNT/cache.db"
mount -o remount,ro "$MNT" || exit 77
run() { name=$1; shift; "$EXE" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"; echo $? > "$OUT/$name.rc"; }
run pr pr 42121 --db "$MNT/cache.db" --format json
run digest digest 2026-W19 --db "$MNT/cache.db" --format json
run search search tree attention --db "$MNT/cache.db"
run backup backup "$OUT/copy.db" --db "$MNT/cache.db"
run import import "$RECORDS" --db "$MNT/cache.db"
"""


def test_a_cache_on_a_read_only_file_system_is_read_and_writes_name_the_mount(
    demo_db: Path, tmp_path: Path
) -> None:
    """A WAL cache on a read-only mount cannot get its ``-shm`` file: it is read as immutable, and a
    write is refused naming the mount (not "chmod u+w", which cannot help). Run in a user and mount
    namespace of its own (``unshare -rm``), where a tmpfs can be mounted and remounted read-only."""
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs `unshare -rm` (user and mount namespaces) to mount a read-only file system")
    _execute(demo_db, "SELECT 1")  # the .db file alone holds the cache
    records = write_prs(tmp_path / "extra.jsonl", 5, repo="octo/a")
    mnt, out = tmp_path / "mnt", tmp_path / "out"
    mnt.mkdir()
    out.mkdir()
    env = clean_env(MNT=str(mnt), DB=str(demo_db), OUT=str(out), EXE=EXE, RECORDS=str(records))
    ran = subprocess.run(
        [unshare, "-rm", "sh", "-c", _ON_A_READ_ONLY_MOUNT], env=env, capture_output=True, timeout=300
    )
    if ran.returncode == 77:
        pytest.skip(f"this kernel refuses a tmpfs mount in a user namespace: {ran.stderr.decode()[:200]}")
    assert ran.returncode == 0, ran.stderr

    def result(name: str) -> tuple[int, str, str]:
        return (
            int((out / f"{name}.rc").read_text()),
            (out / f"{name}.out").read_text(),
            (out / f"{name}.err").read_text(),
        )

    code, text, err = result("pr")
    assert code == 0 and json.loads(text)["number"] == 42121, err
    code, text, err = result("digest")
    assert code == 0 and json.loads(text)["counts"]["merged"] == 222, err
    code, text, err = result("search")
    assert code == 0 and "#42121" in text, err
    code, text, err = result("backup")
    assert code == 0 and _count(out / "copy.db") == DEMO_PRS, err
    code, _, err = result("import")
    assert code == 2 and "Traceback" not in err, err
    assert err.strip().splitlines() == [
        f"prdigest: cannot write to {mnt}/cache.db: its file system is mounted read-only; reading works, "
        "but to change it copy it somewhere writable (or remount the file system read-write)"
    ]
