"""Reply → Block Kit messages: pure, no I/O, no Slack SDK.

Why a separate pure module: the exact JSON Slack receives is decided here and nowhere else, so it
can be tested byte for byte, and Slack's limits hold for *any* input (50 blocks, 3000 characters a
section, 150 a header, 10 fields of 2000, and a safety margin on the whole message, because
``msg_blocks_too_long`` has been reported well below the documented limits). Content that does
not fit is moved into further messages, never cut off.

Every string that comes from a Reply is untrusted (PR titles, authors, body snippets, the user's
own search words): in mrkdwn it is escaped (``&``, ``<``, ``>``), its formatting markers are
neutralised and bare ``@here``/``@channel``/``@everyone`` are broken up, and every mrkdwn object
is sent with ``verbatim: true`` so Slack does not auto-link or auto-parse anything. The only
``<…>`` sequences we ever emit are our own PR links ``<url|#123>``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.chat.pack import Budget, join_within, outside_spans, split_text
from bot.chat.pack import pack as pack_items
from bot.chat.text import clean
from commands.locale import t
from commands.model import (
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

MAX_BLOCKS = 50
MAX_SECTION_CHARS = 3000
MAX_HEADER_CHARS = 150
MAX_FIELDS = 10
MAX_FIELD_CHARS = 2000
MAX_CONTEXT_ELEMENTS = 10
# Slack has answered msg_blocks_too_long near 13k characters of blocks; we stay under this many
# characters of serialised block JSON per message (a stricter measure than the text alone).
MAX_BLOCKS_JSON_CHARS = 12_000
# The notification fallback: short, because the blocks carry the content.
MAX_FALLBACK_CHARS = 500
# A section of fields is kept as small as a text section so one block never dominates a message.
MAX_FIELDS_TOTAL_CHARS = MAX_SECTION_CHARS
MAX_ALT_CHARS = 2000
# One message: 50 blocks and the JSON margin above; ``[`` + ``]`` around the blocks.
MESSAGE = Budget(items=MAX_BLOCKS, size=MAX_BLOCKS_JSON_CHARS, overhead=2)
# What a lead message keeps free for the thread pointer that is added once the thread is known.
POINTER_RESERVE = 200

ZWSP = "\u200b"

SlackBlock = dict[str, Any]
Mode = Literal["thread", "compact"]


@dataclass
class SlackMessage:
    """One chat message: the notification ``text`` fallback and its blocks."""

    text: str
    blocks: list[SlackBlock] = field(default_factory=list)

    def payload(self) -> dict[str, Any]:
        return {"text": self.text, "blocks": self.blocks}


# -- escaping ---------------------------------------------------------------------------------

_FORMAT_CHAR = re.compile(r"[*_~`]")
_BROADCAST = re.compile(r"@(here|channel|everyone)\b", re.IGNORECASE)
_LEADING_QUOTE = re.compile(r"^(\s*)&gt;", re.MULTILINE)
_SPACES = re.compile(r"\s+")
# C0/C1 controls (but newline) and the bidi overrides that can make text read as something else.


def escape(text: str) -> str:
    """Slack's three control characters as entities, so ``<!channel>`` is shown, not executed."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _literal(text: str) -> str:
    out = _FORMAT_CHAR.sub(lambda m: f"{ZWSP}{m.group(0)}{ZWSP}", escape(text))
    return _BROADCAST.sub(lambda m: f"@{ZWSP}{m.group(1)}", out)


def mrkdwn_text(text: str, *, multiline: bool = False) -> str:
    """Untrusted plain text made safe and literal inside a mrkdwn object.

    Formatting markers (``*_~` ``) get a zero-width space on each side: a marker only formats
    when it touches a word on one side and a boundary on the other, which the spaces rule out
    whichever way Slack classifies them. ``@here`` without brackets is split the same way, and
    a line that would start a block quote (``&gt;``) is pushed off the line start. The one
    exception is a balanced code span (```--max-model-len```, common in PR titles): code
    formatting turns every other marker off inside it, so it is kept, its content escaped.
    """
    text = clean(text)
    if not multiline:
        text = _SPACES.sub(" ", text).strip()
    parts: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(text):
        parts += [_literal(text[pos : m.start()]), f"`{code_text(m.group(1))}`"]
        pos = m.end()
    parts.append(_literal(text[pos:]))
    return _LEADING_QUOTE.sub(lambda m: f"{m.group(1)}{ZWSP}&gt;", "".join(parts))


def code_text(text: str) -> str:
    """Untrusted text inside a code span or block: markers are literal there, the rest is not."""
    return _BROADCAST.sub(lambda m: f"@{ZWSP}{m.group(1)}", escape(clean(text)))


def plain_text(text: str) -> str:
    """Text for a ``plain_text`` object (headers): shown literally by Slack, one line."""
    return _SPACES.sub(" ", clean(text)).strip()


_SAFE_URL = re.compile(r"^https?://[^\s<>|\x00-\x1f]+$")
MAX_URL_CHARS = 500


def pr_link(pr: PRRef) -> str:
    """``<url|#123>``; a URL that is not plain http(s) is not linked at all."""
    label = f"#{pr.number}"
    if len(pr.url) > MAX_URL_CHARS or not _SAFE_URL.match(pr.url):
        return label
    return f"<{pr.url.replace('&', '&amp;')}|{label}>"


def pr_links(prs: Sequence[PRRef]) -> str:
    return ", ".join(pr_link(p) for p in prs)


# -- splitting long mrkdwn --------------------------------------------------------------------


def _safe_cut(text: str, limit: int) -> int:
    """Where to cut ``text`` at or before ``limit``: a newline, else a space, never inside an
    entity (``&amp;``), a link (``<…>``) or a ZWSP-wrapped marker."""
    if len(text) <= limit:
        return len(text)
    window = text[:limit]
    cut = window.rfind("\n")
    if cut < limit // 2:
        space = window.rfind(" ")
        cut = space if space >= limit // 2 else limit
    spans = _spans(text)
    moved = -1
    while moved != cut:  # each rule only moves the cut back: stop when none moves it
        moved = cut
        # not between a marker and its zero-width spaces
        while 0 < cut < len(text) and (text[cut] == ZWSP or (text[cut - 1] == ZWSP and text[cut] in "*_~`")):
            cut -= 1
        # not inside a link
        lt = text.rfind("<", 0, cut)
        if lt != -1 and text.find(">", lt) >= cut:
            cut = lt
        # not inside our code span or bold: each piece keeps its markers paired
        cut = outside_spans(cut, spans)
        cut = _outside_entity(text, cut)
    if cut <= 0:
        # No safe point at all in the window (an entity, then markers wrapped in zero-width
        # spaces up to the limit): cut at the limit, still never inside an entity; splitting a
        # marker from its invisible space only costs its protection at the piece's edge.
        cut = _outside_entity(text, limit)
    return max(cut, 1)


def _wrapped(text: str, i: int) -> bool:
    """Whether the marker at ``i`` is an escaped one (a zero-width space on each side)."""
    return 0 < i < len(text) - 1 and text[i - 1] == ZWSP and text[i + 1] == ZWSP


def _spans(text: str) -> list[tuple[int, int]]:
    """The code spans and bold of our own making in mrkdwn we wrote, as the indices of their
    opening and closing markers (untrusted markers are wrapped in zero-width spaces; inside a
    code span only its closing backtick counts)."""
    spans: list[tuple[int, int]] = []
    opened: dict[str, int] = {}
    for i, ch in enumerate(text):
        if ch not in "`*" or _wrapped(text, i) or ("`" in opened and ch != "`"):
            continue
        if ch in opened:
            spans.append((opened.pop(ch), i))
        else:
            opened[ch] = i
    return spans


def _outside_entity(text: str, cut: int) -> int:
    """``cut``, or the start of the entity (``&amp;``) it would fall inside."""
    amp = text.rfind("&", max(0, cut - 5), cut)
    if amp != -1 and ";" not in text[amp:cut]:
        end = text.find(";", amp)
        if 0 <= end - amp <= 5 and end >= cut:
            return amp
    return cut


def split_mrkdwn(text: str, limit: int = MAX_SECTION_CHARS) -> list[str]:
    """Cut text into pieces of at most ``limit`` characters at safe points; nothing is dropped
    except the newline or space a cut lands on."""
    return split_text(text, limit, _safe_cut)


# -- block builders ---------------------------------------------------------------------------


def mrkdwn(text: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": text, "verbatim": True}


def section(text: str) -> SlackBlock:
    return {"type": "section", "text": mrkdwn(text)}


def header(text: str) -> SlackBlock:
    return {"type": "header", "text": {"type": "plain_text", "text": text, "emoji": True}}


def context(*texts: str) -> SlackBlock:
    return {"type": "context", "elements": [mrkdwn(t) for t in texts[:MAX_CONTEXT_ELEMENTS]]}


DIVIDER: SlackBlock = {"type": "divider"}


def _sections(text: str) -> list[SlackBlock]:
    return [section(piece) for piece in split_mrkdwn(text)]


def _packed_sections(entries: Iterable[str], sep: str = "\n") -> list[SlackBlock]:
    """Several short entries per section (a PR list of 400 must not cost 400 blocks)."""
    pieces = [piece for entry in entries if entry for piece in split_mrkdwn(entry)]
    return [section(text) for text in join_within(pieces, MAX_SECTION_CHARS, sep)]


class HeadingBlock(dict[str, Any]):
    """A block that shows a heading: the same JSON as any block, marked so that packing never
    leaves it at the bottom of a message with its content in the next."""


def _heading(block: Heading) -> list[SlackBlock]:
    text = plain_text(block.text)
    if not text:
        return []
    if block.level <= 2 and len(text) <= MAX_HEADER_CHARS:
        return [HeadingBlock(header(text))]
    return [
        HeadingBlock(b)
        for b in _sections(
            f"*{mrkdwn_text(text)}*" if len(text) < MAX_SECTION_CHARS - 2 else mrkdwn_text(text)
        )
    ]


def _paragraph(block: Paragraph) -> list[SlackBlock]:
    text = mrkdwn_text(block.text, multiline=True).strip()
    links = pr_links(block.prs)
    body = f"{text} {links}".strip() if links else text
    return _sections(body) if body else []


def _bullets(block: BulletList) -> list[SlackBlock]:
    entries = []
    for i, item in enumerate(block.items, block.start):
        marker = f"{i}." if block.ordered else "•"
        text = mrkdwn_text(item.text)
        links = pr_links(item.prs)
        entries.append(f"{marker} {text} {links}".rstrip() if links else f"{marker} {text}")
    return _packed_sections(entries)


def _tag(tag: str) -> str:
    clean = plain_text(tag).replace("`", "'")
    return f"`{code_text(clean)}`" if clean else ""


DETAIL_MARK = "    ↳ "


def pr_entry(item: PRItem) -> str:
    """``<url|#123> title — author `tag` `tag``` then one indented line per detail."""
    head = f"{pr_link(item.pr)} {mrkdwn_text(item.pr.title)}".rstrip()
    if item.pr.author:
        head += f" — {mrkdwn_text(item.pr.author)}"
    tags = " ".join(tag for tag in (_tag(x) for x in item.tags) if tag)
    if tags:
        head += f"  {tags}"
    lines = [f"{DETAIL_MARK}{mrkdwn_text(line)}" for line in item.lines if line.strip()]
    return "\n".join([head, *lines])


FIELDS = Budget(items=MAX_FIELDS, size=MAX_FIELDS_TOTAL_CHARS)


def _fields(block: Facts) -> list[SlackBlock]:
    """Label/value pairs as section fields, at most 10 (and 3,000 characters) per section; a pair
    too long for a field becomes a text section of its own, in place."""
    out: list[SlackBlock] = []
    run: list[str] = []

    def flush() -> None:
        for group in pack_items(run, FIELDS, len):
            out.append({"type": "section", "fields": [mrkdwn(f) for f in group]})
        run.clear()

    for label, value in block.items:
        text = f"*{mrkdwn_text(label)}*\n{mrkdwn_text(value, multiline=True)}"
        if len(text) <= MAX_FIELD_CHARS:
            run.append(text)
            continue
        flush()
        out.extend(_packed_sections([f"*{mrkdwn_text(label)}*: {mrkdwn_text(value, multiline=True)}"]))
    flush()
    return out


def _table(block: Table) -> list[SlackBlock]:
    """A fixed-width table in code blocks, cut between rows; every chunk has its own fences."""
    rows = [[plain_text(c) for c in block.columns], *[[plain_text(c) for c in row] for row in block.rows]]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(width)]
    lines = [code_text("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()) for r in rows]
    budget = MAX_SECTION_CHARS - 8  # the fences
    pieces = [piece for line in lines for piece in (split_mrkdwn(line, budget) or [" "])]
    return [section("```\n" + chunk + "\n```") for chunk in join_within(pieces, budget)]


def _image(block: Image, lang: str, files: Mapping[str, str]) -> list[SlackBlock]:
    """A picture: an image block referring to the file a poster uploaded (``files``: name → Slack
    file id), or to a web URL; described in words when it is neither."""
    alt = plain_text(block.alt)[:MAX_ALT_CHARS] or "image"
    if block.name in files:
        return [{"type": "image", "slack_file": {"id": files[block.name]}, "alt_text": alt}]
    if _SAFE_URL.match(block.url) and len(block.url) <= MAX_URL_CHARS:
        return [{"type": "image", "image_url": block.url, "alt_text": alt}]
    return [context(mrkdwn_text(t(lang, "chat.image", alt=alt)))]


def blocks_for(
    chunk: Sequence[Block], lang: str = "en", files: Mapping[str, str] | None = None
) -> list[SlackBlock]:
    """Neutral blocks → Slack blocks, each within its own limits; consecutive PR items share
    sections."""
    out: list[SlackBlock] = []
    pending_prs: list[str] = []

    def flush_prs() -> None:
        if pending_prs:
            out.extend(_packed_sections(pending_prs, sep="\n\n"))
            pending_prs.clear()

    for block in chunk:
        if isinstance(block, PRItem):
            pending_prs.append(pr_entry(block))
            continue
        flush_prs()
        if isinstance(block, Heading):
            out.extend(_heading(block))
        elif isinstance(block, Paragraph):
            out.extend(_paragraph(block))
        elif isinstance(block, BulletList):
            out.extend(_bullets(block))
        elif isinstance(block, Facts):
            out.extend(_fields(block))
        elif isinstance(block, Table):
            out.extend(_table(block))
        elif isinstance(block, Divider):
            out.append(dict(DIVIDER))
        elif isinstance(block, Image):
            out.extend(_image(block, lang, files or {}))
    flush_prs()
    return out


# -- messages ---------------------------------------------------------------------------------


def _json_len(block: SlackBlock) -> int:
    return len(json.dumps(block, ensure_ascii=False, separators=(",", ":")))


def _measure(block: SlackBlock) -> int:
    return _json_len(block) + 1  # and the comma that separates it from the next


def pack(blocks: Sequence[SlackBlock], budget: Budget = MESSAGE) -> list[list[SlackBlock]]:
    """Blocks packed into messages within ``budget`` (the shared packer, Slack's measure)."""
    messages = pack_items(blocks, budget, _measure, lambda b: isinstance(b, HeadingBlock))
    # a divider that would open or close a message is noise
    cleaned = [
        [b for i, b in enumerate(m) if not (b["type"] == "divider" and i in (0, len(m) - 1))]
        for m in messages
    ]
    return [m for m in cleaned if m]


def fallback_text(blocks: Sequence[SlackBlock], title: str = "") -> str:
    """The notification text: the title, then the first words of the message, in safe mrkdwn."""
    parts: list[str] = [mrkdwn_text(title)] if title else []
    for block in blocks:
        if block["type"] == "header":
            parts.append(mrkdwn_text(block["text"]["text"]))
        elif block["type"] == "section" and "text" in block:
            parts.append(block["text"]["text"])
        elif block["type"] == "section":
            parts.extend(f["text"] for f in block["fields"])
        if sum(len(p) for p in parts) > MAX_FALLBACK_CHARS:
            break
    text = "\n".join(dict.fromkeys(p for p in parts if p)) or "prdigest"
    if len(text) > MAX_FALLBACK_CHARS:
        text = text[: _safe_cut(text, MAX_FALLBACK_CHARS - 1)].rstrip() + "…"
    return text


def _title_blocks(title: str) -> list[SlackBlock]:
    return _heading(Heading(text=title, level=1)) if title.strip() else []


def _pointer(n: int, lang: str) -> SlackBlock:
    return context(t(lang, "chat.thread_pointer_one") if n == 1 else t(lang, "chat.thread_pointer", n=n))


def render(
    reply: Reply, *, mode: Mode = "thread", files: Mapping[str, str] | None = None
) -> list[SlackMessage]:
    """A Reply as one or more messages.

    ``thread``: the first message is the lead (the title and the Reply's lead blocks: a digest's
    summary and top highlights) and every section starts a new message, to be posted in the
    lead's thread. ``compact``: everything packed into as few messages as possible (for
    response_url answers, which cannot be threaded and may be used only five times). ``files``
    maps the names of the reply's attachments to the Slack file ids a poster got on upload.
    """
    if reply.status != "ok":
        return [render_notice(reply)]
    lang = reply.lang
    title = _title_blocks(reply.title)
    lead_blocks = title + blocks_for(reply.blocks, lang, files)
    parts = [blocks_for([Heading(text=s.title, level=2), *s.blocks], lang, files) for s in reply.sections]
    empty = title or [section(mrkdwn_text(reply.command))]
    if mode == "compact":
        groups = pack(lead_blocks + [b for part in parts for b in part]) or [empty]
    else:
        lead = pack(lead_blocks, MESSAGE.less(items=1, size=POINTER_RESERVE)) or [empty]
        groups = lead + [g for part in parts for g in pack(part)]
        if len(groups) > 1:
            groups[0] = [*groups[0], _pointer(len(groups) - 1, lang)]
    return [SlackMessage(text=fallback_text(g), blocks=g) for g in groups]


NOTICE_ICONS = {"usage": ":warning:", "not_found": ":mag:", "error": ":x:"}


def render_notice(reply: Reply) -> SlackMessage:
    """A usage / not-found / error answer: one short message, never a trace."""
    icon = NOTICE_ICONS.get(reply.status, ":information_source:")
    body = mrkdwn_text(reply.title or reply.status)
    text = f"{icon} {body}"
    pieces = split_mrkdwn(text)
    blocks = [section(p) for p in pieces[:3]]
    if reply.status == "usage":
        blocks.append(context(t(reply.lang, "chat.help_hint")))
    return SlackMessage(text=fallback_text([], reply.title or reply.status), blocks=blocks)


def apology(lang: str = "en") -> SlackMessage:
    """What a user sees when something broke on our side (the details go to the log)."""
    text = f":x: {t(lang, 'chat.apology')}"
    return SlackMessage(text=text, blocks=[section(text)])


# -- limits, checked ----------------------------------------------------------------------------

_OUR_LINK = re.compile(r"<https?://[^\s<>|]+\|#\d+>")


def _texts(block: SlackBlock) -> Iterable[tuple[str, dict[str, Any]]]:
    if "text" in block:
        yield "text", block["text"]
    for f in block.get("fields", []):
        yield "field", f
    for e in block.get("elements", []):
        yield "element", e


def violations(message: SlackMessage | dict[str, Any]) -> list[str]:
    """Every way a message breaks Slack's limits or our escaping rules (empty when fine)."""
    payload = message.payload() if isinstance(message, SlackMessage) else message
    blocks: list[SlackBlock] = payload.get("blocks", [])
    problems: list[str] = []
    if not payload.get("text"):
        problems.append("no text fallback")
    if len(blocks) > MAX_BLOCKS:
        problems.append(f"{len(blocks)} blocks > {MAX_BLOCKS}")
    total = len(json.dumps(blocks, ensure_ascii=False, separators=(",", ":")))
    if total > MAX_BLOCKS_JSON_CHARS:
        problems.append(f"{total} characters of blocks > {MAX_BLOCKS_JSON_CHARS}")
    mrkdwn_strings = [payload.get("text", "")]
    for i, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "header":
            text = block["text"]
            if text.get("type") != "plain_text":
                problems.append(f"block {i}: header is not plain_text")
            if not 0 < len(text["text"]) <= MAX_HEADER_CHARS:
                problems.append(f"block {i}: header of {len(text['text'])} characters")
            continue
        if kind == "image" and not 0 < len(block.get("alt_text", "")) <= MAX_ALT_CHARS:
            problems.append(f"block {i}: image alt_text of {len(block.get('alt_text', ''))} characters")
        if kind == "section" and len(block.get("fields", [])) > MAX_FIELDS:
            problems.append(f"block {i}: {len(block['fields'])} fields > {MAX_FIELDS}")
        if kind == "context" and len(block.get("elements", [])) > MAX_CONTEXT_ELEMENTS:
            problems.append(f"block {i}: {len(block['elements'])} context elements")
        for where, obj in _texts(block):
            limit = MAX_FIELD_CHARS if where == "field" else MAX_SECTION_CHARS
            if not 0 < len(obj["text"]) <= limit:
                problems.append(f"block {i}: {where} of {len(obj['text'])} characters (limit {limit})")
            if obj.get("type") == "mrkdwn":
                if obj.get("verbatim") is not True:
                    problems.append(f"block {i}: mrkdwn without verbatim")
                mrkdwn_strings.append(obj["text"])
    for text in mrkdwn_strings:
        stripped = _OUR_LINK.sub("", text)
        if "<" in stripped or ">" in stripped:
            problems.append(f"unescaped control character in {text[:60]!r}")
        if _BROADCAST.search(stripped):
            problems.append(f"live broadcast mention in {text[:60]!r}")
    return problems
