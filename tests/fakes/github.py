"""A fake GitHub GraphQL API: a real HTTP server on 127.0.0.1 that executes queries with graphql-core.

The real ``httpx`` client talks to it over a socket, so the tests cover the wire: headers, status
codes, JSON bodies, dropped connections. Queries run against GitHub's published schema
(``../shared/github/schema.graphql`` or ``PRDIGEST_GITHUB_SCHEMA``), or without it against the part
the fake serves, with resolvers over in-memory PRs, and the server behaves like GitHub where it matters to a sync:

* auth: ``Authorization: bearer TOKEN`` (401 "Bad credentials" otherwise);
* every connection needs ``first`` or ``last`` between 1 and 100;
* ``search`` reports the true ``issueCount`` but never serves results past the 1000th, and
  refuses search strings over 256 characters;
* rate-limit headers on every answer and a ``rateLimit`` field; an exhausted limit answers HTTP 200
  with a ``RATE_LIMITED`` error until the reset;
* faults on demand (``inject``): 502/500, 403/429 secondary limits with or without Retry-After,
  primary-limit exhaustion, slow answers, truncated bodies, garbled JSON, GraphQL errors.

Time comes from an injectable clock (``FakeClock``), shared with the client under test, so waits
for resets and Retry-After take no real time. Without GitHub's schema file the fake executes
against the part of it it serves (``github_served.graphql``, ``fake_schema``); only the tests that
check query text against GitHub's own schema need the file (``require_schema`` skips them, saying why).
"""

from __future__ import annotations

import base64
import json
import os
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SCHEMA_ENV = "PRDIGEST_GITHUB_SCHEMA"
ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SCHEMA = ROOT.parent / "shared" / "github" / "schema.graphql"
TOKEN = "ghp_fake_token_for_tests"
SEARCH_CAP = 1000
SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID."
)


# -- schema ---------------------------------------------------------------------------------------


def schema_path() -> Path | None:
    """Where GitHub's schema is: $PRDIGEST_GITHUB_SCHEMA when set (even if wrong: then None), else
    ../shared/github/schema.graphql."""
    env = os.environ.get(SCHEMA_ENV)
    path = Path(env) if env else DEFAULT_SCHEMA
    return path if path.is_file() else None


@lru_cache(maxsize=2)
def _build(path: str) -> Any:
    import graphql

    return graphql.build_schema(Path(path).read_text(encoding="utf-8"))


def load_schema() -> Any | None:
    path = schema_path()
    return _build(str(path)) if path else None


SERVED_SCHEMA = Path(__file__).with_name("github_served.graphql")


def fake_schema() -> Any:
    """The schema the fake executes queries against: GitHub's published one when it is present
    (so a query prdigest sends is also checked against all of GitHub's rules), else the part of
    it the fake serves (``github_served.graphql``) — the fake needs nothing outside the clone."""
    return load_schema() or _build(str(SERVED_SCHEMA))


def require_schema() -> Any:
    """The built schema, or skip the calling test saying why (the suite must pass without ../shared)."""
    schema = load_schema()
    if schema is None:
        import pytest

        where = os.environ.get(SCHEMA_ENV) or str(DEFAULT_SCHEMA)
        pytest.skip(
            f"GitHub GraphQL schema not found at {where} (set ${SCHEMA_ENV} or provide "
            "../shared/github/schema.graphql); this test checks query text against GitHub's own schema"
        )
    return schema


# -- time -----------------------------------------------------------------------------------------


class FakeClock:
    """Epoch-seconds clock whose ``sleep`` advances time instantly; records every sleep."""

    def __init__(self, start: float | None = None) -> None:
        self.now = start if start is not None else time.time()
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def time(self) -> float:
        with self._lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            self.now += max(0.0, seconds)


# -- data -----------------------------------------------------------------------------------------


@dataclass
class FakePR:
    number: int
    title: str
    merged_at: datetime | None
    created_at: datetime
    body: str = ""
    author: str | None = "octocat"
    updated_at: datetime | None = None
    base: str = "main"
    labels: list[str] = field(default_factory=list)
    files: list[tuple[str, int, int, str]] = field(default_factory=list)  # path, +, -, PatchStatus

    @property
    def merged(self) -> bool:
        return self.merged_at is not None


_AREAS = [
    ("[Kernel]", "csrc/attention/paged_attention_v{}.cu"),
    ("[Core]", "vllm/core/scheduler_{}.py"),
    ("[Model]", "vllm/model_executor/models/model_{}.py"),
    ("[Doc]", "docs/source/page_{}.md"),
    ("[CI]", ".buildkite/test_pipeline_{}.yaml"),
    ("[Bugfix]", "vllm/engine/llm_engine_{}.py"),
]


def make_prs(
    count: int,
    start: datetime,
    end: datetime,
    *,
    seed: int = 7,
    first_number: int = 1000,
    big: dict[int, int] | None = None,
    unmerged: int = 0,
) -> list[FakePR]:
    """``count`` merged PRs spread over [start, end), deterministic for a seed.

    ``big`` maps an index (0-based) to a file count, for PRs with more than 100 files. ``unmerged``
    closed-but-not-merged PRs are added too (search must not return them).
    """
    rng = random.Random(seed)
    big = big or {}
    span = (end - start).total_seconds()
    prs = []
    for i in range(count):
        merged = start + timedelta(seconds=int(span * (i + rng.random()) / count))
        merged = min(merged, end - timedelta(seconds=1))
        created = merged - timedelta(hours=rng.randint(1, 400), seconds=rng.randint(0, 3599))
        tag, pattern = _AREAS[i % len(_AREAS)]
        n_files = big.get(i, rng.randint(1, 6))
        files = []
        for j in range(n_files):
            kind = rng.choice(["MODIFIED", "MODIFIED", "ADDED", "DELETED", "RENAMED"])
            files.append((pattern.format(f"{i}_{j}"), rng.randint(0, 200), rng.randint(0, 80), kind))
        if i % 4 == 0:
            files.append((f"tests/test_feature_{i}.py", rng.randint(5, 60), 0, "ADDED"))
        prs.append(
            FakePR(
                number=first_number + i,
                title=f"{tag} Improve part {i} of the engine",
                body=(
                    f"## Purpose\n\nChange number {i}.\n\n## Test Plan\n\npytest tests/\n\n"
                    "Signed-off-by: Dev <d@x>"
                ),
                author=None if i % 97 == 13 else f"dev{i % 23}",
                created_at=created,
                merged_at=merged,
                updated_at=merged + timedelta(minutes=rng.randint(0, 90)),
                labels=["ready"] + (["documentation"] if tag == "[Doc]" else []),
                files=files,
            )
        )
    for k in range(unmerged):
        at = start + timedelta(seconds=int(span * (k + 0.5) / max(1, unmerged)))
        prs.append(
            FakePR(
                number=first_number + count + k,
                title=f"Closed without merge {k}",
                merged_at=None,
                created_at=at - timedelta(hours=2),
                updated_at=at,
            )
        )
    return prs


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _cursor(prefix: str, n: int) -> str:
    return base64.b64encode(f"{prefix}:{n}".encode()).decode()


def _offset(prefix: str, cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        kind, _, n = base64.b64decode(cursor).decode().partition(":")
        if kind != prefix:
            raise ValueError(kind)
        return int(n)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _error(f"`{cursor}` does not appear to be a valid cursor.", "INVALID_CURSOR_ARGUMENTS") from exc


def _error(message: str, kind: str) -> Exception:
    from graphql import GraphQLError

    return GraphQLError(message, extensions={"type": kind})


def _bounds(name: str, first: int | None, last: int | None) -> None:
    if first is None and last is None:
        raise _error(
            f"You must provide a `first` or `last` value to properly paginate the `{name}` connection.",
            "MISSING_PAGINATION_BOUNDARIES",
        )
    for arg, value in (("first", first), ("last", last)):
        if value is not None and not 1 <= value <= 100:
            raise _error(
                f"Requesting {value} records on the `{name}` connection exceeds the `{arg}` limit of "
                "100 records.",
                "EXCESSIVE_PAGINATION",
            )


def _connection(
    name: str,
    prefix: str,
    items: list[Any],
    first: int | None,
    after: str | None,
    last: int | None,
    before: str | None,
) -> dict[str, Any]:
    """Relay pagination like GitHub's: the item at index i has cursor ``prefix:(i+1)``."""
    _bounds(name, first, last)
    lo = _offset(prefix, after)
    hi = len(items) if before is None else max(0, _offset(prefix, before) - 1)
    lo, hi = min(lo, len(items)), min(hi, len(items))
    start, stop = lo, max(lo, hi)
    if first is not None:
        stop = min(stop, start + first)
    if last is not None:
        start = max(start, stop - last)
    page = items[start:stop]
    return {
        "totalCount": len(items),
        "nodes": page,
        "edges": [{"cursor": _cursor(prefix, start + i + 1), "node": n} for i, n in enumerate(page)],
        "pageInfo": {
            "hasNextPage": stop < len(items),
            "hasPreviousPage": start > 0,
            "endCursor": _cursor(prefix, stop) if page else None,
            "startCursor": _cursor(prefix, start + 1) if page else None,
        },
    }


def _pr_object(repo: str, pr: FakePR) -> dict[str, Any]:
    files = [
        {"path": p, "additions": a, "deletions": d, "changeType": c, "viewerViewedState": "UNVIEWED"}
        for p, a, d, c in pr.files
    ]
    labels = [{"__typename": "Label", "name": name} for name in pr.labels]

    def files_conn(
        info: Any,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        return _connection("files", "files", files, first, after, last, before)

    def labels_conn(
        info: Any,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
        **_: Any,
    ) -> dict[str, Any]:
        return _connection("labels", "labels", labels, first, after, last, before)

    return {
        "__typename": "PullRequest",
        "id": base64.b64encode(f"PR:{repo}#{pr.number}".encode()).decode(),
        "number": pr.number,
        "title": pr.title,
        "body": pr.body,
        "url": f"https://github.com/{repo}/pull/{pr.number}",
        "createdAt": _iso(pr.created_at),
        "mergedAt": _iso(pr.merged_at) if pr.merged_at else None,
        "updatedAt": _iso(pr.updated_at or pr.merged_at or pr.created_at),
        "merged": pr.merged,
        "state": "MERGED" if pr.merged else "CLOSED",
        "baseRefName": pr.base,
        "additions": sum(f[1] for f in pr.files),
        "deletions": sum(f[2] for f in pr.files),
        "changedFiles": len(pr.files),
        "author": {"__typename": "User", "login": pr.author} if pr.author else None,
        "labels": labels_conn,
        "files": files_conn,
    }


def _parse_when(text: str, *, upper: bool) -> datetime:
    if "T" in text:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    day = date.fromisoformat(text)
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return start + timedelta(days=1) - timedelta(seconds=1) if upper else start


def parse_search(query: str) -> dict[str, Any]:
    """The qualifiers a merged-PR sync uses; anything else is refused so a client change is noticed."""
    out: dict[str, Any] = {"repo": None, "lo": None, "hi": None, "sort": None, "is": set()}
    for token in query.split():
        key, _, value = token.partition(":")
        if key == "repo":
            out["repo"] = value
        elif key == "is":
            out["is"].add(value)
        elif key == "sort":
            out["sort"] = value
        elif key == "merged":
            if ".." in value:
                lo, hi = value.split("..", 1)
                out["lo"] = None if lo == "*" else _parse_when(lo, upper=False)
                out["hi"] = None if hi == "*" else _parse_when(hi, upper=True)
            elif value.startswith(">="):
                out["lo"] = _parse_when(value[2:], upper=False)
            elif value.startswith(">"):
                out["lo"] = _parse_when(value[1:], upper=True) + timedelta(seconds=1)
            elif value.startswith("<="):
                out["hi"] = _parse_when(value[2:], upper=True)
            elif value.startswith("<"):
                out["hi"] = _parse_when(value[1:], upper=False) - timedelta(seconds=1)
            else:
                out["lo"], out["hi"] = _parse_when(value, upper=False), _parse_when(value, upper=True)
        else:
            raise _error(f"the fake GitHub does not understand search term {token!r}", "INVALID")
    return out


# -- server ---------------------------------------------------------------------------------------


@dataclass
class Fault:
    kind: str
    retry_after: float | None = None
    reset_in: float = 120.0
    delay: float = 1.0
    message: str | None = None


@dataclass
class LoggedRequest:
    path: str
    query: str
    variables: dict[str, Any]
    status: int
    fault: str | None

    @property
    def operation(self) -> str:
        for word in ("SearchMergedPRs", "MoreFiles", "OnePR", "RateLimit"):
            if f"query {word}" in self.query:
                return word
        return "?"


class FakeGitHub:
    """The fake server; use as a context manager. ``url`` is the base for PRDIGEST_GITHUB_API_URL."""

    def __init__(
        self,
        schema: Any,
        *,
        token: str = TOKEN,
        clock: FakeClock | None = None,
        limit: int = 5000,
        delay: float = 0.0,
    ) -> None:
        self.schema = schema
        self.token = token
        self.clock = clock or FakeClock()
        self.limit = limit
        self.remaining = limit
        self.reset_at = self.clock.time() + 3600
        self.delay = delay  # real seconds before every answer (kill -9 tests)
        self.repos: dict[str, list[FakePR]] = {}
        self.faults: deque[Fault] = deque()
        self.scheduled: dict[int, Fault] = {}  # 1-based request number -> fault
        self.log: list[LoggedRequest] = []
        self.on_request: Callable[[int], None] | None = None
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- setup ----------------------------------------------------------------------------------

    def add_prs(self, repo: str, prs: list[FakePR]) -> None:
        with self._lock:
            self.repos.setdefault(repo, []).extend(prs)

    def inject(self, kind: str, times: int = 1, **options: Any) -> None:
        """Queue a fault for the next request(s): 502, 500, secondary, secondary429, primary,
        primary403, slow, truncated, garbled, graphql_error, forbidden, bad_credentials."""
        with self._lock:
            for _ in range(times):
                self.faults.append(Fault(kind, **options))

    def inject_at(self, request_number: int, kind: str, **options: Any) -> None:
        """Fault the ``request_number``-th request (1-based, counting every request so far)."""
        with self._lock:
            self.scheduled[request_number] = Fault(kind, **options)

    @property
    def url(self) -> str:
        assert self._server is not None, "start the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def requests(self) -> int:
        return len(self.log)

    def operations(self) -> list[str]:
        return [r.operation for r in self.log]

    def start(self) -> FakeGitHub:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                fake._handle(self)

            def do_GET(self) -> None:
                fake._send(self, 404, {"message": "Not Found"})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-github", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- HTTP -----------------------------------------------------------------------------------

    def _rate_headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(max(0, self.remaining)),
            "x-ratelimit-used": str(self.limit - max(0, self.remaining)),
            "x-ratelimit-reset": str(int(self.reset_at)),
            "x-ratelimit-resource": "graphql",
        }

    def _send(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        body: Any,
        headers: dict[str, str] | None = None,
        *,
        raw: bytes | None = None,
        truncate: bool = False,
    ) -> None:
        data = raw if raw is not None else json.dumps(body).encode()
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json; charset=utf-8")
            handler.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                handler.send_header(k, v)
            if truncate:
                handler.send_header("Connection", "close")
            handler.end_headers()
            handler.wfile.write(data[: len(data) // 2] if truncate else data)
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        if truncate:
            handler.close_connection = True

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            payload = json.loads(raw or b"{}")
        except ValueError:
            payload = {}
        query = str(payload.get("query") or "")
        variables = payload.get("variables") or {}
        if self.delay:
            time.sleep(self.delay)
        with self._lock:
            number = len(self.log) + 1
            fault = self.scheduled.pop(number, None) or (self.faults.popleft() if self.faults else None)
            entry = LoggedRequest(handler.path, query, variables, 200, fault.kind if fault else None)
            self.log.append(entry)
            count = len(self.log)
        if self.on_request is not None:
            self.on_request(count)
        if handler.path not in ("/graphql", "/api/graphql"):
            entry.status = 404
            self._send(handler, 404, {"message": "Not Found"})
            return
        auth = handler.headers.get("Authorization") or ""
        scheme, _, given = auth.partition(" ")
        if not auth:
            entry.status = 401
            self._send(handler, 401, {"message": "This endpoint requires you to be authenticated."})
            return
        if (
            scheme.lower() not in ("bearer", "token")
            or given.strip() != self.token
            or (fault and fault.kind == "bad_credentials")
        ):
            entry.status = 401
            self._send(
                handler, 401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com"}
            )
            return
        if fault is not None and self._fault(handler, fault, entry):
            return
        status, body = self._execute(query, variables)
        entry.status = status
        self._send(handler, status, body, self._rate_headers())

    def _fault(self, handler: BaseHTTPRequestHandler, fault: Fault, entry: LoggedRequest) -> bool:
        """Answer with the fault; False when the request should then proceed normally (slow)."""
        kind = fault.kind
        if kind in ("502", "500", "504"):
            entry.status = int(kind)
            self._send(handler, int(kind), None, raw=b"<html><body><h1>Bad Gateway</h1></body></html>")
            return True
        if kind in ("secondary", "secondary429"):
            status = 429 if kind == "secondary429" else 403
            headers = self._rate_headers()
            if fault.retry_after is not None:
                headers["retry-after"] = str(int(fault.retry_after))
            entry.status = status
            self._send(handler, status, {"message": fault.message or SECONDARY_MESSAGE}, headers)
            return True
        if kind in ("primary", "primary403"):
            with self._lock:
                self.remaining = 0
                self.reset_at = self.clock.time() + fault.reset_in
            if kind == "primary403":
                entry.status = 403
                self._send(
                    handler, 403, {"message": "API rate limit exceeded for user ID 1."}, self._rate_headers()
                )
            else:
                self._send(handler, 200, self._rate_limited(), self._rate_headers())
            return True
        if kind == "slow":
            time.sleep(fault.delay)
            return False
        if kind == "truncated":
            status, body = self._execute(entry.query, entry.variables)
            entry.status = status
            self._send(handler, status, body, self._rate_headers(), truncate=True)
            return True
        if kind == "garbled":
            status, body = self._execute(entry.query, entry.variables)
            data = json.dumps(body).encode()
            entry.status = status
            self._send(handler, status, None, self._rate_headers(), raw=data[: len(data) // 2])
            return True
        if kind == "graphql_error":
            message = fault.message or (
                "Something went wrong while executing your query. This may be the result "
                "of a timeout, or it could be a GitHub bug."
            )
            self._send(handler, 200, {"data": None, "errors": [{"message": message}]}, self._rate_headers())
            return True
        if kind == "forbidden":
            body = {
                "data": None,
                "errors": [
                    {
                        "type": "FORBIDDEN",
                        "message": fault.message or "Resource not accessible by personal access token",
                    }
                ],
            }
            self._send(handler, 200, body, self._rate_headers())
            return True
        raise ValueError(f"unknown fault {kind!r}")

    @staticmethod
    def _rate_limited() -> dict[str, Any]:
        return {
            "errors": [{"type": "RATE_LIMITED", "message": "API rate limit already exceeded for user ID 1."}]
        }

    # -- GraphQL --------------------------------------------------------------------------------

    def _execute(self, query: str, variables: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        import graphql

        with self._lock:
            now = self.clock.time()
            if now >= self.reset_at:
                self.remaining = self.limit
                self.reset_at = now + 3600
            if self.remaining <= 0:
                return 200, self._rate_limited()
            self.remaining -= 1
        root = {"search": self._search, "repository": self._repository, "rateLimit": self._rate_limit}
        result = graphql.graphql_sync(self.schema, query, root_value=root, variable_values=variables)
        body: dict[str, Any] = {}
        if result.errors:
            errors = []
            for err in result.errors:
                formatted = dict(err.formatted)
                ext = formatted.get("extensions") or {}
                if "type" in ext:
                    formatted["type"] = ext["type"]
                errors.append(formatted)
            body["errors"] = errors
        if result.data is not None or not result.errors:
            body["data"] = result.data
        return 200, body

    def _rate_limit(self, info: Any, dryRun: bool = False) -> dict[str, Any]:
        with self._lock:
            return {
                "cost": 1,
                "limit": self.limit,
                "nodeCount": 0,
                "remaining": max(0, self.remaining),
                "resetAt": datetime.fromtimestamp(int(self.reset_at), UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "used": self.limit - max(0, self.remaining),
            }

    def _search(
        self,
        info: Any,
        query: str,
        type: str,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        _bounds("search", first, last)
        if len(query) > 256:
            raise _error("The search query is too long (at most 256 characters).", "INVALID")
        if type != "ISSUE":
            raise _error(f"the fake GitHub only searches issues, not {type}", "INVALID")
        terms = parse_search(query)
        repo = terms["repo"]
        with self._lock:
            prs = list(self.repos.get(repo or "", []))
            known = repo in self.repos
        if not known:
            raise _error(
                "The listed users and repositories cannot be searched either because the resources do "
                "not exist or you do not have permission to view them.",
                "INVALID",
            )
        lo, hi = terms["lo"], terms["hi"]
        hits = [p for p in prs if (p.merged or "merged" not in terms["is"])]
        if "merged" in terms["is"]:
            hits = [
                p
                for p in hits
                if p.merged_at and (lo is None or p.merged_at >= lo) and (hi is None or p.merged_at <= hi)
            ]
        if terms["sort"] == "created-asc":
            hits.sort(key=lambda p: (p.created_at, p.number))
        else:
            hits.sort(key=lambda p: (p.created_at, p.number), reverse=True)
        reachable = hits[:SEARCH_CAP]
        conn = _connection(
            "search", "cursor", [_pr_object(repo or "", p) for p in reachable], first, after, last, before
        )
        conn.pop("totalCount")
        conn.update(
            {
                "issueCount": len(hits),
                "codeCount": 0,
                "discussionCount": 0,
                "repositoryCount": 0,
                "userCount": 0,
                "wikiCount": 0,
            }
        )
        return conn

    def _repository(self, info: Any, owner: str, name: str, followRenames: bool = True) -> dict[str, Any]:
        repo = f"{owner}/{name}"
        with self._lock:
            if repo not in self.repos:
                raise _error(f"Could not resolve to a Repository with the name '{repo}'.", "NOT_FOUND")
            prs = {p.number: p for p in self.repos[repo]}

        def pull_request(info: Any, number: int) -> dict[str, Any]:
            pr = prs.get(number)
            if pr is None:
                raise _error(f"Could not resolve to a PullRequest with the number of {number}.", "NOT_FOUND")
            return _pr_object(repo, pr)

        return {"__typename": "Repository", "nameWithOwner": repo, "name": name, "pullRequest": pull_request}
