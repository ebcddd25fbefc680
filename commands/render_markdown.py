"""Reply → GitHub-flavoured Markdown (for pasting into issues, wikis or mail).

Untrusted text is escaped: Markdown syntax characters are backslash-escaped and ``@`` becomes
an entity, so a PR title can neither inject links/formatting nor @-mention anyone.
"""

from __future__ import annotations

import re

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
from commands.render_text import clean

_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")
_LEADING_MARK = re.compile(r"^([#+\-=])(?=\s|$)")
_LEADING_NUMBER = re.compile(r"^(\d+)([.)])(?=\s|$)")


def escape(text: str) -> str:
    """Inline-safe text: no emphasis, code, links, HTML, table cells or @-mentions can form.

    A line may not start a heading, list or setext underline either: a leading "#", "-", "+"
    or "=" before a space is backslash-escaped, and so is the dot (not the digits) of "1. " —
    "\\1." would show its backslash, and "28.2" or "-45%" are no list items to escape.
    """
    out = _SPECIAL.sub(r"\\\1", clean(text)).replace("@", "&#64;")
    out = _LEADING_MARK.sub(r"\\\1", out)
    return _LEADING_NUMBER.sub(r"\1\\\2", out)


def _link(pr: PRRef) -> str:
    url = pr.url.replace(")", "%29").replace(" ", "%20")
    return f"[#{pr.number}]({url})"


def _refs(prs: list[PRRef]) -> str:
    return " (" + ", ".join(_link(p) for p in prs) + ")" if prs else ""


def _block(block: Block) -> list[str]:
    if isinstance(block, Heading):
        return ["", "#" * min(6, block.level) + " " + escape(block.text), ""]
    if isinstance(block, Paragraph):
        return [escape(block.text) + _refs(block.prs), ""]
    if isinstance(block, BulletList):
        out = [
            (f"{i}. " if block.ordered else "- ") + escape(b.text) + _refs(b.prs)
            for i, b in enumerate(block.items, block.start)
        ]
        return [*out, ""]
    if isinstance(block, PRItem):
        head = f"- **{_link(block.pr)}** {escape(block.pr.title)}"
        if block.tags:
            head += " — _" + " · ".join(escape(tg) for tg in block.tags) + "_"
        return [head, *(f"  - {escape(line)}" for line in block.lines if line)]
    if isinstance(block, Facts):
        return [" · ".join(f"**{escape(k)}:** {escape(v)}" for k, v in block.items), ""]
    if isinstance(block, Table):
        out = [
            "| " + " | ".join(escape(c) for c in block.columns) + " |",
            "|" + "|".join("---" for _ in block.columns) + "|",
        ]
        out += ["| " + " | ".join(escape(c) for c in row) + " |" for row in block.rows]
        return [*out, ""]
    if isinstance(block, Divider):
        return ["---", ""]
    if isinstance(block, Image):
        if block.url.startswith(("https://", "http://")):
            url = block.url.replace(")", "%29").replace(" ", "%20")
            return [f"![{escape(block.alt)}]({url})", ""]
        return [f"_{escape(block.alt)}_", ""]
    raise TypeError(f"unknown block {type(block).__name__}")


def render_markdown(reply: Reply) -> str:
    if reply.status != "ok":
        return escape(reply.title) + "\n"
    lines = [f"# {escape(reply.title)}", ""] if reply.title else []
    for block in reply.all_blocks():
        lines.extend(_block(block))
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
