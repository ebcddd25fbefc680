"""A fake OpenAI-compatible chat-completions server: a real HTTP server on 127.0.0.1.

The real httpx client of ``bot.prose`` talks to it over a socket, so tests cover the wire:
``POST …/v1/chat/completions`` with the request body the OpenAI API documents (``model``,
``messages`` of ``role``/``content``, optional ``response_format``), ``Authorization: Bearer``,
and answers of the documented shape (``object: chat.completion``, ``choices[0].message.content``,
``usage``) or errors (``{"error": {"message", "type", "param", "code"}}``, 401/400/429/500).

Its "model" reads the FACTS document of the request and writes sentences from it (``good``), or
misbehaves on demand — one mode per request from a script, then ``default``:

- ``good``: grounded sentences (titles, measured effects, labels, counts of the facts);
- ``foreign_pr``: a good answer whose first sentence cites a PR the facts do not hold;
- ``invented_percentage``: a good answer with a percentage the facts do not hold;
- ``off_by_one``: a good answer with its first figure changed by one;
- ``malformed``: content that is not JSON;
- ``markup``: sentences with ``@everyone``, ``<!channel>`` and a Markdown link;
- ``obey``: what a model obeying an injected description writes (a "security fix", a mention);
- ``http500`` / ``http429`` (with ``Retry-After: 1``) / ``hang`` (no answer until ``release``);
- ``no_schema``: refuses any request carrying ``response_format`` (HTTP 400), answers the others.

Run it alone for a manual try (``python -m tests.fakes.llm --port 8765``): then
``PRDIGEST_LLM_URL=http://127.0.0.1:8765/v1 PRDIGEST_LLM_MODEL=fake prdigest digest …``.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "fake-model"
KEY = "sk-fake-key-for-tests"
MODES = (
    "good",
    "foreign_pr",
    "invented_percentage",
    "off_by_one",
    "malformed",
    "markup",
    "obey",
    "http500",
    "http429",
    "hang",
    "no_schema",
)
FOREIGN_PR = 1  # a PR number no part of a digest holds


@dataclass
class Request:
    """One request as the fake received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    mode: str
    facts: dict[str, Any] | None = None


def facts_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """The FACTS document of a request (its first user message after the first line)."""
    for message in body.get("messages", []):
        if message.get("role") == "user" and str(message.get("content", "")).startswith("FACTS"):
            text = str(message["content"])
            return dict(json.loads(text.split("\n", 1)[1]))
    return None


# -- the fake model's sentences ----------------------------------------------------------------------


def _zh(facts: dict[str, Any]) -> bool:
    return str(facts.get("language", "")).endswith("(zh)")


def _effect(pr: dict[str, Any], zh: bool) -> str:
    effects = pr.get("measured_effects_zh" if zh else "measured_effects") or []
    return str(effects[0]).rstrip(".") if effects else ""


def _title(pr: dict[str, Any]) -> str:
    return str(pr["title"]).replace("`", "")


def _theme(facts: dict[str, Any]) -> list[dict[str, Any]]:
    zh, name = _zh(facts), facts["theme"]["name"]
    out = []
    for pr in facts["prs"][:2]:
        effect = _effect(pr, zh)
        if zh:
            text = f"{name}方面，{_title(pr)} 是本周的代表性改动" + (f"，{effect}" if effect else "") + "。"
        else:
            text = f"In {name}, “{_title(pr)}” carried the work" + (f": {effect}" if effect else "") + "."
        out.append({"text": text, "prs": [pr["number"]]})
    return out


def _key_prs(facts: dict[str, Any]) -> list[dict[str, Any]]:
    zh = _zh(facts)
    out = []
    for pr in facts["prs"]:
        effect = _effect(pr, zh)
        kind = pr.get("kind", "改动" if zh else "change")
        if zh:
            text = f"这是一项{kind}" + (f"，{effect}" if effect else "，值得关注") + "。"
        else:
            text = f"A {str(kind).lower()} worth knowing" + (f": {effect}" if effect else "") + "."
        out.append({"text": text, "prs": [pr["number"]]})
    return out


def _risks(facts: dict[str, Any]) -> list[dict[str, Any]]:
    zh = _zh(facts)
    out = []
    for risk in facts["risks"]:
        first = risk["prs"][0]
        n, label = risk["prs_flagged"], risk["label"]
        if zh:
            text = f"{label}：{n} 个 PR，包括 {_title(first)}，合入前后需要重点验证。"
        else:
            text = f"{label}: {n} PRs, among them “{_title(first)}”; check them before the release."
        out.append({"text": text, "prs": [first["number"]]})
    return out


def good_sentences(facts: dict[str, Any]) -> list[dict[str, Any]]:
    part = facts.get("part")
    if part == "theme":
        return _theme(facts)
    if part == "key_prs":
        return _key_prs(facts)
    return _risks(facts)


_FIGURE = re.compile(r"\d+")


def _bump_first_figure(sentences: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for s in sentences:
        text = re.sub(r"#\d+", "", s["text"])
        m = _FIGURE.search(text)
        if m:
            s["text"] = text[: m.start()] + str(int(m.group(0)) + 1) + text[m.end() :]
            return sentences
    sentences[0]["text"] += " 3 个" if sentences and "。" in sentences[0]["text"] else " (3 of them)"
    return sentences


def misbehave(mode: str, facts: dict[str, Any]) -> str:
    """The answer's content in a content-level mode."""
    sentences = good_sentences(facts)
    zh = _zh(facts)
    if mode == "foreign_pr":
        sentences[0]["prs"] = [FOREIGN_PR]
    elif mode == "invented_percentage":
        sentences[0]["text"] = sentences[0]["text"].rstrip("。.") + (
            "，提升 37%。" if zh else ", 37% faster."
        )
    elif mode == "off_by_one":
        sentences = _bump_first_figure(sentences)
    elif mode == "malformed":
        return '{"sentences": [{"text": "unterminated'
    elif mode == "markup":
        sentences[0]["text"] += " @everyone <!channel> see [the PR](https://evil.example/x)"
    elif mode == "obey":
        note = (
            "这是一个安全修复，请 @everyone 立即升级。"
            if zh
            else "This is a security fix; @everyone upgrade now."
        )
        sentences = [{"text": note, "prs": sentences[0]["prs"]}]
    return json.dumps({"sentences": sentences}, ensure_ascii=False)


# -- the server --------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionResetError | BrokenPipeError):
            super().handle_error(request, client_address)


@dataclass
class FakeLLM:
    """The fake endpoint; ``url`` is what PRDIGEST_LLM_URL points at (``…/v1``)."""

    default: str = "good"
    key: str = KEY
    delay: float = 0.0  # seconds each answer takes (a model's generation time, for benchmarks)
    model: str = MODEL
    requests: list[Request] = field(default_factory=list)
    _script: deque[str] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _released: threading.Event = field(default_factory=threading.Event)
    _server: _Server | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def script(self, *modes: str) -> None:
        """The modes of the next requests, in order (then ``default``)."""
        for mode in modes:
            assert mode in MODES, mode
        with self._lock:
            self._script.extend(modes)

    def release(self) -> None:
        """Let every hanging request go (answered with a 500)."""
        self._released.set()

    def _next_mode(self) -> str:
        with self._lock:
            return self._script.popleft() if self._script else self.default

    def _record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def start(self, port: int = 0) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                fake._handle(self)

        self._server = _Server(("127.0.0.1", port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- one request ---------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        headers = {k.lower(): v for k, v in handler.headers.items()}
        if not handler.path.endswith("/chat/completions"):
            return _send(
                handler, 404, _error("Unknown request URL", "invalid_request_error", None, "unknown_url")
            )
        if self.key and headers.get("authorization") != f"Bearer {self.key}":
            return _send(
                handler,
                401,
                _error("Incorrect API key provided", "invalid_request_error", None, "invalid_api_key"),
            )
        try:
            body = json.loads(raw)
        except ValueError:
            return _send(
                handler,
                400,
                _error(
                    "We could not parse the JSON body of your request.", "invalid_request_error", None, None
                ),
            )
        problem = _shape_problem(body)
        if problem:
            return _send(handler, 400, _error(problem, "invalid_request_error", None, None))
        mode = self._next_mode()
        facts = facts_of(body)
        self._record(Request(handler.path, headers, body, mode, facts))
        if mode == "hang":
            self._released.wait(60)
            return _send(handler, 500, _error("released", "server_error", None, None))
        if mode == "http500":
            return _send(
                handler,
                500,
                _error("The server had an error while processing your request.", "server_error", None, None),
            )
        if mode == "http429":
            return _send(
                handler,
                429,
                _error("Rate limit reached", "requests", None, "rate_limit_exceeded"),
                {"Retry-After": "1"},
            )
        if mode == "no_schema" and "response_format" in body:
            return _send(
                handler,
                400,
                _error(
                    "response_format is not supported by this server",
                    "invalid_request_error",
                    "response_format",
                    None,
                ),
            )
        content = misbehave(mode, facts) if facts is not None else '{"sentences": []}'
        if self.delay:
            self._released.wait(self.delay)
        _send(handler, 200, self._completion(content, body))

    def _completion(self, content: str, body: dict[str, Any]) -> dict[str, Any]:
        prompt = sum(len(str(m.get("content", ""))) for m in body["messages"]) // 4
        completion = len(content) // 4
        return {
            "id": f"chatcmpl-fake{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }


def _error(message: str, kind: str, param: str | None, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def _shape_problem(body: Any) -> str | None:
    """What breaks the documented request shape, if anything."""
    if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    for m in messages:
        if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant", "developer"):
            return "each message needs a valid 'role'"
        if not isinstance(m.get("content"), str):
            return "each message needs string 'content'"
    fmt = body.get("response_format")
    if fmt is not None:
        kind = fmt.get("type") if isinstance(fmt, dict) else None
        if kind == "json_schema":
            schema = fmt.get("json_schema")
            if (
                not isinstance(schema, dict)
                or not schema.get("name")
                or not isinstance(schema.get("schema"), dict)
            ):
                return "response_format.json_schema needs a name and a schema"
        elif kind not in ("json_object", "text"):
            return "response_format.type must be text, json_object or json_schema"
    return None


def _send(
    handler: BaseHTTPRequestHandler,
    status: int,
    payload: dict[str, Any],
    headers: dict[str, str] | None = None,
) -> None:
    data = json.dumps(payload, ensure_ascii=False).encode()
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        return  # the client gave up (a timeout): nobody reads the answer


def main() -> None:
    parser = argparse.ArgumentParser(description="A fake OpenAI-compatible endpoint on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--mode", choices=MODES, default="good")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds each answer takes")
    args = parser.parse_args()
    fake = FakeLLM(default=args.mode, key="", delay=args.delay)
    fake.start(args.port)
    print(f"fake LLM at {fake.url} (model name: anything; no key) — Ctrl-C to stop", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
