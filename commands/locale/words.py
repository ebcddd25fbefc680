"""Numbers and lists in a sentence, per language: counts with their measure word, averages,
changes, small numbers as words, and lists with the right separator.

Every number a digest sentence shows goes through here, formatted once, so the text, the tables
and the JSON agree (a test reads the numbers back out of the text).
"""

from __future__ import annotations

from collections.abc import Sequence

from commands.locale import has, t

_SMALL = {"en": ("zero", "one", "two", "three", "four"), "zh": ("零", "一", "两", "三", "四")}


def tn(lang: str, key: str, n: int, /, **values: object) -> str:
    """``t`` with the singular form (``key.one``) when ``n`` is 1 and the language has one."""
    if n == 1 and has(lang, key + ".one"):
        return t(lang, key + ".one", n=n, **values)
    return t(lang, key, n=n, **values)


def count(n: int, lang: str) -> str:
    """ "44 PRs" / "1 PR" / "44 个 PR"."""
    return tn(lang, "word.prs", n)


def num_word(n: int, lang: str) -> str:
    """Small numbers as words in running text ("the four previous weeks", "前四周"); digits above."""
    words = _SMALL.get(lang, _SMALL["en"])
    return words[n] if 0 <= n < len(words) else str(n)


def avg_text(value: float | None, digits: int = 0) -> str:
    """An average as every table and sentence shows it: whole numbers for PR counts of 10 and more,
    one decimal below that (an average of 0.5 breaking changes is not "0") and for module counts."""
    if value is None:
        return "—"
    if digits == 0 and (value >= 10 or value == int(value)):
        return f"{value:.0f}"
    return f"{round(value, max(digits, 1)):g}"


def pct_change(now: float, avg: float) -> int | None:
    """The change against an average in whole percent; None without a base to compare with."""
    if avg == 0:
        return None
    return round((now - avg) / avg * 100)


def signed_pct(now: float, avg: float) -> str:
    """ "+6%", "-12%", or "—" without a base (as the tables show it)."""
    pct = pct_change(now, avg)
    return "—" if pct is None else f"{pct:+d}%"


def change_words(now: float, avg: float, lang: str) -> str:
    """A change in words: "6% more than" / "比…多 6%"-style fragments from the locale."""
    pct = pct_change(now, avg)
    if pct is None:
        return t(lang, "change.none")
    if pct == 0:
        return t(lang, "change.same")
    return t(lang, "change.up" if pct > 0 else "change.down", pct=abs(pct))


def join_list(items: Sequence[str], lang: str, limit: int | None = None) -> str:
    """ "a, b, c" / "a、b、c" (at most ``limit`` items); "—" for none."""
    values = list(items)[:limit] if limit else list(items)
    if not values:
        return "—"
    return ("、" if lang == "zh" else ", ").join(values)
