"""A key-PR score part in the reader's language.

The classifier stores each part with an English ``reason`` and, language-neutral, the ``rule`` of
the profile's ``[score]`` table that gave the points and the ``detail`` it matched (a kind, a
module, a threshold, a theme). The parts every classification has had from the start (flags,
kind, size, modules, labels) are read from their reason (``evidence.score_reason``, which also
reads classifications stored before parts carried their rule); the newer ones are built from rule
and detail here — in English as stored, in other languages from the locale's ``score.*`` strings.
"""

from __future__ import annotations

from collections.abc import Mapping

from classify.models import ScorePart
from classify.rules import Profile
from commands.locale import t
from commands.locale.evidence import score_reason as read_reason

# rules whose reason is built from the locale (the others are read by ``evidence.score_reason``)
_BUILT = frozenset({"small", "tests", "series", "bot", "theme"})


def score_reason(
    lang: str,
    part: ScorePart,
    profile: Profile | None = None,
    theme_names: Mapping[str, Mapping[str, str]] | None = None,
) -> str:
    """``part.reason`` for a reader of ``lang``, with the profile's labels for kinds and modules
    and the theme's own name in that language."""
    if part.rule not in _BUILT:
        return read_reason(
            part.reason,
            lang,
            (lambda kind: profile.kind_label(kind, lang)) if profile else (lambda kind: kind),
            (lambda module: profile.module_label(module, lang)) if profile else (lambda module: module),
        )
    if lang == "en":
        return part.reason
    detail = part.detail
    if part.rule == "theme" and theme_names:
        detail = theme_names.get(detail, {}).get(lang, detail)
    if part.rule == "theme" and part.reason.endswith(" penalty"):  # its kind's penalty lifted
        return t(lang, "score.theme_lift", detail=detail)
    return t(lang, f"score.{part.rule}", detail=detail)
