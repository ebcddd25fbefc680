"""The Slack app end to end: signed slash-command requests over HTTP to the running app, answers
arriving at a loopback response_url, public answers through the fake Web API."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.chat.slack.app import MAX_RESPONSES, deliver, parse_slash
from bot.chat.slack.component import SlackPlan
from bot.chat.slack.post import SlackPoster
from bot.chat.slack.render import render, violations
from bot.config.settings import ConfigError
from bot.host.runner import CommandRunner
from bot.host.serve import context_factory, serve
from commands.model import Heading, Invocation, Paragraph, Reply
from commands.registry import dispatch
from tests.bot.chat.slack.conftest import HOSTILE, HOSTILE_PR, REPO, WEEK, slack_settings
from tests.fakes.slack import (
    APP_TOKEN,
    SIGNING_SECRET,
    FakeSlack,
    FakeSocketMode,
    Posted,
    RunningApp,
    signed_headers,
    slash_body,
    slash_envelope,
)


def send(
    app: RunningApp,
    slack: FakeSlack,
    command: str,
    text: str,
    *,
    channel: str = "C0CHAN",
    secret: str = SIGNING_SECRET,
    timestamp: int | None = None,
) -> tuple[httpx.Response, float, str]:
    """POST a signed slash command; returns the HTTP answer, its latency and the response_url key."""
    key = uuid.uuid4().hex
    body = slash_body(command, text, slack.response_url(key), channel_id=channel)
    headers = signed_headers(body, secret=secret, timestamp=timestamp)
    started = time.perf_counter()
    resp = httpx.post(app.url, content=body, headers=headers, timeout=10)
    return resp, time.perf_counter() - started, key


def answer(slack: FakeSlack, key: str, count: int = 1) -> list[Posted]:
    posted = slack.wait_posted(key, count, timeout=15)
    assert len(posted) >= count, f"no answer reached the response_url {key}"
    return posted


def mrkdwn_of(body: dict) -> str:
    """Every mrkdwn string of a message (headers are plain_text, shown literally, and left out)."""
    parts = [body.get("text", "")]
    for b in body.get("blocks", []):
        if "text" in b and b["text"]["type"] == "mrkdwn":
            parts.append(b["text"]["text"])
        parts += [f["text"] for f in b.get("fields", [])] + [e["text"] for e in b.get("elements", [])]
    return "\n".join(parts)


@pytest.mark.parametrize(
    ("command", "text", "expect"),
    [
        ("/digest", WEEK, "|#1024>"),  # the week's top key PR, linked
        ("/risks", f"core-path {WEEK}", "|#"),
        ("/pr", "1001", "<https://github.com/vllm-project/vllm/pull/1001|#1001>"),
        ("/search", "scheduler", "|#"),
        ("/help", "", "digest"),
        ("/help", "digest", "digest"),
    ],
)
def test_each_command_is_acknowledged_at_once_and_answered_privately(
    app: RunningApp,
    slack: FakeSlack,
    record_property: pytest.RecordProperty,
    command: str,
    text: str,
    expect: str,
) -> None:
    resp, latency, key = send(app, slack, command, text)
    record_property("ack_seconds", round(latency, 4))  # figures: bench/slack_ack.py
    assert resp.status_code == 200
    assert resp.text == ""
    posted = answer(slack, key)
    for p in posted:
        assert p.body["response_type"] == "ephemeral"
        assert violations(p.body) == []
    assert expect in "\n".join(mrkdwn_of(p.body) for p in posted)


def test_the_answer_is_the_registry_reply_rendered(app: RunningApp, slack: FakeSlack, cache_db: Path) -> None:
    _, _, key = send(app, slack, "/pr", "1003")
    (posted,) = answer(slack, key)
    ctx = context_factory(app.settings, cache_db)()
    reply = dispatch(Invocation(command="pr", args=("1003",), repo=REPO, platform="slack"), ctx)
    (expected,) = render(reply, mode="compact")
    assert posted.body == {"text": expected.text, "blocks": expected.blocks, "response_type": "ephemeral"}


def test_a_bad_signature_and_a_stale_timestamp_are_refused(app: RunningApp, slack: FakeSlack) -> None:
    bad, _, key1 = send(app, slack, "/pr", "1001", secret="not-the-secret")
    stale, _, key2 = send(app, slack, "/pr", "1001", timestamp=int(time.time()) - 301)
    body = slash_body("/pr", "1001", slack.response_url("x"))
    unsigned = httpx.post(
        app.url, content=body, headers={"Content-Type": "application/x-www-form-urlencoded"}, timeout=10
    )
    assert (bad.status_code, stale.status_code, unsigned.status_code) == (401, 401, 401)
    # a signed request sent afterwards is answered: the refused ones, handled before it, never are
    _, _, key3 = send(app, slack, "/help", "")
    answer(slack, key3)
    assert slack.posted_to(key1) == [] and slack.posted_to(key2) == []


@pytest.mark.parametrize(
    ("command", "text", "expect"),
    [
        ("/pr", "abc", "'abc' is not a PR number"),
        ("/risks", "nonsense", "unknown risk kind 'nonsense'"),
        ("/digest", "2026-W99", "2026-W99"),
        ("/search", "j@nk<>&" * 715, "arguments are too long (5005 characters; at most 500)"),
    ],
)
def test_malformed_text_gets_a_short_usage_message(
    app: RunningApp, slack: FakeSlack, command: str, text: str, expect: str
) -> None:
    resp, _, key = send(app, slack, command, text)
    assert resp.status_code == 200
    (posted,) = answer(slack, key)
    body = posted.body
    assert body["response_type"] == "ephemeral"
    assert violations(body) == []
    assert body["blocks"][0]["text"]["text"].startswith(":warning: ")
    assert expect.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in body["text"]
    assert f"usage: {command}" in body["text"]
    assert body["blocks"][-1]["elements"][0]["text"].startswith("Type `/help`")
    assert len(mrkdwn_of(body)) < 1500
    assert "Traceback" not in mrkdwn_of(body) and "Error" not in mrkdwn_of(body)


def test_public_short_answer_goes_in_channel(app: RunningApp, slack: FakeSlack) -> None:
    _, _, key = send(app, slack, "/pr", "public 1001")
    posted = answer(slack, key)
    assert [p.body["response_type"] for p in posted] == ["in_channel"]


def test_public_digest_is_a_lead_message_with_a_thread(
    app: RunningApp, slack: FakeSlack, cache_db: Path
) -> None:
    before = len(slack.calls_to("chat.postMessage"))
    resp, _, key = send(app, slack, "/digest", f"{WEEK} public", channel="C0TEAM")
    assert resp.status_code == 200
    ctx = context_factory(app.settings, cache_db)()
    reply = dispatch(Invocation(command="digest", args=(WEEK,), repo=REPO, platform="slack"), ctx)
    expected = render(reply, mode="thread")
    assert len(expected) > 1
    calls = slack.wait_calls("chat.postMessage", before + len(expected))[before:]
    assert len(calls) == len(expected)
    lead_ts = calls[0].response["ts"]
    for i, (call, message) in enumerate(zip(calls, expected, strict=True)):
        want = {"channel": "C0TEAM", **message.payload(), "unfurl_links": False, "unfurl_media": False}
        if i:
            want["thread_ts"] = lead_ts
        assert call.params == want
    assert slack.posted_to(key) == []


def test_public_answer_where_the_app_is_not_invited(app: RunningApp, slack: FakeSlack) -> None:
    slack.channel_errors["C0PRIVATE"] = "not_in_channel"
    _, _, key = send(app, slack, "/digest", f"{WEEK} public", channel="C0PRIVATE")
    (posted,) = answer(slack, key)
    assert posted.body["response_type"] == "ephemeral"
    assert "invite the app to the channel (type `/invite @prdigest` there)" in posted.body["text"]


def test_hostile_titles_are_inert(app: RunningApp, slack: FakeSlack) -> None:
    _, _, key = send(app, slack, "/pr", str(HOSTILE_PR))
    posted = answer(slack, key)
    text = "\n".join(mrkdwn_of(p.body) for p in posted)
    assert "&lt;!channel&gt;" in text and "&lt;@U123&gt;" in text and "&lt;!everyone&gt;" in text
    assert "<!" not in text and "<@" not in text
    assert all(violations(p.body) == [] for p in posted)
    assert HOSTILE not in text
    headers = [b["text"] for p in posted for b in p.body["blocks"] if b["type"] == "header"]
    assert all(h["type"] == "plain_text" for h in headers)


def test_prefixed_command_names_work_too(app: RunningApp, slack: FakeSlack) -> None:
    _, _, key = send(app, slack, "/prdigest-help", "pr")
    (posted,) = answer(slack, key)
    assert "pr NUMBER" in posted.body["text"] + mrkdwn_of(posted.body)


def test_healthz_reports_the_cache(app: RunningApp) -> None:
    resp = httpx.get(f"{app.base}/healthz", timeout=10)
    assert resp.status_code == 200
    state = resp.json()
    assert state["ok"] is True and state["schema_ok"] is True and state["pending_migrations"] == []
    assert state["repos"] == [
        {
            "repo": REPO,
            "prs": 81,
            "newest_merged_at": state["repos"][0]["newest_merged_at"],
            "profile": {"name": "vllm", "version": state["repos"][0]["profile"]["version"]},  # its own
        }
    ]
    assert state["repos"][0]["newest_merged_at"].startswith("2026-05-")
    assert state["prs"] == 81


def test_commands_are_acknowledged_before_their_answer_is_computed(slack: FakeSlack, cache_db: Path) -> None:
    """The ack does not wait for the work: the command's worker is held on an event until the
    200 has arrived, and only then allowed to answer (an ordering, not a stopwatch)."""
    settings = slack_settings(slack)
    factory = context_factory(settings, cache_db)
    release = threading.Event()

    def held():  # type: ignore[no-untyped-def]
        assert release.wait(15), "the test never released the worker"
        return factory()

    with RunningApp(settings, cache_db, runner=CommandRunner(held, workers=1)) as app:
        resp, _, key = send(app, slack, "/pr", "1001")
        assert resp.status_code == 200 and resp.text == ""
        assert slack.posted_to(key) == []  # acknowledged while the answer is still held
        release.set()
        (posted,) = answer(slack, key)
        assert "#1001" in mrkdwn_of(posted.body)


def test_a_failure_is_an_apology_and_a_log_line_without_secrets(
    slack: FakeSlack, tmp_path: Path, cache_db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = slack_settings(slack)
    missing = tmp_path / "missing.db"
    runner = CommandRunner(context_factory(settings, missing))
    with RunningApp(settings, cache_db, runner=runner) as app:
        _, _, key = send(app, slack, "/digest", "")
        (posted,) = answer(slack, key)
    assert posted.body["response_type"] == "ephemeral"
    assert posted.body["text"].startswith(":x: Sorry, prdigest could not answer that.")
    assert "Traceback" not in mrkdwn_of(posted.body) and "missing.db" not in mrkdwn_of(posted.body)
    assert "/digest failed" in caplog.text
    for secret in (settings.slack_bot_token, settings.slack_signing_secret):
        assert secret is not None and secret.get_secret_value() not in caplog.text


def test_a_private_answer_too_long_for_five_messages_says_so(slack: FakeSlack) -> None:
    blocks = [b for i in range(12) for b in (Heading(text=f"part {i}"), Paragraph(text="x " * 2900))]
    reply = Reply(command="digest", title="big", blocks=blocks)
    parts = len(render(reply, mode="compact"))
    assert parts > MAX_RESPONSES
    key = uuid.uuid4().hex

    async def go() -> None:
        await deliver(
            reply,
            parse_slash("/digest", "2026-W19"),
            respond=AsyncRespond(response_url=slack.response_url(key)),
            poster=SlackPoster(AsyncWebClient(token="xoxb-test-token", base_url=slack.api_url), pace=0),
            channel_id="C1",
        )

    asyncio.run(go())
    posted = slack.posted_to(key)
    assert len(posted) == MAX_RESPONSES
    assert posted[-1].body["text"] == f"This answer has {parts} parts; {MAX_RESPONSES - 1} are shown."
    assert "`/digest 2026-W19 public`" in posted[-1].body["blocks"][0]["text"]["text"]


def test_public_word_parsing() -> None:
    assert parse_slash("/digest", "last-week PUBLIC rocm").args == ("last-week", "rocm")
    assert parse_slash("/digest", "last-week PUBLIC rocm").public is True
    quoted = parse_slash("/search", '"public" api')
    assert quoted.public is False and quoted.args == ("public", "api")
    assert parse_slash("/prdigest-pr", "1").command == "pr"


def test_slack_plan_picks_the_mode_and_names_what_is_missing(slack: FakeSlack) -> None:
    assert SlackPlan.from_settings(slack_settings(slack)).socket_mode is False
    socket = SlackPlan.from_settings(
        slack_settings(slack, slack_signing_secret=None, slack_app_token="xapp-1-x")
    )
    assert socket.socket_mode is True
    with pytest.raises(ConfigError, match=r"^SLACK_BOT_TOKEN is not set"):
        SlackPlan.from_settings(slack_settings(slack, slack_bot_token=None))
    with pytest.raises(ConfigError, match=r"^SLACK_SIGNING_SECRET is not set"):
        SlackPlan.from_settings(slack_settings(slack, slack_signing_secret=None))
    with pytest.raises(ConfigError, match=r"^SLACK_APP_TOKEN must be an app-level token"):
        SlackPlan.from_settings(slack_settings(slack, slack_app_token="xoxb-oops"))


def test_serve_command_fails_fast_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slack: FakeSlack, cache_db: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "PRDIGEST_DB"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()
    monkeypatch.setenv("SLACK_SIGNING_SECRET", SIGNING_SECRET)
    result = runner.invoke(serve, [])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [result.output.strip()]
    assert result.output.startswith("prdigest serve: SLACK_BOT_TOKEN is not set")

    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test-token")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", SIGNING_SECRET)
    result = runner.invoke(serve, ["--db", str(tmp_path / "nope.db")])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"prdigest serve: database {tmp_path / 'nope.db'} does not exist; run "
        "`prdigest demo`, `prdigest import` or `prdigest sync` first"
    )

    monkeypatch.setenv("PRDIGEST_SLACK_API_URL", slack.api_url)
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-revoked")
    result = runner.invoke(serve, ["--db", str(cache_db), "--host", "127.0.0.1", "--port", "0"])
    assert result.exit_code == 2
    assert result.output.startswith("prdigest serve: Slack rejected SLACK_BOT_TOKEN (invalid_auth)")
    assert "xoxb-revoked" not in result.output


def test_socket_mode_acknowledges_the_envelope_and_answers(slack: FakeSlack, cache_db: Path) -> None:
    with FakeSocketMode() as socket:
        slack.socket_url = socket.url
        settings = slack_settings(slack, slack_signing_secret=None, slack_app_token=APP_TOKEN)
        with RunningApp(settings, cache_db) as app:
            assert app.host.components[0].health() == {"mode": "socket"}
            assert socket.wait_connected()
            key = uuid.uuid4().hex
            socket.send(slash_envelope("env-1", "/pr", "1001", slack.response_url(key)))
            ack = socket.wait_ack("env-1")
            (posted,) = answer(slack, key)
            assert ack is not None and ack[1] <= posted.at  # acknowledged before answered
            assert "<https://github.com/vllm-project/vllm/pull/1001|#1001>" in mrkdwn_of(posted.body)
            # no public events endpoint in Socket Mode, but the health check is there
            assert httpx.post(app.url, content="x", timeout=10).status_code in (404, 405)
            assert httpx.get(f"{app.base}/healthz", timeout=10).json()["ok"] is True
        slack.socket_url = None


def test_socket_mode_with_a_rejected_app_token_fails_at_start(slack: FakeSlack, cache_db: Path) -> None:
    settings = slack_settings(slack, slack_signing_secret=None, slack_app_token="xapp-1-wrong")
    with (
        pytest.raises(ConfigError, match=r"^Slack rejected SLACK_APP_TOKEN \(invalid_auth\)"),
        RunningApp(settings, cache_db),
    ):
        pass


def test_a_chinese_workspace_gets_every_fixed_word_in_chinese(slack: FakeSlack, cache_db: Path) -> None:
    with RunningApp(slack_settings(slack, prdigest_lang="zh"), cache_db) as app:
        _, _, key = send(app, slack, "/pr", "abc")
        (posted,) = answer(slack, key)
        before = len(slack.calls_to("chat.postMessage"))
        send(app, slack, "/digest", f"{WEEK} public", channel="C0ZH")
        slack.wait_calls("chat.postMessage", before + 2)  # the lead and its first thread reply
    body = posted.body
    assert (
        body["text"]
        == "'abc' 不是 PR 编号；请给出正整数（如 42121）或 PR 链接 — 用法：/pr NUMBER|URL [public]"
    )
    assert (
        body["blocks"][-1]["elements"][0]["text"]
        == "输入 `/help` 查看全部命令，或 `/help 命令` 查看某个命令。"
    )
    leads = [c for c in slack.calls_to("chat.postMessage") if c.params["channel"] == "C0ZH"]
    assert leads and leads[0].params["blocks"][-1]["elements"][0]["text"].startswith(
        "详细内容见本消息的讨论串"
    )


def test_a_stop_lets_the_answers_in_flight_finish(slack: FakeSlack, cache_db: Path) -> None:
    settings = slack_settings(slack)
    factory = context_factory(settings, cache_db)
    release, working = threading.Event(), threading.Event()

    def held():  # type: ignore[no-untyped-def]
        working.set()
        assert release.wait(15), "the test never released the worker"
        return factory()

    app = RunningApp(settings, cache_db, runner=CommandRunner(held, workers=1))
    with app:
        _, _, key = send(app, slack, "/pr", "1001")
        assert working.wait(15)  # the answer is being computed…
        stopper = threading.Thread(target=app.stop)
        stopper.start()  # …when the host is told to stop (as SIGTERM would)
        assert app.stopping.wait(15)
        assert slack.posted_to(key) == []
        release.set()
        stopper.join(30)
    (posted,) = answer(slack, key)
    assert "#1001" in mrkdwn_of(posted.body)
