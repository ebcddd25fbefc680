"""A reply's JSON form built only when read: the digest defers its list of every PR, and readers
still get exactly the dict an eager build gives."""

from __future__ import annotations

import json
from dataclasses import replace

from commands.model import Reply, ReplyData
from commands.render import render
from tests.conftest import RunFn


def test_text_and_markdown_digests_do_not_build_the_json_form(run: RunFn) -> None:
    for lang in ("en", "zh"):
        reply = run("digest", "2026-W19", lang=lang)
        assert render(reply, "text") and render(reply, "markdown")
        assert not reply.data_source.built, lang
        data = json.loads(render(reply, "json"))
        assert reply.data_source.built and len(data["prs"]) == data["counts"]["merged"] > 0


def test_a_text_search_does_not_build_the_json_form_a_json_one_gets_in_full(run: RunFn) -> None:
    reply = run("search", "fp8")
    assert render(reply, "text") and render(reply, "markdown")
    assert not reply.data_source.built
    data = json.loads(render(reply, "json"))
    assert reply.data_source.built and data["query"] == "fp8" and data["total"] >= len(data["prs"]) > 0
    shown = [b.pr.number for b in reply.blocks if getattr(b, "pr", None) is not None]
    assert [p["number"] for p in data["prs"]] == shown
    assert all(p["merged_at"].endswith("Z") and p["url"] for p in data["prs"])


def test_the_deferred_form_is_built_once_and_shared_by_copies() -> None:
    calls: list[int] = []

    def build() -> dict[str, object]:
        calls.append(1)
        return {"counts": {"merged": 1}}

    reply = Reply(command="digest", data_factory=build)
    copy = replace(reply, title="with a chart")
    assert calls == []
    assert copy.data == {"counts": {"merged": 1}} and reply.data is copy.data and calls == [1]
    assert reply == copy.__class__(command="digest", title="", data={"counts": {"merged": 1}})


def test_keys_added_before_the_build_come_after_the_built_ones() -> None:
    deferred = ReplyData(build=lambda: {"a": 1, "b": 2})
    deferred.update({"profile_note": "n"})
    built = ReplyData({"a": 1, "b": 2})
    built.update({"profile_note": "n"})
    assert (
        list(deferred.get().items())
        == list(built.get().items())
        == [("a", 1), ("b", 2), ("profile_note", "n")]
    )


def test_replace_with_new_data_replaces_the_deferred_form() -> None:
    reply = Reply(command="digest", data_factory=lambda: {"old": True})
    assert replace(reply, data={"new": True}).data == {"new": True} and not reply.data_source.built
    assert Reply(command="x").data == {}


def test_a_reader_arriving_while_the_form_is_built_gets_it_not_an_empty_dict() -> None:
    """Another thread may read the reply while the first read is still building (simulated here by
    a read from inside the builder): it must get the dict, not ``{}``."""
    seen: list[dict[str, object]] = []
    calls: list[int] = []

    def build() -> dict[str, object]:
        calls.append(1)
        if len(calls) == 1:  # the first build is "interrupted" by a second reader
            seen.append(holder.get())
        return {"counts": {"merged": 3}}

    holder = ReplyData(build=build)
    assert holder.get() == {"counts": {"merged": 3}}
    assert seen == [{"counts": {"merged": 3}}]
