"""Reply → Discord messages of embeds: pure, no I/O, no discord.py.

Why pure: the exact JSON Discord receives is decided here, so it can be checked byte for byte,
and Discord's limits hold for *any* input — title 256, description 4,096, 25 fields of 256/1,024,
footer 2,048, author 256, 6,000 characters summed over the embeds of one message, 10 embeds a
message, content 2,000. Text that does not fit moves into further embeds and messages (the
shared packer, ``bot.chat.pack``), never cut off.

Every string from a Reply is untrusted (PR titles, authors, the user's own words). It is made
literal for Discord markdown: formatting characters (``* _ ~ ` | [ ] ( ) < > \\``) are
backslash-escaped, as are line starts that would make a heading, list or quote, so
``[click](http://evil)`` is no link and ``<@&123>`` no mention; ``@everyone``/``@here`` get a
zero-width space. Pings are switched off a second time where messages are sent
(``AllowedMentions.none()`` on the client). The only markdown we emit is our own: PR links
``[#123](https://…)``, bold headings and code-span tags.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.chat.pack import Budget, join_within, outside_spans, split_text
from bot.chat.pack import pack as pack_items
from bot.chat.text import clean  # the one place control/bidi characters are stripped
from commands.locale import t
from commands.model import (
    Attachment,
    Block,
    BulletList,
    Divider,
    Facts,
    Heading,
    Image,
    Paragraph,
    PRItem,
    PRRef,
    Reply,
    Table,
)

MAX_TITLE = 256
MAX_DESCRIPTION = 4096
MAX_FIELDS = 25
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FOOTER = 2048
MAX_AUTHOR = 256
MAX_EMBED_TOTAL = 6000
MAX_EMBEDS = 10
MAX_CONTENT = 2000
MAX_URL = 512

# What one message may hold, measured as Discord counts (title + description + fields + footer
# + author name, summed over the embeds).
MESSAGE = Budget(items=MAX_EMBEDS, size=MAX_EMBED_TOTAL)
# The fields of one embed: 25, and a share of the message small enough to leave room for a title.
FIELDS = Budget(items=MAX_FIELDS, size=MAX_EMBED_TOTAL - MAX_TITLE - MAX_FOOTER)
# A lead message keeps this much free for the footer that points to its thread.
POINTER_RESERVE = 200
COLOR = 0x5865F2  # Discord's blurple: one calm colour for every answer
NOTICE_COLOR = 0xFEE75C

ZWSP = "\u200b"
Embed = dict[str, Any]
Mode = Literal["thread", "compact"]


@dataclass
class DiscordMessage:
    """One message: optional ``content``, up to 10 embeds (plain JSON, as the API takes it) and
    the files sent with it as multipart attachments (the chart, referenced by an embed's image as
    ``attachment://chart.png``)."""

    content: str = ""
    embeds: list[Embed] = field(default_factory=list)
    files: list[Attachment] = field(default_factory=list)

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"embeds": self.embeds}
        if self.content:
            out["content"] = self.content
        return out


# -- escaping ---------------------------------------------------------------------------------

_SPECIAL = re.compile(r"([\\*_~`|\[\]()<>])")
# a line start that would make a heading, a list item, a block quote or a numbered list
_LINE_START = re.compile(r"^(\s*)(#|-|\+|>|\d+\.)", re.MULTILINE)
_BROADCAST = re.compile(r"@(everyone|here)\b", re.IGNORECASE)
_SPACES = re.compile(r"\s+")


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _literal(text: str) -> str:
    out = _SPECIAL.sub(r"\\\1", text)
    return _BROADCAST.sub(lambda m: f"@{ZWSP}{m.group(1)}", out)


def md_text(text: str, *, multiline: bool = False) -> str:
    """Untrusted text shown literally in Discord markdown (see the module docstring).

    The one construct kept is a balanced code span (```--max-model-len```, common in PR titles):
    inside it Discord renders no link, mention or formatting, so it stays as written (with
    ``@everyone`` broken up all the same)."""
    text = clean(text)
    if not multiline:
        text = _SPACES.sub(" ", text).strip()
    parts: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(text):
        parts += [
            _literal(text[pos : m.start()]),
            f"`{_BROADCAST.sub(lambda b: f'@{ZWSP}{b.group(1)}', m.group(1))}`",
        ]
        pos = m.end()
    parts.append(_literal(text[pos:]))
    return _LINE_START.sub(_escape_line_start, "".join(parts))


def _escape_line_start(m: re.Match[str]) -> str:
    """``\\#``, ``\\-``, ``\\>`` — but ``1\\.``: a backslash before a digit escapes nothing and
    shows, so a numbered line keeps its number and escapes its dot."""
    lead, mark = m.group(1), m.group(2)
    return f"{lead}{mark[:-1]}\\." if mark.endswith(".") else f"{lead}\\{mark}"


def plain(text: str) -> str:
    """Untrusted text for a code span (tags, tables): one line, mentions broken up."""
    out = _SPACES.sub(" ", clean(text)).strip()
    return _BROADCAST.sub(lambda m: f"@{ZWSP}{m.group(1)}", out)


_SAFE_URL = re.compile(r"^https?://[^\s<>()\[\]\x00-\x1f]+$")


def safe_url(url: str) -> bool:
    return len(url) <= MAX_URL and bool(_SAFE_URL.match(url))


def pr_link(pr: PRRef) -> str:
    """``[#123](url)``; a URL that is not plain http(s) is not linked at all."""
    label = f"#{pr.number}"
    return f"[{label}]({pr.url})" if safe_url(pr.url) else label


def pr_links(prs: Sequence[PRRef]) -> str:
    return ", ".join(pr_link(p) for p in prs)


def _safe_cut(text: str, limit: int) -> int:
    """Where to cut: a newline, else a space, never inside our ``[#n](url)`` link or right
    after an escaping backslash."""
    window = text[:limit]
    cut = window.rfind("\n")
    if cut < limit // 2:
        space = window.rfind(" ")
        cut = space if space >= limit // 2 else limit
    spans = _spans(text)
    moved = -1
    while moved != cut:  # each rule only moves the cut back: stop when none moves it
        moved = cut
        start = text.rfind("[#", 0, cut)
        while start > 0 and _escaped(text, start):  # an escaped "\\[#" is a title's text, not our link
            start = text.rfind("[#", 0, start)
        if start != -1:
            end = text.find(")", start)
            if end >= cut and text.find("](", start) < cut + MAX_URL:
                cut = start if start > 0 else cut
        while 0 < cut < len(text) and text[cut - 1] == "\\":
            cut -= 1
        cut = outside_spans(cut, spans)  # not inside our code span or bold
    if cut < 1:  # no safe place: at least keep an escape with the character it escapes
        return 2 if text.startswith("\\") and len(text) > 1 else 1
    return cut


def _escaped(text: str, i: int) -> bool:
    """Whether ``text[i]`` follows an escaping backslash (an odd run of them)."""
    run = 0
    while i - run > 0 and text[i - run - 1] == "\\":
        run += 1
    return run % 2 == 1


def _spans(text: str) -> list[tuple[int, int]]:
    """The code spans and bold (``**``) of our own making in markdown we wrote, as the indices
    of their opening and closing markers: untrusted markers are backslash-escaped, and inside a
    code span nothing is an escape and only its closing backtick counts."""
    spans: list[tuple[int, int]] = []
    code: int | None = None
    bold: int | None = None
    i = 0
    while i < len(text):
        ch = text[i]
        if code is not None:
            if ch == "`":
                spans.append((code, i))
                code = None
        elif ch == "\\":
            i += 1  # the escaped character is literal
        elif ch == "`":
            code = i
        elif text.startswith("**", i):
            if bold is None:
                bold = i
            else:
                spans.append((bold, i + 1))
                bold = None
            i += 1
        i += 1
    return spans


def split_md(text: str, limit: int) -> list[str]:
    return split_text(text, limit, _safe_cut)


# -- blocks → entries (text) and fields ---------------------------------------------------------


class HeadingEntry(str):
    """A heading's line: the same text, marked so that no split leaves it last in a description
    (or an embed last in a message) with its content in the next."""

    __slots__ = ()


class HeadedEmbed(dict[str, Any]):
    """An embed whose text ends with a heading whose content comes in the next embed (fields):
    packing keeps the two in one message."""


def _is_heading(entry: str) -> bool:
    return isinstance(entry, HeadingEntry)


@dataclass
class _Run:
    """Consecutive content of one kind: text entries (an embed description) or fields."""

    kind: Literal["text", "fields"]
    items: list[Any] = field(default_factory=list)


def _tag(tag: str) -> str:
    text = plain(tag).replace("`", "'")
    return f"`{text}`" if text else ""


def pr_entry(item: PRItem) -> str:
    """``[#123](url) title — author `tag` `tag``` then one indented line per detail."""
    head = f"{pr_link(item.pr)} {md_text(item.pr.title)}".rstrip()
    if item.pr.author:
        head += f" — {md_text(item.pr.author)}"
    tags = " ".join(x for x in (_tag(tag) for tag in item.tags) if x)
    if tags:
        head += f"  {tags}"
    lines = [f"  ↳ {md_text(line)}" for line in item.lines if line.strip()]
    return "\n".join([head, *lines])


def _table(block: Table) -> list[str]:
    rows = [[plain(c) for c in block.columns], *[[plain(c) for c in row] for row in block.rows]]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(width)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip().replace("`", "'") for r in rows
    ]
    budget = MAX_DESCRIPTION - 8
    pieces = [p for line in lines for p in (split_text(line, budget, lambda s, n: n) or [" "])]
    return ["```\n" + chunk + "\n```" for chunk in join_within(pieces, budget)]


def _runs(blocks: Sequence[Block], lang: str, attached: frozenset[str] = frozenset()) -> list[_Run]:
    runs: list[_Run] = []

    def add(kind: Literal["text", "fields"], *items: Any) -> None:
        if not runs or runs[-1].kind != kind:
            runs.append(_Run(kind))
        runs[-1].items.extend(items)

    for block in blocks:
        if isinstance(block, PRItem):
            add("text", pr_entry(block))
        elif isinstance(block, Heading):
            text = md_text(block.text)
            if text:
                add("text", HeadingEntry(f"**{text}**"))
        elif isinstance(block, Paragraph):
            body = md_text(block.text, multiline=True).strip()
            links = pr_links(block.prs)
            body = f"{body} {links}".strip() if links else body
            if body:
                add("text", body)
        elif isinstance(block, BulletList):
            for i, item in enumerate(block.items, block.start):
                marker = f"{i}\\." if block.ordered else "•"
                links = pr_links(item.prs)
                entry = f"{marker} {md_text(item.text)}"
                add("text", f"{entry} {links}" if links else entry)
        elif isinstance(block, Facts):
            for label, value in block.items:
                name, text = md_text(label), md_text(value, multiline=True)
                if 0 < len(name) <= MAX_FIELD_NAME and 0 < len(text) <= MAX_FIELD_VALUE:
                    add("fields", {"name": name, "value": text, "inline": True})
                else:  # too long for a field: a line of text instead, nothing cut
                    add("text", f"**{md_text(label)}**: {text}")
        elif isinstance(block, Table):
            add("text", *_table(block))
        elif isinstance(block, Divider):
            continue
        elif isinstance(block, Image) and block.name not in attached:  # attached: the lead's embed shows it
            add("text", md_text(t(lang, "chat.image", alt=block.alt)))
    return runs


def embed_size(embed: Mapping[str, Any]) -> int:
    """The characters Discord counts toward 6,000 per message."""
    size = len(embed.get("title") or "") + len(embed.get("description") or "")
    size += len((embed.get("footer") or {}).get("text") or "")
    size += len((embed.get("author") or {}).get("name") or "")
    for f in embed.get("fields") or []:
        size += len(f.get("name") or "") + len(f.get("value") or "")
    return size


def embeds_for(
    title: str, blocks: Sequence[Block], lang: str = "en", attached: frozenset[str] = frozenset()
) -> list[Embed]:
    """One titled part (a reply's lead, or a section) as embeds, each within every embed limit;
    the first carries the title. Images whose file is ``attached`` are left to ``render``."""
    embeds: list[Embed] = []
    for run in _runs(blocks, lang, attached):
        if run.kind == "text":
            pieces = [p for entry in run.items for p in split_md(entry, MAX_DESCRIPTION)]
            sep = "\n\n" if any("\n" in p for p in pieces) else "\n"
            texts = join_within(pieces, MAX_DESCRIPTION, sep, keep_with_next=_is_heading)
            embeds.extend({"description": text} for text in texts)
            if pieces and _is_heading(pieces[-1]):  # its content is the fields that follow
                embeds[-1] = HeadedEmbed(embeds[-1])
        else:
            for group in pack_items(run.items, FIELDS, lambda f: len(f["name"]) + len(f["value"])):
                embeds.append({"fields": group})
    head = md_text(title)
    if head:
        if len(head) <= MAX_TITLE and (not embeds or embed_size(embeds[0]) + len(head) <= MAX_EMBED_TOTAL):
            embeds = embeds or [{}]
            embeds[0] = type(embeds[0])({"title": head, **embeds[0]})
        else:  # a title too long for the title line opens the text instead, in bold, whole
            pieces = split_md(head, MAX_DESCRIPTION - 4)
            embeds[:0] = [{"description": f"**{piece}**"} for piece in pieces]
    for e in embeds:
        e["color"] = COLOR
    return [e for e in embeds if embed_size(e) > 0]


def pack(embeds: Sequence[Embed], budget: Budget = MESSAGE) -> list[list[Embed]]:
    return pack_items(embeds, budget, embed_size, lambda e: isinstance(e, HeadedEmbed))


def _pointer(n: int, lang: str) -> str:
    return t(lang, "chat.thread_pointer_one") if n == 1 else t(lang, "chat.thread_pointer", n=n)


DELIVERY_MARK = "prdigest delivery "  # footer text before a scheduled delivery's key


def delivery_footer(pointer: str, key: str | None) -> dict[str, str]:
    """The lead's footer: the pointer to its thread and, for a scheduled delivery, its key — where
    ``DiscordPoster.find_delivery`` looks for an earlier attempt's post."""
    mark = f"{DELIVERY_MARK}{key}" if key else ""
    pointer = pointer[: POINTER_RESERVE - (len(mark) + 3 if mark else 0)]
    return {"text": " · ".join(p for p in (pointer, mark) if p)}


def footer_key(message: Mapping[str, Any]) -> str | None:
    """The delivery key in a message's embed footers (a message as Discord returns it), if any."""
    for embed in message.get("embeds") or []:
        text = str((embed.get("footer") or {}).get("text") or "")
        _, mark, rest = text.rpartition(DELIVERY_MARK)
        if mark and rest:
            return rest.split()[0]
    return None


def _image_block(reply: Reply) -> Image | None:
    """The lead's picture whose file goes with the reply (the digest's chart), if any."""
    names = {f.name for f in reply.files}
    return next((b for b in reply.blocks if isinstance(b, Image) and b.name in names), None)


def render(reply: Reply, *, mode: Mode = "thread") -> list[DiscordMessage]:
    """A Reply as one or more messages.

    ``thread``: the first message is the lead (the title, then the Reply's lead blocks: a
    digest's summary and top highlights) and every section starts a new message, to be posted
    in the lead's thread; the lead's last embed says how many follow. ``compact``: everything
    packed into as few messages as possible (interaction followups). A scheduled delivery's key
    (``Reply.delivery_key``) goes into the lead's footer; a picture whose file goes with the reply
    (``Reply.files``) is the lead's embed image, ``attachment://NAME``, sent with the lead.
    """
    if reply.status != "ok":
        return [render_notice(reply)]
    lang = reply.lang
    image = _image_block(reply)
    attached = frozenset({image.name}) if image is not None else frozenset()
    lead = embeds_for(reply.title, reply.blocks, lang, attached)
    parts = [embeds_for(s.title, s.blocks, lang) for s in reply.sections]
    if not lead and not any(parts):
        lead = [{"description": md_text(reply.title or reply.command), "color": COLOR}]
    key = reply.delivery_key
    if mode == "compact":
        budget = MESSAGE.less(size=POINTER_RESERVE) if key else MESSAGE
        groups = pack([*lead, *(e for part in parts for e in part)], budget)
    else:
        groups = pack(lead, MESSAGE.less(size=POINTER_RESERVE)) if lead else []
        groups += [g for part in parts for g in pack(part)]
    if groups and lead:
        pointer = _pointer(len(groups) - 1, lang) if mode == "thread" and len(groups) > 1 else ""
        if pointer or key:
            groups[0][-1]["footer"] = delivery_footer(pointer, key)
    messages = [DiscordMessage(embeds=g) for g in groups]
    if image is not None and messages and messages[0].embeds:
        messages[0].embeds[-1]["image"] = {"url": f"attachment://{image.name}"}
        messages[0].files = [f for f in reply.files if f.name == image.name]
    return messages


NOTICE_ICONS = {"usage": "⚠️", "not_found": "🔍", "error": "❌"}


def render_notice(reply: Reply) -> DiscordMessage:
    """A usage / not-found / error answer: one short message of plain content."""
    icon = NOTICE_ICONS.get(reply.status, "ℹ️")
    hint = f"\n{t(reply.lang, 'chat.help_hint')}" if reply.status == "usage" else ""
    text = md_text(reply.title or reply.status, multiline=True)
    room = MAX_CONTENT - len(hint) - len(icon) - 1
    if len(text) > room:  # never silently: the cut is marked (usage lines are short in practice)
        text = split_md(text, room - 2)[0] + " …"
    return DiscordMessage(content=f"{icon} {text}{hint}")


def text_message(text: str, icon: str = "") -> DiscordMessage:
    """Our own sentence (an apology, an overflow notice) as content within 2,000 characters."""
    body = f"{icon} {text}".strip() if icon else text
    if len(body) > MAX_CONTENT:  # never silently: the cut is marked (notices are one line in practice)
        body = split_md(body, MAX_CONTENT - 2)[0] + " …"
    return DiscordMessage(content=body)


def apology(lang: str = "en") -> DiscordMessage:
    return text_message(t(lang, "chat.apology"), "❌")


# -- limits, checked ----------------------------------------------------------------------------

_OUR_LINK = re.compile(r"\[#\d+\]\(https?://[^\s()<>]+\)")
_UNESCAPED = re.compile(r"(?<!\\)(?:\\\\)*([<\[\]()])")


def _texts(message: DiscordMessage) -> Iterable[str]:
    yield message.content
    for e in message.embeds:
        yield e.get("title") or ""
        yield e.get("description") or ""
        for f in e.get("fields") or []:
            yield f.get("name") or ""
            yield f.get("value") or ""


def violations(message: DiscordMessage | Mapping[str, Any]) -> list[str]:
    """Every way a message breaks Discord's limits or our escaping rules (empty when fine)."""
    if not isinstance(message, DiscordMessage):
        message = DiscordMessage(str(message.get("content") or ""), list(message.get("embeds") or []))
    problems: list[str] = []
    if not message.content and not message.embeds:
        problems.append("an empty message")
    if len(message.content) > MAX_CONTENT:
        problems.append(f"content of {len(message.content)} characters > {MAX_CONTENT}")
    if len(message.embeds) > MAX_EMBEDS:
        problems.append(f"{len(message.embeds)} embeds > {MAX_EMBEDS}")
    total = sum(embed_size(e) for e in message.embeds)
    if total > MAX_EMBED_TOTAL:
        problems.append(f"{total} characters over all embeds > {MAX_EMBED_TOTAL}")
    for i, e in enumerate(message.embeds):
        if embed_size(e) == 0:
            problems.append(f"embed {i} is empty")
        for key, limit in (("title", MAX_TITLE), ("description", MAX_DESCRIPTION)):
            if len(e.get(key) or "") > limit:
                problems.append(f"embed {i}: {key} of {len(e[key])} characters > {limit}")
        if len((e.get("footer") or {}).get("text") or "") > MAX_FOOTER:
            problems.append(f"embed {i}: footer over {MAX_FOOTER}")
        if len((e.get("author") or {}).get("name") or "") > MAX_AUTHOR:
            problems.append(f"embed {i}: author name over {MAX_AUTHOR}")
        fields = e.get("fields") or []
        if len(fields) > MAX_FIELDS:
            problems.append(f"embed {i}: {len(fields)} fields > {MAX_FIELDS}")
        for j, f in enumerate(fields):
            if not 0 < len(f.get("name") or "") <= MAX_FIELD_NAME:
                problems.append(f"embed {i} field {j}: name of {len(f.get('name') or '')} characters")
            if not 0 < len(f.get("value") or "") <= MAX_FIELD_VALUE:
                problems.append(f"embed {i} field {j}: value of {len(f.get('value') or '')} characters")
    for text in _texts(message):
        stripped = _CODE_SPAN.sub("", _OUR_LINK.sub("", text))
        bad = _UNESCAPED.search(stripped)
        if bad:
            problems.append(f"unescaped {bad.group(1)!r} in {text[:60]!r}")
        if _BROADCAST.search(stripped):
            problems.append(f"live broadcast mention in {text[:60]!r}")
    return problems
