"""Translated strings. ``t(lang, key, **values)`` falls back to English, then to the key itself."""

from __future__ import annotations

from functools import lru_cache

from commands.locale.en import STRINGS as EN
from commands.locale.zh import STRINGS as ZH

_TABLES = {"en": EN, "zh": ZH}
LANGS = tuple(_TABLES)


def t(lang: str, key: str, /, **values: object) -> str:
    template = _TABLES.get(lang, EN).get(key) or EN.get(key) or key
    return template.format(**values) if values else template


@lru_cache(maxsize=64)
def flag_label(lang: str, kind: str) -> str:
    """A flag's name in ``lang`` (cached: risk lists ask for it once per PR)."""
    return t(lang, f"flag.{kind}")
