"""Reply → plain text for a terminal.

Untrusted text (PR titles, bodies, authors) is stripped of control characters so a crafted
title cannot move the cursor, recolour the terminal or forge extra lines; columns are aligned
by display width so Chinese text lines up.
"""

from __future__ import annotations

import re
import unicodedata

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

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    """One line of printable text: control characters (incl. ANSI escapes, bidi overrides) removed."""
    if text.isprintable():  # no Cc/Cf/Zl/Zp character, so nothing for the pattern to replace
        return text.strip()
    return _CONTROL.sub(" ", text).strip()


def width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _pad(text: str, size: int) -> str:
    return text + " " * max(0, size - width(text))


def _refs(prs: list[PRRef]) -> str:
    return " (" + ", ".join(f"#{p.number}" for p in prs) + ")" if prs else ""


def _with_refs(text: str, prs: list[PRRef], lang: str) -> str:
    """``text`` with its PR numbers: "… (#1, #2)" in English; in Chinese full-width and inside the
    sentence, as the team's own report writes them ("…最大的一个改动了 2,638 行（#1、#2）。")."""
    if not prs:
        return text
    if lang != "zh":
        return text + _refs(prs)
    refs = "（" + "、".join(f"#{p.number}" for p in prs) + "）"
    return text[:-1] + refs + text[-1] if text.endswith(("。", "；")) else text + refs


def _underline(text: str, char: str) -> str:
    return char * max(3, width(text))


def _block(block: Block, lang: str) -> list[str]:
    if isinstance(block, Heading):
        text = clean(block.text)
        if block.level <= 2:
            return ["", text, _underline(text, "=" if block.level == 1 else "-")]
        return ["", text]
    if isinstance(block, Paragraph):
        return [_with_refs(clean(block.text), block.prs, lang)]
    if isinstance(block, BulletList):
        return [
            (f"{i}. " if block.ordered else "• ") + _with_refs(clean(item.text), item.prs, lang)
            for i, item in enumerate(block.items, block.start)
        ]
    if isinstance(block, PRItem):
        head = f"#{block.pr.number} {clean(block.pr.title)}"
        if block.tags:
            head += "  [" + " · ".join(clean(tg) for tg in block.tags) + "]"
        return [head, *(f"    {clean(line)}" for line in block.lines if line)]
    if isinstance(block, Facts):
        return ["   ".join(f"{clean(k)}: {clean(v)}" for k, v in block.items)]
    if isinstance(block, Table):
        rows = [[clean(c) for c in block.columns], *[[clean(c) for c in row] for row in block.rows]]
        sizes = [max(width(r[i]) for r in rows if i < len(r)) for i in range(len(block.columns))]
        out = []
        for n, row in enumerate(rows):
            out.append("  ".join(_pad(cell, sizes[i]) for i, cell in enumerate(row)).rstrip())
            if n == 0:
                out.append("  ".join("-" * s for s in sizes))
        return out
    if isinstance(block, Divider):
        return ["-" * 40]
    if isinstance(block, Image):
        return [t(lang, "chat.image", alt=clean(block.alt))]
    raise TypeError(f"unknown block {type(block).__name__}")


def render_text(reply: Reply) -> str:
    """The whole reply as text; a usage answer is its single line."""
    if reply.status != "ok":
        return clean(reply.title)
    lines = [clean(reply.title), _underline(clean(reply.title), "=")] if reply.title else []
    for block in reply.all_blocks():
        lines.extend(_block(block, reply.lang))
    return "\n".join(lines).strip("\n") + "\n"


__all__ = ["clean", "render_text", "width"]
