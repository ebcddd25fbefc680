"""GitHub's GraphQL API over httpx: endpoint, auth, rate limits, retries, and PR conversion.

GitHub has bad days and strict limits (../shared/reference/platform-limits.md), so every request
goes through ``GitHubClient.query``, which

* retries 5xx answers, timeouts, dropped connections and truncated bodies with bounded back-off
  (tenacity: exponential, 1 s to 16 s, five retries);
* waits for the primary limit to reset (``x-ratelimit-remaining: 0``, or HTTP 200 with a
  ``RATE_LIMITED`` error) or stops cleanly with ``RateLimitExceeded`` naming the reset time when
  that is further away than ``max_wait``;
* honours secondary limits (403/429 with ``Retry-After``; without it waits 60 s and backs off
  exponentially);
* treats ``errors`` in a 200 body as errors, never as data.

Sleeping and the clock are injectable so the fault tests run in milliseconds. Every loop is capped.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import tenacity

from bot.config.retry_after import retry_after
from bot.config.urls import is_loopback, platform_url
from bot.ingest import github_queries as Q
from classify.models import ChangeType, FileChange, PullRequest

DEFAULT_API_URL = "https://api.github.com"
USER_AGENT = "prdigest/0.1 (+https://github.com/vllm-project/vllm weekly digests)"
SEARCH_RESULT_CAP = 1000  # GitHub search never returns more than this many results per query
SEARCH_QUERY_MAX = 256  # characters in a search string

Sleep = Callable[[float], None]
Clock = Callable[[], float]
Notify = Callable[[str], None]


# -- errors ---------------------------------------------------------------------------------------


class GitHubError(Exception):
    """GitHub could not answer the question; the message says what happened."""


class MissingToken(GitHubError):
    """No GITHUB_TOKEN: the message explains how to create one and which scopes it needs."""


class TokenRejected(GitHubError):
    def __init__(self) -> None:
        super().__init__(
            "GITHUB_TOKEN was rejected by GitHub (401 Bad credentials): it is wrong, expired or revoked"
        )


class RateLimitExceeded(GitHubError):
    """Waiting for the limit would take longer than allowed; progress so far is kept."""

    def __init__(self, reset_at: datetime, wait: float, kind: str = "primary") -> None:
        self.reset_at = reset_at
        self.wait = wait
        self.kind = kind
        when = reset_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        what = "rate limit is exhausted" if kind == "primary" else "secondary rate limit asks us to pause"
        super().__init__(
            f"GitHub {what} until {when} (in {_human(wait)}), longer than --max-wait; "
            "progress is saved, run sync again after that time"
        )


class GraphQLErrors(GitHubError):
    """A 200 answer carrying ``errors``: GitHub refused (part of) the query."""

    def __init__(self, errors: list[dict[str, Any]], data: dict[str, Any] | None = None) -> None:
        self.errors = errors
        self.data = data
        msgs = "; ".join(str(e.get("message", e))[:300] for e in errors[:3])
        super().__init__(f"GitHub rejected the query: {msgs}")

    @property
    def types(self) -> set[str]:
        return {str(e.get("type", "")) for e in self.errors}


class GitHubUnavailable(GitHubError):
    """Retries are used up (5xx, timeouts, broken answers)."""


@dataclass
class _Attempts:
    """What one ``query`` carries across its attempts: the (maybe shrunk) variables and how many
    rate-limit waits it has had."""

    variables: dict[str, Any]
    rate_waits: int = 0
    secondary: int = 0


class _Transient(Exception):
    """One attempt failed in a way worth retrying; ``slow`` when GitHub ran out of time."""

    def __init__(self, message: str, *, slow: bool = False) -> None:
        super().__init__(message)
        self.slow = slow


def _human(seconds: float) -> str:
    seconds = max(0, math.ceil(seconds))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds / 3600:.1f} h"


# -- configuration --------------------------------------------------------------------------------


def graphql_endpoint(api_url: str) -> str:
    """The GraphQL endpoint for a REST base URL (PRDIGEST_GITHUB_API_URL).

    ``https://api.github.com`` → ``https://api.github.com/graphql``; GitHub Enterprise Server
    ``https://HOST/api/v3`` or ``https://HOST`` → ``https://HOST/api/graphql``; a loopback base such
    as ``http://127.0.0.1:8080`` (test fakes) → ``{base}/graphql``. A URL already ending in
    ``/graphql`` is used as given. Plain http is refused except on loopback: the token would travel
    in clear text.
    """
    raw = platform_url("PRDIGEST_GITHUB_API_URL", api_url)
    parts = urlsplit(raw)
    host = (parts.hostname or "").lower()
    loopback = is_loopback(host)
    path = parts.path.rstrip("/")
    if path.endswith("/graphql"):
        new_path = path
    elif host in ("api.github.com", "github.com"):
        return "https://api.github.com/graphql"
    elif path.endswith("/api/v3"):
        new_path = path[: -len("/v3")] + "/graphql"
    elif path.endswith("/api") or loopback:
        new_path = path + "/graphql"
    elif path == "":
        new_path = "/api/graphql"
    else:
        raise ValueError(
            f"PRDIGEST_GITHUB_API_URL {api_url!r}: expected https://api.github.com, https://HOST/api/v3 or https://HOST"
        )
    return urlunsplit((parts.scheme, parts.netloc, new_path, "", ""))


def web_base(api_url: str) -> str:
    """Where people open PRs in a browser: https://github.com, or https://HOST on GHES."""
    parts = urlsplit(api_url.strip())
    host = (parts.hostname or "").lower()
    if host in ("api.github.com", "github.com", "") or is_loopback(host):
        return "https://github.com"
    return f"https://{parts.netloc}"


def missing_token_message(api_url: str = DEFAULT_API_URL) -> str:
    web = web_base(api_url)
    return (
        "GITHUB_TOKEN is not set. Create a token and put GITHUB_TOKEN=... in .env or the environment: "
        f"a fine-grained token at {web}/settings/personal-access-tokens/new with repository access to the "
        "repository (public repositories: read-only access is enough; private: permissions "
        "'Pull requests: Read-only' and 'Contents: Read-only'), or a classic token at "
        f"{web}/settings/tokens/new with no scope for public repositories ('repo' for private ones)."
    )


# -- the client -----------------------------------------------------------------------------------


@dataclass
class RateInfo:
    """What GitHub last said about the primary limit (headers or the ``rateLimit`` field)."""

    limit: int | None = None
    remaining: int | None = None
    reset_at: float | None = None  # epoch seconds
    used: int | None = None
    cost: int | None = None


class GitHubClient:
    """A synchronous GraphQL client; ``requests`` counts every HTTP request sent, retries included."""

    def __init__(
        self,
        token: str,
        api_url: str = DEFAULT_API_URL,
        *,
        timeout: float = 30.0,
        max_wait: float = 600.0,
        max_retries: int = 5,
        max_rate_waits: int = 5,
        sleep: Sleep = time.sleep,
        clock: Clock = time.time,
        notify: Notify | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not token:
            raise MissingToken(missing_token_message(api_url))
        self.endpoint = graphql_endpoint(api_url)
        self.api_url = api_url
        self.max_wait = max_wait
        self.max_retries = max_retries
        self.max_rate_waits = max_rate_waits
        self._sleep = sleep
        self._clock = clock
        self._notify = notify
        self.requests = 0
        self.rate = RateInfo()
        self._http = httpx.Client(
            headers={
                "Authorization": f"bearer {token}",
                "User-Agent": USER_AGENT,
                "Accept": "application/json",
            },
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            transport=transport,
            follow_redirects=False,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- public -----------------------------------------------------------------------------------

    def query(
        self,
        query: str,
        variables: dict[str, Any] | None = None,
        *,
        adapt: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Run one GraphQL query and return its ``data``; raise ``GitHubError`` subclasses otherwise.

        Transient failures (5xx, timeouts, dropped connections, truncated answers) are retried by
        tenacity with exponential back-off (1, 2, 4, 8, 16 s; at most ``max_retries`` times).
        ``adapt`` may shrink the variables before a retry that follows a gateway timeout (502/504
        or a client timeout): GitHub kills queries that run over 10 s, and a smaller page is the
        cure. Rate limits are not failures: ``_send`` waits for them (the one custom rule).
        """
        sent = _Attempts(dict(variables or {}))

        def before_retry(state: tenacity.RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            delay = state.next_action.sleep if state.next_action else 0.0
            attempt = f"attempt {state.attempt_number + 1} of {self.max_retries + 1}"
            self._note(f"{exc}; retrying in {_human(delay)} ({attempt})")
            if isinstance(exc, _Transient) and exc.slow and adapt is not None:
                sent.variables = adapt(sent.variables)

        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Transient),
            stop=tenacity.stop_after_attempt(self.max_retries + 1),
            wait=tenacity.wait_exponential(multiplier=1, min=1, max=30),
            sleep=self._sleep,
            before_sleep=before_retry,
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    return self._send(query, sent)
        except _Transient as exc:
            raise GitHubUnavailable(f"{exc}; gave up after {self.max_retries + 1} attempts") from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    def _send(self, query: str, sent: _Attempts) -> dict[str, Any]:
        """One request, waiting out rate limits; raises ``_Transient`` for what is worth a retry."""
        while True:
            self._respect_known_exhaustion()
            self.requests += 1
            try:
                resp = self._http.post(self.endpoint, json={"query": query, "variables": sent.variables})
            except httpx.TimeoutException as exc:
                raise _Transient(f"GitHub did not answer in time ({type(exc).__name__})", slow=True) from None
            except httpx.TransportError as exc:
                raise _Transient(f"connection to GitHub failed ({type(exc).__name__}: {exc})") from None
            self._read_rate_headers(resp.headers)
            outcome = self._interpret(resp)
            if isinstance(outcome, dict):
                return outcome
            kind, detail = outcome
            if kind == "transient":
                raise _Transient(detail, slow=resp.status_code in (502, 504))
            sent.rate_waits += 1
            self._check_rate_waits(sent.rate_waits)
            if kind == "primary":
                self._wait_for_reset(detail)
                continue
            delay = retry_after(resp.headers.get("retry-after"), now=self._clock())
            if delay is None:
                delay = 60.0 * (2**sent.secondary)
            sent.secondary += 1
            self._pause(
                delay, "secondary", f"GitHub secondary rate limit ({detail}); waiting {_human(delay)}"
            )

    @property
    def rate_remaining(self) -> int | None:
        return self.rate.remaining

    # -- internals --------------------------------------------------------------------------------

    def _note(self, message: str) -> None:
        if self._notify is not None:
            self._notify(message)

    def _interpret(self, resp: httpx.Response) -> dict[str, Any] | tuple[str, str]:
        """Data, or (kind, detail) with kind in primary | secondary | transient; raises on fatal."""
        status = resp.status_code
        if status == 401:
            raise TokenRejected()
        if status in (403, 429):
            message = _message(resp)
            low = message.lower()
            if resp.headers.get("x-ratelimit-remaining") == "0" and "secondary" not in low:
                return "primary", message
            secondary = "secondary rate limit" in low or "abuse" in low or "retry-after" in resp.headers
            if status == 429 or secondary:
                return "secondary", message or f"HTTP {status}"
            raise GitHubError(f"GitHub refused the request (HTTP {status}): {message or 'forbidden'}")
        if status >= 500:
            return "transient", f"GitHub answered HTTP {status}"
        if status != 200:
            raise GitHubError(f"GitHub answered HTTP {status}: {_message(resp) or resp.reason_phrase}")
        try:
            payload = json.loads(resp.content)
        except (ValueError, UnicodeDecodeError):
            return "transient", "GitHub sent a truncated or malformed answer"
        if not isinstance(payload, dict):
            return "transient", "GitHub sent an answer that is not a JSON object"
        data = payload.get("data")
        errors = payload.get("errors")
        if isinstance(data, dict):
            self._read_rate_body(data.get("rateLimit"))
        if errors:
            if not isinstance(errors, list):
                errors = [{"message": str(errors)}]
            types = {str(e.get("type", "")) for e in errors if isinstance(e, dict)}
            if "RATE_LIMITED" in types:
                return "primary", "API rate limit exceeded"
            if data is None and any(_is_transient_error(e) for e in errors):
                return "transient", f"GitHub failed while executing the query ({_first_message(errors)})"
            raise GraphQLErrors(
                [e if isinstance(e, dict) else {"message": str(e)} for e in errors],
                data if isinstance(data, dict) else None,
            )
        if not isinstance(data, dict):
            return "transient", "GitHub answered without data"
        return data

    def _read_rate_headers(self, headers: httpx.Headers) -> None:
        def num(name: str) -> int | None:
            value = headers.get(name)
            try:
                return int(value) if value is not None else None
            except ValueError:
                return None

        remaining = num("x-ratelimit-remaining")
        if remaining is None:
            return
        self.rate.remaining = remaining
        self.rate.limit = num("x-ratelimit-limit") or self.rate.limit
        reset = num("x-ratelimit-reset")
        self.rate.reset_at = float(reset) if reset is not None else self.rate.reset_at
        self.rate.used = num("x-ratelimit-used") or self.rate.used

    def _read_rate_body(self, rate: Any) -> None:
        if not isinstance(rate, dict):
            return
        try:
            self.rate.remaining = int(rate["remaining"])
            self.rate.limit = int(rate.get("limit") or 0) or self.rate.limit
            self.rate.cost = int(rate.get("cost") or 0)
            self.rate.used = int(rate.get("used") or 0) or self.rate.used
            reset = rate.get("resetAt")
            if reset:
                self.rate.reset_at = _parse_time(str(reset)).timestamp()
        except (KeyError, TypeError, ValueError):
            return

    def _check_rate_waits(self, waits: int) -> None:
        if waits > self.max_rate_waits:
            raise GitHubUnavailable(f"GitHub kept rate-limiting the request after {waits - 1} waits")

    def _respect_known_exhaustion(self) -> None:
        if self.rate.remaining == 0 and self.rate.reset_at is not None and self.rate.reset_at > self._clock():
            self._wait_for_reset("no points left")

    def _wait_for_reset(self, detail: str) -> None:
        now = self._clock()
        reset = self.rate.reset_at
        if reset is None or reset <= now:
            # No usable reset time: the docs say wait at least a minute.
            self._pause(60.0, "primary", f"GitHub rate limit ({detail}); waiting 60 s")
            return
        wait = reset - now + 1.0
        self._pause(wait, "primary", f"GitHub rate limit exhausted; waiting {_human(wait)} for the reset")
        # The limit is back after the reset even if no header said so yet.
        self.rate.remaining = None

    def _pause(self, seconds: float, kind: str, message: str) -> None:
        if seconds > self.max_wait:
            reset_at = datetime.fromtimestamp(self._clock() + seconds, UTC)
            raise RateLimitExceeded(reset_at, seconds, kind)
        self._note(message)
        self._sleep(seconds)


def _message(resp: httpx.Response) -> str:
    try:
        body = json.loads(resp.content)
    except (ValueError, UnicodeDecodeError):
        return resp.text[:200].strip()
    if isinstance(body, dict):
        return str(body.get("message", ""))[:300]
    return ""


def _first_message(errors: list[Any]) -> str:
    first = errors[0]
    return str(first.get("message", first) if isinstance(first, dict) else first)[:200]


def _is_transient_error(error: Any) -> bool:
    message = str(error.get("message", "") if isinstance(error, dict) else error).lower()
    return "something went wrong" in message or "timeout" in message or "timed out" in message


def _parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def client_from_settings(settings: Any, **kwargs: Any) -> GitHubClient:
    """A client for ``bot.config.settings.Settings``; raises ``MissingToken`` without GITHUB_TOKEN."""
    token = settings.github_token.get_secret_value() if settings.github_token is not None else ""
    if not token.strip():
        raise MissingToken(missing_token_message(settings.prdigest_github_api_url))
    return GitHubClient(token.strip(), settings.prdigest_github_api_url, **kwargs)


# -- PR data --------------------------------------------------------------------------------------

_CHANGE_TYPES: dict[str, ChangeType] = {
    "ADDED": "added",
    "MODIFIED": "modified",
    "DELETED": "removed",
    "RENAMED": "renamed",
    "COPIED": "copied",
    "CHANGED": "changed",
}


def search_string(repo: str, start: datetime, end: datetime) -> str:
    """The search for PRs of ``repo`` merged in [start, end), oldest-created first (a stable order).

    GitHub's ``merged:A..B`` range is inclusive at both ends with one-second resolution, so the
    exclusive end becomes ``end - 1 s``.
    """
    last = end - timedelta(seconds=1)
    q = f"repo:{repo} is:pr is:merged merged:{_search_time(start)}..{_search_time(last)} sort:created-asc"
    if len(q) > SEARCH_QUERY_MAX:
        raise ValueError(f"search string longer than {SEARCH_QUERY_MAX} characters: {q}")
    return q


def _search_time(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def _file(node: dict[str, Any]) -> FileChange:
    return FileChange(
        path=str(node["path"]),
        additions=int(node.get("additions") or 0),
        deletions=int(node.get("deletions") or 0),
        change_type=_CHANGE_TYPES.get(str(node.get("changeType")), "modified"),
    )


def pr_from_node(repo: str, node: dict[str, Any]) -> PullRequest:
    """A ``PullRequest`` (source "api") from a PRFields node whose files were completed."""
    author = node.get("author") or {}
    labels = [str(n["name"]) for n in ((node.get("labels") or {}).get("nodes") or []) if n]
    files = [_file(n) for n in ((node.get("files") or {}).get("nodes") or []) if n]
    return PullRequest(
        repo=repo,
        number=int(node["number"]),
        title=str(node.get("title") or ""),
        body=str(node.get("body") or ""),
        author=str(author.get("login") or "ghost"),
        created_at=_parse_time(node["createdAt"]) if node.get("createdAt") else None,
        merged_at=_parse_time(str(node["mergedAt"])),
        updated_at=_parse_time(node["updatedAt"]) if node.get("updatedAt") else None,
        base_branch=str(node.get("baseRefName") or "main"),
        labels=labels,
        additions=int(node.get("additions") or 0),
        deletions=int(node.get("deletions") or 0),
        files=files,
        changed_files=int(node["changedFiles"]) if node.get("changedFiles") is not None else len(files),
        url=str(node.get("url") or ""),
        source="api",
    )


@dataclass
class SearchPage:
    issue_count: int
    has_next: bool
    end_cursor: str | None
    nodes: list[dict[str, Any]]


def search_page(
    client: GitHubClient,
    q: str,
    *,
    first: int = Q.PAGE_SIZE,
    after: str | None = None,
    adapt: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> SearchPage:
    """One page of merged-PR search results (PR nodes only; files of big PRs still incomplete)."""
    data = client.query(Q.SEARCH_MERGED_PRS, {"q": q, "first": first, "after": after}, adapt=adapt)
    search = data.get("search") or {}
    info = search.get("pageInfo") or {}
    nodes = [
        n for n in (search.get("nodes") or []) if n and n.get("__typename", "PullRequest") == "PullRequest"
    ]
    return SearchPage(
        issue_count=int(search.get("issueCount") or 0),
        has_next=bool(info.get("hasNextPage")),
        end_cursor=info.get("endCursor"),
        nodes=nodes,
    )


def _files_pending(node: dict[str, Any]) -> bool:
    info = ((node.get("files") or {}).get("pageInfo")) or {}
    return bool(info.get("hasNextPage"))


@dataclass
class _FileWalk:
    """Files of one PR read from both ends until the two meet."""

    node: dict[str, Any]
    front: list[dict[str, Any]]
    after: str | None
    total: int | None
    back: list[dict[str, Any]]
    before: str | None = None
    done: bool = False

    def plan(self) -> dict[str, Any]:
        need = (self.total - len(self.front) - len(self.back)) if self.total else 2 * Q.PAGE_SIZE
        need = max(1, need)
        both = need > Q.PAGE_SIZE
        return {
            "c": self.after,
            "f": min(Q.PAGE_SIZE, need),
            "w": both,
            "l": min(Q.PAGE_SIZE, need - Q.PAGE_SIZE) if both else 1,
            "b": self.before,
        }

    def take(self, answer: dict[str, Any]) -> None:
        front = answer.get("front") or {}
        info = front.get("pageInfo") or {}
        self.front.extend(n for n in (front.get("nodes") or []) if n)
        self.after = info.get("endCursor") or self.after
        finished = not info.get("hasNextPage")
        back = answer.get("back")
        if back is not None:
            binfo = back.get("pageInfo") or {}
            self.back[0:0] = [n for n in (back.get("nodes") or []) if n]
            self.before = binfo.get("startCursor") or self.before
            finished = finished or not binfo.get("hasPreviousPage")
        paths = {f.get("path") for f in self.front}
        overlap = any(f.get("path") in paths for f in self.back)
        full = self.total is not None and len(self.front) + len(self.back) >= self.total
        self.done = finished or overlap or full
        if self.done:
            merged, seen = [], set()
            for f in self.front + self.back:
                if f.get("path") not in seen:
                    seen.add(f.get("path"))
                    merged.append(f)
            self.node["files"]["nodes"] = merged
            self.node["files"]["pageInfo"] = {"hasNextPage": False, "endCursor": self.after}


def complete_files(
    client: GitHubClient, repo: str, nodes: Iterable[dict[str, Any]], *, max_rounds: int = 20
) -> None:
    """Fetch the files beyond the first 100 of every PR that has more, in batched follow-ups.

    Each round asks, for up to ``MAX_FILE_ALIASES`` PRs in one query, the next 100 files from the
    front and the 100 before the last fetched from the back, so a page whose big PRs have at most
    300 files costs one extra request. ``max_rounds`` caps the loop (GitHub lists at most 3000
    files per PR: 15 rounds).
    """
    owner, name = repo.split("/", 1)
    pending = []
    for n in nodes:
        if _files_pending(n):
            files = n["files"]
            pending.append(
                _FileWalk(
                    node=n,
                    front=list(files.get("nodes") or []),
                    after=(files.get("pageInfo") or {}).get("endCursor"),
                    total=files.get("totalCount"),
                    back=[],
                )
            )
    rounds = 0
    while pending:
        rounds += 1
        if rounds > max_rounds:
            number = pending[0].node.get("number")
            raise GitHubError(f"files of PR #{number} did not finish after {max_rounds} follow-up requests")
        batch, rest = pending[: Q.MAX_FILE_ALIASES], pending[Q.MAX_FILE_ALIASES :]
        variables: dict[str, Any] = {"owner": owner, "name": name}
        for i, walk in enumerate(batch):
            variables[f"n{i}"] = int(walk.node["number"])
            variables.update({f"{k}{i}": v for k, v in walk.plan().items()})
        data = client.query(Q.more_files_query(len(batch)), variables)
        repo_data = data.get("repository") or {}
        for i, walk in enumerate(batch):
            walk.take(repo_data.get(f"p{i}") or {})
        pending = rest + [w for w in batch if not w.done]


def fetch_pr(client: GitHubClient, repo: str, number: int) -> PullRequest | None:
    """One PR by number, with all its files, for ``pr NUMBER`` when the cache lacks it.

    Returns None when the PR does not exist or is not merged (the cache holds merged PRs only).
    Raises ``GitHubError`` subclasses for everything else (token, limits, repository not found).
    """
    owner, name = repo.split("/", 1)
    try:
        data = client.query(Q.ONE_PR, {"owner": owner, "name": name, "number": int(number)})
    except GraphQLErrors as exc:
        if "NOT_FOUND" in exc.types:
            paths = [e.get("path") or [] for e in exc.errors]
            if any("pullRequest" in p for p in paths) and not any(p == ["repository"] for p in paths):
                return None
            raise GitHubError(f"repository {repo} was not found or GITHUB_TOKEN cannot see it") from exc
        raise
    repo_data = data.get("repository")
    if repo_data is None:
        raise GitHubError(f"repository {repo} was not found or GITHUB_TOKEN cannot see it")
    node = repo_data.get("pullRequest")
    if not node or not node.get("merged") or not node.get("mergedAt"):
        return None
    complete_files(client, repo, [node])
    return pr_from_node(repo, node)
