"""Source → classify → storage: keep the cache in step with GitHub or a local clone.

API sync
  Searches ``repo:R is:pr is:merged merged:A..B sort:created-asc`` 100 PRs a page, each with its
  first 100 files and labels, and pages the files of bigger PRs in batched follow-ups. A search
  never returns more than 1000 results, so a window whose ``issueCount`` exceeds that is cut into
  slices sized from the observed density (the overflowing first page is the only request wasted).

  Every page is upserted together with the progress row (``sync_state``) in ONE transaction: a
  crash at any point leaves either both or neither, and the next run resumes from the last stored
  page (the run's range and cursor are recorded), ending with exactly the rows an uninterrupted run
  writes. The watermark moves only over contiguous, completed slices; a later run without
  ``--since`` starts from it (less an hour of overlap for GitHub's search-index lag), so a run with
  nothing new costs one request.

Git import
  Streams ``bot.ingest.gitlog`` in batches of 500 (one transaction each) and records the imported HEAD,
  so the next import walks only newer commits. Git rows never overwrite richer API rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.ingest import github as gh
from bot.ingest import github_queries as queries
from bot.ingest import gitlog
from classify.models import Classification, PullRequest, StoredPR
from storage import fts, sync_state
from storage.db import StoreError, write_transaction
from storage.prs import PRStore, UpsertCounts, iso, parse_iso
from storage.sync_state import SyncState

DEFAULT_LOOKBACK = timedelta(weeks=12)
OVERLAP = timedelta(hours=1)  # re-read the last hour: GitHub's search index can lag behind merges
SLICE_TARGET = 800  # aim slices below the 1000 cap so uneven density rarely overflows again
MIN_SLICE = timedelta(seconds=1)  # search time resolution
MIN_PAGE = 10
MAX_PAGES_PER_RUN = 100_000  # a hard stop for a loop that should never get near it
GIT_BATCH = 500

Classifier = Callable[[PullRequest], Classification]


@dataclass
class Progress:
    """One step of a sync, for the progress display (the CLI decides how to show it)."""

    kind: str  # page | split | wait | batch | done
    message: str
    pages: int = 0
    prs: int = 0
    window_start: datetime | None = None
    window_end: datetime | None = None
    window_total: int | None = None
    window_done: int = 0
    rate_remaining: int | None = None


ProgressFn = Callable[[Progress], None]


@dataclass
class SyncReport:
    """What a sync did; ``summary_line`` is the closing line the CLI always prints."""

    source: str
    repo: str
    fetched: int = 0
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    kept_richer: int = 0
    requests: int = 0
    pages: int = 0
    slices: int = 0
    wasted: int = 0
    rate_remaining: int | None = None
    rate_limit: int | None = None
    rate_reset: datetime | None = None
    since: datetime | None = None
    until: datetime | None = None
    resumed: bool = False
    skipped: int = 0  # git: commits that are not PRs
    watermark: datetime | None = None
    complete: bool = False
    notes: list[str] = field(default_factory=list)

    def add(self, counts: UpsertCounts) -> None:
        self.new += counts.new
        self.updated += counts.updated
        self.unchanged += counts.unchanged
        self.kept_richer += counts.kept_richer

    def summary_line(self) -> str:
        parts = [
            f"{self.repo} ({self.source}):",
            f"fetched {self.fetched},",
            f"new {self.new},",
            f"updated {self.updated},",
        ]
        if self.kept_richer:
            parts.append(f"kept richer API rows {self.kept_richer},")
        if self.source == "git":  # a clone costs no GitHub request: no request or rate-limit figures
            parts.append(f"non-PR commits skipped {self.skipped}")
        else:
            parts.append(f"requests used {self.requests},")
            if self.rate_remaining is None:
                parts.append("rate limit remaining n/a")
            else:
                limit = f"/{self.rate_limit}" if self.rate_limit else ""
                parts.append(f"rate limit remaining {self.rate_remaining}{limit}")
        if not self.complete:
            parts.append("(incomplete: run sync again to continue)")
        return " ".join(parts)


def classifier_for(profile: Any) -> Classifier:
    """``classify.engine.classify`` bound to a loaded profile."""
    from classify.engine import classify

    def run(pr: PullRequest) -> Classification:
        return classify(pr, profile)

    return run


def _emit(progress: ProgressFn | None, event: Progress) -> None:
    if progress is not None:
        progress(event)


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _cursor_text(pos: datetime, slice_end: datetime | None, after: str | None) -> str:
    return json.dumps(
        {"pos": iso(pos), "slice_end": iso(slice_end) if slice_end else None, "after": after}, sort_keys=True
    )


def _read_cursor(text: str) -> tuple[datetime, datetime | None, str | None] | None:
    try:
        raw = json.loads(text)
        pos = parse_iso(raw["pos"])
        if pos is None:
            return None
        return pos, parse_iso(raw.get("slice_end")), raw.get("after")
    except (ValueError, KeyError, TypeError):
        return None


# -- API ------------------------------------------------------------------------------------------


def sync_api(
    store: PRStore,
    client: gh.GitHubClient,
    classifier: Classifier,
    repo: str,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    now: datetime | None = None,
    lookback: timedelta = DEFAULT_LOOKBACK,
    progress: ProgressFn | None = None,
    report: SyncReport | None = None,
) -> SyncReport:
    """Fetch PRs of ``repo`` merged in [since, until) (defaults: from the watermark, to now).

    Pass ``report`` to keep the counts of a run that is cut short by an exception (Ctrl-C, limits).
    """
    now = (now or _now()).astimezone(UTC)
    end = min(until, now) if until is not None else now
    report = report if report is not None else SyncReport(source="api", repo=repo)
    run = _ApiRun(store, client, classifier, repo, now, end, report, progress)
    run.start(since, lookback)
    if run.pos >= end:
        report.complete = True
        report.notes.append("nothing to fetch: the requested range is empty")
        return finish_report(report, client, run.requests_before, run.watermark)
    for _ in range(MAX_PAGES_PER_RUN):
        if run.pos >= end:
            break
        run.next_page()
    else:
        raise gh.GitHubError(f"sync stopped after {MAX_PAGES_PER_RUN} pages without finishing")
    fts.keep_merged(store.db)  # each page's commit added a segment to the full-text index
    report.complete = True
    return finish_report(report, client, run.requests_before, run.watermark)


class _ApiRun:
    """One ``sync_api`` run: where it stands in the range (``pos``, the current slice's end and
    page cursor), the slice width that keeps a search under GitHub's 1,000 results, the page size,
    and the watermark stored with each page."""

    def __init__(
        self,
        store: PRStore,
        client: gh.GitHubClient,
        classifier: Classifier,
        repo: str,
        now: datetime,
        end: datetime,
        report: SyncReport,
        progress: ProgressFn | None,
    ) -> None:
        self.store, self.client, self.classifier, self.repo = store, client, classifier, repo
        self.now, self.end, self.report, self.progress = now, end, report, progress
        self.state = sync_state.get(store.db, repo, "api")
        self.watermark = self.state.watermark if self.state else None
        self.requests_before = client.requests
        self.pos = end
        self.run_start = end
        self.slice_end: datetime | None = None
        self.after: str | None = None
        self.width: timedelta | None = None  # None: try the whole remaining range
        self.in_slice = 0  # results of the current slice already stored (progress display only)
        self.page_size = queries.PAGE_SIZE

    def start(self, since: datetime | None, lookback: timedelta) -> None:
        """Resume an interrupted run of the same range, else start from ``since``, the watermark
        (less an overlap) or ``lookback`` before the end."""
        state, end, report = self.state, self.end, self.report
        resume = _read_cursor(state.cursor) if state and state.in_progress and state.cursor else None
        if (
            resume is not None
            and state is not None
            and state.window_start is not None
            and state.window_end is not None
            and (since is None or since == state.window_start)
            and end >= state.window_end
        ):
            self.run_start = state.window_start
            self.pos, self.slice_end, self.after = resume
            report.resumed = True
            report.notes.append(f"resumed the interrupted sync from {iso(self.pos)}")
        else:
            if since is not None:
                self.run_start = since
            elif self.watermark is not None:
                self.run_start = self.watermark - OVERLAP
            else:
                self.run_start = end - lookback
            self.pos = self.run_start
        report.since, report.until = self.run_start, end

    def shrink(self, variables: dict[str, Any]) -> dict[str, Any]:
        self.page_size = max(MIN_PAGE, self.page_size // 2)
        return {**variables, "first": self.page_size}

    def next_page(self) -> None:
        """Fetch one page: split a slice too dense for search, else store the page and move on."""
        pos, width = self.pos, self.width
        s_end = self.slice_end or (min(self.end, pos + width) if width else self.end)
        page = gh.search_page(
            self.client,
            gh.search_string(self.repo, pos, s_end),
            first=self.page_size,
            after=self.after,
            adapt=self.shrink,
        )
        if self.after is None and page.issue_count > gh.SEARCH_RESULT_CAP and s_end - pos > MIN_SLICE:
            self._split(page, s_end)
            return
        if self.after is None and page.issue_count > gh.SEARCH_RESULT_CAP:
            self.report.notes.append(
                f"{page.issue_count} PRs merged within one second at {iso(pos)}: "
                "only 1000 are reachable by search"
            )
        self.slice_end = s_end
        # A gateway timeout is usually one heavy page, not a slower GitHub: after each page that
        # arrived, double back towards the full size (a 502 used to cost every later page).
        self.page_size = min(queries.PAGE_SIZE, self.page_size * 2)
        next_after = self._store(page, s_end)
        if next_after is None:  # the slice is done
            if self.width is not None:
                # Next slice: same density guess, grown when this one was sparse.
                total = max(1, page.issue_count)
                seconds = self.width.total_seconds() * min(4.0, SLICE_TARGET / total)
                self.width = timedelta(seconds=max(1, int(seconds)))
            self.pos, self.slice_end, self.after = s_end, None, None
        else:
            self.after = next_after

    def _split(self, page: gh.SearchPage, s_end: datetime) -> None:
        """A slice holds more PRs than search shows: narrow it to about ``SLICE_TARGET`` PRs."""
        pos, report = self.pos, self.report
        span = s_end - pos
        new_width = max(MIN_SLICE, span * SLICE_TARGET / page.issue_count)
        new_width = timedelta(seconds=max(1, int(new_width.total_seconds())))
        self.slice_end, self.width = pos + new_width, new_width
        report.wasted += 1
        _emit(
            self.progress,
            Progress(
                "split",
                f"{iso(pos)}..{iso(s_end)} holds {page.issue_count} PRs (search shows 1000); "
                f"slicing to {iso(pos)}..{iso(self.slice_end)}",
                pages=report.pages,
                prs=report.fetched,
                rate_remaining=self.client.rate.remaining,
            ),
        )

    def _store(self, page: gh.SearchPage, s_end: datetime) -> str | None:
        """Classify and store the page's PRs with where the run stands (in one transaction);
        returns the cursor of the slice's next page, None when the slice is done."""
        pos, watermark, report, db = self.pos, self.watermark, self.report, self.store.db
        gh.complete_files(self.client, self.repo, page.nodes)
        prs = [gh.pr_from_node(self.repo, n) for n in page.nodes if n.get("mergedAt")]
        items = [(pr, self.classifier(pr)) for pr in prs]
        next_after = page.end_cursor if page.has_next and page.nodes else None
        slice_done = next_after is None
        new_watermark = watermark
        if slice_done and (watermark is None or pos <= watermark):
            new_watermark = max(watermark, s_end) if watermark else s_end
        if slice_done and s_end >= self.end:
            cursor, w_start, w_end = None, None, None
        elif slice_done:
            cursor, w_start, w_end = _cursor_text(s_end, None, None), self.run_start, self.end
        else:
            cursor, w_start, w_end = _cursor_text(pos, s_end, next_after), self.run_start, self.end
        with write_transaction(db):
            counts = self.store.upsert(items)
            sync_state.save(
                db, SyncState(self.repo, "api", new_watermark, cursor, w_start, w_end), now=self.now
            )
        self.watermark = new_watermark
        report.add(counts)
        report.fetched += len(items)
        report.pages += 1
        if self.after is None:
            report.slices += 1
            self.in_slice = 0
        self.in_slice += len(page.nodes)
        _emit(
            self.progress,
            Progress(
                "page",
                f"{iso(pos)}..{iso(s_end)}: page {report.pages}, {report.fetched} PRs",
                pages=report.pages,
                prs=report.fetched,
                window_start=pos,
                window_end=s_end,
                window_total=min(page.issue_count, gh.SEARCH_RESULT_CAP),
                window_done=self.in_slice,
                rate_remaining=self.client.rate.remaining,
            ),
        )
        return next_after


def finish_report(
    report: SyncReport, client: gh.GitHubClient, requests_before: int = 0, watermark: datetime | None = None
) -> SyncReport:
    """Copy the request count and rate limit into ``report`` (also for runs cut short)."""
    report.requests = client.requests - requests_before
    report.rate_remaining = client.rate.remaining
    report.rate_limit = client.rate.limit
    report.rate_reset = datetime.fromtimestamp(client.rate.reset_at, UTC) if client.rate.reset_at else None
    if watermark is not None:
        report.watermark = watermark
    return report


def fetch_and_store(
    store: PRStore, client: gh.GitHubClient, classifier: Classifier, repo: str, number: int
) -> StoredPR | None:
    """On-demand fetch for ``pr NUMBER``: fetch one merged PR, classify, cache, return it."""
    pr = gh.fetch_pr(client, repo, number)
    if pr is None:
        return None
    with write_transaction(store.db):
        store.upsert([(pr, classifier(pr))])
    # no ``fts.keep_merged`` here: someone waits for this answer; the next sync merges
    return store.get(repo, number)


def on_demand_fetcher(
    settings: Any,
    store: PRStore,
    profile: Any,
    *,
    timeout: float = 8.0,
    max_wait: float = 10.0,
    retries: int = 1,
) -> Callable[[str, int], StoredPR | None] | None:
    """For ``pr NUMBER`` on a PR missing from the cache: None without GITHUB_TOKEN, else a function.

    The function ``fetch(repo, number)`` fetches the merged PR (one request, plus one per 200 files
    beyond the first 100), classifies it, caches it and returns the stored row, or None when GitHub
    has no merged PR with that number. Someone is waiting for the answer, so the timeouts are short
    (``timeout`` per request, one retry, rate-limit waits up to ``max_wait``), unlike a sync's. Failures (rejected token, rate limit longer than
    ``max_wait``, GitHub down) raise ``RuntimeError`` with a one-line reason, so callers in
    ``commands/`` need no GitHub types. It blocks; call it from a thread in async code, with a store
    whose SQLite connection may be used from that thread.
    """
    token = settings.github_token.get_secret_value().strip() if settings.github_token is not None else ""
    if not token:
        return None
    classifier = classifier_for(profile)

    def fetch(repo: str, number: int) -> StoredPR | None:
        try:
            with gh.client_from_settings(
                settings, timeout=timeout, max_wait=max_wait, max_retries=retries
            ) as client:
                return fetch_and_store(store, client, classifier, repo, number)
        except gh.GitHubError as exc:
            raise RuntimeError(str(exc)) from exc
        except ValueError as exc:  # a bad PRDIGEST_GITHUB_API_URL
            raise RuntimeError(str(exc)) from exc
        except StoreError as exc:  # the cache could not be written (full disk, lock held too long)
            raise RuntimeError(str(exc)) from exc

    return fetch


# -- git ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _GitWalk:
    """One first-parent walk: commits of ``rev`` not below ``exclude``, skipping numbers in ``seen``.

    ``head`` and ``base`` are the walk's ends as recorded in the progress row; ``rev`` differs from
    ``head`` only when an interrupted walk resumes below its last stored PR.
    """

    head: str
    base: str | None
    rev: str
    seen: frozenset[int] = frozenset()


def _git_cursor(text: str | None) -> tuple[str, str | None, str | None] | None:
    """(head, last stored PR commit, base) of a git progress row; a bare commit is a finished run."""
    if not text:
        return None
    if not text.startswith("{"):
        return text, None, None
    try:
        raw = json.loads(text)
        return str(raw["head"]), str(raw["done"]), raw.get("base")
    except (ValueError, KeyError, TypeError):
        return None


def _git_progress_text(head: str, done: str, base: str | None) -> str:
    return json.dumps({"head": head, "done": done, "base": base}, sort_keys=True)


def _plan_git_walks(root: Path, state: SyncState | None, report: SyncReport) -> list[_GitWalk]:
    """What a plain ``sync --git`` (no --since/--until) must walk: the rest of an interrupted run
    (from the parent of its last stored PR down to its base, skipping the numbers it already
    took), then everything HEAD gained since the last finished run."""
    head = gitlog.head_commit(root)
    cursor = _git_cursor(state.cursor if state else None)
    if cursor is None:
        return [_GitWalk(head, None, head)]
    last_head, done, base = cursor
    usable = gitlog.has_commit(root, last_head) and gitlog.is_ancestor(root, last_head, head)
    if done is not None and usable and gitlog.has_commit(root, done):
        walks = []
        below = gitlog.parent(root, done)
        if below is not None:
            taken = gitlog.pr_numbers(root, last_head, exclude=below)
            walks.append(_GitWalk(last_head, base, below, frozenset(taken)))
            report.notes.append(f"resumed the interrupted import below commit {done[:12]}")
        if head != last_head:
            walks.append(_GitWalk(head, last_head, head))
        report.resumed = True
        return walks
    if usable and done is None:
        report.resumed = True
        return [_GitWalk(head, last_head, head)] if head != last_head else []
    return [_GitWalk(head, None, head)]  # history was rewritten: walk it all again


def sync_git(
    store: PRStore,
    classifier: Classifier,
    path: str | Path,
    repo: str,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    web: str = "https://github.com",
    progress: ProgressFn | None = None,
    batch: int = GIT_BATCH,
    now: datetime | None = None,
    report: SyncReport | None = None,
) -> SyncReport:
    """Import merged PRs from a local clone's first-parent history.

    Without ``since``/``until`` the import is incremental and resumable: each batch is stored with
    a progress row naming the walk and its last stored PR commit, so an interrupted run's successor
    walks only what is left (then whatever HEAD gained), and ends with the rows of an uninterrupted run.
    """
    db = store.db
    root = gitlog.open_repo(path)
    state = sync_state.get(db, repo, "git")
    report = report if report is not None else SyncReport(source="git", repo=repo)
    report.since, report.until = since, until
    plain = since is None and until is None
    if plain:
        walks = _plan_git_walks(root, state, report)
    else:
        head = gitlog.head_commit(root)
        walks = [_GitWalk(head, None, head)]
    stats = gitlog.GitLogStats()
    newest: datetime | None = state.watermark if state else None
    chunk: list[PullRequest] = []

    def flush(walk: _GitWalk, last_commit: str) -> None:
        nonlocal newest
        if not chunk:
            return
        items = [(pr, classifier(pr)) for pr in chunk]
        for pr in chunk:
            if newest is None or pr.merged_at > newest:
                newest = pr.merged_at
        with write_transaction(db):
            counts = store.upsert(items, batch=max(batch, 1))
            if plain:
                cursor = _git_progress_text(walk.head, last_commit, walk.base)
                sync_state.save(db, SyncState(repo, "git", newest, cursor, None, None), now=now)
        report.add(counts)  # only once committed
        report.fetched += len(chunk)
        report.pages += 1
        message = f"git: {report.fetched} PRs imported (down to {iso(chunk[-1].merged_at)})"
        _emit(progress, Progress("batch", message, pages=report.pages, prs=report.fetched))
        chunk.clear()

    # into an empty cache, the full-text index is built once at the end (storage.fts)
    with fts.built_after_a_first_import(db) if walks else nullcontext(False):
        for walk in walks:
            prs = gitlog.iter_merged_prs(
                root, repo, rev=walk.rev, exclude=walk.base, since=since, until=until, web=web,
                stats=stats, seen=set(walk.seen),
            )  # fmt: skip
            last_commit = ""
            try:  # closing the walk stops git and its reader thread even when a write fails
                for pr in prs:
                    chunk.append(pr)
                    last_commit = stats.last_pr_commit
                    if len(chunk) >= batch:
                        flush(walk, last_commit)
                flush(walk, last_commit)
            finally:
                prs.close()
    report.skipped = stats.skipped
    if until is None:
        head = walks[-1].head if walks else gitlog.head_commit(root)
        with write_transaction(db):
            sync_state.save(db, SyncState(repo, "git", newest, head, None, None), now=now)
    report.watermark = newest
    report.complete = True
    return report
