"""The title topics writers count into the cache's aggregates, loaded only when a write needs them.

``storage.aggregates`` counts each window's title topics at write time with the active profile's
vocabulary (``commands.report.themes.TitleKeys``). Every store that may write is given one of
these; the theme code (and its vocabulary) is imported at the first title it has to read, so a
one-shot read (``prdigest pr N``) does not pay for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from classify.rules import Profile

if TYPE_CHECKING:
    from commands.report.themes import TitleKeys


class ProfileTitleKeys:
    """A ``storage.aggregates.TitleKeyer`` for ``profile``, built on first use."""

    def __init__(self, profile: Profile) -> None:
        self.stamp = profile.content_hash
        self._profile = profile
        self._keys: TitleKeys | None = None

    def __call__(self, title: str) -> frozenset[str]:
        if self._keys is None:
            from commands.report.themes import TitleKeys

            self._keys = TitleKeys(self._profile)
        return self._keys(title)
