"""The title topics writers count into the cache's aggregates, loaded only when a write needs them.

``storage.aggregates`` counts each window's title topics at write time with the active profile's
vocabulary (``classify.storylines.TitleKeys``). Every store that may write is given one of these;
the storyline code (and its vocabulary) is imported at the first title it has to read, so a
one-shot read (``prdigest pr N``) does not pay for it.

The counts are stamped with the profile's content hash: it covers the profile's rules and this
package's code (``classify.profile.classifier_code_hash``), so a profile edit or a new prdigest
that reads titles differently never uses counts the old one made (a digest then reads the
titles, with the same answers, until the next write recounts them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from classify.profile import Profile

if TYPE_CHECKING:
    from classify.storylines import TitleKeys


class ProfileTitleKeys:
    """A ``storage.aggregates.TitleKeyer`` for ``profile``, built on first use."""

    def __init__(self, profile: Profile) -> None:
        self.stamp = profile.content_hash
        self._profile = profile
        self._keys: TitleKeys | None = None

    def __call__(self, title: str) -> frozenset[str]:
        if self._keys is None:
            from classify.storylines import TitleKeys

            self._keys = TitleKeys(self._profile)
        return self._keys(title)
