"""Translated strings. ``t(lang, key, **values)`` falls back to English, then to the key itself."""

from __future__ import annotations

import re
from functools import lru_cache

from commands.locale.en import STRINGS as EN
from commands.locale.zh import STRINGS as ZH

_TABLES = {"en": EN, "zh": ZH}
LANGS = tuple(_TABLES)


def has(lang: str, key: str) -> bool:
    """Whether ``lang`` has its own string for ``key`` (not the English fallback)."""
    return key in _TABLES.get(lang, EN)


_CJK_THEN_LATIN = re.compile(r"([\u4e00-\u9fff])([A-Za-z0-9`#])")
_LATIN_THEN_CJK = re.compile(r"([A-Za-z0-9`%])([\u4e00-\u9fff])")


def zh_spacing(text: str) -> str:
    """A space between Chinese and Latin letters or digits ("集中在 NVIDIA / CUDA"), as the
    team's reports write it; full-width punctuation needs none."""
    return _LATIN_THEN_CJK.sub(r"\1 \2", _CJK_THEN_LATIN.sub(r"\1 \2", text))


def t(lang: str, key: str, /, **values: object) -> str:
    template = _TABLES.get(lang, EN).get(key) or EN.get(key) or key
    text = template.format(**values) if values else template
    return zh_spacing(text) if lang == "zh" and values else text


@lru_cache(maxsize=64)
def flag_label(lang: str, kind: str) -> str:
    """A flag's name in ``lang`` (cached: risk lists ask for it once per PR)."""
    return t(lang, f"flag.{kind}")
