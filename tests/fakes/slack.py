"""A fake Slack on 127.0.0.1: the Web API (``/api/<method>``) and response_url endpoints.

It is a real HTTP server in a background thread, so the real slack_sdk WebClient /
AsyncWebClient (``base_url=fake.api_url``) and Bolt's ``respond`` talk to it exactly as they
would to Slack. Every call is recorded with its parsed payload for exact assertions; replies can
be scripted per method (a 429 with Retry-After, an error code) and channels can be set to fail.
Also here: helpers that build and sign slash-command requests the way Slack does.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import math
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode

from tests.fakes.host import RunningHost

BOT_TOKEN = "xoxb-test-token"
APP_TOKEN = "xapp-1-test-token"
SIGNING_SECRET = "test-signing-secret"


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # a burst of answers must not be refused at the listen backlog

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that drops an idle keep-alive connection is not news; anything else is."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionResetError | BrokenPipeError):
            super().handle_error(request, client_address)


@dataclass
class Call:
    """One Web API call as the fake received it."""

    method: str
    params: dict[str, Any]
    headers: dict[str, str]
    at: float
    response: dict[str, Any] = field(default_factory=dict)


@dataclass
class Response:
    """A scripted answer: status, JSON body, extra headers."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=lambda: {"ok": True})
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Upload:
    """A file uploaded through files.getUploadURLExternal → the upload URL →
    files.completeUploadExternal (what ``files_upload_v2`` does)."""

    id: str
    filename: str
    length: int
    alt_txt: str = ""
    data: bytes | None = None  # the bytes POSTed to the upload URL
    title: str = ""
    completed: bool = False
    shared_to: str | None = None  # channel_id given at completion (the file is then posted there)
    deleted: bool = False  # files.delete took it away (a message can no longer show it)


@dataclass
class Fault:
    """What the fake does to one Web API call instead of answering at once:

    - ``drop``: the call takes effect (``store``, else not), then the connection is closed
      without an answer — Slack stored the message and the answer was lost;
    - ``late``: the call takes effect only after ``delay`` seconds, then is answered (by then
      the client may have given up: an answer later than its timeout);
    - ``hold``: the call takes effect (``store``, else not), ``reached`` is set and the request
      waits for ``release`` (at most 60 s), then the connection is closed — a test kills the
      client meanwhile;
    - ``answer``: the call takes effect (``store``, else not) and gets ``response`` instead of
      its own answer (a 500 after Slack stored the message, a permission refused).
    """

    kind: str
    store: bool = True
    delay: float = 0.0
    response: Response | None = None
    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


@dataclass
class Limits:
    """Slack's posting limits, enforced (off unless given to ``FakeSlack``): ``per_channel``
    seconds between two ``chat.postMessage`` calls that post in one channel (about one a second),
    and per method a workspace-wide ``(per second, burst)`` token bucket — posting ("several
    hundred a minute") and the two upload calls (Tier 4, 100+ a minute). A call over a limit takes
    no effect and is answered as Slack answers it: HTTP 429, ``ratelimited``, Retry-After in
    whole seconds."""

    per_channel: float = 1.0
    workspace: dict[str, tuple[float, float]] = field(
        default_factory=lambda: {
            "chat.postMessage": (10.0, 10.0),
            "files.getUploadURLExternal": (100 / 60, 20.0),
            "files.completeUploadExternal": (100 / 60, 20.0),
        }
    )


@dataclass
class Posted:
    """One POST to a response_url."""

    key: str
    body: dict[str, Any]
    at: float


class FakeSlack:
    """Start with ``with FakeSlack() as slack:``; point clients at ``slack.api_url``."""

    def __init__(
        self, token: str = BOT_TOKEN, app_token: str = APP_TOKEN, *, limits: Limits | None = None
    ) -> None:
        self.token = token
        self.app_token = app_token
        self.limits = limits
        self._channel_free: dict[str, float] = {}  # channel → when its next post is allowed
        self._tokens: dict[str, tuple[float, float]] = {}  # method → (tokens, when counted)
        # where apps.connections.open sends Socket Mode clients (a FakeSocketMode's url)
        self.socket_url: str | None = None
        self.calls: list[Call] = []
        self.posted: list[Posted] = []
        self.channel_errors: dict[str, str] = {}
        # top-level messages per channel, oldest first, as conversations.history returns them
        # (newest first); ``metadata`` kept only when the poster sent it
        self.history: dict[str, list[dict[str, Any]]] = {}
        # thread replies per (channel, lead ts), oldest first, as conversations.replies returns them
        self.replies: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._faults: dict[str, list[Fault]] = {}
        self._faults_at: dict[tuple[str, int], Fault] = {}
        self._seen: dict[str, int] = {}  # calls per method as they arrived (faulted ones too)
        self.joined: set[str] = set()
        # every message posted with the bot token, leads and thread replies: (channel, ts) → its
        # text and blocks, as chat.update changes them (chat.delete removes them)
        self.messages: dict[tuple[str, str], dict[str, Any]] = {}
        # users.info answers: user id → the user object (is_admin, is_owner, …)
        self.users: dict[str, dict[str, Any]] = {}
        self.latency = 0.0  # seconds every Web API answer takes (to make concurrent callers overlap)
        # files by id (files.getUploadURLExternal); the status the upload URL answers with
        self.uploads: dict[str, Upload] = {}
        self.upload_status = 200
        self._scripts: dict[str, list[Response]] = {}
        self._after: dict[str, list[Response]] = {}  # answers given after the call took effect
        self._ts = 0
        self._cond = threading.Condition()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="fake-slack", daemon=True
        )

    # -- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> FakeSlack:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    @property
    def base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def api_url(self) -> str:
        return f"{self.base}/api/"

    def response_url(self, key: str) -> str:
        return f"{self.base}/respond/{key}"

    # -- scripting and inspection ---------------------------------------------------------------

    def script(self, method: str, *responses: Response) -> None:
        """The next calls of ``method`` get these answers, in order, before the defaults."""
        with self._cond:
            self._scripts.setdefault(method, []).extend(responses)

    def script_after(self, method: str, *responses: Response) -> None:
        """The next calls of ``method`` take effect as usual, then get these answers instead of
        their own: Slack stored the message but the answer was an error (a 5xx after the write)."""
        with self._cond:
            self._after.setdefault(method, []).extend(responses)

    def fault(self, method: str, *faults: Fault) -> None:
        """The next calls of ``method`` meet these faults, in order."""
        with self._cond:
            self._faults.setdefault(method, []).extend(faults)

    def fault_at(self, method: str, index: int, fault: Fault) -> None:
        """The ``index``-th call of ``method`` from now on (0: the next) meets ``fault``."""
        with self._cond:
            self._faults_at[(method, self._seen.get(method, 0) + index)] = fault

    def _next_fault(self, method: str) -> Fault | None:
        with self._cond:
            n = self._seen.get(method, 0)
            self._seen[method] = n + 1
            at = self._faults_at.pop((method, n), None)
            if at is not None:
                return at
            queued = self._faults.get(method)
            return queued.pop(0) if queued else None

    def thread(self, channel: str, ts: str) -> list[dict[str, Any]]:
        """The replies in the thread of ``ts``, oldest first."""
        with self._cond:
            return list(self.replies.get((channel, ts), []))

    def leads_in(self, channel: str) -> list[dict[str, Any]]:
        with self._cond:
            return list(self.history.get(channel, []))

    def calls_to(self, method: str) -> list[Call]:
        with self._cond:
            return [c for c in self.calls if c.method == method]

    def posted_to(self, key: str) -> list[Posted]:
        with self._cond:
            return [p for p in self.posted if p.key == key]

    def wait_posted(self, key: str, count: int = 1, timeout: float = 10.0) -> list[Posted]:
        """Block until ``count`` POSTs reached the response_url ``key`` (bounded in time)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len([p for p in self.posted if p.key == key]) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return [p for p in self.posted if p.key == key]

    def wait_calls(self, method: str, count: int = 1, timeout: float = 10.0) -> list[Call]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while len([c for c in self.calls if c.method == method]) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return [c for c in self.calls if c.method == method]

    # -- the server ---------------------------------------------------------------------------

    def _answer(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> Response:
        if self.latency:
            time.sleep(self.latency)
        call = Call(method, params, headers, time.monotonic())
        resp = self._respond(method, params, headers)
        call.response = resp.body
        with self._cond:
            self.calls.append(call)
            self._cond.notify_all()
        return resp

    def limited(self, method: str | None = None) -> list[Call]:
        """The calls answered 429 by ``limits`` (of ``method``)."""
        with self._cond:
            return [
                c
                for c in self.calls
                if c.response.get("error") == "ratelimited" and method in (None, c.method)
            ]

    def _over_limit(self, method: str, params: dict[str, Any]) -> Response | None:
        """A 429 when ``method`` now would break ``limits`` (nothing is counted then), else None
        with the call counted against them."""
        if self.limits is None:
            return None
        now = time.monotonic()
        channel = str(params.get("channel", "")) if method == "chat.postMessage" else ""
        with self._cond:
            waits = [self._channel_free.get(channel, now) - now] if channel else []
            quota = self.limits.workspace.get(method)
            if quota is not None:
                rate, burst = quota
                tokens, then = self._tokens.get(method, (burst, now))
                tokens = min(burst, tokens + (now - then) * rate)
                waits.append((1.0 - tokens) / rate)
            wait = max(waits, default=0.0)
            if wait > 0:
                seconds = str(max(1, math.ceil(wait)))
                return Response(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": seconds})
            if channel:
                self._channel_free[channel] = now + self.limits.per_channel
            if quota is not None:
                self._tokens[method] = (tokens - 1.0, now)
        return None

    def _respond(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> Response:
        refused = self._over_limit(method, params)
        if refused is not None:
            return refused
        answer = self._effect(method, params, headers)
        with self._cond:
            after = self._after.get(method)
            if after:
                return after.pop(0)
        return answer

    def _effect(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> Response:
        with self._cond:
            scripted = self._scripts.get(method)
            if scripted:
                return scripted.pop(0)
        auth = headers.get("authorization", "")
        if method == "apps.connections.open":
            if auth != f"Bearer {self.app_token}" or not self.socket_url:
                return Response(200, {"ok": False, "error": "invalid_auth"})
            return Response(200, {"ok": True, "url": self.socket_url})
        if auth != f"Bearer {self.token}" and params.get("token") != self.token:
            return Response(200, {"ok": False, "error": "invalid_auth"})
        if method == "auth.test":
            return Response(
                200,
                {
                    "ok": True,
                    "url": "https://fake.slack.com/",
                    "team": "Fake",
                    "user": "prdigest",
                    "team_id": "T0FAKE",
                    "user_id": "U0BOT",
                    "bot_id": "B0BOT",
                },
            )
        if method == "chat.getPermalink":
            channel, ts = str(params.get("channel", "")), str(params.get("message_ts", ""))
            link = f"https://fake.slack.com/archives/{channel}/p{ts.replace('.', '')}"
            return Response(200, {"ok": True, "channel": channel, "permalink": link})
        if method == "chat.postMessage":
            channel = str(params.get("channel", ""))
            if channel in self.channel_errors:
                return Response(200, {"ok": False, "error": self.channel_errors[channel]})
            invalid = self._invalid_file_blocks(params.get("blocks"))
            if invalid:
                return Response(200, {"ok": False, "error": "invalid_blocks", "errors": [invalid]})
            with self._cond:
                self._ts += 1
                ts = f"1700000000.{self._ts:06d}"
                message: dict[str, Any] = {"type": "message", "text": params.get("text"), "ts": ts}
                blocks = params.get("blocks")
                if isinstance(blocks, str):
                    blocks = json.loads(blocks)
                if blocks:
                    message["blocks"] = blocks
                metadata = params.get("metadata")
                if isinstance(metadata, str):
                    metadata = json.loads(metadata)
                if metadata:
                    message["metadata"] = metadata
                lead = params.get("thread_ts")
                if not lead:
                    self.history.setdefault(channel, []).append(message)
                elif not any(m["ts"] == lead for m in self.history.get(channel, [])):
                    return Response(200, {"ok": False, "error": "thread_not_found"})
                else:
                    message["thread_ts"] = lead
                    self.replies.setdefault((channel, str(lead)), []).append(message)
                self.messages[(channel, ts)] = {
                    "text": params.get("text"),
                    "blocks": params.get("blocks"),
                    "thread_ts": params.get("thread_ts"),
                }
            return Response(
                200,
                {"ok": True, "channel": channel, "ts": ts, "message": {"text": params.get("text"), "ts": ts}},
            )
        if method in ("chat.update", "chat.delete"):
            return self._change(method, params)
        if method == "conversations.history":
            return self._history(params)
        if method == "conversations.replies":
            return self._replies(params)
        if method == "files.getUploadURLExternal":
            return self._upload_url(params)
        if method == "files.completeUploadExternal":
            return self._complete_upload(params)
        if method == "files.delete":
            return self._delete_file(params)
        if method == "users.info":
            user = self.users.get(str(params.get("user", "")))
            if user is None:
                return Response(200, {"ok": False, "error": "user_not_found"})
            return Response(200, {"ok": True, "user": user})
        if method == "conversations.join":
            channel = str(params.get("channel", ""))
            if channel in self.channel_errors and self.channel_errors[channel] != "not_in_channel":
                return Response(200, {"ok": False, "error": self.channel_errors[channel]})
            with self._cond:
                self.joined.add(channel)
                self.channel_errors.pop(channel, None)
            return Response(200, {"ok": True, "channel": {"id": channel}})
        return Response(200, {"ok": False, "error": "unknown_method"})

    def _change(self, method: str, params: dict[str, Any]) -> Response:
        """chat.update (text and blocks of a message the bot posted) and chat.delete, as Slack
        answers them; a ts the channel does not have is ``message_not_found``."""
        channel, ts = str(params.get("channel", "")), str(params.get("ts", ""))
        with self._cond:
            if (channel, ts) not in self.messages:
                return Response(200, {"ok": False, "error": "message_not_found"})
            if method == "chat.delete":
                del self.messages[(channel, ts)]
                self.history[channel] = [m for m in self.history.get(channel, []) if m["ts"] != ts]
                return Response(200, {"ok": True, "channel": channel, "ts": ts})
            self.messages[(channel, ts)].update(text=params.get("text"), blocks=params.get("blocks"))
        text = params.get("text")
        return Response(
            200, {"ok": True, "channel": channel, "ts": ts, "text": text, "message": {"text": text}}
        )

    def _history(self, params: dict[str, Any]) -> Response:
        """conversations.history: newest first, ``oldest``/``limit``/``cursor`` honoured; message
        metadata only with ``include_all_metadata`` (as Slack does)."""
        channel = str(params.get("channel", ""))
        if channel in self.channel_errors:
            return Response(200, {"ok": False, "error": self.channel_errors[channel]})
        oldest = float(params.get("oldest") or 0)
        limit = int(params.get("limit") or 100)
        start = int(params.get("cursor") or 0)
        with_metadata = str(params.get("include_all_metadata", "")).lower() in ("1", "true")
        with self._cond:
            newest_first = [m for m in reversed(self.history.get(channel, [])) if float(m["ts"]) > oldest]
        page = newest_first[start : start + limit]
        if not with_metadata:
            page = [{k: v for k, v in m.items() if k != "metadata"} for m in page]
        more = start + limit < len(newest_first)
        body: dict[str, Any] = {"ok": True, "messages": page, "has_more": more}
        if more:
            body["response_metadata"] = {"next_cursor": str(start + limit)}
        return Response(200, body)

    def _replies(self, params: dict[str, Any]) -> Response:
        """conversations.replies: the lead, then its replies oldest first; ``limit``/``cursor``
        honoured; message metadata only with ``include_all_metadata``."""
        channel, ts = str(params.get("channel", "")), str(params.get("ts", ""))
        if channel in self.channel_errors:
            return Response(200, {"ok": False, "error": self.channel_errors[channel]})
        with self._cond:
            lead = [m for m in self.history.get(channel, []) if m["ts"] == ts]
            thread = lead + list(self.replies.get((channel, ts), []))
        if not lead:
            return Response(200, {"ok": False, "error": "thread_not_found"})
        limit = int(params.get("limit") or 1000)
        start = int(params.get("cursor") or 0)
        page = thread[start : start + limit]
        if str(params.get("include_all_metadata", "")).lower() not in ("1", "true"):
            page = [{k: v for k, v in m.items() if k != "metadata"} for m in page]
        more = start + limit < len(thread)
        body: dict[str, Any] = {"ok": True, "messages": page, "has_more": more}
        if more:
            body["response_metadata"] = {"next_cursor": str(start + limit)}
        return Response(200, body)

    def _upload_url(self, params: dict[str, Any]) -> Response:
        """files.getUploadURLExternal: a file id and a loopback upload URL for ``length`` bytes."""
        filename = str(params.get("filename") or "")
        length = str(params.get("length") or "")
        if not filename or not length.isdigit() or int(length) == 0:
            return Response(200, {"ok": False, "error": "invalid_arguments"})
        with self._cond:
            self._ts += 1
            file_id = f"F0FAKE{self._ts:06d}"
            self.uploads[file_id] = Upload(file_id, filename, int(length), str(params.get("alt_txt") or ""))
        return Response(200, {"ok": True, "upload_url": f"{self.base}/upload/{file_id}", "file_id": file_id})

    def _receive_upload(self, file_id: str, data: bytes) -> int:
        """The bytes POSTed to an upload URL; the status is ``upload_status`` (200: stored)."""
        with self._cond:
            upload = self.uploads.get(file_id)
            if upload is None:
                return 404
            if self.upload_status == 200:
                upload.data = data
            self._cond.notify_all()
            return self.upload_status

    def _complete_upload(self, params: dict[str, Any]) -> Response:
        """files.completeUploadExternal: every file must have received exactly its announced
        length; without ``channel_id`` the file stays private to the app (not posted anywhere)."""
        try:
            wanted = json.loads(str(params.get("files") or "[]"))
        except ValueError:
            return Response(200, {"ok": False, "error": "invalid_arguments"})
        done = []
        with self._cond:
            for entry in wanted:
                upload = self.uploads.get(str(entry.get("id")))
                if upload is None or upload.data is None or len(upload.data) != upload.length:
                    return Response(200, {"ok": False, "error": "file_not_found"})
            for entry in wanted:
                upload = self.uploads[str(entry["id"])]
                upload.completed, upload.title = True, str(entry.get("title") or upload.filename)
                upload.shared_to = params.get("channel_id") or None
                done.append({"id": upload.id, "name": upload.filename, "title": upload.title})
        return Response(200, {"ok": True, "files": done})

    def _delete_file(self, params: dict[str, Any]) -> Response:
        """files.delete: the bot's own upload is gone (``file_not_found`` for one it never had,
        or twice)."""
        with self._cond:
            upload = self.uploads.get(str(params.get("file", "")))
            if upload is None or upload.deleted:
                return Response(200, {"ok": False, "error": "file_not_found"})
            upload.deleted = True
        return Response(200, {"ok": True})

    def _invalid_file_blocks(self, blocks: Any) -> str | None:
        """Slack refuses an image block whose ``slack_file`` is not a completed upload (or one
        deleted since)."""
        if isinstance(blocks, str):
            blocks = json.loads(blocks)
        for i, block in enumerate(blocks or []):
            ref = block.get("slack_file") if isinstance(block, dict) else None
            if ref is None:
                continue
            with self._cond:
                upload = self.uploads.get(str(ref.get("id")))
                if upload is None or not upload.completed or upload.deleted:
                    return f"invalid slack file [json-pointer:/blocks/{i}/slack_file]"
        return None

    def _record_post(self, key: str, body: dict[str, Any]) -> None:
        with self._cond:
            self.posted.append(Posted(key, body, time.monotonic()))
            self._cond.notify_all()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def _body(self) -> dict[str, Any]:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8") if length else ""
                if "json" in (self.headers.get("Content-Type") or ""):
                    return json.loads(raw or "{}")
                return dict(parse_qsl(raw, keep_blank_values=True))

            def _send(
                self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def _fail(self, fault: Fault, method: str, body: dict[str, Any], headers: dict[str, str]) -> None:
                """``drop`` and ``hold``: take effect (or not), then close without an answer."""
                if fault.store:
                    fake._answer(method, body, headers)
                if fault.kind == "hold":
                    fault.reached.set()
                    fault.release.wait(60)
                self.close_connection = True

            def do_GET(self) -> None:  # slack_sdk sends a few read methods as GET with a query
                path, _, query = self.path.partition("?")
                if not path.startswith("/api/"):
                    self._send(404, b"not found", "text/plain")
                    return
                headers = {k.lower(): v for k, v in self.headers.items()}
                resp = fake._answer(path.removeprefix("/api/"), dict(parse_qsl(query)), headers)
                body = json.dumps(resp.body).encode()
                self._send(resp.status, body, "application/json; charset=utf-8", resp.headers)

            def do_POST(self) -> None:
                path, _, query = self.path.partition("?")
                if path.startswith("/upload/"):  # an upload URL: the raw bytes of the file
                    length = int(self.headers.get("Content-Length") or 0)
                    status = fake._receive_upload(path.removeprefix("/upload/"), self.rfile.read(length))
                    self._send(status, b"OK - 0" if status == 200 else b"failed", "text/plain")
                    return
                # slack_sdk sends some methods' arguments (conversations.join) as a query string
                body = {**dict(parse_qsl(query)), **self._body()}
                if path.startswith("/respond/"):
                    fake._record_post(path.removeprefix("/respond/"), body)
                    self._send(200, b"ok", "text/plain")
                    return
                if path.startswith("/api/"):
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    method = path.removeprefix("/api/")
                    fault = fake._next_fault(method)
                    if fault is not None and fault.kind in ("drop", "hold"):
                        self._fail(fault, method, body, headers)
                        return
                    if fault is not None:
                        time.sleep(fault.delay)
                    if fault is not None and fault.kind == "answer" and not fault.store:
                        resp = fault.response or Response(500, {"ok": False, "error": "fatal_error"})
                    else:
                        resp = fake._answer(method, body, headers)
                    if fault is not None and fault.kind == "answer" and fault.store:
                        resp = fault.response or Response(500, {"ok": False, "error": "fatal_error"})
                    try:
                        self._send(
                            resp.status,
                            json.dumps(resp.body).encode(),
                            "application/json; charset=utf-8",
                            resp.headers,
                        )
                    except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                        self.close_connection = True
                    return
                self._send(404, b"not found", "text/plain")

        return Handler


class FakeSocketMode:
    """Slack's Socket Mode WebSocket on 127.0.0.1: says hello, sends envelopes, records acks.

    Runs an aiohttp server on its own event loop in a background thread; point
    ``FakeSlack.socket_url`` at ``url`` so apps.connections.open hands it to the client.
    """

    def __init__(self) -> None:
        self.acks: list[tuple[dict[str, Any], float]] = []
        self.connections = 0
        self._cond = threading.Condition()
        self._loop = asyncio.new_event_loop()
        self._ws: Any = None
        self._runner: Any = None
        self.port = 0
        self._thread = threading.Thread(target=self._loop.run_forever, name="fake-socket-mode", daemon=True)

    async def _start(self) -> None:
        from aiohttp import web

        app = web.Application()
        app.router.add_get("/link", self._link)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])

    async def _link(self, request: Any) -> Any:
        from aiohttp import WSMsgType, web

        ws = web.WebSocketResponse()
        await ws.prepare(request)
        with self._cond:
            self._ws = ws
            self.connections += 1
            self._cond.notify_all()
        await ws.send_str(
            json.dumps({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A0APP"}})
        )
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                with self._cond:
                    self.acks.append((json.loads(msg.data), time.monotonic()))
                    self._cond.notify_all()
        return ws

    def __enter__(self) -> FakeSocketMode:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            if self._ws is not None:
                await self._ws.close()
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/link"

    def wait_connected(self, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._ws is None and time.monotonic() < deadline:
                self._cond.wait(deadline - time.monotonic())
            return self._ws is not None

    def send(self, envelope: dict[str, Any]) -> float:
        """Send one envelope to the connected client; returns when it was sent (monotonic)."""
        sent = time.monotonic()
        asyncio.run_coroutine_threadsafe(self._ws.send_str(json.dumps(envelope)), self._loop).result(10)
        return sent

    def wait_ack(self, envelope_id: str, timeout: float = 10.0) -> tuple[dict[str, Any], float] | None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for ack in self.acks:
                    if ack[0].get("envelope_id") == envelope_id:
                        return ack
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)


# -- slash commands as Slack sends them ----------------------------------------------------------


def slash_payload(
    command: str,
    text: str,
    response_url: str,
    *,
    user_id: str = "U0USER",
    channel_id: str = "C0CHAN",
    team_id: str = "T0FAKE",
) -> dict[str, str]:
    """The fields Slack sends with a slash command."""
    return {
        "token": "legacy-verification-token",
        "team_id": team_id,
        "team_domain": "fake",
        "channel_id": channel_id,
        "channel_name": "general",
        "user_id": user_id,
        "user_name": "tester",
        "command": command,
        "text": text,
        "api_app_id": "A0APP",
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": "1.2.3",
    }


def slash_body(command: str, text: str, response_url: str, **fields: str) -> str:
    """The form-encoded body of a slash-command request (HTTP mode)."""
    return urlencode(slash_payload(command, text, response_url, **fields))


def slash_envelope(
    envelope_id: str, command: str, text: str, response_url: str, **fields: str
) -> dict[str, Any]:
    """The same command as a Socket Mode envelope."""
    return {
        "envelope_id": envelope_id,
        "type": "slash_commands",
        "accepts_response_payload": True,
        "payload": slash_payload(command, text, response_url, **fields),
    }


def signed_headers(
    body: str, *, secret: str = SIGNING_SECRET, timestamp: int | None = None
) -> dict[str, str]:
    """Slack's request signature: HMAC-SHA256 of ``v0:{timestamp}:{body}``."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": f"v0={digest}",
    }


# -- the app under test, running as `prdigest serve` runs it -------------------------------------


class RunningApp(RunningHost):
    """The host with the Slack component, as ``prdigest serve`` runs it (posting unpaced);
    ``url`` is its /slack/events endpoint."""

    @property
    def url(self) -> str:
        return f"{self.base}/slack/events"
