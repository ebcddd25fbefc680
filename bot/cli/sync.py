"""``prdigest sync``: fill the cache from GitHub's GraphQL API or from a local clone.

Exit codes: 0 done; 1 GitHub, network or git failed, a rate limit outlasts ``--max-wait``, or the
cache could not be written (disk full, another writer past PRDIGEST_LOCK_TIMEOUT; progress is kept;
run again later); 2 bad input or configuration (one line on stderr, including
a missing or rejected GITHUB_TOKEN); 130 interrupted (progress is kept). A closing summary line
(fetched, new, updated; from the API also requests used and rate limit remaining) is printed on stdout in every case
where the sync started.
"""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import click

from bot.config.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, UserError
from bot.config.settings import ConfigError, Settings, load_settings
from bot.ingest import github as gh
from bot.ingest import gitlog
from bot.ingest.sync import Progress, SyncReport, classifier_for, finish_report, sync_api, sync_git
from classify.title_keys import ProfileTitleKeys
from storage.db import StoreError, StoreUnavailable, close, connect
from storage.prs import PRStore

DEFAULT_REPO = "vllm-project/vllm"
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|hour)?\s*$", re.IGNORECASE)


# -- parsing --------------------------------------------------------------------------------------


def parse_duration(text: str) -> float:
    """Seconds from ``90``, ``90s``, ``10m`` or ``1h``."""
    m = _DURATION.match(text)
    if not m:
        raise UserError(f"--max-wait {text!r}: use seconds or a number with s, m or h (e.g. 90s, 10m, 1h)")
    value = float(m.group(1))
    unit = (m.group(2) or "s").lower()[0]
    return value * {"s": 1, "m": 60, "h": 3600}[unit]


def parse_when(text: str, zone: ZoneInfo, *, option: str, end: bool = False) -> datetime:
    """A date (``YYYY-MM-DD``, in PRDIGEST_TIMEZONE) or an ISO datetime, as UTC.

    A date given to ``--until`` includes that whole day; a datetime is an exclusive bound.
    """
    raw = text.strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw):
            day = date.fromisoformat(raw)
            if end:
                day += timedelta(days=1)
            return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)
        value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise UserError(
            f"{option} {text!r}: use YYYY-MM-DD or an ISO date-time such as 2026-05-04T09:00Z"
        ) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone)
    return value.astimezone(UTC).replace(microsecond=0)


def _repo(value: str | None, settings: Settings, git_root: Path | None) -> str:
    repo = value or settings.default_repo
    if repo is None and git_root is not None:
        # Only a GitHub URL names the repository: a clone of a local path or of another host would
        # otherwise be filed under a made-up name, with links to the wrong PRs.
        web_host = urlsplit(gh.web_base(settings.prdigest_github_api_url)).hostname or "github.com"
        url = gitlog.origin_url(git_root)
        repo = gitlog.github_repo_of(url, gitlog.GITHUB_HOSTS | {web_host}) if url else None
        if repo is None:
            origin = f"its origin remote {url!r} does not name" if url else "it has no origin remote naming"
            raise UserError(
                f"--git {git_root}: {origin} a GitHub repository; say which with --repo OWNER/NAME"
            )
    repo = repo or DEFAULT_REPO
    if not _REPO.match(repo):
        raise UserError(f"--repo {repo!r}: expected OWNER/NAME, e.g. vllm-project/vllm")
    return repo


# -- display --------------------------------------------------------------------------------------


class Display:
    """A rich progress bar on a terminal, plain lines otherwise; both on stderr."""

    def __init__(self, tty: bool | None = None) -> None:
        self.tty = sys.stderr.isatty() if tty is None else tty
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    def __enter__(self) -> Display:
        if self.tty:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[info]}"),
                console=Console(stderr=True),
                transient=False,
            )
            self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)
            self._progress = None

    def _print(self, message: str) -> None:
        self._progress.console.print(message, markup=False, highlight=False)

    def _task(self, key: str, description: str) -> Any:
        if key not in self._tasks:
            self._tasks[key] = self._progress.add_task(description, total=None, info="")
        return self._tasks[key]

    def note(self, message: str) -> None:
        if self._progress is not None:
            self._print(message)
        else:
            click.echo(f"sync: {message}", err=True)

    def event(self, ev: Progress) -> None:
        rate = f", rate limit {ev.rate_remaining} left" if ev.rate_remaining is not None else ""
        if self._progress is None:
            click.echo(f"sync: {ev.message}{rate}", err=True)
            return
        info = f"pages {ev.pages} · PRs {ev.prs}" + (
            f" · rate limit {ev.rate_remaining} left" if ev.rate_remaining is not None else ""
        )
        if ev.kind == "split":
            self._print(ev.message)
        if ev.window_start is not None and ev.window_end is not None:
            desc = f"merged {ev.window_start:%m-%d %H:%M}..{ev.window_end:%m-%d %H:%M}"
            task = self._task("api", desc)
            self._progress.update(
                task, description=desc, total=ev.window_total, completed=ev.window_done, info=info
            )
        elif ev.kind == "batch":
            self._progress.update(self._task("git", "git import"), completed=ev.prs, info=info)


# -- the command ----------------------------------------------------------------------------------


def _fail(message: str, code: int) -> None:
    raise UserError(message, exit_code=code, where="sync")


@click.command("sync")
@click.option(
    "--repo",
    default=None,
    metavar="OWNER/NAME",
    help=f"Repository (default PRDIGEST_REPO; else, with --git, the clone's GitHub origin remote; else {DEFAULT_REPO}).",
)
@click.option(
    "--since",
    default=None,
    metavar="DATE",
    help="Start of the merge window (YYYY-MM-DD in PRDIGEST_TIMEZONE, or ISO date-time). "
    "Default: the stored watermark, or 12 weeks back on the first sync.",
)
@click.option(
    "--until", default=None, metavar="DATE", help="End of the window (a date includes that day; default now)."
)
@click.option(
    "--git",
    "git_path",
    default=None,
    metavar="PATH",
    help="Import from a local clone's first-parent history instead of the API (no token needed).",
)
@click.option(
    "--max-wait",
    default="10m",
    show_default=True,
    metavar="DURATION",
    help="Longest wait for a GitHub rate limit before stopping cleanly (e.g. 90s, 10m, 1h).",
)
@click.option(
    "--db",
    type=click.Path(path_type=Path),
    default=None,
    help="SQLite cache (default PRDIGEST_DB, else ./prdigest.db; created if missing).",
)
def sync(
    repo: str | None,
    since: str | None,
    until: str | None,
    git_path: str | None,
    max_wait: str,
    db: Path | None,
) -> None:
    """Fetch merged PRs (title, body, labels, files with line counts…), classify them and cache them."""
    try:
        settings = load_settings()
        zone = ZoneInfo(settings.prdigest_timezone)
        wait = parse_duration(max_wait)
        start = parse_when(since, zone, option="--since") if since else None
        end = parse_when(until, zone, option="--until", end=True) if until else None
        now = datetime.now(UTC).replace(microsecond=0)
        if start is not None and start > now:
            raise UserError(f"--since {since} is in the future")
        if start is not None and end is not None and start >= end:
            raise UserError(f"--since {since} is not before --until {until}")
        git_root = gitlog.open_repo(git_path) if git_path else None
        name = _repo(repo, settings, git_root)
        if git_root is None:
            _check_github_settings(settings)  # before the cache file is created
        _load_profile(settings, name)  # a configured profile that is wrong: before the cache is created
        store = PRStore(
            connect(
                db or settings.prdigest_db,
                create=True,
                lock_timeout=settings.prdigest_lock_timeout,
                on_wait=lambda message: click.echo(f"sync: {message}", err=True),
            )
        )
        profile = _load_profile(settings, name, store.db)  # this repository's own (maybe learned)
        store.title_keys = ProfileTitleKeys(profile)
    except StoreUnavailable as exc:
        _fail(str(exc), EXIT_FAILED)
        return
    except (UserError, ConfigError, StoreError, gitlog.GitError) as exc:
        _fail(str(exc), EXIT_USAGE)
        return
    classifier = classifier_for(profile)
    failed = True
    try:
        if git_root is not None:
            _run_git(store, classifier, git_root, name, start, end, settings)
        else:
            _run_api(store, classifier, name, start, end, settings, wait)
        _learn(store, settings, name, git_root)
        failed = False
    finally:
        try:  # leave the .db file complete on its own (the log folded in)
            close(store.db, quietly=failed)
        except StoreError as exc:
            _fail(str(exc), EXIT_FAILED)


def _store_failure(exc: StoreError) -> tuple[int, str]:
    """Exit code and line for a cache that could not be written (progress so far is kept)."""
    return (EXIT_FAILED if isinstance(exc, StoreUnavailable) else EXIT_USAGE), str(exc)


def _check_github_settings(settings: Settings) -> None:
    token = settings.github_token.get_secret_value().strip() if settings.github_token is not None else ""
    if not token:
        raise UserError(gh.missing_token_message(settings.prdigest_github_api_url))
    try:
        gh.graphql_endpoint(settings.prdigest_github_api_url)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _load_profile(settings: Settings, repo: str, db: Any = None) -> Any:
    """The profile answering for ``repo`` (``bot.config.repo_profiles``); without the cache, only
    a configured one is loaded (to reject a wrong one before anything is written)."""
    from bot.config.repo_profiles import choose, configured
    from classify.rules import ProfileError, load_profile

    try:
        if db is None:
            named = configured(settings, repo)
            return load_profile(named) if named is not None else None
        return choose(settings, repo, db).profile
    except ProfileError as exc:
        raise UserError(str(exc)) from None  # names the variable and the file


def _learn(store: PRStore, settings: Settings, repo: str, git_root: Path | None) -> None:
    """Learn the repository's profile if due (its first sync with enough history, or grown), with
    the clone's tree and CODEOWNERS when the sync read a clone; say what happened."""
    from bot.ingest.learn import after_write, read_clone

    clone = None
    if git_root is not None:
        try:
            clone = read_clone(git_root)
        except (OSError, subprocess.SubprocessError) as exc:
            click.echo(
                f"sync: the clone's tree could not be read ({exc}); learning from the history alone", err=True
            )
    for note in after_write(store, settings, [repo], clone=clone):
        click.echo(f"sync: {note}", err=True)


def _run_api(
    store: PRStore,
    classifier: Any,
    repo: str,
    start: datetime | None,
    end: datetime | None,
    settings: Settings,
    wait: float,
) -> None:
    report = SyncReport(source="api", repo=repo)
    with Display() as display:
        try:
            client = gh.client_from_settings(settings, max_wait=wait, notify=display.note)
        except gh.MissingToken as exc:
            _fail(str(exc), EXIT_USAGE)
            return
        except ValueError as exc:
            _fail(str(exc), EXIT_USAGE)
            return
        code = 0
        message = ""
        try:
            sync_api(
                store, client, classifier, repo, since=start, until=end, progress=display.event, report=report
            )
        except gh.TokenRejected as exc:
            code, message = EXIT_USAGE, str(exc)
        except gh.RateLimitExceeded as exc:
            code, message = EXIT_FAILED, str(exc)
        except gh.GraphQLErrors as exc:
            text = str(exc)
            if "cannot be searched" in text or "NOT_FOUND" in exc.types:
                text = f"repository {repo} was not found on GitHub or GITHUB_TOKEN cannot see it"
            code, message = EXIT_FAILED, text
        except gh.GitHubError as exc:
            code, message = EXIT_FAILED, str(exc)
        except StoreError as exc:
            code, message = _store_failure(exc)
        except KeyboardInterrupt:
            code, message = (
                EXIT_INTERRUPTED,
                "interrupted; progress is saved, run the same command to continue",
            )
        finally:
            finish_report(report, client)
            client.close()
    for note in report.notes:
        click.echo(f"sync: {note}", err=True)
    click.echo(report.summary_line())
    if code:
        _fail(message, code)


def _run_git(
    store: PRStore,
    classifier: Any,
    root: Path,
    repo: str,
    start: datetime | None,
    end: datetime | None,
    settings: Settings,
) -> None:
    report = SyncReport(source="git", repo=repo)
    code, message = 0, ""
    with Display() as display:
        try:
            sync_git(
                store,
                classifier,
                root,
                repo,
                since=start,
                until=end,
                web=gh.web_base(settings.prdigest_github_api_url),
                progress=display.event,
                report=report,
            )
        except gitlog.GitError as exc:
            code, message = EXIT_FAILED, str(exc)
        except StoreError as exc:
            code, message = _store_failure(exc)
        except KeyboardInterrupt:
            code, message = (
                EXIT_INTERRUPTED,
                "interrupted; imported batches are kept, run the same command again to continue",
            )
    for note in report.notes:
        click.echo(f"sync: {note}", err=True)
    click.echo(report.summary_line())
    if code:
        _fail(message, code)


def main(argv: list[str] | None = None) -> None:
    """Run ``sync`` alone (``python -m bot.cli.sync``) with the same one-line error style."""
    try:
        code = sync.main(args=argv, prog_name="prdigest sync", standalone_mode=False)
    except click.UsageError as exc:
        click.echo(f"prdigest sync: {exc.format_message()} (see prdigest sync --help)", err=True)
        sys.exit(EXIT_USAGE)
    except click.ClickException as exc:  # UserError among them
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.Abort:
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
