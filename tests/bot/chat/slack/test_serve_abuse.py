"""Through the running server: hostile requests cannot fill or
forge the log nor get a 500; a platform URL never carries a token in clear; slow-header
connections cannot lock anyone out.

The server is the host as ``prdigest serve`` runs it (``RunningApp``: bot.host.serve.Host with the
Slack component, logging through ``bot.host.logs`` exactly as ``serve`` configures it) on 127.0.0.1;
requests are raw sockets or httpx; the Slack Web API is the loopback fake.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import logging
import socket
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import httpx
import pytest

from bot.config.settings import ConfigError, load_settings
from bot.config.urls import WEBSOCKET, platform_url
from bot.host import logs
from bot.host.http_guard import HttpLimits
from bot.host.serve import build_host
from tests.bot.chat.slack.conftest import WEEK, slack_settings
from tests.bot.cli.test_cli import cli
from tests.fakes.slack import BOT_TOKEN, SIGNING_SECRET, FakeSlack, RunningApp, signed_headers, slash_body
from tests.fakes.sockets import close_all, slow_headers, still_open

FORGED = "2026-12-01 00:00:00,000 ERROR bot.host.serve: forged line"


@pytest.fixture
def log_text() -> Iterator[io.StringIO]:
    """The process's log, formatted as `prdigest serve` formats it."""
    stream = io.StringIO()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    logs.configure(stream=stream)
    try:
        yield stream
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def raw(port: int, request: bytes) -> bytes:
    """Send bytes as they are; return what the server answered before closing."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(request)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def http_post(path: str, body: bytes, headers: dict[str, str]) -> bytes:
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {len(body)}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode("utf-8") + b"\r\n" + body


# -- point 2: hostile requests -----------------------------------------------------------------


def test_hostile_requests_get_4xx_and_leave_one_short_line(
    slack: FakeSlack, cache_db: Path, log_text: io.StringIO
) -> None:
    """Defect 2: bad-signature bodies were logged whole at INFO (response_url, token and all), a
    body could forge a log line, and odd bytes, charsets, JSON or a timestamp `²` gave a 500 and a
    traceback. Now each gets 400/401/413, refusals are counted in /healthz, and the log keeps one
    short line per burst with nothing of the requests in it."""
    signed_text = "SECRET-USER-TEXT"
    response_url = slack.response_url("do-not-log-" + uuid.uuid4().hex)
    body = slash_body("/help", f"x\n{FORGED}\n", response_url).encode()
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    hostile: list[tuple[str, bytes, dict[str, str], int]] = [
        ("bad signature", body, {**form, **_bad_signature(body)}, 401),
        ("unsigned", body, form, 401),
        ("timestamp ²", body, {**form, "X-Slack-Request-Timestamp": "²", "X-Slack-Signature": "v0=00"}, 401),
        ("non-UTF-8", b"\xff\xfe\x00bad" * 50, {**form, **_bad_signature(b"x")}, 401),
        ("bogus charset", body, {"Content-Type": "text/plain; charset=no-such-charset"}, 401),
        ("invalid JSON", b"{not json", {"Content-Type": "application/json"}, 401),
        ("1 MB", b"a=" + b"x" * 1_000_000, {**form, **_bad_signature(b"x")}, 401),
        ("2 MB", b"a=" + b"x" * 2_000_000, form, 413),
    ]
    # the same oddities, correctly signed: still never a 500
    signed_oddities = [
        ("signed non-UTF-8", b"\xff\xfe\x00bad", form, 400),
        ("signed invalid JSON", b"{not json", {"Content-Type": "application/json"}, 400),
        ("signed JSON list", b"[1, 2]", {"Content-Type": "application/json"}, 400),
    ]
    with RunningApp(slack_settings(slack), cache_db) as app:
        got = {}
        for name, payload, headers, _ in hostile * 3:
            got[name] = status_of(raw(app.port, http_post("/slack/events", payload, headers)))
        for name, payload, headers, _ in signed_oddities:
            signed = {**headers, **_signature(payload)}
            got[name] = status_of(raw(app.port, http_post("/slack/events", payload, signed)))
        key = uuid.uuid4().hex
        good = slash_body("/search", signed_text, slack.response_url(key))
        ok = httpx.post(app.url, content=good, headers=signed_headers(good), timeout=10)
        assert slack.wait_posted(key, 1, timeout=15), "a genuine command is still answered"
        health = httpx.get(f"{app.base}/healthz", timeout=10).json()
    assert got == {name: want for name, _, _, want in hostile + signed_oddities}
    assert ok.status_code == 200
    slack_health = health["components"]["slack"]
    assert (
        slack_health["refused"] == 7 * 3 + 3
    )  # every refusal counted (the 413s never reach Slack's handler)
    assert slack_health["refused_by_reason"]["bad signature"] == 9
    assert health["http"]["too_large"] == 3
    text = log_text.getvalue()
    lines = text.splitlines()
    refusals = [line for line in lines if "refused a Slack request" in line]
    assert refusals and len(refusals) <= 3, text  # one line per 10 s, the rest summed into the next
    for line in lines:
        assert not line.startswith("2026-12-01 00:00:00"), f"forged: {line}"
        assert len(line) < 300, f"long: {line[:300]}"
    for secret in (response_url, "do-not-log", "legacy-verification-token", signed_text, "xxxx", "\ufffd"):
        assert secret not in text
    assert "Traceback" not in text and " 500 " not in text


def _signature(body: bytes, secret: str = SIGNING_SECRET) -> dict[str, str]:
    """Slack's signature over the raw bytes (``signed_headers`` takes text)."""
    stamp = str(int(time.time()))
    mac = hmac.new(secret.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": f"v0={mac}"}


def _bad_signature(body: bytes) -> dict[str, str]:
    return _signature(body, secret="wrong")


def test_the_log_formatter_escapes_what_a_request_could_smuggle() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.SafeFormatter(logs.FORMAT))
    logger = logging.getLogger("prdigest.test.escape")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("user %s said %s", "U1", f"hi\r\n{FORGED}\x1b[31m\u2028")
        try:
            raise ValueError(f"bad\n{FORGED}")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert "hi\\r\\n2026-12-01" in lines[0] and "\\x1b[31m\\u2028" in lines[0]
    assert lines[1].endswith("failed")
    assert all(line.startswith("    | ") for line in lines[2:])  # the traceback, indented
    assert not any(line.startswith(FORGED[:23]) for line in lines)


# -- point 7: platform URLs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://slack.example.com/api/",
        "http://10.0.0.1/api/",
        "http://127.0.0.1.example.com/api/",
        "http://localhost@evil.example/api/",
        "ftp://slack.com/api/",
        "slack.com/api/",
    ],
)
def test_a_slack_url_that_would_send_the_token_in_clear_is_refused(url: str) -> None:
    with pytest.raises(ConfigError, match="PRDIGEST_SLACK_API_URL"):
        load_settings(_env_file=None, prdigest_slack_api_url=url, slack_bot_token=BOT_TOKEN)


@pytest.mark.parametrize(
    "url",
    ["https://slack.com/api/", "http://127.0.0.1:8080/api/", "http://localhost/api/", "http://[::1]:9/api/"],
)
def test_https_anywhere_and_plain_http_on_loopback_are_accepted(url: str) -> None:
    assert load_settings(_env_file=None, prdigest_slack_api_url=url).prdigest_slack_api_url == url


def test_the_same_rule_serves_websocket_urls() -> None:
    """For Discord's gateway (wss, ws on loopback alone), the rule is the same function."""
    assert platform_url("X_GATEWAY", "wss://gateway.discord.gg", WEBSOCKET) == "wss://gateway.discord.gg"
    assert platform_url("X_GATEWAY", "ws://127.0.0.1:9", WEBSOCKET) == "ws://127.0.0.1:9"
    with pytest.raises(ValueError, match="plain ws:// is allowed only to this machine"):
        platform_url("X_GATEWAY", "ws://gateway.discord.gg", WEBSOCKET)
    with pytest.raises(ValueError, match="is not a wss:// URL"):
        platform_url("X_GATEWAY", "https://gateway.discord.gg", WEBSOCKET)


class _Connects:
    """Records every socket.connect the interpreter makes while ``on`` (an audit hook; it cannot
    be removed, so it only records between ``with`` blocks' entry and exit)."""

    events: ClassVar[list[tuple[str, object]]] = []
    on: ClassVar[bool] = False
    installed: ClassVar[bool] = False

    def __enter__(self) -> list[tuple[str, object]]:
        if not _Connects.installed:
            sys.addaudithook(_Connects._hook)
            _Connects.installed = True
        _Connects.events = []
        _Connects.on = True
        return _Connects.events

    def __exit__(self, *exc: object) -> None:
        _Connects.on = False

    @staticmethod
    def _hook(event: str, args: tuple[object, ...]) -> None:
        if _Connects.on and event in ("socket.connect", "socket.getaddrinfo"):
            _Connects.events.append((event, args[1:]))


def test_serve_refuses_a_plain_http_slack_url_before_connecting(demo_db: Path, slack: FakeSlack) -> None:
    """Defect 7: `http://` to a host that is not loopback was accepted and the bot token would
    have travelled in clear. Now `prdigest serve` stops with one line, having made no connection
    and no name lookup (recorded by an audit hook around the same start-up path)."""
    env = {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "PRDIGEST_SLACK_API_URL": "http://slack.example.invalid/api/",
        "PRDIGEST_DB": str(demo_db),
    }
    result = cli("serve", "--port", "0", env=env)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "prdigest serve: PRDIGEST_SLACK_API_URL 'http://slack.example.invalid/api/': plain http:// is "
        "allowed only to this machine (localhost); use https:// — the token must not travel in clear"
    ]
    with _Connects() as connects, pytest.raises(ConfigError):
        settings = load_settings(_env_file=None, **{k.lower(): v for k, v in env.items()})
        build_host(settings, db=demo_db, host="127.0.0.1", port=0)
    assert connects == []
    # the hook does see connections: the same start-up with the loopback fake's URL checks the token
    with _Connects() as connects, RunningApp(slack_settings(slack), demo_db):
        pass
    assert any(event == "socket.connect" for event, _ in connects)


# -- point 8: slow connections -------------------------------------------------------------------


def _answered_beside(
    slack: FakeSlack, cache_db: Path, limits: HttpLimits, slow: int
) -> tuple[httpx.Response, bool, int]:
    """Open ``slow`` slow-header connections, then ask /healthz and send a signed command: the
    /healthz answer, whether the command was answered, and how many slow connections were still
    open afterwards."""
    with RunningApp(slack_settings(slack), cache_db, limits=limits) as app:
        socks = slow_headers(app.port, slow)
        try:
            health = httpx.get(f"{app.base}/healthz", timeout=30)
            key = uuid.uuid4().hex
            body = slash_body("/risks", f"core-path {WEEK}", slack.response_url(key))
            ack = httpx.post(app.url, content=body, headers=signed_headers(body), timeout=30)
            answered = ack.status_code == 200 and bool(slack.wait_posted(key, 1, timeout=30))
            return health, answered, still_open(socks)
        finally:
            close_all(socks)


def test_a_thousand_slow_header_connections_lock_nobody_out(slack: FakeSlack, cache_db: Path) -> None:
    """Defect 8: slow-header connections made the server unreachable until they closed. Here
    1,000 of them stay open (the header timeout is set long, so that it cannot be what saves the
    day) while /healthz and a signed command are answered: /healthz itself reports the 1,000
    connections waiting for their headers, and afterwards they are still open (ordering only)."""
    health, answered, alive = _answered_beside(
        slack, cache_db, HttpLimits(header_timeout=300, max_connections=1010), 1000
    )
    assert health.status_code == 200
    http = health.json()["http"]
    assert http["connections_waiting"] >= 1000 and http["evicted"] == 0
    assert answered and alive == 1000


def test_at_the_cap_connections_still_sending_headers_make_room(slack: FakeSlack, cache_db: Path) -> None:
    """With a cap of 50 and 200 slow-header connections, each new connection pushes out the oldest
    one that is not being answered, so /healthz and a signed command still get in."""
    health, answered, alive = _answered_beside(
        slack, cache_db, HttpLimits(header_timeout=300, max_connections=50), 200
    )
    assert health.status_code == 200 and answered
    http = health.json()["http"]
    assert http["connection_cap"] == 50 and http["connections"] <= 50
    assert http["evicted"] >= 150
    assert 0 < alive < 50  # the newest stay until pushed out or timed out


def test_header_and_body_timeouts_close_slow_connections(slack: FakeSlack, cache_db: Path) -> None:
    """A head that never ends is closed after the header timeout; a body that stalls gets 408."""
    limits = HttpLimits(header_timeout=0.5, body_timeout=0.5)
    with RunningApp(slack_settings(slack), cache_db, limits=limits) as app:
        (slow,) = slow_headers(app.port, 1)
        slow.settimeout(30)
        closed = slow.recv(1)  # b"": the server closed it
        slow.close()
        with socket.create_connection(("127.0.0.1", app.port), timeout=30) as s:
            s.sendall(http_post("/slack/events", b"a=1", {}).replace(b"Length: 3", b"Length: 99"))
            answer = s.recv(65536)
        health = httpx.get(f"{app.base}/healthz", timeout=10).json()["http"]
    assert closed == b""
    assert status_of(answer) == 408
    assert health["header_timeouts"] >= 1 and health["body_timeouts"] >= 1


def test_the_connection_guard_counts_are_exact_under_threads(slack: FakeSlack, cache_db: Path) -> None:
    """Many quick requests from several threads: every one answered, no connection left counted."""
    with RunningApp(slack_settings(slack), cache_db) as app:
        statuses: list[int] = []

        def hit() -> None:
            with httpx.Client(timeout=30) as client:
                statuses.extend(client.get(f"{app.base}/healthz").status_code for _ in range(20))

        threads = [threading.Thread(target=hit) for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with httpx.Client(timeout=10, headers={"Connection": "close"}) as client:
            http = client.get(f"{app.base}/healthz").json()["http"]
    assert statuses == [200] * 100
    assert http["connections"] <= 6 and http["refused"] == 0 and http["evicted"] == 0
