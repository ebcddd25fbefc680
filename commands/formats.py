"""The output formats every front end without a renderer of its own can ask for (``--format``),
in a module of their own so that ``prdigest --help`` can list them without loading a renderer."""

from __future__ import annotations

from typing import Literal

Format = Literal["text", "markdown", "json"]
FORMATS: tuple[Format, ...] = ("text", "markdown", "json")
