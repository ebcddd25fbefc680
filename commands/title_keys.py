"""The title topics writers count into the cache's aggregates, loaded only when a write needs them.

``storage.aggregates`` counts each window's title topics at write time with the active profile's
vocabulary (``commands.report.themes.TitleKeys``). Every store that may write is given one of
these; the theme code (and its vocabulary) is imported at the first title it has to read, so a
one-shot read (``prdigest pr N``) does not pay for it.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from classify.rules import Profile

if TYPE_CHECKING:
    from commands.report.themes import TitleKeys

# the code that turns a title into topic keys beside classify/ (whose source the profile's content
# hash already covers): read as bytes, so a writer need not import it to stamp its counts
THEMES_SOURCE = Path(__file__).resolve().parent / "report" / "themes.py"


@functools.cache
def _themes_code_hash() -> str:
    return hashlib.blake2b(THEMES_SOURCE.read_bytes(), digest_size=8).hexdigest()


def title_stamp(profile: Profile) -> str:
    """What stored title-topic counts are stamped with: the profile's content and the theme code's
    source — a new prdigest that reads titles differently must not use counts the old one made (a
    digest then reads the titles, with the same answers, until the next write recounts them)."""
    return f"{profile.content_hash}:{_themes_code_hash()}"


class ProfileTitleKeys:
    """A ``storage.aggregates.TitleKeyer`` for ``profile``, built on first use."""

    def __init__(self, profile: Profile) -> None:
        self.stamp = title_stamp(profile)
        self._profile = profile
        self._keys: TitleKeys | None = None

    def __call__(self, title: str) -> frozenset[str]:
        if self._keys is None:
            from commands.report.themes import TitleKeys

            self._keys = TitleKeys(self._profile)
        return self._keys(title)
