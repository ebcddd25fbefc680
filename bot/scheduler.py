"""The Monday digest inside ``prdigest serve``: a component that sleeps until the next due time.

SQLite is the source of truth (subscriptions and the delivery ledger); APScheduler 3.x is used
as a clock only — one date job, replaced after every run, never a persistent job store (which
must not be shared between processes). At start the component runs once at once: that is the
catch-up for whatever fell due while the process was down (``Deliverer`` applies the catch-up
window and records skips). After each run it re-arms for the earliest of: the next due time of
any active subscription, the end of any lease a later run must look at, and ``recheck`` from now
(so that subscriptions changed by another process — ``prdigest subscribe`` — are noticed).
``rearm()`` wakes it at once when this process changes a subscription.

With ``GITHUB_TOKEN`` it also syncs every repository it reports on every ``PRDIGEST_SYNC_EVERY``
minutes (default 60), so chat answers do not go stale between Mondays; each delivery syncs its
repository first as well (``bot.refresh``).

The run itself happens in a worker thread of its own (a one-thread ``Lane`` on the host's cache,
with its own database connection and event loop), so neither SQLite nor a paced post can hold
the chat front ends' loop or their command workers. Two ``serve`` processes on one database are safe: the ledger's claims
decide who posts, whatever their clocks say.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.config import Settings, secret
from bot.delivery import Deliverer, Outcome, PosterFactory
from bot.post import poster_for
from bot.refresh import github_refresh, sync_now
from bot.runner import Lane
from commands.registry import Context
from commands.schedule import next_due
from storage.prs import iso
from storage.subscriptions import SubscriptionStore

if TYPE_CHECKING:
    from bot.serve import Host, ServeOptions

log = logging.getLogger(__name__)

JOB_ID = "prdigest-deliver"
SYNC_JOB_ID = "prdigest-sync"
SYNC_FIRST = timedelta(seconds=30)  # the first periodic sync, shortly after start
PERIODIC_MAX_WAIT = 300.0  # a background sync may wait out a rate limit of up to 5 minutes
RECHECK = timedelta(minutes=5)
Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _database_path(ctx: Context) -> str:
    row = ctx.store.db.execute("PRAGMA database_list").fetchone()
    return str(row[2])


def next_wake(ctx: Context, now: datetime, recheck: timedelta = RECHECK) -> datetime:
    """The earliest moment something may need doing, at most ``recheck`` from ``now``."""
    wake = now + recheck
    for sub in SubscriptionStore(ctx.store.db).active():
        wake = min(wake, next_due(sub, now).due)
    row = ctx.store.db.execute(
        "SELECT MIN(lease_until) FROM deliveries WHERE state = 'claimed' AND lease_until > ?", (iso(now),)
    ).fetchone()
    if row and row[0]:
        wake = min(wake, datetime.fromisoformat(row[0]))
    return wake


class DeliveryScheduler:
    """The host component (see the module docstring). ``clock`` stands in for the time of day in
    tests: the component sleeps for the clock's distance to the next due time."""

    name = "scheduler"

    def __init__(
        self,
        settings: Settings,
        *,
        posters: PosterFactory | None = None,
        clock: Clock = _utc_now,
        recheck: timedelta = RECHECK,
        sync_every: timedelta | None = None,
    ) -> None:
        self.settings = settings
        minutes = settings.prdigest_sync_every
        self.sync_every = sync_every if sync_every is not None else timedelta(minutes=minutes)
        self.syncs = 0
        self.last_sync: dict[str, str | None] = {}
        self.posters = posters or (lambda platform: poster_for(platform, settings))
        self.clock = clock
        self.recheck = recheck
        self.runs = 0
        self.last_run: datetime | None = None
        self.last_outcomes: list[Outcome] = []
        self.next_run: datetime | None = None
        self._host: Host | None = None
        self._scheduler: AsyncIOScheduler | None = None
        self._lane: Lane | None = None
        self._lock = asyncio.Lock()
        self.drain_timeout = 60.0  # seconds ``stop`` waits for a run in progress
        self._stopping = False

    async def start(self, host: Host) -> None:
        from bot.serve import context_factory

        self._host = host
        if host.db is not None:
            self._lane = Lane("deliver", context_factory(self.settings, host.db), workers=1)
        self._scheduler = AsyncIOScheduler(
            timezone=UTC,
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
        )
        self._scheduler.start()
        self._arm(timedelta(0))  # catch up at start
        if secret(self.settings.github_token) and self.sync_every > timedelta(0):
            self._scheduler.add_job(
                self._sync,
                IntervalTrigger(seconds=self.sync_every.total_seconds(), timezone=UTC),
                id=SYNC_JOB_ID,
                replace_existing=True,
                next_run_time=_utc_now() + min(self.sync_every, SYNC_FIRST),
            )

    async def stop(self) -> None:
        """Stop the clock, then let a run in progress finish (bounded): a digest half posted at
        shutdown would leave a claim for the next start to recover."""
        self._stopping = True  # a tick that fires from now on does nothing
        try:
            await asyncio.wait_for(self._lock.acquire(), self.drain_timeout)
            self._lock.release()
        except TimeoutError:
            log.warning("stopped with a delivery run unfinished; its claim is recovered at the next start")
        if self._scheduler is not None and self._scheduler.running:
            self._scheduler.shutdown(wait=False)  # cancels what still runs
        if self._lane is not None:
            lane, self._lane = self._lane, None
            await asyncio.to_thread(lane.close)

    def health(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "last_run": iso(self.last_run) if self.last_run else None,
            "next_run": iso(self.next_run) if self.next_run else None,
            "last": dict(Counter(o.state for o in self.last_outcomes)),
            "syncs": self.syncs,
            "last_sync": {repo: why or "ok" for repo, why in self.last_sync.items()},
        }

    def rearm(self) -> None:
        """Run now (a subscription changed in this process)."""
        self._arm(timedelta(0))

    def _arm(self, delay: timedelta) -> None:
        if self._scheduler is None:
            return
        when = _utc_now() + max(delay, timedelta(0))
        self.next_run = self.clock() + max(delay, timedelta(0))
        self._scheduler.add_job(self._tick, DateTrigger(run_date=when), id=JOB_ID, replace_existing=True)

    async def _tick(self) -> None:
        if self._stopping:
            return
        async with self._lock:
            lane = await self._deliver_lane()
            now = self.clock()
            try:
                self.last_outcomes = await lane.call(lambda ctx: self._run(ctx, now))
            except Exception:
                log.exception("scheduled delivery run failed")
                self.last_outcomes = []
            self.last_run = now
            for outcome in self.last_outcomes:
                log.info("delivery: %s", outcome.line())
            try:
                wake = await lane.call(lambda ctx: next_wake(ctx, self.clock(), self.recheck))
            except Exception:
                log.exception("computing the next delivery time failed")
                wake = self.clock() + self.recheck
            self._arm(wake - self.clock())
            self.runs += 1

    async def _sync(self) -> None:
        """The periodic sync (PRDIGEST_SYNC_EVERY): every repository the cache or a subscription
        names, on the deliveries' thread, so a sync and a delivery never write at once."""
        if self._stopping:
            return
        lane = await self._deliver_lane()
        try:
            self.last_sync = await lane.call(self._sync_all)
        except Exception:
            log.exception("periodic sync failed")
        self.syncs += 1

    def _sync_all(self, ctx: Context) -> dict[str, str | None]:
        repos = set(ctx.store.repos()) | {s.repo for s in SubscriptionStore(ctx.store.db).active()}
        repos.update(self.settings.prdigest_repo)
        return {
            repo: sync_now(self.settings, ctx.store.db, ctx.profile, repo, max_wait=PERIODIC_MAX_WAIT)
            for repo in sorted(repos)
        }

    async def _deliver_lane(self) -> Lane:
        """The worker thread deliveries run in (on a host built without a path: found through
        one of the host's workers, once)."""
        if self._lane is None:
            from bot.serve import context_factory

            assert self._host is not None
            path = await self._host.runner.call(_database_path)
            self._lane = Lane("deliver", context_factory(self.settings, Path(path)), workers=1)
        return self._lane

    def _run(self, ctx: Context, now: datetime) -> list[Outcome]:
        """One run in a worker thread: its own connection (``ctx``) and its own event loop."""
        deliverer = Deliverer(
            ctx.store.db,
            ctx.profile,
            self.posters,
            catchup=timedelta(hours=self.settings.prdigest_catchup),
            refresh=github_refresh(self.settings, ctx.store.db, ctx.profile),
        )
        return asyncio.run(deliverer.run(now))


def component(settings: Settings, options: ServeOptions) -> DeliveryScheduler:
    """``bot.serve``'s entry point for scheduled delivery."""
    return DeliveryScheduler(settings)
