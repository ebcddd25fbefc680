"""The on-demand fetch limiter on its own (the server-level behaviour is in
tests/bot/chat/slack/test_chat_repos_and_fetches.py): sliding windows per user and in total."""

from __future__ import annotations

from bot.chat.fetch_limit import FetchLimiter, FetchLimits


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_per_user_and_total_windows_slide_and_refunds_give_back() -> None:
    clock = Clock()
    limiter = FetchLimiter(FetchLimits(per_user=2, total=3, window=60), clock=clock)
    assert [limiter.take("a"), limiter.take("a")] == [0.0, 0.0]
    assert limiter.take("a") == 60.0  # a's first fetch leaves the window in 60 s
    assert limiter.take("b") == 0.0
    clock.now += 10
    assert limiter.take("c") == 50.0  # the total is full until the first fetch is 60 s old
    limiter.refund("b")
    assert limiter.take("c") == 0.0
    clock.now += 51
    assert limiter.take("a") == 0.0  # both windows moved on
    assert limiter.refused == 2
