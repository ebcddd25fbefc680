"""Reply → Discord embeds (bot/chat/discord/render.py): escaping, and every limit on hostile input."""

from __future__ import annotations

import pytest

from bot.chat.discord.render import (
    MAX_CONTENT,
    MAX_DESCRIPTION,
    MAX_EMBED_TOTAL,
    MAX_EMBEDS,
    ZWSP,
    embed_size,
    md_text,
    render,
    violations,
)
from commands.model import (
    Bullet,
    BulletList,
    Facts,
    Heading,
    Image,
    Paragraph,
    PRItem,
    PRRef,
    Reply,
    Section,
    Table,
)


def pr(number: int, title: str = "Fix the scheduler", url: str | None = None) -> PRItem:
    ref = PRRef(number=number, title=title, url=url or f"https://github.com/o/r/pull/{number}", author="dev")
    return PRItem(pr=ref, tags=["core", "core-path"], lines=["touches vllm/core/scheduler.py"])


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("@everyone look", f"@{ZWSP}everyone look"),
        ("@here", f"@{ZWSP}here"),
        ("<@&123> and <@456> and <#789>", "\\<@&123\\> and \\<@456\\> and \\<#789\\>"),
        ("[click](http://evil)", "\\[click\\]\\(http://evil\\)"),
        (
            "**bold** _it_ ~~s~~ ||spoiler|| `x`",
            "\\*\\*bold\\*\\* \\_it\\_ \\~\\~s\\~\\~ \\|\\|spoiler\\|\\| `x`",
        ),
        ("# not a heading", "\\# not a heading"),
        ("- not a list", "\\- not a list"),
        ("> not a quote", "\\> not a quote"),
        ("back\\slash", "back\\\\slash"),
        ("Fix `--max-model-len` <@1>", "Fix `--max-model-len` \\<@1\\>"),
        ("`@everyone`", f"`@{ZWSP}everyone`"),
        ("bidi \u202eevil\u202c", "bidi evil"),
    ],
)
def test_untrusted_text_is_literal(raw: str, shown: str) -> None:
    assert md_text(raw) == shown


def test_a_hostile_pr_renders_without_live_markup() -> None:
    reply = Reply(
        command="pr",
        title="@everyone [x](http://evil)",
        blocks=[pr(1, "@here <@&123> [click](http://evil)"), Paragraph(text="<@1> **hi**")],
    )
    [message] = render(reply)
    assert violations(message) == []
    embed = message.embeds[0]
    assert embed["title"] == f"@{ZWSP}everyone \\[x\\]\\(http://evil\\)"
    assert embed["description"].startswith("[#1](https://github.com/o/r/pull/1) @\u200bhere \\<@&123\\>")


def test_a_pr_url_that_is_not_plain_https_is_not_linked() -> None:
    [message] = render(Reply(command="pr", blocks=[pr(7, url="javascript:alert(1)")]))
    assert message.embeds[0]["description"].startswith("#7 Fix the scheduler")
    assert violations(message) == []


def test_huge_input_stays_within_every_limit_and_loses_nothing() -> None:
    long_title = "T" * 5000
    items = [pr(n, "word " * 60) for n in range(1, 401)]
    facts = Facts(items=[(f"label {i} " * 40, "value " * 300) for i in range(60)])
    table = Table(columns=["a", "b"], rows=[["x" * 300, "y" * 300] for _ in range(80)])
    bullets = BulletList(items=[Bullet(text="b " * 500, prs=[items[0].pr]) for _ in range(30)])
    reply = Reply(
        command="digest",
        title=long_title,
        blocks=[facts, Heading(text="H" * 400, level=3), *items[:200]],
        sections=[
            Section(title="S" * 300, blocks=[*items[200:], table, bullets]),
            Section(title="picture", blocks=[Image(name="chart.png", alt="a chart")]),
        ],
    )
    for mode in ("thread", "compact"):
        messages = render(reply, mode=mode)  # type: ignore[arg-type]
        assert all(violations(m) == [] for m in messages), mode
        assert all(len(m.embeds) <= MAX_EMBEDS for m in messages)
        assert all(sum(embed_size(e) for e in m.embeds) <= MAX_EMBED_TOTAL for m in messages)
        text = "\n".join(e.get("description", "") for m in messages for e in m.embeds)
        assert all(f"[#{n}](https://github.com/o/r/pull/{n})" in text for n in range(1, 401))
        # a title too long for the title line opens the text, in bold pieces, whole
        assert "T" * 5000 in text.replace("\n", "").replace("**", "")
        assert "[image: a chart]" in text.replace("\\", "")


def test_thread_mode_puts_each_section_in_its_own_messages_and_points_to_them() -> None:
    reply = Reply(
        command="digest",
        title="Week 2026-W19",
        blocks=[Facts(items=[("Merged", "40"), ("Key PRs", "5")])],
        sections=[Section(title="Kernels", blocks=[pr(1)]), Section(title="Core", blocks=[pr(2)])],
    )
    lead, first, second = render(reply, mode="thread")
    assert lead.embeds[0]["title"] == "Week 2026-W19"
    assert lead.embeds[0]["fields"] == [
        {"name": "Merged", "value": "40", "inline": True},
        {"name": "Key PRs", "value": "5", "inline": True},
    ]
    assert lead.embeds[-1]["footer"] == {"text": "The details follow in this message's thread (2 replies)."}
    assert [first.embeds[0]["title"], second.embeds[0]["title"]] == ["Kernels", "Core"]
    [compact] = render(reply, mode="compact")
    assert [e.get("title") for e in compact.embeds] == ["Week 2026-W19", "Kernels", "Core"]


def test_notices_are_short_content() -> None:
    usage = Reply.usage("digest", "unknown period 'x' " + "y" * 3000)
    [message] = render(usage)
    assert message.embeds == [] and len(message.content) <= MAX_CONTENT
    assert message.content.startswith("⚠️ unknown period 'x' y")
    assert message.content.endswith(" …\nType `/help` for every command, or `/help COMMAND` for one.")
    assert violations(message) == []


def test_violations_catch_what_discord_would_refuse() -> None:
    big = {"embeds": [{"description": "d" * (MAX_DESCRIPTION + 1)}] * 11, "content": "c" * 2001}
    problems = violations(big)
    assert any("content of 2001" in p for p in problems)
    assert any("11 embeds" in p for p in problems)
    assert any("description of 4097" in p for p in problems)
    assert any("over all embeds" in p for p in problems)
    assert violations({"content": "[x](http://evil) @everyone"}) != []
