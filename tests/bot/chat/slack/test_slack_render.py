"""Exact-output and limit tests of the Reply → Block Kit renderer (bot/chat/slack/render.py)."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.chat.slack.render import (
    MAX_BLOCKS,
    MAX_BLOCKS_JSON_CHARS,
    MAX_HEADER_CHARS,
    MAX_SECTION_CHARS,
    ZWSP,
    SlackMessage,
    mrkdwn_text,
    pr_link,
    render,
    render_notice,
    split_mrkdwn,
    violations,
)
from commands.model import (
    Bullet,
    BulletList,
    Divider,
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

HOSTILE = "<!channel> @here <@U123> & <b>"
Z = ZWSP


def ref(number: int, title: str = "Fix the scheduler", author: str = "alice") -> PRRef:
    return PRRef(number=number, title=title, url=f"https://github.com/o/r/pull/{number}", author=author)


def all_mrkdwn(messages: list[SlackMessage], *, fallback: bool = True) -> list[str]:
    out = []
    for m in messages:
        if fallback:
            out.append(m.text)
        for b in m.blocks:
            if "text" in b and b["text"]["type"] == "mrkdwn":
                out.append(b["text"]["text"])
            out.extend(f["text"] for f in b.get("fields", []))
            out.extend(e["text"] for e in b.get("elements", []))
    return out


def test_small_digest_renders_exactly() -> None:
    reply = Reply(
        command="digest",
        title="o/r weekly digest · 2026-W19",
        blocks=[
            Paragraph(text="198 PRs merged, 24 key.", prs=[ref(1)]),
            Facts(items=[("merged", "198"), ("key", "24")]),
        ],
        sections=[
            Section(
                title="Key changes",
                blocks=[
                    PRItem(
                        pr=ref(42121, "Remove Tree Attention"),
                        tags=["key", "breaking"],
                        lines=["−1400 lines"],
                    ),
                    Divider(),
                    BulletList(items=[Bullet(text="speculative decoding", prs=[ref(2), ref(3)])]),
                ],
            )
        ],
    )
    messages = render(reply)
    assert [m.payload() for m in messages] == [
        {
            "text": "o/r weekly digest · 2026-W19\n198 PRs merged, 24 key. <https://github.com/o/r/pull/1|#1>\n"
            "*merged*\n198\n*key*\n24",
            "blocks": [
                {
                    "type": "header",
                    "text": {"type": "plain_text", "text": "o/r weekly digest · 2026-W19", "emoji": True},
                },
                {
                    "type": "section",
                    "text": {
                        "type": "mrkdwn",
                        "verbatim": True,
                        "text": "198 PRs merged, 24 key. <https://github.com/o/r/pull/1|#1>",
                    },
                },
                {
                    "type": "section",
                    "fields": [
                        {"type": "mrkdwn", "text": "*merged*\n198", "verbatim": True},
                        {"type": "mrkdwn", "text": "*key*\n24", "verbatim": True},
                    ],
                },
                {
                    "type": "context",
                    "elements": [
                        {
                            "type": "mrkdwn",
                            "verbatim": True,
                            "text": "The details follow in this message's thread (1 reply).",
                        },
                    ],
                },
            ],
        },
        {
            "text": "Key changes\n<https://github.com/o/r/pull/42121|#42121> Remove Tree Attention — alice  "
            "`key` `breaking`\n    ↳ −1400 lines\n• speculative decoding "
            "<https://github.com/o/r/pull/2|#2>, <https://github.com/o/r/pull/3|#3>",
            "blocks": [
                {"type": "header", "text": {"type": "plain_text", "text": "Key changes", "emoji": True}},
                {
                    "type": "section",
                    "text": {
                        "type": "mrkdwn",
                        "verbatim": True,
                        "text": "<https://github.com/o/r/pull/42121|#42121> Remove Tree "
                        "Attention — alice  `key` `breaking`\n    ↳ −1400 lines",
                    },
                },
                {"type": "divider"},
                {
                    "type": "section",
                    "text": {
                        "type": "mrkdwn",
                        "verbatim": True,
                        "text": "• speculative decoding <https://github.com/o/r/pull/2|#2>, "
                        "<https://github.com/o/r/pull/3|#3>",
                    },
                },
            ],
        },
    ]
    assert all(violations(m) == [] for m in messages)


def test_compact_mode_packs_sections_into_one_message() -> None:
    reply = Reply(
        command="digest",
        title="T",
        blocks=[Paragraph(text="a")],
        sections=[Section(title="S", blocks=[Paragraph(text="b")])],
    )
    assert len(render(reply, mode="thread")) == 2
    (only,) = render(reply, mode="compact")
    assert [b["type"] for b in only.blocks] == ["header", "section", "header", "section"]


def test_hostile_title_is_inert() -> None:
    item = PRItem(pr=ref(7, HOSTILE, author="@everyone"), tags=["<!here>"], lines=[HOSTILE])
    (message,) = render(Reply(command="pr", blocks=[item]))
    text = message.blocks[0]["text"]["text"]
    assert text == (
        "<https://github.com/o/r/pull/7|#7> &lt;!channel&gt; @"
        + Z
        + "here &lt;@U123&gt; &amp; &lt;b&gt; — @"
        + Z
        + "everyone  `&lt;!here&gt;`\n    ↳ &lt;!channel&gt; @"
        + Z
        + "here &lt;@U123&gt; &amp; &lt;b&gt;"
    )
    assert violations(message) == []
    for s in all_mrkdwn([message]):
        assert "<!" not in s and "<@" not in s


def test_every_control_sequence_is_escaped_everywhere() -> None:
    evil = "<!everyone> <!subteam^S1|@team> <#C1> <http://evil|click> @channel"
    reply = Reply(
        command="search",
        title=evil,
        blocks=[
            Heading(text=evil),
            Heading(text=evil, level=3),
            Paragraph(text=evil, prs=[ref(1, evil)]),
            BulletList(items=[Bullet(text=evil)]),
            Facts(items=[(evil, evil)]),
            Table(columns=[evil], rows=[[evil]]),
            PRItem(pr=ref(2, evil, evil), tags=[evil], lines=[evil]),
        ],
    )
    for mode in ("thread", "compact"):
        messages = render(reply, mode=mode)
        assert all(violations(m) == [] for m in messages)
        # the header is plain_text: shown literally, never parsed
        assert messages[0].blocks[0] == {
            "type": "header",
            "text": {"type": "plain_text", "text": evil, "emoji": True},
        }


def test_formatting_markers_in_titles_are_neutralised() -> None:
    assert mrkdwn_text("*bold* _it_ ~s~ `stray") == (
        f"{Z}*{Z}bold{Z}*{Z} {Z}_{Z}it{Z}_{Z} {Z}~{Z}s{Z}~{Z} {Z}`{Z}stray"
    )
    # a balanced code span stays code (nothing formats inside it), its content still escaped
    assert mrkdwn_text("Add `--max_model_len` to `<!here> *x*` and `") == (
        f"Add `--max_model_len` to `&lt;!here&gt; *x*` and {Z}`{Z}"
    )
    assert mrkdwn_text("`@channel`") == f"`@{Z}channel`"
    assert mrkdwn_text("> quoted\nline", multiline=True) == f"{Z}&gt; quoted\nline"
    assert mrkdwn_text("a\n b\t c") == "a b c"
    assert mrkdwn_text("ok\x1b[2J\x1b]0;pwned\x07\u202efake") == "okfake"


def test_pr_links_only_for_plain_http_urls() -> None:
    assert pr_link(ref(5)) == "<https://github.com/o/r/pull/5|#5>"
    assert pr_link(PRRef(number=5, title="t", url="https://x/a?b=1&c=2")) == "<https://x/a?b=1&amp;c=2|#5>"
    assert pr_link(PRRef(number=5, title="t", url="javascript:alert(1)")) == "#5"
    assert pr_link(PRRef(number=5, title="t", url="https://x/|<!channel>")) == "#5"
    assert pr_link(PRRef(number=5, title="t", url="https://x/" + "a" * 600)) == "#5"


def test_long_header_becomes_a_bold_section_and_nothing_is_cut() -> None:
    title = "x" * (MAX_HEADER_CHARS + 1)
    (message,) = render(Reply(command="digest", title=title, blocks=[Paragraph(text="p")]))
    assert message.blocks[0] == {
        "type": "section",
        "text": {"type": "mrkdwn", "text": f"*{title}*", "verbatim": True},
    }
    assert violations(message) == []


def test_usage_notice_is_short_and_ephemeral_material() -> None:
    msg = render_notice(Reply.usage("pr", "'abc' is not a PR number — usage: /pr NUMBER"))
    assert msg.payload() == {
        "text": "'abc' is not a PR number — usage: /pr NUMBER",
        "blocks": [
            {
                "type": "section",
                "text": {
                    "type": "mrkdwn",
                    "verbatim": True,
                    "text": ":warning: 'abc' is not a PR number — usage: /pr NUMBER",
                },
            },
            {
                "type": "context",
                "elements": [
                    {
                        "type": "mrkdwn",
                        "verbatim": True,
                        "text": "Type `/help` for every command, or `/help COMMAND` for one.",
                    }
                ],
            },
        ],
    }


def stress_reply(n: int = 400) -> Reply:
    """Everything at once and oversized: 400 long-titled PRs, a 20k-character paragraph, a 600-row
    table, 35 facts (one huge), 300 bullets, a 400-character heading."""
    prs = [
        ref(i, f"[Kernel] {HOSTILE} " + "very long title " * 30 + str(i), author=f"dev{i}")
        for i in range(1, n + 1)
    ]
    blocks: list = [
        Paragraph(text="Summary. " + "word " * 4000, prs=prs[:50]),
        Facts(items=[(f"fact {i}", str(i)) for i in range(34)] + [("huge", "v" * 2500)]),
        BulletList(items=[Bullet(text=f"highlight {i} " + "x" * 80, prs=prs[i : i + 3]) for i in range(300)]),
    ]
    items: list = [
        PRItem(pr=p, tags=["key", "core-path"], lines=["gist " * 40, "evidence: a.py, b.py"]) for p in prs
    ]
    table = Table(
        columns=["module", "now", "avg"], rows=[[f"m{i}", str(i), f"{i / 3:.1f}"] for i in range(600)]
    )
    sections = [Section(title="H" * 400, blocks=items), Section(title="Trends", blocks=[table])]
    return Reply(command="digest", title="Weekly digest", blocks=blocks, sections=sections)


def test_a_huge_reply_stays_within_every_limit_and_loses_nothing() -> None:
    reply = stress_reply()
    for mode in ("thread", "compact"):
        messages = render(reply, mode=mode)
        assert len(messages) > 1
        for m in messages:
            assert violations(m) == [], violations(m)
            assert len(m.blocks) <= MAX_BLOCKS
            assert (
                len(json.dumps(m.blocks, ensure_ascii=False, separators=(",", ":"))) <= MAX_BLOCKS_JSON_CHARS
            )
        everything = "\n".join(all_mrkdwn(messages, fallback=False))
        linked = set(map(int, re.findall(r"\|#(\d+)>", everything)))
        assert linked == set(range(1, 401))
        # every PR's full title and every table row made it
        for i in (1, 200, 400):
            assert mrkdwn_text(reply.sections[0].blocks[i - 1].pr.title) in everything  # type: ignore[union-attr]
        assert all(f"m{i} " in everything for i in range(600))
        assert "v" * 1000 in everything.replace("\n", "")
        assert everything.count("highlight ") == 300


def test_thread_mode_starts_every_section_in_a_new_message() -> None:
    messages = render(stress_reply(20))
    # the lead carries the title and points to its thread
    assert messages[0].blocks[0]["type"] == "header"
    assert messages[0].blocks[-1]["type"] == "context"
    starts = [m.blocks[0] for m in messages[1:]]
    assert any(b["type"] == "section" and b["text"]["text"].startswith("*HHH") for b in starts)
    assert any(
        b == {"type": "header", "text": {"type": "plain_text", "text": "Trends", "emoji": True}}
        for b in starts
    )


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_any_text_is_inert(text: str) -> None:
    out = mrkdwn_text(text)
    assert "<" not in out and ">" not in out
    assert not re.search(r"@(here|channel|everyone)\b", out, re.I)


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab &<>*_\n"), max_size=900), st.integers(min_value=20, max_value=300)
)
@example("<______", 20)  # an entity, then markers up to the limit: no safe point in the window
def test_split_keeps_every_character_and_each_piece_fits(text: str, limit: int) -> None:
    safe = mrkdwn_text(text, multiline=True)
    pieces = split_mrkdwn(safe, limit)
    assert all(0 < len(p) <= limit for p in pieces)
    squash = re.compile(r"[\s]")
    assert squash.sub("", "".join(pieces)) == squash.sub("", safe)
    for p in pieces:  # no entity is cut in half
        assert not re.search(r"&(a|am|l|g|amp|lt|gt)?$", p) or p.endswith(("&amp;", "&lt;", "&gt;"))


def test_section_limit_constant_matches_slack() -> None:
    assert (MAX_BLOCKS, MAX_SECTION_CHARS, MAX_HEADER_CHARS) == (50, 3000, 150)


def test_the_fixed_texts_follow_the_replys_language() -> None:
    from bot.chat.slack.render import apology

    long = Reply(
        command="digest",
        title="t",
        blocks=[Paragraph(text="lead")],
        sections=[
            Section(title="a", blocks=[Paragraph(text="x")]),
            Section(title="b", blocks=[Paragraph(text="y")]),
        ],
    )
    pointers = {
        lang: render(replace(long, lang=lang))[0].blocks[-1]["elements"][0]["text"] for lang in ("en", "zh")
    }
    assert pointers == {
        "en": "The details follow in this message's thread (2 replies).",
        "zh": "详细内容见本消息的讨论串（2 条回复）。",
    }
    usage = replace(Reply.usage("pr", "x"), lang="zh")
    assert render_notice(usage).blocks[-1]["elements"][0]["text"].startswith("输入 `/help`")
    assert apology("zh").text.startswith(":x: 抱歉")
    chart = Reply(command="digest", blocks=[Image(name="c.png", alt="PRs per module")])
    (message,) = render(chart)
    assert message.blocks == [
        {
            "type": "context",
            "elements": [{"type": "mrkdwn", "text": "[image: PRs per module]", "verbatim": True}],
        }
    ]
    online = replace(chart, blocks=[Image(name="c.png", alt="a", url="https://example.com/c.png")])
    assert render(online)[0].blocks == [
        {"type": "image", "image_url": "https://example.com/c.png", "alt_text": "a"}
    ]
