"""Markup never breaks where text is cut, in Slack mrkdwn and Discord markdown.

Two kinds of cut: a quoted PR description shortened for a sentence (the quote ends wherever the
limit falls, perhaps inside a code span) and a long text split into pieces for the platform's
limits. Either way every piece must pair its own markers: an unpaired backtick turns the rest of
a line into code and takes our own code spans (``risks breaking 2026-W19``) with it. The markup
is read back here by tokenizers written for the test, independent of the renderers' own code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.chat.discord import render as discord
from bot.chat.slack import render as slack
from classify.models import Classification, Flag, PullRequest
from classify.text import shorten
from commands.locale import t
from commands.model import Bullet, BulletList, Heading, Paragraph, PRRef, Reply, Section
from commands.report import compose
from storage.prs import StoredPR

ZWSP = "\u200b"
COMMAND = "risks breaking 2026-W19"
REF = PRRef(number=39832, title="t", url="https://github.com/o/r/pull/39832")
UNTRUSTED = st.text(alphabet=st.sampled_from("ab cd`*_~[]()<>|\\#\n…"), max_size=200)

_SLACK_LINK = re.compile(r"<https?://[^\s<>|]+\|#\d+>")
_DISCORD_LINK = re.compile(r"\[#\d+\]\(https?://[^\s()<>]+\)")


def slack_markup(text: str) -> tuple[list[str], list[str]]:
    """(code span contents, problems) of a mrkdwn text: a marker that counts (not wrapped in
    zero-width spaces) must close what it opened in the same text; ``<``/``>`` only in our links."""
    text = _SLACK_LINK.sub("L", text)
    spans: list[str] = []
    problems = [f"bare {ch!r}" for ch in "<>" if ch in text]
    code: int | None = None
    bold = False
    for i, ch in enumerate(text):
        wrapped = 0 < i < len(text) - 1 and text[i - 1] == ZWSP and text[i + 1] == ZWSP
        if ch not in "`*_~" or wrapped:
            continue
        if code is not None:
            if ch == "`":
                spans.append(text[code + 1 : i])
                code = None
        elif ch == "`":
            code = i
        elif ch == "*":
            bold = not bold
        else:
            problems.append(f"live {ch!r} at {i}")
    if code is not None:
        problems.append(f"unpaired backtick at {code}")
    if bold:
        problems.append("unpaired *")
    return spans, problems


def discord_markup(text: str) -> tuple[list[str], list[str]]:
    """The same for Discord: an unescaped marker outside our links and code spans is live."""
    text = _DISCORD_LINK.sub("L", text)
    spans: list[str] = []
    problems: list[str] = []
    code: int | None = None
    bold = False
    i = 0
    while i < len(text):
        ch = text[i]
        if code is not None:
            if ch == "`":
                spans.append(text[code + 1 : i])
                code = None
        elif ch == "\\":
            i += 1
        elif ch == "`":
            code = i
        elif text.startswith("**", i):
            bold = not bold
            i += 1
        elif ch in "*_~|[]()<>":
            problems.append(f"live {ch!r} at {i}")
        i += 1
    if code is not None:
        problems.append(f"unpaired backtick at {code}")
    if bold:
        problems.append("unpaired **")
    return spans, problems


def slack_texts(reply: Reply, mode: str = "compact") -> list[str]:
    out = []
    for message in slack.render(reply, mode=mode):  # type: ignore[arg-type]
        for block in message.blocks:
            if "text" in block and block["text"]["type"] == "mrkdwn":
                out.append(block["text"]["text"])
            out += [f["text"] for f in block.get("fields", [])]
    return out


def discord_texts(reply: Reply, mode: str = "compact") -> list[str]:
    out = []
    for message in discord.render(reply, mode=mode):  # type: ignore[arg-type]
        out.append(message.content)
        for embed in message.embeds:
            out += [embed.get("title") or "", embed.get("description") or ""]
    return [x for x in out if x]


def breaking_sentence(description: str, lang: str, title: str) -> str:
    """The digest's risk line for one breaking change quoted from ``description``, as composed."""
    stored = 'body: "' + shorten(" ".join(description.split()), 100) + '"'  # as the classifier keeps it
    flag = Flag(kind="breaking", evidence=[stored])
    pr = PullRequest(
        repo="o/r",
        number=1,
        title=title,
        url="https://github.com/o/r/pull/1",
        merged_at=datetime(2026, 5, 5, tzinfo=UTC),
    )
    item = compose._breaking_item(StoredPR(pr=pr, cls=Classification(flags=[flag])), lang)
    more = t(lang, "digest.risk_more", n=4, command=COMMAND)
    return t(lang, "digest.risk_breaking", n=7, items=item, more=more)


@settings(max_examples=300, deadline=None)
@given(UNTRUSTED, st.sampled_from(["en", "zh"]), UNTRUSTED.filter(str.strip))
@example(
    "out-of-tree connectors that still implement `__init__(self, config)` are no longer accepted",
    "en",
    "Drop x",
)
@example("a `b` c `d e f g h " * 8, "zh", "Rename `x")
@example("``<`", "en", "t")
def test_a_quote_cut_anywhere_leaves_our_code_span_whole(description: str, lang: str, title: str) -> None:
    reply = Reply(
        command="digest",
        blocks=[BulletList(items=[Bullet(text=breaking_sentence(description, lang, title), prs=[REF])])],
    )
    for texts, read in ((slack_texts(reply), slack_markup), (discord_texts(reply), discord_markup)):
        spans = [span for text in texts for span in read(text)[0]]
        problems = [p for text in texts for p in read(text)[1]]
        assert problems == [], texts
        assert COMMAND in spans, texts


ATOMS = st.one_of(
    UNTRUSTED.map(lambda s: ("text", s)),
    st.text(alphabet="abc -_*<@", min_size=1, max_size=20).map(lambda s: ("code", s)),
    st.text(alphabet="abc *_", min_size=1, max_size=20).map(lambda s: ("bold", s)),
    st.integers(min_value=1, max_value=99999).map(lambda n: ("link", str(n))),
)


def _link(pr_link: Callable[[PRRef], str], n: str) -> str:
    return pr_link(PRRef(number=int(n), title="", url=f"https://e.x/{n}"))


# how each platform writes our own markup around untrusted text
MARKUP: dict[str, dict[str, Callable[[str], str]]] = {
    "slack": {
        "text": lambda s: slack.mrkdwn_text(s, multiline=True),
        "code": lambda s: f"`{slack.code_text(s)}`",
        "bold": lambda s: f"*{slack.mrkdwn_text(s)}*",
        "link": lambda n: _link(slack.pr_link, n),
    },
    "discord": {
        "text": lambda s: discord.md_text(s, multiline=True),
        "code": lambda s: f"`{s}`",
        "bold": lambda s: f"**{discord.md_text(s)}**",
        "link": lambda n: _link(discord.pr_link, n),
    },
}


def _atom(platform: str, kind: str, value: str) -> str:
    if kind in ("code", "bold") and not value.strip():
        return "x"
    return MARKUP[platform][kind](value)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(ATOMS, min_size=1, max_size=30), st.integers(min_value=60, max_value=400), st.sampled_from(" \n")
)
# an escaped "[#" in a title before our link, the whole line over the limit: a cut once took the
# escaped bracket for the link's start and left the backslash alone in the first piece
@example(atoms=[("text", "[#<<<<<<<<<<<<<<<<"), ("link", "1000")], limit=60, sep=" ")
def test_a_split_anywhere_keeps_every_piece_paired(
    atoms: list[tuple[str, str]], limit: int, sep: str
) -> None:
    for platform, split, read in (
        ("slack", slack.split_mrkdwn, slack_markup),
        ("discord", discord.split_md, discord_markup),
    ):
        parts = [_atom(platform, kind, value) for kind, value in atoms]
        assert all(read(p)[1] == [] for p in parts)  # each atom is well formed on its own
        text = sep.join(parts)
        pieces = split(text, limit)
        assert all(len(p) <= limit for p in pieces)
        for piece in pieces:
            assert read(piece)[1] == [], (piece, pieces)
        squash = re.compile(r"\s")
        assert squash.sub("", "".join(pieces)) == squash.sub("", text)


def _long_reply() -> Reply:
    """A private answer long enough for several compact messages, with headings everywhere."""
    para = Paragraph(text="word " * 500)
    sections = [
        Section(title=f"Part {i}", blocks=[para, Heading(text=f"Sub {i}", level=3), para, para])
        for i in range(12)
    ]
    return Reply(command="digest", title="Digest", blocks=[para], sections=sections)


def test_no_split_leaves_a_heading_without_its_content() -> None:
    reply = _long_reply()
    slack_messages = slack.render(reply, mode="compact")
    assert len(slack_messages) > 1
    for message in slack_messages:
        last = message.blocks[-1]
        assert last["type"] != "header" and not re.fullmatch(
            r"\*[^*\n]+\*", last.get("text", {}).get("text", "")
        )
    discord_messages = discord.render(reply, mode="compact")
    assert len(discord_messages) > 1
    for message in discord_messages:
        for embed in message.embeds:
            lines = (embed.get("description") or "").splitlines()
            assert not (lines and re.fullmatch(r"\*\*[^*]+\*\*", lines[-1])), lines[-1]
        assert message.embeds[-1].get("description") or message.embeds[-1].get("fields")


def test_discord_numbered_lines_escape_the_dot_not_the_digit() -> None:
    assert discord.md_text("1. AutoWeightsLoader migration") == "1\\. AutoWeightsLoader migration"
    assert discord.md_text("a\n  12. b", multiline=True) == "a\n  12\\. b"
    heading = discord.render(Reply(command="digest", blocks=[Heading(text="3. ROCm", level=3)]))
    assert heading[0].embeds[0]["description"] == "**3\\. ROCm**"
