"""The per-user token bucket for subscription changes (``bot.chat.throttle``), on a controlled clock."""

from __future__ import annotations

from bot.chat.throttle import ChangeLimiter, charge, refuse_if_busy
from commands.model import Invocation, Reply


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_one_change_per_refill_interval() -> None:
    clock = Clock()
    limiter = ChangeLimiter(capacity=3, refill=10.0, clock=clock)
    assert [limiter.take("u") for _ in range(3)] == [0, 0, 0]
    assert limiter.take("u") == 10  # spent: the next token in 10 s
    clock.now += 4
    assert limiter.take("u") == 6
    clock.now += 6
    assert limiter.take("u") == 0 and limiter.take("u") == 10
    assert limiter.take("someone else") == 0  # buckets are per user
    clock.now += 1000
    assert [limiter.take("u") for _ in range(4)] == [0, 0, 0, 10]  # refilled to capacity, no more


def test_only_subscription_changes_are_limited() -> None:
    limiter = ChangeLimiter(capacity=1, refill=60.0, clock=Clock())
    change = Invocation(command="subscribe", platform="slack", user="U1")
    assert refuse_if_busy(limiter, change) is None
    charge(limiter, change, Reply(command="subscribe"))  # the change went through
    refused = refuse_if_busy(limiter, change)
    assert refused is not None and refused.status == "usage"
    assert refused.title == "Too many subscription changes at once: try again in 60 s."
    reading = Invocation(command="subscriptions", platform="slack", user="U1")
    for _ in range(5):
        assert refuse_if_busy(limiter, reading) is None
        charge(limiter, reading, Reply(command="subscriptions"))
    # the same user id on another platform is another person
    assert refuse_if_busy(limiter, Invocation(command="unsubscribe", platform="discord", user="U1")) is None


def test_rejected_changes_cost_nothing() -> None:
    """Mistyped `/subscribe` attempts (usage answers), refusals and the "slow down" itself store
    nothing: a person who typed it wrong five times can still subscribe."""
    limiter = ChangeLimiter(capacity=2, refill=60.0, clock=Clock())
    change = Invocation(command="subscribe", platform="slack", user="U1")
    for _ in range(20):
        assert refuse_if_busy(limiter, change) is None
        charge(limiter, change, Reply.usage("subscribe", "unknown time zone 'Mars/Olympus'"))
    for _ in range(2):
        assert refuse_if_busy(limiter, change) is None
        charge(limiter, change, Reply(command="subscribe"))
    slow = refuse_if_busy(limiter, change)
    assert slow is not None
    charge(limiter, change, slow)  # the refusal is no change either
    assert limiter.wait("slack:U1") == 60
