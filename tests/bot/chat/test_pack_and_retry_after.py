"""The shared packer (bot/chat/pack.py) and the one Retry-After parser (bot/config/retry_after.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.chat.pack import Budget, join_within, pack, split_text
from bot.config.retry_after import retry_after


def test_pack_keeps_order_and_respects_both_budgets() -> None:
    budget = Budget(items=3, size=10, overhead=1)
    assert pack(["aaaa", "bb", "ccc", "d", "e", "ffffffffff"], budget, len) == [
        ["aaaa", "bb", "ccc"],
        ["d", "e"],
        ["ffffffffff"],  # alone: larger than what is left of any message, never dropped
    ]
    assert pack([], budget, len) == []
    assert budget.less(items=1, size=4) == Budget(items=2, size=6, overhead=1)


@given(st.lists(st.integers(min_value=1, max_value=9)), st.integers(1, 6), st.integers(10, 40))
def test_pack_never_loses_or_overfills(sizes: list[int], items: int, size: int) -> None:
    budget = Budget(items=items, size=size)
    groups = pack(sizes, budget, lambda n: n)
    assert [n for g in groups for n in g] == sizes
    assert all(len(g) <= items and sum(g) <= size for g in groups)


def test_join_within_and_split_text() -> None:
    assert join_within(["ab", "", "cd", "efg"], 5) == ["ab\ncd", "efg"]
    assert split_text("one two three", 7, lambda text, limit: text.rfind(" ", 0, limit + 1)) == [
        "one two",
        "three",
    ]


def test_retry_after_takes_seconds_and_http_dates() -> None:
    assert retry_after("30") == 30.0 and retry_after(" 1.5 ") == 1.5 and retry_after("-4") == 0.0
    now = 1_800_000_000.0  # 2027-01-15T08:00:00Z
    assert retry_after("Fri, 15 Jan 2027 08:00:42 GMT", now=now) == 42.0
    assert retry_after("Fri, 15 Jan 2027 07:00:00 GMT", now=now) == 0.0  # already past
    for junk in (None, "", "soon", "nan", "Fri, 15 Jan 2027"):
        assert retry_after(junk) is None
