"""Phrases that name what a period is compared with, shared by every section of a digest."""

from __future__ import annotations

from commands.locale import t
from commands.locale.words import num_word
from commands.report.stats import DigestStats


def unit(stats: DigestStats, lang: str) -> str:
    """ "week" for a week-long period, else "period" (周 / 期)."""
    return t(lang, "word.week" if stats.comparison.weekly else "word.period")


def average_phrase(stats: DigestStats, lang: str) -> str:
    """ "the four-week average" / "the previous week" / "the average of the 2 previous 40-day
    periods" (and in Chinese): what the comparison numbers are averaged over."""
    cmp = stats.comparison
    if cmp.windows == 1:
        key = "digest.avg_weeks.one" if cmp.weekly else "digest.avg_periods.one"
        return t(lang, key, days=cmp.days)
    key = "digest.avg_weeks" if cmp.weekly else "digest.avg_periods"
    return t(lang, key, n=num_word(cmp.windows, lang), days=cmp.days)


def compare_heading(stats: DigestStats, lang: str) -> str:
    """ "Comparison with the four previous weeks (the cache starts on 2026-04-20)"."""
    cmp = stats.comparison
    key = "digest.compare_weeks" if cmp.weekly else "digest.compare_periods"
    if cmp.windows == 1:
        key += ".one"
    text = t(lang, key, n=num_word(cmp.windows, lang), days=cmp.days)
    if cmp.cache_start is not None:
        text += t(lang, "digest.compare_cut", start=cmp.cache_start.strftime("%Y-%m-%d"))
    return text


def not_compared(stats: DigestStats, lang: str) -> str:
    """Why there is no comparison: the cache has no earlier window of the same length."""
    start = stats.comparison.cache_start
    if start is None:
        return t(lang, "digest.not_compared_empty")
    return t(lang, "digest.not_compared", start=start.strftime("%Y-%m-%d"), unit=unit(stats, lang))
