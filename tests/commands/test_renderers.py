"""Exact-output tests of the text, Markdown and JSON renderers, and their escaping of untrusted text."""

from __future__ import annotations

import json
from dataclasses import replace

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
from commands.render import render
from commands.render_markdown import render_markdown
from commands.render_text import render_text

HOSTILE = "<!channel> @here @everyone <@U123> & <b>bold</b> [x](http://evil) *a* _b_ `c`"
REF = PRRef(number=42121, title=HOSTILE, url="https://github.com/o/r/pull/42121", author="alice")


def sample() -> Reply:
    return Reply(
        command="digest",
        title="o/r weekly digest · 2026-W19",
        blocks=[
            Heading(text="Executive summary"),
            Paragraph(text="198 PRs merged.", prs=[REF]),
            Facts(items=[("merged", "198"), ("key PRs", "24")]),
            BulletList(items=[Bullet(text="Tree Attention removed", prs=[REF])]),
            PRItem(pr=REF, tags=["key", "breaking change"], lines=["removes ~1400 lines"]),
            Table(columns=["module", "now"], rows=[["推测解码", "12"], ["rocm", "3"]]),
        ],
        data={"repo": "o/r"},
    )


def test_text_rendering_is_exact() -> None:
    reply = sample()
    reply.blocks[4] = PRItem(pr=replace(REF, title="Remove Tree Attention"), tags=["key"], lines=["−1400"])
    assert render_text(reply) == (
        "o/r weekly digest · 2026-W19\n"
        "============================\n"
        "\n"
        "Executive summary\n"
        "-----------------\n"
        "198 PRs merged. (#42121)\n"
        "merged: 198   key PRs: 24\n"
        "• Tree Attention removed (#42121)\n"
        "#42121 Remove Tree Attention  [key]\n"
        "    −1400\n"
        "module    now\n"
        "--------  ---\n"
        "推测解码  12\n"
        "rocm      3\n"
    )


def test_text_strips_terminal_control_sequences() -> None:
    evil = PRRef(number=1, title="ok\x1b[2J\x1b]0;pwned\x07\rfake line\u202e", url="u")
    out = render_text(Reply(command="pr", blocks=[PRItem(pr=evil)]))
    assert "\x1b" not in out and "\r" not in out and "\u202e" not in out and "\x07" not in out
    assert out.count("\n") == 1


def test_markdown_escapes_formatting_links_and_mentions() -> None:
    out = render_markdown(sample())
    assert "@everyone" not in out and "@here" not in out
    assert "&#64;everyone" in out
    assert "[x](http://evil)" not in out
    assert "\\[x\\](http://evil)" in out
    assert "\\<b\\>bold\\</b\\>" in out
    assert "[#42121](https://github.com/o/r/pull/42121)" in out
    assert "| 推测解码 | 12 |" in out


def test_markdown_headings_and_structure() -> None:
    out = render_markdown(sample())
    lines = out.splitlines()
    assert lines[0] == "# o/r weekly digest · 2026-W19"
    assert "## Executive summary" in lines
    assert "**merged:** 198 · **key PRs:** 24" in lines


def test_json_renders_the_data_only() -> None:
    assert json.loads(render(sample(), "json")) == {"repo": "o/r"}


def test_usage_replies_render_as_one_line_everywhere() -> None:
    reply = Reply.usage("pr", "'abc' is not a PR number")
    assert render_text(reply) == "'abc' is not a PR number"
    assert "\n" not in render_text(reply)
    assert json.loads(render(reply, "json"))["error"] == "'abc' is not a PR number"


def test_sections_read_after_the_lead_with_their_titles_as_headings() -> None:
    lead = sample()
    reply = replace(lead, blocks=lead.blocks[:2], sections=[Section(title="Risks", blocks=lead.blocks[2:])])
    assert reply.all_blocks() == [*lead.blocks[:2], Heading(text="Risks", level=2), *lead.blocks[2:]]
    assert render_text(reply) == render_text(
        replace(lead, blocks=[*lead.blocks[:2], Heading(text="Risks"), *lead.blocks[2:]])
    )


def test_an_image_falls_back_to_its_description() -> None:
    chart = Image(name="chart.png", alt="PRs per module, W19 vs the 4-week average")
    reply = Reply(command="digest", title="t", blocks=[chart])
    assert render_text(reply).endswith("[image: PRs per module, W19 vs the 4-week average]\n")
    assert render_text(replace(reply, lang="zh")).endswith(
        "[图片：PRs per module, W19 vs the 4-week average]\n"
    )
    assert render_markdown(reply).endswith("_PRs per module, W19 vs the 4-week average_\n")
    online = replace(chart, url="https://example.com/c.png", alt="a [b]")
    assert render_markdown(replace(reply, blocks=[online])).endswith(
        "![a \\[b\\]](https://example.com/c.png)\n"
    )
