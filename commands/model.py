"""Invocation in, Reply out: the one document every front end speaks.

A chat message, a CLI call and the Monday job all become an ``Invocation``; every command
answers with a ``Reply`` made of neutral blocks (headings, paragraphs, PR items, facts,
tables). Renderers (text, Markdown, JSON, Block Kit, Discord embeds) turn the same Reply into
platform output, so no command ever writes platform markup and every PR title stays data that
each renderer escapes for its own medium.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

Lang = Literal["en", "zh"]
Status = Literal["ok", "usage", "not_found", "error"]


@dataclass(frozen=True)
class Invocation:
    """A request to run one command, independent of where it came from."""

    command: str
    args: tuple[str, ...] = ()
    repo: str | None = None
    lang: Lang = "en"
    timezone: str = "UTC"
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    platform: str = "cli"
    user: str | None = None
    is_admin: bool = False


class PRRef(BaseModel):
    """A PR as a renderer needs it: number, title (untrusted text), link."""

    number: int
    title: str
    url: str
    author: str = ""


class Heading(BaseModel):
    type: Literal["heading"] = "heading"
    text: str
    level: int = 2


class Paragraph(BaseModel):
    """Plain prose; optional PRs are rendered as links after the text."""

    type: Literal["paragraph"] = "paragraph"
    text: str
    prs: list[PRRef] = Field(default_factory=list)


class Bullet(BaseModel):
    text: str
    prs: list[PRRef] = Field(default_factory=list)


class BulletList(BaseModel):
    type: Literal["bullets"] = "bullets"
    items: list[Bullet]
    ordered: bool = False


class PRItem(BaseModel):
    """One PR with short tags (modules, flags, 'key') and detail lines (gist, evidence, score)."""

    type: Literal["pr"] = "pr"
    pr: PRRef
    tags: list[str] = Field(default_factory=list)
    lines: list[str] = Field(default_factory=list)


class Facts(BaseModel):
    """Label/value pairs, e.g. the executive summary's counts."""

    type: Literal["facts"] = "facts"
    items: list[tuple[str, str]]


class Table(BaseModel):
    type: Literal["table"] = "table"
    columns: list[str]
    rows: list[list[str]]


class Divider(BaseModel):
    type: Literal["divider"] = "divider"


Block = Annotated[
    Heading | Paragraph | BulletList | PRItem | Facts | Table | Divider, Field(discriminator="type")
]


class Reply(BaseModel):
    """A command's answer. ``data`` is the stable JSON form; ``blocks`` are what people read.

    ``sections`` marks where the blocks may be split into separate messages (a chat digest posts
    its summary as a lead message and each section as a reply in its thread): each entry is the
    index of the block that starts a section.
    """

    command: str
    status: Status = "ok"
    title: str = ""
    blocks: list[Block] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)
    sections: list[int] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @classmethod
    def usage(cls, command: str, message: str) -> Reply:
        """A one-line answer to bad input: what was wrong and what is accepted."""
        return cls(command=command, status="usage", title=message, data={"error": message})

    @classmethod
    def not_found(cls, command: str, message: str) -> Reply:
        return cls(command=command, status="not_found", title=message, data={"error": message})

    def split_sections(self) -> list[list[Block]]:
        """The blocks cut at ``sections`` (the first chunk is the lead)."""
        cuts = sorted({i for i in self.sections if 0 < i < len(self.blocks)})
        bounds = [0, *cuts, len(self.blocks)]
        return [self.blocks[a:b] for a, b in itertools.pairwise(bounds) if a < b]


class UsageError(Exception):
    """Raised by parsers and commands for bad input; the registry turns it into ``Reply.usage``."""
