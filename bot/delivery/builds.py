"""One build per distinct digest in a run.

Subscriptions that ask for the same digest — the same platform, repository, module and flag
filters, language, time zone, period, layout, quiet-week and prose choices — post the same
messages: the digest, its prose, its chart and the platform's rendering are built once per run
and shared, and only what differs per subscription (the delivery key the messages carry, the
channel) is added per delivery (``StepPoster.keyed``). A thousand channels over fifty distinct
digests draw fifty charts, not a thousand. The repository's sync before a digest
(``Deliverer.refresh``) runs once per repository and run as well.

Nothing here outlives the run: the next run builds again from the cache as it is then.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from bot.chat.steps import Step
    from commands.schedule import Due
    from storage.subscriptions import Subscription

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def content_key(sub: Subscription, due: Due) -> tuple[object, ...]:
    """Everything a subscription's digest for ``due`` depends on, and nothing it does not (its
    channel, its schedule, its id)."""
    return (
        sub.platform,
        sub.repo,
        sub.lang,
        sub.timezone,
        tuple(sub.modules),
        tuple(sub.flags),
        sub.match,
        sub.layout,
        sub.quiet,
        sub.prose,
        due.start_date,
        due.end_date,
    )


@dataclass(frozen=True)
class Built:
    """A digest as every subscription asking for it posts it: its messages rendered for the
    platform without a delivery key; ``silent`` for a quiet week kept silent; ``failed`` the
    reason it cannot be built (the repository is not in the cache)."""

    title: str = ""
    steps: tuple[Step, ...] = ()
    silent: bool = False
    failed: str | None = None


class Once(Generic[K, V]):
    """Each key's value computed once, and shared by every caller that asks for it while or after
    it is computed (an exception too: each caller gets it)."""

    def __init__(self) -> None:
        self._tasks: dict[K, asyncio.Future[V]] = {}

    def __len__(self) -> int:
        """How many distinct values were computed (or are being computed)."""
        return len(self._tasks)

    async def get(self, key: K, compute: Callable[[], Awaitable[V]]) -> V:
        task = self._tasks.get(key)
        if task is None:
            task = self._tasks[key] = asyncio.ensure_future(compute())
        # shielded: a caller cancelled while it waits must not cancel the others' build
        return await asyncio.shield(task)
