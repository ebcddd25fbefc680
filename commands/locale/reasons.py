"""A key-PR score part in the reader's language.

The classifier stores each part with an English ``reason`` and, language-neutral, the ``rule`` of
the profile's ``[score]`` table that gave the points and the ``detail`` it matched (a kind, a
module, a threshold, a theme). English answers show the stored reason as it is; other languages
build it again from rule and detail, with the profile's labels for kinds and modules.
"""

from __future__ import annotations

from collections.abc import Mapping

from classify.models import ScorePart
from classify.rules import Profile
from commands.locale import flag_label, t


def score_reason(
    lang: str,
    part: ScorePart,
    profile: Profile | None = None,
    theme_names: Mapping[str, Mapping[str, str]] | None = None,
) -> str:
    """``part.reason`` in ``lang``; the stored English reason when the rule is unknown."""
    if lang == "en" or not part.rule:
        return part.reason
    detail = part.detail
    if part.rule == "flag":
        return flag_label(lang, detail)
    if part.rule == "kind":
        detail = profile.kind_label(detail, lang) if profile else detail
    elif part.rule == "module":
        detail = profile.module_label(detail, lang) if profile else detail
    elif part.rule == "theme" and theme_names:
        detail = theme_names.get(detail, {}).get(lang, detail)
    key = f"score.{part.rule}"
    text = t(lang, key, detail=detail)
    return part.reason if text == key else text
