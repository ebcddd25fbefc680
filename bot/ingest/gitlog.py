"""Merged PRs from a local clone's first-parent history, without any network.

GitHub leaves two shapes of PR on the main branch's first-parent line:

* squash (and rebase) merges — subject ``Title (#123)`` (or ``Title(#123)``);
* merge commits — subject ``Merge pull request #123 from owner/branch``, the PR title as the first
  body line.

Everything comes from ONE ``git log --first-parent -m --raw --numstat -z`` process, parsed as it
streams (so git computes diffs while Python classifies): change type and rename source from
``--raw``, per-file line counts from ``--numstat`` (``-`` for binary files counts as 0), the merge
time from the committer date. Merge commits' true authors live on their second parent; a
``git cat-file --batch`` helper, started only when a merge commit appears, reads those.
Bodies lose their Signed-off-by/Co-authored-by trailers. Commits that are not PRs are counted and
skipped.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, NamedTuple
from urllib.parse import urlsplit

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

from classify.models import ChangeType, FileChange, PullRequest

# "Title (#123)", and "Title(#123)" as some squash subjects are written (…requirements(#8747))
_SQUASH = re.compile(r"^(?P<title>.*\S)\s*\(#(?P<num>\d+)\)\s*$")
_MERGE = re.compile(r"^Merge pull request #(?P<num>\d+) from (?P<head>\S+)")
_TRAILER = re.compile(
    r"^[ \t]*(?:signed-off-by|co-authored-by)[ \t]*:.*(?:\n|$)", re.IGNORECASE | re.MULTILINE
)
_BLANKS = re.compile(r"\n{3,}")
_NOREPLY = re.compile(
    r"^(?:\d+\+)?(?P<login>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))@users\.noreply\.", re.IGNORECASE
)
_NUMSTAT = re.compile(rb"^(\d+|-)\t(\d+|-)\t(.*)$", re.DOTALL)
_RAW_TYPES: dict[str, ChangeType] = {
    "A": "added",
    "M": "modified",
    "D": "removed",
    "R": "renamed",
    "C": "copied",
    "T": "changed",
}
_FORMAT = "%x1e%H%x1f%P%x1f%an%x1f%ae%x1f%cI%x1f%B%x1f"
_CHUNK = 1 << 16
_QUEUED_CHUNKS = 1024  # at most 64 MiB of git output read ahead of the parser


class GitError(Exception):
    """The path is not a usable git clone, or git failed; the message says which and why."""


@dataclass
class GitLogStats:
    """What an import saw: commits walked, PRs produced, commits skipped as not being PRs."""

    commits: int = 0
    prs: int = 0
    skipped: int = 0
    duplicates: int = 0
    head: str = ""
    last_pr_commit: str = ""  # the commit of the PR yielded last (where an interrupted walk resumes)
    skipped_subjects: list[str] = field(default_factory=list)


def _run(path: Path, *args: str) -> str:
    try:
        out = subprocess.run(["git", "-C", str(path), *args], capture_output=True, check=True, timeout=60)
    except FileNotFoundError as exc:
        raise GitError("git is not installed (needed for --git)") from exc
    except subprocess.CalledProcessError as exc:
        msg = exc.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = msg[-1] if msg else exc.returncode
        raise GitError(f"git {' '.join(args)} failed in {path}: {reason}") from exc
    return out.stdout.decode("utf-8", "replace").strip()


def open_repo(path: str | Path) -> Path:
    """Check that ``path`` is a git work tree or bare repository with at least one commit."""
    p = Path(path).expanduser()
    if not p.exists():
        raise GitError(f"--git {path}: no such directory")
    if not p.is_dir():
        raise GitError(f"--git {path}: not a directory")
    try:
        _run(p, "rev-parse", "--git-dir")
    except GitError as exc:
        raise GitError(f"--git {path}: not a git repository") from exc
    try:
        _run(p, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    except GitError as exc:
        raise GitError(f"--git {path}: the repository has no commits") from exc
    return p


def head_commit(path: Path, rev: str = "HEAD") -> str:
    return _run(path, "rev-parse", "--verify", f"{rev}^{{commit}}")


def current_branch(path: Path) -> str:
    try:
        return _run(path, "symbolic-ref", "--short", "-q", "HEAD") or "main"
    except GitError:
        return "main"


def is_ancestor(path: Path, older: str, newer: str) -> bool:
    result = subprocess.run(
        ["git", "-C", str(path), "merge-base", "--is-ancestor", older, newer], capture_output=True, timeout=60
    )
    return result.returncode == 0


def origin_url(path: Path) -> str | None:
    """The URL of the clone's ``origin`` remote, if it has one."""
    try:
        return _run(path, "remote", "get-url", "origin") or None
    except GitError:
        return None


GITHUB_HOSTS = frozenset({"github.com", "www.github.com", "ssh.github.com"})
_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>.+)$")  # git@github.com:owner/name.git
_NAME_PART = re.compile(r"^[A-Za-z0-9_.-]+$")


def github_repo_of(url: str, hosts: frozenset[str] | set[str] = GITHUB_HOSTS) -> str | None:
    """OWNER/NAME when ``url`` is a GitHub repository URL on one of ``hosts``, else None.

    Accepts the forms git itself accepts for a remote: ``https://github.com/o/n(.git)``,
    ``ssh://git@github.com/o/n.git``, ``git://…`` and scp-like ``git@github.com:o/n.git``. A local
    path, or another host (a GitLab mirror, a file server), names no GitHub repository.
    """
    url = url.strip()
    if "://" in url:
        parts = urlsplit(url)
        host, repo_path = (parts.hostname or "").lower(), parts.path
    else:
        m = _SCP_LIKE.match(url)
        if m is None or "/" in m.group("host"):
            return None
        host, repo_path = m.group("host").lower(), m.group("path")
    if host not in {h.lower() for h in hosts}:
        return None
    segments = repo_path.strip("/").removesuffix(".git").split("/")
    if len(segments) != 2 or not all(_NAME_PART.match(s) for s in segments):
        return None
    return "/".join(segments)


def origin_repo(path: Path, hosts: frozenset[str] | set[str] = GITHUB_HOSTS) -> str | None:
    """OWNER/NAME from the clone's ``origin`` remote when it is a GitHub URL, else None."""
    url = origin_url(path)
    return github_repo_of(url, hosts) if url else None


def pr_number(subject: str) -> int | None:
    """The PR number a first-parent commit subject carries (squash or merge commit), if any."""
    m = _MERGE.match(subject) or _SQUASH.match(subject)
    return int(m.group("num")) if m else None


def pr_numbers(path: Path, rev: str, exclude: str | None = None) -> set[int]:
    """Numbers of the PR commits on ``rev``'s first-parent line (not below ``exclude``), from
    their subjects alone: no diffs, so even a long history takes a fraction of a second."""
    args = ["log", "--first-parent", "--format=%s", rev]
    if exclude:
        args.append(f"^{exclude}")
    out = _run(path, *args, "--")
    return {n for line in out.splitlines() if (n := pr_number(line.strip())) is not None and n > 0}


def parent(path: Path, commit: str) -> str | None:
    """The first parent of ``commit`` (None for a root commit)."""
    try:
        return _run(path, "rev-parse", "--verify", "-q", f"{commit}^1^{{commit}}") or None
    except GitError:
        return None


def has_commit(path: Path, commit: str) -> bool:
    try:
        _run(path, "cat-file", "-e", f"{commit}^{{commit}}")
    except GitError:
        return False
    return True


def clean_body(text: str) -> str:
    """The message body without Signed-off-by/Co-authored-by trailers and runs of blank lines."""
    text = _TRAILER.sub("", text.replace("\r\n", "\n"))
    return _BLANKS.sub("\n\n", text).strip()


def author_login(name: str, email: str) -> str:
    """The GitHub login from a noreply address (``123+login@users.noreply.github.com``), else the name."""
    m = _NOREPLY.match(email.strip())
    return m.group("login") if m else name.strip()


def commit_authors(path: Path, shas: list[str]) -> dict[str, tuple[str, str]]:
    """(name, email) of the author of each commit, read by one ``git log --no-walk --stdin``."""
    if not shas:
        return {}
    result = subprocess.run(
        ["git", "-C", str(path), "log", "--no-walk=unsorted", "--stdin", "--format=%H%x1f%an%x1f%ae"],
        input="\n".join(shas).encode() + b"\n",
        capture_output=True,
        timeout=120,
    )
    found: dict[str, tuple[str, str]] = {}
    for line in result.stdout.decode("utf-8", "replace").splitlines():
        parts = line.split("\x1f")
        if len(parts) == 3:
            found[parts[0]] = (parts[1], parts[2])
    return found


def _merge_author(
    found: tuple[str, str] | None, head_owner: str, repo_owner: str, name: str, email: str
) -> str:
    """Who wrote a merged PR: the second parent's GitHub login (noreply address), else the fork
    owner from "from owner/branch", else the second parent's name, else the merge commit's author."""
    if found and _NOREPLY.match(found[1].strip()):
        return author_login(*found)
    if head_owner and head_owner.lower() != repo_owner:
        return head_owner
    if found:
        return found[0].strip()
    return author_login(name, email)


def _parse_changes(tokens: list[bytes]) -> list[FileChange]:
    raw: dict[str, tuple[ChangeType, str | None]] = {}
    order: list[str] = []
    counts: dict[str, tuple[int, int]] = {}
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i].lstrip(b"\n")
        i += 1
        if not tok:
            continue
        if tok.startswith(b":"):
            fields = tok[1:].split(b" ")
            status = fields[4].decode("ascii", "replace") if len(fields) > 4 else "M"
            letter = status[:1]
            if letter in ("R", "C") and i + 1 < n:
                old = tokens[i].decode("utf-8", "replace")
                new = tokens[i + 1].decode("utf-8", "replace")
                i += 2
                raw[new] = (_RAW_TYPES[letter], old)
                order.append(new)
            else:
                p = tokens[i].decode("utf-8", "replace")
                i += 1
                raw[p] = (_RAW_TYPES.get(letter, "modified"), None)
                order.append(p)
            continue
        m = _NUMSTAT.match(tok)
        if not m:
            continue
        add = 0 if m.group(1) == b"-" else int(m.group(1))
        dele = 0 if m.group(2) == b"-" else int(m.group(2))
        if m.group(3):
            counts[m.group(3).decode("utf-8", "replace")] = (add, dele)
        else:  # rename/copy: the two paths follow as their own tokens
            new = tokens[i + 1].decode("utf-8", "replace") if i + 1 < n else ""
            i += 2
            counts[new] = (add, dele)
    files = []
    for p in order:
        change, previous = raw[p]
        add, dele = counts.get(p, (0, 0))
        files.append(_file_change(p, add, dele, change, previous))
    for p, (add, dele) in counts.items():
        if p not in raw:
            files.append(_file_change(p, add, dele, "modified", None))
    return files


def _file_change(
    path: str, additions: int, deletions: int, change: ChangeType, previous: str | None
) -> FileChange:
    """A FileChange from values git gave (counts are digits, the type comes from ``_RAW_TYPES``)."""
    return FileChange(
        path=path, additions=additions, deletions=deletions, change_type=change, previous_path=previous
    )


def _put(out: queue.Queue[bytes | None], item: bytes | None, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            out.put(item, timeout=0.1)
            return
        except queue.Full:
            continue


def _drain(stream: IO[bytes], out: queue.Queue[bytes | None], stop: threading.Event) -> None:
    """Copy a pipe into a queue so git never waits for Python (they run on two cores).

    It reads the pipe's file descriptor directly, not the buffered file object: a daemon thread
    still inside a buffered read when the interpreter exits holds that object's lock, and CPython
    then aborts with "Fatal Python error: _enter_buffered_busy".
    """
    fd = stream.fileno()
    try:
        while not stop.is_set():
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                break
            _put(out, chunk, stop)
    except (OSError, ValueError):
        pass  # the pipe was closed under us: the consumer has stopped
    _put(out, None, stop)


def git_command(path: Path, args: list[str]) -> list[str]:
    """The git command line an import runs (``bench/gitlog_speed.py`` times it bare, side by side)."""
    return [
        "git",
        "-C",
        str(path),
        "-c",
        "core.quotepath=off",
        "-c",
        "log.showSignature=false",
        "-c",
        "diff.renames=true",
        "-c",
        "diff.renameLimit=4000",
        *args,
    ]


def log_args(
    head: str, *, since: datetime | None = None, until: datetime | None = None, exclude: str | None = None
) -> list[str]:
    """``git log --first-parent -m --raw --numstat -z`` of ``head`` in the format the parser reads."""
    args = [
        "log",
        "--first-parent",
        "-m",
        "--raw",
        "--numstat",
        "-z",
        "-M",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-abbrev",
        f"--format={_FORMAT}",
    ]
    if since is not None:
        args.append(f"--since={since.astimezone(UTC).isoformat()}")
    if until is not None:
        args.append(f"--until={until.astimezone(UTC).isoformat()}")
    args.append(head)
    if exclude:
        args.append(f"^{exclude}")
    args.append("--")
    return args


_PIPE_BYTES = 1 << 20
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031) if fcntl is not None else None


def _widen_pipe(fd: int) -> None:
    """Give git's output pipe 1 MiB instead of 64 KiB (Linux): the reader thread waits for the GIL
    while the classifier runs, and git, which writes ~3 MB/s, must not stall in the meantime."""
    if _F_SETPIPE_SZ is None or not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, _F_SETPIPE_SZ, _PIPE_BYTES)


def _records(path: Path, args: list[str]) -> Iterator[bytes]:
    """Raw commit records of ``git log`` streamed as they arrive (split on the \\x1e marker)."""
    cmd = git_command(path, args)
    with tempfile.TemporaryFile() as errors:
        try:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors)
        except FileNotFoundError as exc:
            raise GitError("git is not installed (needed for --git)") from exc
        assert proc.stdout is not None
        _widen_pipe(proc.stdout.fileno())
        chunks: queue.Queue[bytes | None] = queue.Queue(maxsize=_QUEUED_CHUNKS)
        stop = threading.Event()
        reader = threading.Thread(
            target=_drain, args=(proc.stdout, chunks, stop), name="git-log-reader", daemon=True
        )
        reader.start()
        buf = b""
        completed = False
        try:
            while (chunk := chunks.get()) is not None:
                buf += chunk
                parts = buf.split(b"\x1e")
                buf = parts.pop()
                for part in parts:
                    if part.strip(b"\n\x00"):
                        yield part
            if buf.strip(b"\n\x00"):
                yield buf
            completed = True
        finally:
            stop.set()
            if not completed:
                proc.kill()
            reader.join(timeout=10)
            proc.stdout.close()
            code = proc.wait()
        errors.seek(0)
        err = errors.read().decode("utf-8", "replace").strip()
    if code != 0:
        raise GitError(f"git log failed in {path}: {err.splitlines()[-1] if err else code}")


@dataclass
class _Commit:
    sha: str
    parents: list[str]
    name: str
    email: str
    merged_at: datetime
    message: str
    changes: bytes


def _commits(root: Path, args: list[str], stats: GitLogStats) -> Iterator[_Commit]:
    for record in _records(root, args):
        head, _, rest = record.partition(b"\x00")
        fields = head.decode("utf-8", "replace").split("\x1f", 5)
        if len(fields) < 6:
            continue
        sha, parents, name, email, committed, message = fields
        stats.commits += 1
        yield _Commit(
            sha.strip(),
            parents.split(),
            name,
            email,
            datetime.fromisoformat(committed).astimezone(UTC),
            message.removesuffix("\x1f"),
            rest,
        )


def iter_merged_prs(
    path: str | Path,
    repo: str,
    *,
    rev: str = "HEAD",
    exclude: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    web: str = "https://github.com",
    base_branch: str | None = None,
    stats: GitLogStats | None = None,
    group: int = 256,
    seen: set[int] | None = None,
) -> Generator[PullRequest, None, None]:
    """Merged PRs on ``rev``'s first-parent line, newest first, each number once (the newest).

    ``exclude`` (a commit) limits the walk to commits after it (incremental imports); ``since`` and
    ``until`` bound the merge (committer) time to [since, until). ``seen`` holds numbers already
    taken from newer commits (a resumed walk); they are skipped like duplicates. Commits are handled
    in groups of ``group`` so the authors of merge commits' second parents are read with one git
    call per group. ``stats.last_pr_commit`` names the commit of each PR while it is yielded.
    """
    root = open_repo(path)
    stats = stats if stats is not None else GitLogStats()
    stats.head = head_commit(root, rev)
    where = _Where(root, repo, base_branch or current_branch(root), web)
    args = log_args(stats.head, since=since, until=until, exclude=exclude)
    seen = set(seen or ())
    pending: list[_Pending] = []
    for commit in _commits(root, args, stats):
        if since is not None and commit.merged_at < since:
            continue
        if until is not None and commit.merged_at >= until:
            continue
        found = _merged_pr(commit)
        if found is None:
            stats.skipped += 1
            if len(stats.skipped_subjects) < 20:
                stats.skipped_subjects.append(commit.message.strip("\n").split("\n")[0].strip()[:120])
            continue
        if found.number in seen or found.number <= 0:
            stats.duplicates += 1
            continue
        seen.add(found.number)
        pending.append(found)
        if len(pending) >= group:
            yield from _built(pending, where, stats)
            pending = []
    yield from _built(pending, where, stats)


class _Pending(NamedTuple):
    """A commit that merged a PR, with what its message says of it; ``head_owner`` is None for a
    squash (the commit's author is the PR's), else the owner named in the merge's branch."""

    commit: _Commit
    number: int
    title: str
    body: str
    head_owner: str | None


class _Where(NamedTuple):
    """Where the PRs come from: the clone, the repository they belong to, their base branch and
    the web address their links point to."""

    root: Path
    repo: str
    branch: str
    web: str


def _merged_pr(commit: _Commit) -> _Pending | None:
    """The PR a first-parent commit merged (a merge commit or a squash), or None for another commit."""
    lines = commit.message.strip("\n").split("\n")
    subject = lines[0].strip()
    m_merge = _MERGE.match(subject)
    if m_merge:
        rest_lines = lines[1:]
        while rest_lines and not rest_lines[0].strip():
            rest_lines.pop(0)
        title = rest_lines[0].strip() if rest_lines else subject
        head = m_merge.group("head")
        head_owner = head.split("/", 1)[0] if "/" in head else ""
        return _Pending(commit, int(m_merge.group("num")), title, "\n".join(rest_lines[1:]), head_owner)
    m_squash = _SQUASH.match(subject)
    if m_squash:
        return _Pending(
            commit, int(m_squash.group("num")), m_squash.group("title").strip(), "\n".join(lines[1:]), None
        )
    return None


def _built(pending: list[_Pending], where: _Where, stats: GitLogStats) -> Iterator[PullRequest]:
    """The PRs of ``pending``, the authors of merge commits' second parents read in one git call."""
    owner = where.repo.split("/", 1)[0].lower()
    merges = [p.commit.parents[1] for p in pending if p.head_owner is not None and len(p.commit.parents) > 1]
    authors = commit_authors(where.root, merges)
    for commit, number, title, body, head_owner in pending:
        if head_owner is None:
            author = author_login(commit.name, commit.email)
        else:
            second = authors.get(commit.parents[1]) if len(commit.parents) > 1 else None
            author = _merge_author(second, head_owner, owner, commit.name, commit.email)
        files = _parse_changes(commit.changes.split(b"\x00"))
        stats.prs += 1
        stats.last_pr_commit = commit.sha
        yield PullRequest(
            repo=where.repo,
            number=number,
            title=title,
            body=clean_body(body),
            author=author,
            merged_at=commit.merged_at,
            base_branch=where.branch,
            additions=sum(f.additions for f in files),
            deletions=sum(f.deletions for f in files),
            files=files,
            url=f"{where.web.rstrip('/')}/{where.repo}/pull/{number}",
            source="git",
        )
