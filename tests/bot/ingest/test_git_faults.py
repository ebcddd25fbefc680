"""``prdigest sync --git`` under faults, through the real executable.

* A write that fails (here: the kernel's file-size limit, as a full disk refuses writes) used to
  abort the interpreter with "Fatal Python error: _enter_buffered_busy" (exit 134): the git walk
  was left open with its reader thread inside a buffered read at exit.
* An interrupted import walked the whole history again; it now resumes below its last stored PR.
* A clone whose origin is not a GitHub URL was silently filed under vllm-project/vllm.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from pathlib import Path

import pytest
import sqlite_utils

from bot.ingest.gitlog import GITHUB_HOSTS, github_repo_of
from tests.bot.cli.procs import error_line, prdigest, start, table_rows

from .gitrepo import linear_history
from .helpers import assert_same_rows

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX processes")
REPO = "octo/git"


def _count(db: Path) -> int:
    return int(table_rows(db, "SELECT count(*) FROM prs")[0][0])  # type: ignore[arg-type]


def test_a_full_disk_during_sync_git_is_one_line_not_an_abort(tmp_path: Path) -> None:
    clone = linear_history(tmp_path / "clone", 2000)
    db = tmp_path / "cache.db"
    result = prdigest("sync", "--git", str(clone), "--repo", REPO, "--db", str(db), file_size_limit=1_000_000)
    line = error_line(result, 1, prefix="prdigest sync: ")
    assert line.startswith(f"prdigest sync: cannot write to {db}: the file-size limit of this process")
    assert result.stdout.strip().endswith("(incomplete: run sync again to continue)")
    assert table_rows(db, "PRAGMA integrity_check") == [("ok",)]
    stored = _count(db)
    assert stored % 500 == 0 and stored < 2000  # whole batches

    again = prdigest("sync", "--git", str(clone), "--repo", REPO, "--db", str(db))
    assert again.returncode == 0, again.stderr
    assert _count(db) == 2000


def _kill_after_first_batch(args: list[str], db: Path) -> int:
    proc = start(*args)
    stored = 0
    deadline = time.monotonic() + 60
    while stored == 0 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.005)
        try:
            stored = _count(db) if db.exists() else 0
        except sqlite3.OperationalError:
            continue
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "the import finished before it could be interrupted"
    return _count(db)


def test_an_interrupted_sync_git_resumes_from_its_last_stored_commit(tmp_path: Path) -> None:
    clone = linear_history(tmp_path / "clone", 4000)
    clean = tmp_path / "clean.db"
    assert prdigest("sync", "--git", str(clone), "--repo", REPO, "--db", str(clean)).returncode == 0

    db = tmp_path / "cut.db"
    args = ["sync", "--git", str(clone), "--repo", REPO, "--db", str(db)]
    stored = _kill_after_first_batch(args, db)
    assert 0 < stored < 4000 and stored % 500 == 0
    cursor = table_rows(db, "SELECT cursor FROM sync_state WHERE source = 'git'")[0][0]
    assert isinstance(cursor, str) and '"done"' in cursor

    rest = prdigest(*args)
    assert rest.returncode == 0, rest.stderr
    assert "sync: resumed the interrupted import below commit" in rest.stderr
    assert f"fetched {4000 - stored}, new {4000 - stored}, updated 0" in rest.stdout  # not the whole history
    with closing(sqlite_utils.Database(db)) as got, closing(sqlite_utils.Database(clean)) as want:
        assert_same_rows(got, want)


def test_resuming_also_takes_what_head_gained_meanwhile(tmp_path: Path) -> None:
    clone = linear_history(tmp_path / "clone", 3000)
    db = tmp_path / "cut.db"
    args = ["sync", "--git", str(clone), "--repo", REPO, "--db", str(db)]
    stored = _kill_after_first_batch(args, db)
    (clone / "new.py").write_text("x = 1\n")
    subprocess.run(["git", "-C", str(clone), "add", "new.py"], check=True)
    subprocess.run(
        ["git", "-C", str(clone), "-c", "user.name=A", "-c", "user.email=a@example.com",
         "commit", "-q", "-m", "[Core] Later change (#3001)"],
        check=True,
    )  # fmt: skip
    rest = prdigest(*args)
    assert rest.returncode == 0, rest.stderr
    assert f"fetched {3001 - stored}" in rest.stdout
    assert _count(db) == 3001
    head = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True)
    assert table_rows(db, "SELECT cursor FROM sync_state WHERE source = 'git'") == [(head.stdout.strip(),)]


@pytest.mark.parametrize(
    ("url", "repo"),
    [
        ("git@github.com:octo/fromgit.git", "octo/fromgit"),
        ("ssh://git@github.com/octo/fromgit.git", "octo/fromgit"),
        ("ssh://git@ssh.github.com:443/octo/fromgit.git", "octo/fromgit"),
        ("https://github.com/octo/fromgit", "octo/fromgit"),
        ("https://user@github.com/octo/fromgit.git/", "octo/fromgit"),
        ("git://github.com/octo/fromgit.git", "octo/fromgit"),
        ("https://ghe.example.com/octo/fromgit.git", None),  # not GitHub unless configured
        ("/srv/mirrors/octo/vllm.git", None),
        ("../octo/vllm", None),
        ("file:///srv/octo/vllm.git", None),
        ("https://gitlab.com/octo/repo.git", None),
        ("git@gitlab.com:octo/repo.git", None),
        ("https://github.com/octo", None),
        ("https://github.com/octo/repo/tree/main", None),
    ],
)
def test_only_a_github_url_names_a_repository(url: str, repo: str | None) -> None:
    assert github_repo_of(url) == repo
    assert (
        github_repo_of("https://ghe.example.com/octo/x.git", GITHUB_HOSTS | {"ghe.example.com"}) == "octo/x"
    )


def test_a_clone_of_a_local_path_needs_repo(tmp_path: Path) -> None:
    origin = str(tmp_path / "mirrors" / "vllm-project" / "vllm")
    clone = linear_history(tmp_path / "clone", 3, origin=origin)
    db = tmp_path / "c.db"
    line = error_line(prdigest("sync", "--git", str(clone), "--db", str(db)), 2, prefix="prdigest sync: ")
    assert line == (
        f"prdigest sync: --git {clone}: its origin remote {origin!r} does not name a GitHub repository; "
        "say which with --repo OWNER/NAME"
    )
    assert not db.exists()
    named = prdigest("sync", "--git", str(clone), "--repo", REPO, "--db", str(db))
    assert named.returncode == 0 and named.stdout.startswith(f"{REPO} (git): fetched 3")
    github = linear_history(tmp_path / "gh", 2, origin="git@github.com:octo/fromgit.git")
    found = prdigest("sync", "--git", str(github), "--db", str(db))
    assert found.returncode == 0 and found.stdout.startswith("octo/fromgit (git): fetched 2"), found.stderr
