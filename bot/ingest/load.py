"""Classify-and-store paths shared by ``import``, ``demo``, ``reclassify`` and the syncs.

Records are validated before anything is written: a file with one bad line imports nothing and
the error names the line, so an import can be fixed and re-run without half-loaded data. Then
they are classified and written in batches of ``BATCH`` rows, one transaction each: an import
that is interrupted (Ctrl-C, kill -9, a full disk) leaves whole batches, and running it again
completes it (rows already stored are recognised as unchanged).

A record's ``url`` is shown in chat as the link of "#N", so it must be that PR's own page; any
other value is replaced by the URL built from its repository and number (and counted).
"""

from __future__ import annotations

import gzip
import io
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from classify.engine import classify
from classify.models import PullRequest, Source
from classify.records import RecordInvalid, parse_pr_json
from classify.rules import Profile, ProfileError, classifier_code_hash, identity, reload_profile
from storage import fts
from storage.db import open_reader, require_writable
from storage.prs import (
    ClassifiedRow,
    PRStore,
    UpsertCounts,
    classified_row,
    profile_hashes_of_code,
    read_prs,
    stored_text,
)

if TYPE_CHECKING:
    import sqlite3


class RecordError(Exception):
    """A record file cannot be imported; the message names the file and line."""


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return path.open("r", encoding="utf-8")


def _records(path: Path) -> Iterator[tuple[int, PullRequest]]:
    try:
        fh = _open_text(path)
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except OSError as exc:
        raise RecordError(f"{path}: cannot be read ({exc.strerror})") from None
    with fh:
        try:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    pr = parse_pr_json(line)
                except RecordInvalid as exc:
                    raise RecordError(f"{path}:{lineno}: {exc}") from None
                if pr.created_at is not None and pr.merged_at < pr.created_at:
                    raise RecordError(
                        f"{path}:{lineno}: merged_at: {_z(pr.merged_at)} is before created_at "
                        f"{_z(pr.created_at)} (a PR is merged after it is created)"
                    )
                yield lineno, pr
        except (UnicodeDecodeError, gzip.BadGzipFile, EOFError) as exc:
            raise RecordError(f"{path}: not a UTF-8 JSON Lines file ({exc})") from None


def _z(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def validate_file(path: Path) -> int:
    """Check every record; returns how many there are."""
    return sum(1 for _ in _records(path))


BATCH = 500  # rows per transaction: ~0.1 s of writing, so a concurrent writer never waits long


@dataclass
class ImportResult:
    total: int
    counts: UpsertCounts
    urls_rebuilt: int = 0
    first_rebuilt_line: int | None = None
    repos: dict[str, int] = field(default_factory=dict)
    """each repository of the file, with how many of its records"""


def pr_url(web: str, repo: str, number: int) -> str:
    """The GitHub page of PR ``number`` of ``repo`` (``web``: https://github.com or a GHES host)."""
    return f"{web.rstrip('/')}/{repo}/pull/{number}"


def own_url(pr: PullRequest, web: str) -> bool:
    """Whether ``pr.url`` is the PR's own page (the repository part compared as GitHub does, caseless)."""
    return pr.url.casefold() == pr_url(web, pr.repo, pr.number).casefold()


def import_file(
    store: PRStore,
    profile: Profile | Callable[[str], Profile],
    path: Path,
    *,
    web: str = "https://github.com",
    batch: int = BATCH,
    source: Source = "import",
) -> ImportResult:
    """Validate the whole file, then classify and upsert it in batches. Importing it twice changes
    nothing. ``profile``: one for every record, or each repository's (``profile(repo)``).
    ``source`` is what the rows record as their origin (``demo`` for the bundled demo)."""
    total = validate_file(path)
    result = ImportResult(total, UpsertCounts())
    profile_of = profile if callable(profile) else (lambda _repo: profile)

    def checked() -> Iterator[PullRequest]:
        for lineno, pr in _records(path):
            if source != pr.source:
                pr = replace(pr, source=source)
            if not own_url(pr, web):
                result.urls_rebuilt += 1
                result.first_rebuilt_line = result.first_rebuilt_line or lineno
                pr = replace(pr, url=pr_url(web, pr.repo, pr.number))
            result.repos[pr.repo] = result.repos.get(pr.repo, 0) + 1
            yield pr

    with fts.built_after_a_first_import(store.db):  # into an empty cache: indexed once, at the end
        result.counts = store.upsert(
            ((pr, classify(pr, profile_of(pr.repo))) for pr in checked()), batch=batch
        )
    return result


@dataclass(frozen=True)
class ReclassifyResult:
    total: int  # PRs in scope (the repository's, or the whole cache's)
    changed: int  # PRs whose classification changed (rows and tags rewritten)
    seconds: float
    workers: int  # classifier processes used (0 when nothing needed classifying)
    classified: int = 0  # PRs re-run: those not yet classified with the profile's content

    @property
    def up_to_date(self) -> bool:
        """Every PR in scope already carried the profile's content hash: nothing was re-run."""
        return self.classified == 0


def _classify_prs(
    profile: Profile,
    prs: list[PullRequest],
    known: Mapping[tuple[str, int], tuple[list[str], str]] | None = None,
) -> list[ClassifiedRow]:
    """Classify ``prs``; ``known`` holds the stored highlights and gist this code made (by PR), re-used."""
    if not known:
        return [classified_row(pr, classify(pr, profile)) for pr in prs]
    return [
        classified_row(pr, classify(pr, profile, known_text=known.get((pr.repo, pr.number)))) for pr in prs
    ]


def _read_batch(
    conn: sqlite3.Connection, rowids: list[int], reusable: frozenset[str]
) -> tuple[list[PullRequest], dict[tuple[str, int], tuple[list[str], str]]]:
    return read_prs(conn, rowids), stored_text(conn, rowids, reusable)


# A classifier process's state, set once by ``_start_worker``: the profile and its own connection.
_WORKER: dict[str, Any] = {}


def _start_worker(
    profile_of: tuple[str, str, str],
    db_path: str,
    reusable: frozenset[str] = frozenset(),
) -> None:
    """Load the parent's profile (``classify.rules.reload_profile``: its file, checked against the
    parent's content hash) and open a read connection. A profile edited meanwhile is kept as the
    error every batch then raises, so the command reports it in one line instead of a broken pool."""
    try:
        _WORKER["profile"] = reload_profile(*profile_of)
    except ProfileError as exc:
        _WORKER["error"] = exc
        return
    _WORKER["conn"] = open_reader(db_path)
    _WORKER["reusable"] = reusable


def _classify_batch(rowids: list[int]) -> list[ClassifiedRow]:
    """Worker body: read a batch of cached PRs by rowid, classify them, return what to store.

    Only rowids go to the worker and compact tuples come back; reading the rows in the parent
    and pickling them over cost it ~3 s of a 200,000-PR reclassify, on the core the writes use.
    """
    if "error" in _WORKER:
        raise _WORKER["error"]
    return _classify_prs(
        _WORKER["profile"], *_read_batch(_WORKER["conn"], rowids, _WORKER.get("reusable", frozenset()))
    )


def default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def _pool_context() -> multiprocessing.context.BaseContext:
    """Workers start from a fresh process (never ``fork``: the parent holds an open SQLite
    connection, which a forked child must not inherit). ``forkserver`` forks them from a server
    that has imported the classifier once, so each starts in milliseconds."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["bot.ingest.load"])
        return ctx
    return multiprocessing.get_context("spawn")


def reclassify(
    store: PRStore,
    profile: Profile,
    repo: str | None = None,
    *,
    workers: int | None = None,
    batch: int = 2000,
) -> ReclassifyResult:
    """Re-run classification over the cache with the current profile (no network).

    Only PRs not yet classified with this profile's content (``Profile.content_hash``, stored
    per row) are re-run: with an unchanged profile that is none, found from an index in
    milliseconds, and after an interrupted reclassify it is the rows it did not reach.

    Classification is CPU-bound and pure, so it runs in ``workers`` processes, each reading its
    batches of rows through its own connection, while this process writes the results, one
    transaction per batch (``PRStore.store_classifications``); at most ``2 × workers`` batches
    are in flight, so memory stays flat however large the cache. Fewer than two batches (or a
    cache without a file) are classified in-process (starting processes would cost more than it
    saves).
    """
    started = time.perf_counter()
    require_writable(store.db)  # a cache this prdigest may not write is refused, not called up to date
    workers = default_workers() if workers is None else max(1, workers)
    total = store.count(repo)
    todo = store.count_other_profile(repo, profile.content_hash)
    if todo == 0:
        store.count_title_topics(repo)  # a cache from before the aggregates, or written without a profile
        return ReclassifyResult(total, 0, time.perf_counter() - started, 0)
    rowids = store.rowids_to_classify(repo, other_than=profile.content_hash)
    # rows this very code classified (under another profile) keep their gist and highlights
    reusable = profile_hashes_of_code(store.db.conn, classifier_code_hash())
    batches = [rowids[i : i + batch] for i in range(0, len(rowids), batch)]
    path = getattr(store.db, "path", None)
    changed = 0
    if workers == 1 or len(batches) < 2 or path is None:
        for chunk in batches:
            changed += store.store_classifications(
                _classify_prs(profile, *_read_batch(store.db.conn, chunk, reusable))
            )
        store.count_title_topics(repo)
        return ReclassifyResult(total, changed, time.perf_counter() - started, 1, len(rowids))
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_pool_context(),
        initializer=_start_worker,
        initargs=(identity(profile), str(path), reusable),
    ) as pool:
        pending: deque[Future[list[ClassifiedRow]]] = deque()
        for chunk in batches:
            pending.append(pool.submit(_classify_batch, chunk))
            if len(pending) >= 2 * workers:
                changed += store.store_classifications(pending.popleft().result())
        while pending:
            changed += store.store_classifications(pending.popleft().result())
    store.count_title_topics(repo)
    return ReclassifyResult(total, changed, time.perf_counter() - started, workers, len(rowids))
