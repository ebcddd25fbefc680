"""Scheduled delivery end to end: the demo cache, the real slack_sdk client and the Slack poster
against the loopback fake Slack, a controllable clock. Exactly once across reruns, restarts
before and after the claim, a crash between post and record, transient and permanent failures,
catch-up and skips."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from bot.chat.slack.post import METADATA_EVENT, web_client
from bot.chat.slack.steps import SlackSteps
from bot.chat.steps import StepPoster
from bot.config.settings import Settings
from bot.delivery.deliverer import Deliverer, Outcome
from classify.rules import Profile
from classify.schedule import first_anchor, next_due
from commands.invocations import digest_words
from commands.model import Invocation
from commands.registry import Context, dispatch
from storage.db import connect
from storage.deliveries import DeliveryStore, delivery_key
from storage.delivery_steps import StepStore
from storage.prs import PRStore
from storage.subscriptions import Subscription, SubscriptionStore
from tests.fakes.slack import BOT_TOKEN, FakeSlack, Response

REPO = "vllm-project/vllm"
CHANNEL = "C0DIGEST"
CREATED = datetime(2026, 5, 10, 12, 0, tzinfo=UTC)  # Sunday, before the demo's last Monday
DUE = datetime(2026, 5, 11, 7, 0, tzinfo=UTC)  # Monday 09:00 in Berlin: week 2026-W19 is due
SETTLE = 2.0  # seconds a lost answer's post is given to land before it is looked for


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


def settings_for(slack: FakeSlack) -> Settings:
    return Settings(_env_file=None, slack_bot_token=BOT_TOKEN, prdigest_slack_api_url=slack.api_url)  # type: ignore[call-arg]


def subscribe(db_path: Path, **changes: object) -> Subscription:
    tz = str(changes.get("timezone", "Europe/Berlin"))
    values: dict[str, object] = {
        "platform": "slack",
        "channel": CHANNEL,
        "repo": REPO,
        "timezone": tz,
        "since": CREATED,
        "anchor": first_anchor(
            CREATED,
            Subscription(
                platform="slack", channel="C", repo="o/r", anchor=date(2026, 5, 4), since=CREATED, timezone=tz
            ).zone,
        ),
    }
    values.update(changes)
    return SubscriptionStore(connect(db_path)).add(Subscription(**values), now=CREATED)  # type: ignore[arg-type]


class Harness:
    """One prdigest process: its own database connection, owner id and poster (Slack's on the fake
    Slack; another platform's from ``posters``)."""

    def __init__(
        self,
        db_path: Path,
        profile: Profile,
        slack: FakeSlack | None,
        owner: str = "test",
        *,
        posters: Callable[[str], StepPoster] | None = None,
    ) -> None:
        self.sleeps: list[float] = []

        async def sleep(seconds: float) -> None:
            self.sleeps.append(seconds)

        def slack_posters(platform: str) -> StepPoster:
            assert platform == "slack" and slack is not None
            return SlackSteps(web_client(settings_for(slack)), pace=0, timeout=SETTLE / 2)

        self.db = connect(db_path)
        self.deliverer = Deliverer(self.db, profile, posters or slack_posters, owner=owner, sleep=sleep)

    def run(self, now: datetime, **kw: bool) -> list[Outcome]:
        return asyncio.run(self.deliverer.run(now, **kw))

    @property
    def ledger(self) -> DeliveryStore:
        return DeliveryStore(self.db)


def claimed_by_a_dead_process(db_path: Path) -> Subscription:
    """A subscription whose W19 delivery a process claimed at 09:00 and then died."""
    sub = subscribe(db_path)
    assert sub.id is not None
    dead = DeliveryStore(connect(db_path))
    assert dead.claim(sub.id, date(2026, 5, 4), date(2026, 5, 11), DUE, owner="dead", now=DUE) is not None
    return sub


def leads(slack: FakeSlack) -> list[dict[str, object]]:
    return [c.params for c in slack.calls_to("chat.postMessage") if not c.params.get("thread_ts")]


def test_a_due_digest_is_posted_once_with_its_delivery_key(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    sub = subscribe(demo_db)
    assert sub.id is not None
    h = Harness(demo_db, profile, slack)
    assert h.run(DUE - timedelta(minutes=1)) == []  # 08:59 in Berlin: nothing due yet
    [outcome] = h.run(DUE + timedelta(minutes=5))
    assert outcome.state == "posted", outcome
    key = delivery_key(sub.id, date(2026, 5, 4))
    [lead] = leads(slack)
    assert lead["metadata"] == {
        "event_type": METADATA_EVENT,
        "event_payload": {"delivery": key, "step": "lead"},
    }
    # the same digest a person gets by typing `/digest 2026-W19` with the subscription's zone
    typed = dispatch(
        Invocation(
            command="digest",
            args=("2026-W19",),
            repo=REPO,
            timezone="Europe/Berlin",
            now=DUE,
            platform="slack",
        ),
        Context(store=PRStore(connect(demo_db)), profile=profile),
    )
    assert outcome.title == typed.title and typed.title in str(lead["text"])
    thread = [c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts")]
    assert len(thread) == len(typed.sections)
    row = h.ledger.find(sub.id, date(2026, 5, 4))
    assert row is not None and row.state == "posted" and len(row.message_ids) == 1 + len(typed.sections)
    # rerun at the same moment, an hour later, the next day: never a second post
    for later in (DUE + timedelta(minutes=5), DUE + timedelta(hours=1), DUE + timedelta(days=1)):
        assert h.run(later) == []
    assert len(leads(slack)) == 1
    # and the next Monday brings the next week
    [following] = h.run(DUE + timedelta(days=7))
    assert (following.state, following.period_start) == ("posted", date(2026, 5, 11))


def test_the_subscription_filter_reaches_the_digest(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    sub = subscribe(demo_db, modules=("rocm",), flags=("core-path",), lang="zh", layout="single")
    assert digest_words(sub, next_due(sub, CREATED).period_word) == ("2026-W19", "rocm", "core-path")
    [outcome] = Harness(demo_db, profile, slack).run(DUE)
    assert outcome.state == "posted"
    assert "周报" in outcome.title and "ROCm" in outcome.title and "核心路径" in outcome.title
    calls = slack.calls_to("chat.postMessage")
    assert outcome.title in str(calls[0].params["text"])
    typed = dispatch(
        Invocation(
            command="digest",
            args=digest_words(sub, next_due(sub, CREATED).period_word),
            repo=REPO,
            lang="zh",
            timezone="Europe/Berlin",
            now=DUE,
            platform="slack",
        ),
        Context(store=PRStore(connect(demo_db)), profile=profile),
    )
    # single layout: the sections are folded into the lead, split only where Slack's limits force it
    assert calls and len(calls) <= len(typed.sections)


def test_a_process_down_at_nine_catches_up_within_the_window(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    subscribe(demo_db)
    [outcome] = Harness(demo_db, profile, slack).run(DUE + timedelta(hours=23, minutes=59))
    assert outcome.state == "posted"
    assert len(leads(slack)) == 1


def test_after_the_window_the_miss_is_recorded_and_logged_not_posted(
    demo_db: Path, profile: Profile, slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    sub = subscribe(demo_db)
    assert sub.id is not None
    h = Harness(demo_db, profile, slack)
    with caplog.at_level(logging.WARNING, logger="bot.delivery.deliverer"):
        [outcome] = h.run(DUE + timedelta(hours=24, minutes=1))
    assert outcome.state == "skipped"
    assert "catch-up window (24 h" in outcome.reason
    row = h.ledger.find(sub.id, date(2026, 5, 4))
    assert row is not None and row.state == "skipped" and row.reason == outcome.reason
    assert any("skipped" in r.message for r in caplog.records)
    assert slack.calls_to("chat.postMessage") == []
    assert h.run(DUE + timedelta(hours=30)) == []  # recorded once


def test_restart_after_claim_before_post_posts_once(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    sub = claimed_by_a_dead_process(demo_db)
    h = Harness(demo_db, profile, slack)
    [waiting] = h.run(DUE + timedelta(minutes=5))  # the lease still runs: maybe it is only slow
    assert (waiting.state, waiting.reason) == ("held", "leased to dead until 2026-05-11T07:15:00Z")
    assert slack.calls_to("chat.postMessage") == []
    [outcome] = h.run(DUE + timedelta(minutes=16))  # lease (15 min) over: take over
    assert outcome.state == "posted"
    assert len(slack.calls_to("conversations.history")) == 1  # looked for an earlier post first
    assert len(leads(slack)) == 1
    row = h.ledger.find(sub.id, date(2026, 5, 4))
    assert row is not None and row.attempts == 2


def test_crash_after_post_before_record_is_found_and_not_posted_again(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    sub = subscribe(demo_db)
    assert sub.id is not None
    # the first process claimed, stored its messages, posted the lead and the first reply (with
    # their keys in the metadata) and died before recording either
    first = Harness(demo_db, profile, slack, owner="first")
    claim = first.ledger.claim(sub.id, date(2026, 5, 4), date(2026, 5, 11), DUE, owner="first", now=DUE)
    assert claim is not None
    reply = first.deliverer.build(sub, next_due(sub, CREATED), DUE)
    assert reply is not None
    poster = SlackSteps(web_client(settings_for(slack)), pace=0)
    steps = poster.steps(reply, key=claim.delivery.key, repo=REPO)
    assert StepStore(first.db).store(claim, [(s.key, s.body, s.fallback) for s in steps])
    key = claim.delivery.key
    lead = asyncio.run(poster.send_step(CHANNEL, steps[0], lead=None, delivery=key)).id
    asyncio.run(poster.send_step(CHANNEL, steps[1], lead=lead, delivery=key))
    for done in steps[:2]:
        assert StepStore(first.db).sending(claim, done.key, now=DUE)
    slack.history[CHANNEL].append({"type": "message", "text": "someone chatting", "ts": "1700000099.000001"})
    [outcome] = Harness(demo_db, profile, slack, owner="second").run(DUE + timedelta(minutes=20))
    assert outcome.state == "posted" and "found 2 messages already posted" in outcome.reason
    assert outcome.ids[0] == lead and len(outcome.ids) == len(steps)
    assert len(leads(slack)) == 1  # one lead, and every reply exactly once in its thread
    thread = [m["metadata"]["event_payload"]["step"] for m in slack.thread(CHANNEL, lead)]
    assert thread == [s.key for s in steps[1:]]
    call = slack.calls_to("conversations.history")[0]
    assert call.params["channel"] == CHANNEL and str(call.params["include_all_metadata"]).lower() in (
        "1",
        "true",
    )


def test_when_the_earlier_post_cannot_be_checked_the_delivery_is_unknown(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    sub = claimed_by_a_dead_process(demo_db)
    slack.script(
        "conversations.history",
        Response(200, {"ok": False, "error": "missing_scope", "needed": "channels:history"}),
    )
    h = Harness(demo_db, profile, slack)
    [outcome] = h.run(DUE + timedelta(minutes=20))
    assert outcome.state == "unknown"
    assert (
        "could not check whether the lead posted" in outcome.reason and "channels:history" in outcome.reason
    )
    assert slack.calls_to("chat.postMessage") == []
    assert h.run(DUE + timedelta(hours=2)) == []  # unknown stays unknown until a person decides
    # `deliveries --retry`: checked again (history readable now), not found, posted once
    row = h.ledger.find(sub.id, date(2026, 5, 4))
    assert row is not None
    h.ledger.retry(row.id, now=DUE + timedelta(hours=3))
    [again] = h.run(DUE + timedelta(hours=3))
    assert again.state == "posted" and len(leads(slack)) == 1


def test_transient_errors_are_retried_with_back_off(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    subscribe(demo_db, layout="single")
    slack.script(
        "chat.postMessage",
        Response(200, {"ok": False, "error": "internal_error"}),
        Response(503, {"ok": False}),
    )
    h = Harness(demo_db, profile, slack)
    [outcome] = h.run(DUE)
    assert outcome.state == "posted"
    # a clear refusal: back-off; a 503 (maybe stored): the post is given SETTLE s to land, then
    # looked for (not there), then sent again
    assert h.sleeps == [2.0, pytest.approx(SETTLE, abs=0.5)]
    assert len(slack.calls_to("conversations.history")) == 1
    assert len(leads(slack)) == 3  # two failed attempts, then the lead that landed
    assert len(slack.history[CHANNEL]) == 1


def test_a_lead_stored_despite_a_5xx_is_found_and_not_posted_again(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    subscribe(demo_db, layout="single")
    slack.script_after("chat.postMessage", Response(503, {"ok": False}))  # stored, then a 503
    h = Harness(demo_db, profile, slack)
    [outcome] = h.run(DUE)
    assert outcome.state == "posted" and "not posted again" in outcome.reason
    assert len(slack.history[CHANNEL]) == 1 and len(leads(slack)) == 1
    assert h.sleeps == [pytest.approx(SETTLE, abs=0.5)]  # given time to land, found: no second post
    assert outcome.ids[0] == slack.history[CHANNEL][0]["ts"]  # and the rest of the digest after it
    assert len(outcome.ids) == 1 + len(slack.thread(CHANNEL, outcome.ids[0]))


def test_a_5xx_that_cannot_be_checked_leaves_the_delivery_unknown(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    subscribe(demo_db, layout="single")
    slack.script_after("chat.postMessage", Response(503, {"ok": False}))
    slack.script(
        "conversations.history",
        Response(200, {"ok": False, "error": "missing_scope", "needed": "channels:history"}),
    )
    h = Harness(demo_db, profile, slack)
    [outcome] = h.run(DUE)
    assert outcome.state == "unknown" and "could not check whether the lead posted" in outcome.reason
    assert len(slack.history[CHANNEL]) == 1  # the one that landed; never a second


def test_persistent_transient_errors_hand_over_then_give_up_after_the_window(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    sub = subscribe(demo_db, layout="single")
    assert sub.id is not None
    slack.script("chat.postMessage", *[Response(200, {"ok": False, "error": "service_unavailable"})] * 6)
    h = Harness(demo_db, profile, slack)
    [first] = h.run(DUE)
    assert first.state == "retrying" and first.reason.startswith("retrying after 3 attempts")
    [waiting] = h.run(DUE + timedelta(minutes=10))  # not yet: no retry storm, but said
    assert waiting.state == "retrying" and waiting.reason.startswith("resumes at 2026-05-11T07:15")
    [second] = h.run(DUE + timedelta(minutes=16))
    assert second.state == "retrying"
    assert len(slack.calls_to("chat.postMessage")) == 6
    [last] = h.run(DUE + timedelta(hours=25))  # the catch-up window has ended
    assert last.state == "failed" and last.reason.startswith("gave up after 3 attempts")
    assert len(slack.calls_to("chat.postMessage")) == 6


@pytest.mark.parametrize("code", ["channel_not_found", "not_in_channel", "is_archived"])
def test_permanent_errors_mark_the_delivery_failed_without_retrying(
    demo_db: Path, profile: Profile, slack: FakeSlack, code: str
) -> None:
    sub = subscribe(demo_db)
    assert sub.id is not None
    slack.channel_errors[CHANNEL] = code
    h = Harness(demo_db, profile, slack)
    [outcome] = h.run(DUE)
    assert outcome.state == "failed" and CHANNEL in outcome.reason
    assert "Traceback" not in outcome.reason and "\n" not in outcome.reason
    assert h.sleeps == [] and len(slack.calls_to("chat.postMessage")) == 1
    assert h.run(DUE + timedelta(hours=1)) == []
    row = h.ledger.find(sub.id, date(2026, 5, 4))
    assert row is not None and (row.state, row.reason) == ("failed", outcome.reason)


def test_a_revoked_token_holds_the_platform_for_the_run(
    demo_db: Path, profile: Profile, slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    subscribe(demo_db)
    subscribe(demo_db, channel="C0OTHER")
    slack.script("chat.postMessage", Response(200, {"ok": False, "error": "token_revoked"}))
    with caplog.at_level(logging.ERROR, logger="bot.delivery.deliverer"):
        outcomes = Harness(demo_db, profile, slack).run(DUE)
    assert [o.state for o in outcomes] == ["failed", "held"]
    assert len(slack.calls_to("chat.postMessage")) == 1
    assert len([r for r in caplog.records if "held for this run" in r.message]) == 1


def test_a_quiet_week_gets_one_line_or_nothing(demo_db: Path, profile: Profile, slack: FakeSlack) -> None:
    later = datetime(2026, 7, 1, tzinfo=UTC)  # the demo history has ended by then
    line = subscribe(
        demo_db,
        since=later,
        anchor=first_anchor(
            later,
            Subscription(platform="s", channel="C", repo="o/r", anchor=date(2026, 5, 4), since=later).zone,
        ),
    )
    silent = subscribe(demo_db, channel="C0SILENT", quiet="silent", since=later, anchor=line.anchor)
    h = Harness(demo_db, profile, slack)
    outcomes = h.run(datetime(2026, 7, 6, 9, 0, tzinfo=UTC))
    states = {o.target: o.state for o in outcomes}
    assert states == {line.target: "posted", silent.target: "skipped"}
    [call] = slack.calls_to("chat.postMessage")
    assert call.params["channel"] == CHANNEL and "quiet week" in str(call.params["text"]).lower()


def test_dry_run_plans_without_claiming_or_posting(demo_db: Path, profile: Profile, slack: FakeSlack) -> None:
    sub = subscribe(demo_db)
    assert sub.id is not None
    h = Harness(demo_db, profile, slack)
    [planned] = h.run(DUE, dry_run=True)
    assert planned.state == "planned" and "2026-W19" in planned.title
    assert slack.calls == [] and h.ledger.find(sub.id, date(2026, 5, 4)) is None


def _paced_poster(settings: Settings, platform: str) -> StepPoster:
    """The platform's poster as a delivery uses it (Slack unpaced, so the race is tight)."""
    if platform == "slack":
        return SlackSteps(web_client(settings), pace=0)
    from bot.chat.platforms import step_poster_for

    return step_poster_for(platform, settings)


def _serve_like(db_path: str, settings: dict[str, str], owner: str, start: object, out: object) -> None:
    """A second prdigest process: its own connection, poster and clock ticks over the due time."""
    from classify.rules import load_profile

    config = Settings(_env_file=None, **settings)  # type: ignore[arg-type]
    deliverer = Deliverer(connect(db_path), load_profile(), lambda p: _paced_poster(config, p), owner=owner)
    asyncio.run(deliverer.run(DUE, dry_run=True))  # warm up: imports and caches, nothing claimed
    start.wait(20)  # type: ignore[attr-defined]
    states: list[str] = []
    for minutes in (0, 0, 1, 2, 5):  # within the lease: both clocks read the same Monday morning
        states += [o.state for o in asyncio.run(deliverer.run(DUE + timedelta(minutes=minutes)))]
    out.put((owner, states))  # type: ignore[attr-defined]


def race_two_processes(db: Path, settings: dict[str, str], channels: list[str]) -> list[str]:
    """Two processes deliver the digests of ``channels`` (subscribed, single layout) at once; the
    states they report, after checking that the ledger recorded each exactly once as posted."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_serve_like, args=(str(db), settings, f"p{i}", start, out)) for i in range(2)]
    for p in procs:
        p.start()
    start.set()
    results = dict(out.get(timeout=180) for _ in procs)
    for p in procs:
        p.join(30)
    rows = connect(db).execute("SELECT state, COUNT(*) FROM deliveries GROUP BY state").fetchall()
    assert rows == [("posted", len(channels))]
    return [s for states in results.values() for s in states]


def test_two_processes_on_one_database_post_each_digest_once(demo_db: Path, slack: FakeSlack) -> None:
    slack.latency = 0.05
    channels = [f"C0TEAM{i}" for i in range(6)]
    for channel in channels:
        subscribe(demo_db, channel=channel, layout="single")
    states = race_two_processes(
        demo_db, {"slack_bot_token": BOT_TOKEN, "prdigest_slack_api_url": slack.api_url}, channels
    )
    assert states.count("posted") == len(channels)
    assert sorted(str(lead["channel"]) for lead in leads(slack)) == sorted(channels)


def test_a_digest_too_large_for_the_platform_falls_back_to_the_smaller_layout(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    sub = subscribe(demo_db)
    assert sub.id is not None
    slack.script("chat.postMessage", Response(200, {"ok": False, "error": "msg_blocks_too_long"}))
    h = Harness(demo_db, profile, slack)
    [outcome] = h.run(DUE)
    assert outcome.state == "posted" and "smaller layout" in outcome.reason
    assert h.sleeps == []  # not a transient error: no back-off
    first, second = slack.calls_to("chat.postMessage")
    assert len(second.params["blocks"]) < len(first.params["blocks"])
    assert "`/digest 2026-W19` shows it" in str(second.params["blocks"]).replace("\u200b", "")
    assert second.params["metadata"]["event_payload"]["delivery"] == delivery_key(sub.id, date(2026, 5, 4))
    row = h.ledger.find(sub.id, date(2026, 5, 4))
    assert row is not None and row.state == "posted" and len(row.message_ids) == 1


# -- the chart with the posted digest ------------------------------------------------------------


def _image_blocks(params: dict[str, object]) -> list[dict[str, object]]:
    blocks = params["blocks"]
    if isinstance(blocks, str):
        blocks = json.loads(blocks)
    return [b for b in blocks if isinstance(b, dict) and b.get("type") == "image"]  # type: ignore[union-attr]


def test_the_chart_is_uploaded_and_shown_by_the_lead_that_keeps_its_metadata(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    from PIL import Image as PILImage

    sub = subscribe(demo_db)
    assert sub.id is not None
    [outcome] = Harness(demo_db, profile, slack).run(DUE)
    assert outcome.state == "posted"
    [upload] = slack.uploads.values()
    [asked] = slack.calls_to("files.getUploadURLExternal")
    assert asked.params["filename"] == "chart.png" and int(asked.params["length"]) == len(upload.data or b"")
    assert upload.data is not None and upload.data.startswith(b"\x89PNG\r\n\x1a\n")
    with PILImage.open(io.BytesIO(upload.data)) as png:
        png.verify()
    # completed without a channel: the file is not posted as a message of its own
    [completed] = slack.calls_to("files.completeUploadExternal")
    assert upload.completed and upload.shared_to is None and "channel_id" not in completed.params
    # the lead (and only the lead) shows it, and still carries the delivery's metadata
    [lead] = leads(slack)
    [image] = _image_blocks(lead)
    assert image["slack_file"] == {"id": upload.id}
    assert str(image["alt_text"]).startswith("Chart: vllm-project/vllm")
    assert lead["metadata"]["event_payload"]["delivery"] == delivery_key(sub.id, date(2026, 5, 4))  # type: ignore[index]
    replies = [c.params for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts")]
    assert replies and not any(_image_blocks(r) for r in replies)


@pytest.mark.parametrize("failure", ["upload URL refused", "upload failed", "completion refused"])
def test_a_failed_upload_posts_the_digest_without_the_chart(
    demo_db: Path, profile: Profile, slack: FakeSlack, failure: str
) -> None:
    subscribe(demo_db, layout="single")
    if failure == "upload URL refused":
        slack.script("files.getUploadURLExternal", Response(200, {"ok": False, "error": "missing_scope"}))
    elif failure == "upload failed":
        slack.upload_status = 500
    else:
        slack.script("files.completeUploadExternal", Response(200, {"ok": False, "error": "file_not_found"}))
    [outcome] = Harness(demo_db, profile, slack).run(DUE)
    assert outcome.state == "posted" and outcome.reason == ""
    [lead] = leads(slack)
    assert _image_blocks(lead) == [] and "image:" not in str(lead["blocks"])
    assert len(slack.history[CHANNEL]) == 1


def test_a_lead_refused_for_its_chart_is_posted_again_without_it(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    subscribe(demo_db, layout="single")
    slack.script(
        "chat.postMessage",
        Response(200, {"ok": False, "error": "invalid_blocks", "errors": ["invalid slack file"]}),
    )
    [outcome] = Harness(demo_db, profile, slack).run(DUE)
    assert outcome.state == "posted" and "smaller layout" not in outcome.reason
    refused, posted = leads(slack)
    assert _image_blocks(refused) and not _image_blocks(posted)
    [upload] = slack.uploads.values()
    assert upload.deleted  # the upload no lead shows is not left behind
    assert len(posted["blocks"]) == len(refused["blocks"]) - 1  # the whole digest, less the chart  # type: ignore[arg-type]


def test_transient_retries_show_the_one_chart_uploaded_for_the_delivery(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    """Two transient failures, then the lead lands: one upload, the same file in every attempt's
    lead, nothing deleted (the posted lead shows it)."""
    subscribe(demo_db, layout="single")
    slack.script(
        "chat.postMessage",
        Response(200, {"ok": False, "error": "internal_error"}),
        Response(200, {"ok": False, "error": "service_unavailable"}),
    )
    [outcome] = Harness(demo_db, profile, slack).run(DUE)
    assert outcome.state == "posted"
    assert len(slack.calls_to("files.getUploadURLExternal")) == 1 and len(slack.uploads) == 1
    [upload] = slack.uploads.values()
    attempts = leads(slack)
    assert len(attempts) == 3
    assert [_image_blocks(a)[0]["slack_file"] for a in attempts] == [{"id": upload.id}] * 3
    assert slack.calls_to("files.delete") == [] and not upload.deleted


def test_a_chart_no_lead_shows_is_deleted_when_the_run_ends(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    """Every attempt of the run failed (the delivery is handed to a later run): the one upload is
    deleted, so no private file is left behind; the later run uploads its own and keeps it."""
    subscribe(demo_db, layout="single")
    slack.script("chat.postMessage", *[Response(200, {"ok": False, "error": "service_unavailable"})] * 3)
    h = Harness(demo_db, profile, slack)
    [held] = h.run(DUE)
    assert held.state == "retrying"
    [first] = slack.uploads.values()
    assert [c.params["file"] for c in slack.calls_to("files.delete")] == [first.id] and first.deleted
    [posted] = h.run(DUE + timedelta(minutes=16))
    assert posted.state == "posted" and len(slack.uploads) == 2
    second = slack.uploads[next(k for k in slack.uploads if k != first.id)]
    assert _image_blocks(leads(slack)[-1])[0]["slack_file"] == {"id": second.id}
    assert len(slack.calls_to("files.delete")) == 1 and not second.deleted


def test_a_chart_whose_lead_may_have_landed_is_kept(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    """A 5xx says nothing about whether Slack took the lead: its chart is kept rather than
    deleted from under a message that may show it."""
    subscribe(demo_db, layout="single")
    slack.script("chat.postMessage", *[Response(503, {"ok": False})] * 3)
    [held] = Harness(demo_db, profile, slack).run(DUE)
    assert held.state == "retrying"
    [upload] = slack.uploads.values()
    assert slack.calls_to("files.delete") == [] and not upload.deleted


# -- a post slower than the lease ----------------------------------------------------------------


def _slow_post_race(demo_db: Path, profile: Profile, slack: FakeSlack) -> tuple[Outcome, list[str], int]:
    """One run posts while every Slack call takes 2 s (the post: 4 calls, ~8 s, twice the 4 s
    lease; renewed every third of it, which leaves a loaded machine more than a second to spare);
    a second process, on the same clock, runs every half second meanwhile."""
    import threading
    import time

    slack.latency = 2.0
    lease = timedelta(seconds=4)
    first = Harness(demo_db, profile, slack, owner="slow")
    first.deliverer.lease = lease
    started = time.monotonic()
    done = threading.Event()
    other: list[str] = []
    runs: list[datetime] = []

    def second_process() -> None:
        # the race under test starts once the slow run is posting (its messages stored with its
        # claim): building the digest and its chart may itself outlast the 4 s lease on a loaded
        # machine, and a claim taken over before anything was stored is rightly given up
        watcher = connect(demo_db)  # this thread's own connection, as a second process has

        def first_is_posting() -> bool:
            return bool(watcher.execute("SELECT count(*) FROM delivery_steps").fetchone()[0])

        while not first_is_posting():
            if done.wait(0.02):
                return
        h = Harness(demo_db, profile, slack, owner="other")
        h.deliverer.lease = lease
        while not done.wait(0.5):
            at = DUE + timedelta(seconds=time.monotonic() - started)
            other.extend(o.state for o in h.run(at))
            runs.append(at)

    thread = threading.Thread(target=second_process)
    thread.start()
    try:
        [outcome] = first.run(DUE)
    finally:
        done.set()
        thread.join(60)
    assert time.monotonic() - started > 1.5 * lease.total_seconds()  # the post did outlast the lease
    return outcome, other, len(runs)


def test_a_post_slower_than_the_lease_keeps_its_claim_and_is_not_taken_over(
    demo_db: Path, profile: Profile, slack: FakeSlack
) -> None:
    sub = subscribe(demo_db, layout="single")
    assert sub.id is not None
    outcome, other, runs = _slow_post_race(demo_db, profile, slack)
    assert outcome.state == "posted"
    assert runs >= 4 and "posted" not in other  # it ran all along, past the first lease, and never took over
    assert len(leads(slack)) == 1
    row = DeliveryStore(connect(demo_db)).find(sub.id, date(2026, 5, 4))
    assert row is not None and (row.state, row.attempts) == ("posted", 1)


def test_control_without_renewal_the_slow_post_is_taken_over_and_posted_twice(
    demo_db: Path, profile: Profile, slack: FakeSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the renewal prevents: the same race with renewals that change nothing. The second
    process takes the live post over once the lease runs out and finishes it; the slow run finds
    its claim gone at its next step and gives the delivery up. (Whether the lead is then doubled
    depends on the look-before-resend waiting out the first send, which this harness's instant
    sleep does not do: that wait has tests of its own above.)"""
    subscribe(demo_db, layout="single")
    monkeypatch.setattr(DeliveryStore, "renew", lambda self, claim, **kw: True)
    outcome, other, _ = _slow_post_race(demo_db, profile, slack)
    assert (outcome.state, outcome.reason) == ("held", "taken over by another run")
    assert "posted" in other
