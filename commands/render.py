"""Pick a renderer by name: the formats every front end without its own renderer can ask for."""

from __future__ import annotations

import json

from commands.formats import FORMATS, Format
from commands.model import Reply
from commands.render_markdown import render_markdown
from commands.render_text import render_text

__all__ = ["FORMATS", "Format", "render", "render_json"]


def render_json(reply: Reply) -> str:
    """The reply's stable data (documented keys per command), pretty-printed."""
    payload = (
        reply.data if reply.status == "ok" else {"error": reply.title, "status": reply.status, **reply.data}
    )
    return json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def render(reply: Reply, fmt: Format) -> str:
    if fmt == "json":
        return render_json(reply)
    if fmt == "markdown":
        return render_markdown(reply)
    return render_text(reply)
