"""Bad input, named by the message that explains it.

A period that does not exist, a time of day that is no time: the domain says *which* message
applies (``key``, a string of ``commands/locale``) and with which values; the front end says it in
the asker's language. ``str()`` is the English message once ``commands.model`` has lent its
wording (``words``), else the key and values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar


class UsageError(Exception):
    """Bad input, raised by parameter parsers, commands and the domain's parsers; the registry
    turns it into a usage Reply in the caller's language."""

    words: ClassVar[Callable[[str, Mapping[str, object]], str] | None] = None
    """how a key and its values read in English (set by ``commands.model``)"""

    def __init__(self, key: str, /, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values

    def __str__(self) -> str:
        """The English message (logs, tests); front ends show it in the asker's language."""
        words = type(self).words
        return words(self.key, self.values) if words is not None else f"{self.key} {self.values}"
