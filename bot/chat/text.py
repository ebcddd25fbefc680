"""Text cleaning shared by the chat renderers (Slack, Discord).

PR titles and bodies are untrusted: terminal escape sequences, control characters and bidi
overrides are dropped before any platform-specific escaping, so both renderers show the same
characters and neither depends on the other's module.
"""

from __future__ import annotations

import re

_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?)")


def clean(text: str) -> str:
    """Drop terminal escape sequences, control characters and bidi overrides; tabs become spaces."""
    return _CONTROLS.sub("", _ANSI.sub("", text.replace("\t", " ").replace("\r\n", "\n")))
