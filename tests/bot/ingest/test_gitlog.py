"""Importing merged PRs from a local clone: squash and merge commits, renames, binaries, trailers."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.ingest.gitlog import (
    GitError,
    GitLogStats,
    author_login,
    clean_body,
    iter_merged_prs,
    open_repo,
    origin_repo,
)
from bot.ingest.sync import Classifier, sync_git
from classify.models import PullRequest
from storage import sync_state
from storage.prs import PRStore

from .conftest import REPO
from .gitrepo import GitRepo

ALICE = ("Alice Doe", "12345+alice@users.noreply.github.com")
BOB = ("Bob Builder", "bob@example.com")
CAROL = ("Carol", "carol@users.noreply.github.com")
BINARY_1 = bytes(range(256)) * 4
BINARY_2 = bytes(reversed(range(256))) * 4


@pytest.fixture
def history(tmp_path: Path) -> GitRepo:
    """main: #1 squash, #2 squash (rename + binary + trailers), #3 merge commit, a direct commit,
    a non-PR merge, #4 revert squash, #5 deletion; commit dates differ from author dates."""
    repo = GitRepo(tmp_path / "clone")
    repo.write("vllm/x.py", "".join(f"line {i}\n" for i in range(7)))
    repo.write("assets/logo.png", BINARY_1)
    repo.write("scripts/old.sh", "echo old\necho older\n")
    repo.commit(
        "[Core] Initial engine (#1)",
        author=ALICE,
        committed="2026-05-01T10:00:00+00:00",
        authored="2026-04-20T08:00:00+00:00",
    )

    repo.git("mv", "vllm/x.py", "vllm/y.py")
    with open(repo.path / "vllm/y.py", "a") as fh:
        fh.write("line 7\n")
    repo.write("assets/logo.png", BINARY_2)
    repo.commit(
        "[Core] Rename x to y (#2)\n\n## Purpose\nRename the module.\n\n"
        "* first squashed commit\n\nSigned-off-by: Alice Doe <alice@example.com>\n\n"
        "* second squashed commit\n\nSigned-off-by: Alice Doe <alice@example.com>\n"
        "Co-authored-by: Bob Builder <bob@example.com>\n",
        author=ALICE,
        committed="2026-05-02T10:00:00+00:00",
        authored="2026-04-28T09:00:00+00:00",
    )

    repo.git("checkout", "-q", "-b", "feature")
    repo.write("docs/z.md", "# Z\n\nnew page\n")
    repo.commit("add docs page", author=BOB, committed="2026-05-02T11:00:00+00:00")
    repo.write("docs/z.md", "# Z\n\nnew page\nmore\n")
    repo.commit("more docs", author=BOB, committed="2026-05-02T12:00:00+00:00")
    repo.git("checkout", "-q", "main")
    repo.git(
        "merge",
        "-q",
        "--no-ff",
        "feature",
        "-m",
        "Merge pull request #3 from bobfork/feature\n\n[Doc] Add the Z page\n\nExplains Z.\n\n"
        "Signed-off-by: Bob Builder <bob@example.com>",
        author=CAROL,
        committed="2026-05-03T10:00:00+00:00",
    )

    repo.write("README.md", "typo fixed\n")
    repo.commit("Fix typo in README", author=BOB, committed="2026-05-03T11:00:00+00:00")

    repo.git("checkout", "-q", "-b", "release")
    repo.write("RELEASE", "1.0\n")
    repo.commit("release notes", author=BOB, committed="2026-05-03T12:00:00+00:00")
    repo.git("checkout", "-q", "main")
    repo.git(
        "merge",
        "-q",
        "--no-ff",
        "release",
        "-m",
        "Merge branch 'release'",
        committed="2026-05-03T13:00:00+00:00",
    )

    repo.git("mv", "vllm/y.py", "vllm/x.py")
    repo.commit(
        'Revert "[Core] Rename x to y (#2)" (#4)', author=CAROL, committed="2026-05-04T10:00:00+00:00"
    )

    repo.git("rm", "-q", "scripts/old.sh")
    repo.commit("[CI] Remove old script (#5)", author=ALICE, committed="2026-05-05T10:00:00+00:00")
    return repo


def _by_number(prs: list[PullRequest]) -> dict[int, PullRequest]:
    return {p.number: p for p in prs}


def test_first_parent_history_yields_every_pr_once(history: GitRepo) -> None:
    stats = GitLogStats()
    prs = list(iter_merged_prs(history.path, REPO, stats=stats))
    assert [p.number for p in prs] == [5, 4, 3, 2, 1]  # newest first; branch commits not walked
    assert stats.commits == 7 and stats.prs == 5 and stats.skipped == 2
    assert stats.skipped_subjects == ["Merge branch 'release'", "Fix typo in README"]
    assert all(p.source == "git" and p.repo == REPO and p.base_branch == "main" for p in prs)
    assert prs[0].url == f"https://github.com/{REPO}/pull/5"


def test_squash_commit_with_rename_binary_and_trailers(history: GitRepo) -> None:
    pr = _by_number(list(iter_merged_prs(history.path, REPO)))[2]
    assert pr.title == "[Core] Rename x to y"
    assert pr.author == "alice"  # from the noreply address
    assert pr.merged_at == datetime(2026, 5, 2, 10, tzinfo=UTC)  # committer date, not author date
    assert pr.created_at is None and pr.labels == []
    files = {f.path: f for f in pr.files}
    assert set(files) == {"vllm/y.py", "assets/logo.png"}
    assert files["vllm/y.py"].change_type == "renamed" and files["vllm/y.py"].previous_path == "vllm/x.py"
    assert (files["vllm/y.py"].additions, files["vllm/y.py"].deletions) == (1, 0)
    assert (files["assets/logo.png"].additions, files["assets/logo.png"].deletions) == (0, 0)
    assert files["assets/logo.png"].change_type == "modified"
    assert (pr.additions, pr.deletions, pr.changed_files) == (1, 0, 2)
    assert "Signed-off-by" not in pr.body and "Co-authored-by" not in pr.body
    assert pr.body == "## Purpose\nRename the module.\n\n* first squashed commit\n\n* second squashed commit"


def test_merge_commit_takes_title_from_body_and_files_from_first_parent(history: GitRepo) -> None:
    pr = _by_number(list(iter_merged_prs(history.path, REPO)))[3]
    assert pr.title == "[Doc] Add the Z page"
    assert pr.body == "Explains Z."
    assert pr.author == "bobfork"  # second parent has no noreply address: the fork owner
    assert pr.merged_at == datetime(2026, 5, 3, 10, tzinfo=UTC)
    assert [(f.path, f.additions, f.deletions, f.change_type) for f in pr.files] == [
        ("docs/z.md", 4, 0, "added")
    ]


def test_initial_revert_and_deletion(history: GitRepo) -> None:
    prs = _by_number(list(iter_merged_prs(history.path, REPO)))
    first = prs[1]
    assert {f.path: (f.additions, f.change_type) for f in first.files} == {
        "vllm/x.py": (7, "added"),
        "assets/logo.png": (0, "added"),
        "scripts/old.sh": (2, "added"),
    }
    assert prs[4].title == 'Revert "[Core] Rename x to y (#2)"' and prs[4].author == "carol"
    assert [(f.path, f.previous_path, f.change_type) for f in prs[4].files] == [
        ("vllm/x.py", "vllm/y.py", "renamed")
    ]
    assert [(f.path, f.deletions, f.change_type) for f in prs[5].files] == [("scripts/old.sh", 2, "removed")]


def test_merge_author_prefers_the_second_parents_login(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.write("a", "1\n")
    repo.commit("init", committed="2026-05-01T00:00:00+00:00")
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("b", "2\n")
    repo.commit(
        "work", author=("Dana", "77+dana@users.noreply.github.com"), committed="2026-05-01T01:00:00+00:00"
    )
    repo.git("checkout", "-q", "main")
    repo.git(
        "merge",
        "-q",
        "--no-ff",
        "topic",
        "-m",
        "Merge pull request #9 from vllm-project/topic\n\nTopic",
        committed="2026-05-01T02:00:00+00:00",
    )
    (pr,) = list(iter_merged_prs(repo.path, REPO))
    assert (pr.number, pr.title, pr.author) == (9, "Topic", "dana")


def test_since_and_until_bound_the_merge_time(history: GitRepo) -> None:
    prs = list(
        iter_merged_prs(
            history.path,
            REPO,
            since=datetime(2026, 5, 2, 10, tzinfo=UTC),
            until=datetime(2026, 5, 4, 10, tzinfo=UTC),
        )
    )
    assert [p.number for p in prs] == [3, 2]


def test_sync_git_is_incremental_and_never_overwrites_api_rows(
    history: GitRepo, store: PRStore, classifier: Classifier
) -> None:
    api = PullRequest(
        repo=REPO,
        number=1,
        title="[Core] Initial engine",
        author="alice",
        labels=["ready"],
        merged_at=datetime(2026, 5, 1, 10, tzinfo=UTC),
        source="api",
    )
    store.upsert([(api, classifier(api))])
    report = sync_git(store, classifier, history.path, REPO)
    assert (report.fetched, report.new, report.kept_richer, report.skipped) == (5, 4, 1, 2)
    assert "non-PR commits skipped 2" in report.summary_line()
    kept = store.get(REPO, 1)
    assert kept is not None and kept.pr.source == "api" and kept.pr.labels == ["ready"]
    state = sync_state.get(store.db, REPO, "git")
    assert state is not None and state.cursor == history.git("rev-parse", "HEAD")
    assert state.watermark == datetime(2026, 5, 5, 10, tzinfo=UTC)

    again = sync_git(store, classifier, history.path, REPO)
    assert again.fetched == 0 and again.resumed

    history.write("vllm/new.py", "x = 1\n")
    history.commit("[Model] Add new model (#6)", author=ALICE, committed="2026-05-06T10:00:00+00:00")
    third = sync_git(store, classifier, history.path, REPO)
    assert (third.fetched, third.new) == (1, 1)
    assert store.count(REPO) == 6


def test_reimport_after_interruption_writes_the_same_rows(
    history: GitRepo, store: PRStore, classifier: Classifier, tmp_path: Path
) -> None:
    from storage.db import connect

    from .helpers import assert_same_rows

    clean = PRStore(connect(tmp_path / "clean.db", create=True))
    sync_git(clean, classifier, history.path, REPO, now=datetime(2026, 6, 1, tzinfo=UTC))
    calls = 0

    def interrupting(pr: PullRequest):
        nonlocal calls
        calls += 1
        if calls == 4:
            raise KeyboardInterrupt
        return classifier(pr)

    cut = PRStore(connect(tmp_path / "cut.db", create=True))
    with pytest.raises(KeyboardInterrupt):
        sync_git(cut, interrupting, history.path, REPO, batch=2, now=datetime(2026, 6, 1, tzinfo=UTC))
    assert cut.count(REPO) == 2  # one whole batch
    progress = sync_state.get(cut.db, REPO, "git")
    assert progress is not None and progress.cursor is not None and '"done"' in progress.cursor
    rest = sync_git(cut, classifier, history.path, REPO, now=datetime(2026, 6, 1, tzinfo=UTC))
    assert rest.resumed and rest.fetched == 3  # only the PRs below the last stored one
    assert any("resumed the interrupted import" in n for n in rest.notes)
    assert_same_rows(cut.db, clean.db)


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="no such directory"):
        open_repo(tmp_path / "missing")
    (tmp_path / "plain").mkdir()
    with pytest.raises(GitError, match="not a git repository"):
        open_repo(tmp_path / "plain")
    empty = GitRepo(tmp_path / "empty")
    with pytest.raises(GitError, match="no commits"):
        open_repo(empty.path)


def test_origin_remote_gives_the_repository(history: GitRepo) -> None:
    assert origin_repo(history.path) is None
    history.git("remote", "add", "origin", "git@github.com:vllm-project/vllm.git")
    assert origin_repo(history.path) == "vllm-project/vllm"
    history.git("remote", "set-url", "origin", "https://github.com/octo/repo")
    assert origin_repo(history.path) == "octo/repo"


def test_clean_body_and_author_login() -> None:
    text = "Intro\n\n\n\nSigned-off-by: A <a@x>\nsigned-off-by: B <b@x>\n  Co-Authored-By: C <c@x>\nEnd\n"
    assert clean_body(text) == "Intro\n\nEnd"
    assert author_login("Alice", "1+alice@users.noreply.github.com") == "alice"
    assert author_login("Bob", "bob@users.noreply.ghe.example.com") == "bob"
    assert author_login("Carol X", "carol@example.com") == "Carol X"
