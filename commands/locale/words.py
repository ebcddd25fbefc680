"""Numbers and lists in a sentence, per language: counts with their measure word, averages,
changes, small numbers as words, and lists with the right separator.

Every number a digest sentence shows goes through here, formatted once, so the text, the tables
and the JSON agree (a test reads the numbers back out of the text).
"""

from __future__ import annotations

from collections.abc import Sequence

from classify.periods import Period
from commands.locale import has, t

_SMALL = {"en": ("zero", "one", "two", "three", "four"), "zh": ("零", "一", "两", "三", "四")}


def tn(lang: str, key: str, n: int, /, **values: object) -> str:
    """``t`` with the singular form (``key.one``) when ``n`` is 1, and the form for none
    (``key.zero``) when ``n`` is 0, where the language has them."""
    if n == 1 and has(lang, key + ".one"):
        return t(lang, key + ".one", n=n, **values)
    if n == 0 and has(lang, key + ".zero"):  # "none is a breaking change", not "0 are …"
        return t(lang, key + ".zero", n=n, **values)
    return t(lang, key, n=n, **values)


def count(n: int, lang: str) -> str:
    """ "44 PRs" / "1 PR" / "44 个 PR"."""
    return tn(lang, "word.prs", n)


def num_word(n: int, lang: str) -> str:
    """Small numbers as words in running text ("the four previous weeks", "前四周"); digits above."""
    words = _SMALL.get(lang, _SMALL["en"])
    return words[n] if 0 <= n < len(words) else str(n)


def rounded(value: float, digits: int = 0) -> float:
    """``value`` rounded half away from zero, as a reader rounds (2.25 → 2.3, 0.5 → 1): Python's
    ``round`` rounds to even on exact halves (2.25 → 2.2), which four-week averages often are."""
    from decimal import ROUND_HALF_UP, Decimal  # a digest's: risks and pr start faster without it

    quantum = Decimal(1).scaleb(-digits)
    return float(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


def shown_avg(value: float) -> float:
    """An average as every table and sentence shows it: one decimal, rounded half up, so the
    summary, the comparison table and the module table show the same 36.5 for the same count
    (a whole number for a whole average); a percentage beside it is computed from this value."""
    return rounded(value, 1)


def avg_text(value: float | None) -> str:
    """``shown_avg`` as text: "36.5", "2.3" (for 2.25), "199"; "—" without an average."""
    if value is None:
        return "—"
    return f"{shown_avg(value):g}"


def pct_change(now: float, avg: float) -> int | None:
    """The change against an average in whole percent (half up); None without a base to compare
    with. A change is never rounded away: 200 against 199 is +1%, not "as many as"; and 1 PR
    against 213 is 99% fewer, not "100% fewer" while PRs were merged."""
    if avg == 0:
        return None
    exact = (now - avg) / avg * 100
    pct = int(rounded(abs(exact))) * (1 if exact >= 0 else -1)
    if now != avg and pct == 0:
        return 1 if now > avg else -1
    if now > 0 and pct <= -100:
        return -99
    return pct


def shown_change(now: float, avg: float) -> int | None:
    """``pct_change`` against the average as it is shown beside the percentage (``avg_text``):
    17 against a shown 15.8 is +8%, whatever the unrounded 15.75 would give."""
    return pct_change(now, shown_avg(avg))


def signed_pct(now: float, avg: float) -> str:
    """ "+6%", "-12%", or "—" without a base (as the tables show it)."""
    pct = shown_change(now, avg)
    return "—" if pct is None else f"{pct:+d}%"


def change_words(now: float, avg: float, lang: str) -> str:
    """A change in words: "6% more than" / "比…多 6%"-style fragments from the locale, against the
    average as shown."""
    pct = shown_change(now, avg)
    if pct is None:
        return t(lang, "change.none")
    if pct == 0:
        return t(lang, "change.same")
    return t(lang, "change.up" if pct > 0 else "change.down", pct=abs(pct))


def join_list(items: Sequence[str], lang: str, limit: int | None = None, *, conjunction: bool = True) -> str:
    """ "a, b and c" / "a、b、c" (at most ``limit`` items); "—" for none. English running text
    ends a list with "and" ("in Kernels & custom ops, Quantization and Model support"); Chinese
    lists with the enumeration comma alone, as the team's reports do. ``conjunction=False``: a
    list inside a list item ("xgrammar 0.1 → 0.2, torch 2.6 → 2.7"), commas only."""
    values = list(items)[:limit] if limit else list(items)
    if not values:
        return "—"
    if lang == "zh":
        return "、".join(values)
    if not conjunction or len(values) == 1:
        return ", ".join(values)
    return ", ".join(values[:-1]) + " and " + values[-1]


def period_text(period: Period, lang: str) -> str:
    """A period as a reader of ``lang`` sees it: a week or a range as written (``2026-W19``), the
    rolling window in words ("last 7 days", "最近 7 天"); ``period.label`` stays the JSON's."""
    if period.kind == "rolling":
        return t(lang, "period.rolling", days=period.length.days)
    return period.label
