"""Translated strings. ``t(lang, key, **values)`` falls back to English, then to the key itself."""

from __future__ import annotations

from commands.locale.en import STRINGS as EN
from commands.locale.zh import STRINGS as ZH

_TABLES = {"en": EN, "zh": ZH}
LANGS = tuple(_TABLES)


def t(lang: str, key: str, /, **values: object) -> str:
    template = _TABLES.get(lang, EN).get(key) or EN.get(key) or key
    return template.format(**values) if values else template


def flag_label(lang: str, kind: str) -> str:
    return t(lang, f"flag.{kind}")
