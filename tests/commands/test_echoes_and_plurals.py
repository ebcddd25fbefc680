"""What answers repeat back and how they count: search tags name
modules by their labels, one file is "1 file", a cut echo says it was cut, a long search is not
repeated whole, a subscription's `match all` error does not suggest a digest command."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from classify.rules import Profile
from commands.locale import t
from commands.model import PRItem, UsageError
from commands.subscription_spec import build
from tests.conftest import RunFn


def test_search_tags_name_modules_by_their_labels(run: RunFn) -> None:
    reply = run("search", "kernel")
    tags = [tag for b in reply.blocks if isinstance(b, PRItem) for tag in b.tags]
    assert "Kernels & custom ops" in tags and "kernel" not in tags
    zh = run("search", "kernel", lang="zh")
    assert "kernel" not in [tag for b in zh.blocks if isinstance(b, PRItem) for tag in b.tags]
    assert reply.data["prs"][0]["modules"][0] == "kernel"  # the JSON keeps the module ids


def test_one_file_is_one_file(run: RunFn) -> None:
    one = run("pr", "38504")  # a demo PR that changes one file
    lines = next(b for b in one.blocks if isinstance(b, PRItem)).lines
    assert any(line.endswith(" in 1 file") for line in lines), lines
    assert any(
        line.endswith("，1 个文件")
        for line in next(b for b in run("pr", "38504", lang="zh").blocks if isinstance(b, PRItem)).lines
    )
    many = next(b for b in run("pr", "42121").blocks if isinstance(b, PRItem)).lines
    assert any(line.endswith(" files") for line in many)


def test_a_long_pr_number_is_not_echoed_cut_off(run: RunFn) -> None:
    reply = run("pr", "9" * 23)
    assert reply.status == "usage"
    assert reply.title.startswith("PR number 999999999999… (23 digits) is out of range")
    assert "9" * 13 not in reply.title


def test_a_long_word_is_echoed_with_a_mark_where_it_was_cut(run: RunFn) -> None:
    reply = run("risks", "x" * 100)
    assert reply.status == "usage" and "x" * 39 + "…" in reply.title and "x" * 41 not in reply.title


def test_a_long_search_is_not_repeated_whole(run: RunFn) -> None:
    query = "kernelz" * 700
    reply = run("search", query)
    assert len(reply.title) < 150 and "…" in reply.title
    assert all(len(getattr(b, "text", "")) < 150 for b in reply.blocks)
    assert reply.data["query"] == query  # the JSON keeps what was asked


def test_a_subscriptions_match_error_does_not_suggest_a_digest(profile: Profile) -> None:
    now = datetime(2026, 5, 10, tzinfo=UTC)
    with pytest.raises(UsageError) as err:
        build("slack", "C1", {"match": "all", "repo": "o/r"}, profile, now=now)
    text = t("en", err.value.key, **err.value.values)
    assert text == "match all needs modules to match: give them too, comma-separated (e.g. rocm,kernel)"
    assert "digest" not in t("zh", err.value.key, **err.value.values)
