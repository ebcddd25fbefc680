"""The prose writer against the fake OpenAI-compatible server: good answers replace the computed
lines; every bad answer ends in verified sentences or the computed text, never in an unverified
sentence; time, requests and the cache stay within their bounds."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from bot.prose.writer import ProseWriter, sentences_of
from classify.rules import Profile
from commands.model import BulletList, Reply
from commands.prose.verify import verify
from commands.render import render
from storage.db import connect
from storage.prose_cache import count
from tests.bot.prose.conftest import digest, only, writer_for
from tests.fakes.llm import FOREIGN_PR, FakeLLM


def write(writer: ProseWriter, reply: Reply) -> Reply:
    return asyncio.run(writer.write(reply))


def parts_report(reply: Reply) -> dict[str, dict[str, object]]:
    return {p["part"]: p for p in reply.data["prose"]["parts"]}


def assert_only_verified(reply: Reply, computed: Reply) -> None:
    """Every model-written sentence passes the verifier against the facts it was written from,
    and every part not written by the model is exactly the computed digest's."""
    assert computed.prose is not None
    facts = {p.key: p.facts for p in computed.prose()}
    for key, part in parts_report(reply).items():
        if part["prose"] == "model":
            answer = json.dumps({"sentences": part["sentences"]}, ensure_ascii=False)
            assert verify(facts[key], answer).ok, (key, part)
    for i, (mine, theirs) in enumerate(zip(reply.sections, computed.sections, strict=True)):
        model_parts = [p for p in parts_report(reply).values() if p["prose"] == "model"]
        if not any(_section_of(p) == i for p in model_parts):
            assert mine.blocks == theirs.blocks, i


def _section_of(part: dict[str, object]) -> int:
    return {"themes": 0, "risks": 2, "key_prs": 3}[str(part["section"])]


def test_good_answers_replace_themes_key_prs_and_risks(llm: FakeLLM, demo_db: Path, profile: Profile) -> None:
    computed = digest(demo_db, profile, "zh")
    reply = write(writer_for(llm, demo_db), digest(demo_db, profile, "zh"))
    report = parts_report(reply)
    assert [k for k, p in report.items() if p["prose"] == "model"] == [
        *(f"theme:{i}" for i in range(1, 8)),
        "risks",
        "key_prs",
    ]
    assert len(llm.requests) == 9  # one request per part, no retry
    text = render(reply, "text")
    for sentence in sentences_of(reply):
        assert sentence.text.rstrip("。") in text  # Chinese: the PR numbers go before the full stop
    assert "以上文字由语言模型根据计算出的事实撰写" in text
    # each theme keeps its computed heading; its lines are the model's sentences with their PRs
    themes, theirs = reply.sections[0], computed.sections[0]
    assert [b for b in themes.blocks if not isinstance(b, BulletList)][:1] == theirs.blocks[:1]
    quick = reply.sections[3].blocks[0]
    assert isinstance(quick, BulletList) and quick.ordered and computed.prose is not None
    assert [i.prs[0].number for i in quick.items] == [p["number"] for p in computed.prose()[-1].facts["prs"]]
    # the numbers and the rest of the digest are the computed ones
    assert reply.blocks == computed.blocks and reply.sections[1] == computed.sections[1]
    assert reply.sections[4] == computed.sections[4]
    assert_only_verified(reply, computed)
    data = reply.data
    assert data["prose"]["model"] == "fake-model" and data["counts"] == computed.data["counts"]
    assert all(p["failed"] == [] for p in report.values())


@pytest.mark.parametrize(
    ("mode", "check", "absent"),
    [
        ("foreign_pr", "citation", None),
        ("invented_percentage", "number", "37%"),
        ("off_by_one", "number", None),
        ("malformed", "json", None),
        ("markup", "markup", "@everyone"),
    ],
)
def test_every_bad_answer_ends_in_the_computed_part(
    llm: FakeLLM, demo_db: Path, profile: Profile, mode: str, check: str, absent: str | None
) -> None:
    llm.default = mode
    computed = digest(demo_db, profile, "zh")
    reply = write(writer_for(llm, demo_db), digest(demo_db, profile, "zh"))
    report = parts_report(reply)
    assert all(p["prose"] == "computed" for p in report.values()), report
    assert all(p["reason"] in ("checks_failed", "request_budget") for p in report.values())
    failed = [f for p in report.values() for f in p["failed"]]  # type: ignore[attr-defined]
    assert failed and check in {f["check"] for f in failed}, failed
    assert len(llm.requests) <= 15  # one retry per part, within the digest's budget
    retries = [r for r in llm.requests if len(r.body["messages"]) == 4]
    assert retries and "failed these checks" in retries[0].body["messages"][-1]["content"]
    assert reply.sections == computed.sections and reply.blocks == computed.blocks
    assert render(reply, "text") == render(computed, "text")
    if absent:
        assert absent not in render(reply, "markdown")
    if mode == "foreign_pr":
        assert f"#{FOREIGN_PR}" in json.dumps(failed)


def test_a_wrong_first_answer_gets_one_retry_that_can_fix_it(
    llm: FakeLLM, demo_db: Path, profile: Profile
) -> None:
    reply = digest(demo_db, profile, "en")
    only(reply, 2)
    llm.script("off_by_one", "good", "invented_percentage", "good")
    worded = write(writer_for(llm, demo_db, parallel=1), reply)
    report = parts_report(worded)
    assert [p["prose"] for p in report.values()] == ["model", "model"]
    assert len(llm.requests) == 4
    retry = llm.requests[1].body["messages"]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert "failed these checks" in retry[-1]["content"] and "DeepSeekV3" in retry[-1]["content"]


def test_at_most_fifteen_requests_per_digest(llm: FakeLLM, demo_db: Path, profile: Profile) -> None:
    llm.default = "off_by_one"  # every answer wrong: 9 parts would take 18 requests with their retries
    writer = writer_for(llm, demo_db, parallel=1)
    reply = write(writer, digest(demo_db, profile, "zh"))
    assert len(llm.requests) == 15 == writer.last.requests
    reasons = [p["reason"] for p in parts_report(reply).values()]
    assert reasons.count("request_budget") >= 1 and "model" not in reasons


def test_a_500_is_asked_once_more_then_the_part_stays_computed(
    llm: FakeLLM, demo_db: Path, profile: Profile
) -> None:
    reply = digest(demo_db, profile, "zh")
    only(reply, 1)
    llm.default = "http500"
    worded = write(writer_for(llm, demo_db), reply)
    assert parts_report(worded)["theme:1"]["reason"] == "unavailable"
    assert len(llm.requests) == 2
    llm.requests.clear()
    llm.script("http500")
    llm.default = "good"
    again = write(writer_for(llm, demo_db), digest(demo_db, profile, "zh"))
    assert parts_report(again)["theme:1"]["prose"] == "model"


def test_a_429_waits_its_retry_after_then_asks_again(llm: FakeLLM, demo_db: Path, profile: Profile) -> None:
    reply = digest(demo_db, profile, "en")
    only(reply, 1)
    llm.script("http429")
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    writer = writer_for(llm, demo_db)
    writer.sleep = sleep
    worded = write(writer, reply)
    assert waits == [1.0]  # the fake's Retry-After: 1
    assert parts_report(worded)["theme:1"]["prose"] == "model"
    assert [r.mode for r in llm.requests] == ["http429", "good"]


def test_a_429_longer_than_the_time_left_is_not_waited_for(
    llm: FakeLLM, demo_db: Path, profile: Profile
) -> None:
    reply = digest(demo_db, profile, "en")
    only(reply, 1)
    llm.default = "http429"
    worded = write(writer_for(llm, demo_db, timeout=0.5), reply)
    assert parts_report(worded)["theme:1"]["reason"] == "rate_limited"
    assert len(llm.requests) == 1


def test_a_hanging_model_costs_the_timeout_and_no_more(llm: FakeLLM, demo_db: Path, profile: Profile) -> None:
    llm.default = "hang"
    computed = digest(demo_db, profile, "zh")
    started = time.monotonic()
    reply = write(writer_for(llm, demo_db, timeout=1.0), digest(demo_db, profile, "zh"))
    waited = time.monotonic() - started
    llm.release()
    assert all(p["reason"] == "timeout" for p in parts_report(reply).values())
    assert render(reply, "text") == render(computed, "text")
    assert waited < 1.0 + 5.0  # the deadline, and the time to close what was still open
    assert count(connect(demo_db)) == 0  # a timeout is not remembered: the next digest asks again


def test_a_server_without_response_format_gets_plain_json(
    llm: FakeLLM, demo_db: Path, profile: Profile
) -> None:
    reply = digest(demo_db, profile, "en")
    only(reply, 3)
    llm.default = "no_schema"
    writer = writer_for(llm, demo_db, parallel=1)
    worded = write(writer, reply)
    assert all(p["prose"] == "model" for p in parts_report(worded).values())
    with_format = [r for r in llm.requests if "response_format" in r.body]
    assert len(with_format) == 1 and len(llm.requests) == 4  # refused once, then plain JSON
    assert writer.structured is False


def test_a_digest_asked_twice_asks_the_model_once(llm: FakeLLM, demo_db: Path, profile: Profile) -> None:
    first = write(writer_for(llm, demo_db), digest(demo_db, profile, "zh"))
    asked = len(llm.requests)
    writer = writer_for(llm, demo_db)
    second = write(writer, digest(demo_db, profile, "zh"))
    assert len(llm.requests) == asked == 9 and writer.last.requests == 0
    assert all(p["cached"] for p in parts_report(second).values())
    assert render(second, "text") == render(first, "text")
    # another language is another part: asked for once, then cached too
    write(writer_for(llm, demo_db), digest(demo_db, profile, "en"))
    assert len(llm.requests) == 18


def test_answers_that_failed_the_checks_are_remembered_and_not_asked_again(
    llm: FakeLLM, demo_db: Path, profile: Profile
) -> None:
    llm.default = "markup"
    write(writer_for(llm, demo_db, max_requests=100), digest(demo_db, profile, "en"))
    assert len(llm.requests) == 18
    again = write(writer_for(llm, demo_db), digest(demo_db, profile, "en"))
    assert len(llm.requests) == 18
    assert all(p["cached"] and p["failed"] for p in parts_report(again).values())


def test_a_tampered_cache_entry_is_checked_again(llm: FakeLLM, demo_db: Path, profile: Profile) -> None:
    write(writer_for(llm, demo_db), digest(demo_db, profile, "en"))
    db = connect(demo_db)
    forged = json.dumps({"sentences": [{"text": "A 99% speedup for everyone.", "prs": [42121]}]})
    db.execute("UPDATE prose_sentences SET answer = ?", (forged,))
    db.conn.commit()
    reply = write(writer_for(llm, demo_db), digest(demo_db, profile, "en"))
    assert "99%" not in render(reply, "text")
    assert all(p["prose"] == "computed" for p in parts_report(reply).values())


def test_prose_off_sends_nothing(llm: FakeLLM, demo_db: Path, profile: Profile) -> None:
    reply = digest(demo_db, profile, "zh", "prose=off")
    assert reply.ok and reply.prose is None
    same = write(writer_for(llm, demo_db), reply)
    assert same is reply and llm.requests == []
    assert render(reply, "json") == render(digest(demo_db, profile, "zh"), "json")


def test_other_answers_send_nothing(llm: FakeLLM, demo_db: Path, profile: Profile) -> None:
    from commands.model import Invocation
    from commands.registry import Context, dispatch
    from storage.prs import PRStore
    from tests.conftest import DEMO_NOW

    ctx = Context(store=PRStore(connect(demo_db)), profile=profile)
    writer = writer_for(llm, demo_db)
    for command, args in (("risks", ("all", "2026-W19")), ("pr", ("42121",)), ("search", ("fp8",))):
        reply = dispatch(Invocation(command=command, args=args, now=DEMO_NOW), ctx)
        assert write(writer, reply) is reply
    empty = dispatch(Invocation(command="digest", args=("2020-W01",), now=DEMO_NOW), ctx)
    assert empty.prose is None and write(writer, empty) is empty
    assert llm.requests == []


def test_the_key_is_sent_only_in_its_header(llm: FakeLLM, demo_db: Path, profile: Profile) -> None:
    reply = digest(demo_db, profile, "en")
    only(reply, 1)
    write(writer_for(llm, demo_db), reply)
    [request] = llm.requests
    assert request.headers["authorization"] == "Bearer sk-fake-key-for-tests"
    assert "sk-fake-key" not in json.dumps(request.body)
    assert "sk-fake-key" not in repr(writer_for(llm, demo_db).config)
