"""The Monday digest inside ``prdigest serve``: a component that sleeps until the next due time.

SQLite is the source of truth (subscriptions and the delivery ledger); APScheduler 3.x is used
as a clock only — one date job, replaced after every run, never a persistent job store (which
must not be shared between processes). At start the component runs once at once: that is the
catch-up for whatever fell due while the process was down (``Deliverer`` applies the catch-up
window and records skips). After each run it re-arms for the earliest of: the next due time of
any active subscription, the end of any lease a later run must look at, and ``recheck`` from now
(a safety net: a clock that jumped, a change nobody announced).

A subscription changed in this process — ``/subscribe`` or ``/unsubscribe`` from Slack or
Discord — re-arms it at once: the command runner tells its ``subscriptions_changed`` listeners,
and ``rearm()`` (callable from any thread) schedules a run onto the host's loop, so a
subscription made for two minutes from now posts in two minutes, not at the next recheck.
A change made by another process — ``prdigest subscribe``, ``unsubscribe``, ``subscription ID
--pause/--resume/--set`` — is noticed by a cheap watch every ``watch`` seconds (default 15):
SQLite's ``PRAGMA data_version`` on the scheduler's own connection moves whenever any other
connection commits, and only then is the next wake computed again and the timer moved earlier.

With ``GITHUB_TOKEN`` it also syncs every repository it reports on every ``PRDIGEST_SYNC_EVERY``
minutes (default 60), so chat answers do not go stale between Mondays; each delivery syncs its
repository first as well (``bot.ingest.refresh``).

The run itself happens in a worker thread of its own (a one-thread ``Lane`` on the host's cache,
with its own database connection and event loop), so neither SQLite nor a paced post can hold
the chat front ends' loop or their command workers. Two ``serve`` processes on one database are safe: the ledger's claims
decide who posts, whatever their clocks say.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.chat.steps import step_poster_for
from bot.config.settings import Settings, secret
from bot.delivery.deliverer import Deliverer, Outcome, PosterFactory
from bot.host.runner import Lane
from bot.ingest.refresh import github_refresh, sync_now
from bot.prose.setup import prose_writer
from commands.registry import Context
from commands.schedule import next_due
from storage.db import StoreError, write_transaction
from storage.prs import iso
from storage.subscriptions import SubscriptionStore

if TYPE_CHECKING:
    from bot.host.serve import Host, ServeOptions
    from classify.rules import Profile

log = logging.getLogger(__name__)

JOB_ID = "prdigest-deliver"
SYNC_JOB_ID = "prdigest-sync"
WATCH_JOB_ID = "prdigest-watch"
SYNC_FIRST = timedelta(seconds=30)  # the first periodic sync, shortly after start
PERIODIC_MAX_WAIT = 300.0  # a background sync may wait out a rate limit of up to 5 minutes
RECHECK = timedelta(minutes=5)
WATCH = timedelta(seconds=15)  # how often another process's commits are looked for (real time)
Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _database_path(ctx: Context) -> str:
    row = ctx.store.db.execute("PRAGMA database_list").fetchone()
    return str(row[2])


def clock_rate(clock: Clock) -> float:
    """How many seconds of ``clock`` pass per real second: 1 for the wall clock; a test's clock
    may run faster (its ``rate``) so that minutes of schedule pass in seconds."""
    rate = float(getattr(clock, "rate", 1.0))
    return rate if rate > 0 else 1.0


def data_version(ctx: Context) -> int:
    """SQLite's counter of commits by *other* connections (this one's own writes leave it)."""
    return int(ctx.store.db.execute("PRAGMA data_version").fetchone()[0])


def write_problem(ctx: Context) -> str | None:
    """Why the deliveries cannot be recorded in this cache (read-only file or file system, a
    cache from a newer prdigest), or None: a write that is rolled back at once, so that /healthz
    says so before Monday rather than after."""
    db = ctx.store.db
    try:
        with write_transaction(db):
            db.execute("CREATE TABLE prdigest_write_probe (x INTEGER)")
            db.execute("DROP TABLE prdigest_write_probe")
            raise _Probed
    except _Probed:
        return None
    except StoreError as exc:
        return str(exc)


class _Probed(Exception):
    """Ends the probe's transaction with a rollback: it must leave nothing behind."""


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
    tests: the component sleeps for the clock's distance to the next due time (divided by the
    clock's ``rate``, see ``clock_rate``). ``watch`` is the real-time interval of the look for
    other processes' changes (None: none)."""

    name = "scheduler"

    def __init__(
        self,
        settings: Settings,
        *,
        posters: PosterFactory | None = None,
        clock: Clock = _utc_now,
        recheck: timedelta = RECHECK,
        sync_every: timedelta | None = None,
        watch: timedelta | None = WATCH,
    ) -> None:
        self.settings = settings
        minutes = settings.prdigest_sync_every
        self.sync_every = sync_every if sync_every is not None else timedelta(minutes=minutes)
        self.syncs = 0
        self.last_sync: dict[str, str | None] = {}
        self.posters = posters or (lambda platform: step_poster_for(platform, settings))
        self.clock = clock
        self.recheck = recheck
        self.watch = watch
        self.rearms = 0  # runs asked for by a change in this process
        self.watched_changes = 0  # commits by others seen by the watch
        self._data_version: int | None = None
        self._watching = False
        self._again = False  # a change arrived while a run was in progress: run once more
        self._loop: asyncio.AbstractEventLoop | None = None
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
        self.problem: str | None = None  # why no delivery can be recorded now (/healthz: not ok)

    async def start(self, host: Host) -> None:
        from bot.host.serve import context_factory

        self._host = host
        self._loop = asyncio.get_running_loop()
        host.runner.subscriptions_changed.append(self.rearm)
        if host.db is not None:
            self._lane = Lane("deliver", context_factory(self.settings, host.db), workers=1)
        self._scheduler = AsyncIOScheduler(
            timezone=UTC,
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
        )
        self._scheduler.start()
        await self._probe()
        self._arm(timedelta(0))  # catch up at start
        if self.watch is not None and self.watch > timedelta(0):
            self._scheduler.add_job(
                self._watch,
                IntervalTrigger(seconds=self.watch.total_seconds(), timezone=UTC),
                id=WATCH_JOB_ID,
                replace_existing=True,
                max_instances=2,  # a watch stuck behind a sync returns at once (``_watching``)
            )
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
        if self._host is not None and self.rearm in self._host.runner.subscriptions_changed:
            self._host.runner.subscriptions_changed.remove(self.rearm)
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

    async def _probe(self) -> None:
        """Check that deliveries can be recorded (``write_problem``); the answer is /healthz's."""
        try:
            lane = await self._deliver_lane()
            problem = await lane.call(write_problem)
        except StoreError as exc:
            problem = str(exc)
        if problem and problem != self.problem:
            log.error("scheduled delivery cannot work: %s", problem)
        self.problem = problem

    def health(self) -> dict[str, Any]:
        """Not ok, with the reason, while deliveries cannot be recorded (a read-only cache, a
        full disk, a lock held too long): the chat front ends may still answer."""
        return {
            "ok": self.problem is None,
            **({"reason": self.problem} if self.problem else {}),
            "runs": self.runs,
            "last_run": iso(self.last_run) if self.last_run else None,
            "next_run": iso(self.next_run) if self.next_run else None,
            "last": dict(Counter(o.state for o in self.last_outcomes)),
            "syncs": self.syncs,
            "last_sync": {repo: why or "ok" for repo, why in self.last_sync.items()},
        }

    def rearm(self) -> None:
        """Run now: a subscription changed in this process. Safe from any thread (the chat
        handlers' workers included): the run is scheduled onto the host's loop."""
        loop = self._loop
        if loop is None or self._stopping:
            return
        with contextlib.suppress(RuntimeError):  # the loop has closed: the host is gone
            loop.call_soon_threadsafe(self._rearm_now)

    def _rearm_now(self) -> None:
        if self._stopping:
            return
        self.rearms += 1
        if self._lock.locked():  # a run is in progress: it runs once more when it is done
            self._again = True
        else:
            self._arm(timedelta(0))

    def _arm(self, delay: timedelta) -> None:
        if self._scheduler is None or not self._scheduler.running:
            return
        delay = max(delay, timedelta(0))
        when = _utc_now() + delay / clock_rate(self.clock)
        self.next_run = self.clock() + delay
        self._scheduler.add_job(self._tick, DateTrigger(run_date=when), id=JOB_ID, replace_existing=True)

    async def _watch(self) -> None:
        """Another process committed (``data_version`` moved): compute the next wake again and
        move the timer earlier when a due time now comes sooner."""
        if self._stopping or self._watching or self._lock.locked():
            return  # a run in progress computes the next wake itself when it ends
        self._watching = True
        try:
            lane = await self._deliver_lane()
            version = await lane.call(data_version)
            seen, self._data_version = self._data_version, version
            if seen is None or version == seen or self._lock.locked():
                return
            self.watched_changes += 1
            wake = await lane.call(lambda ctx: next_wake(ctx, self.clock(), self.recheck))
            if not self._lock.locked() and (self.next_run is None or wake < self.next_run):
                log.info("subscriptions changed elsewhere; next delivery run at %s", iso(wake))
                self._arm(wake - self.clock())
        except StoreError as exc:
            log.error("watching for subscription changes failed: %s", exc)
        except Exception:
            log.exception("watching for subscription changes failed")
        finally:
            self._watching = False

    async def _tick(self) -> None:
        if self._stopping:
            return
        async with self._lock:
            lane = await self._deliver_lane()
            now = self.clock()
            await self._probe()
            try:
                self.last_outcomes = [] if self.problem else await lane.call(lambda ctx: self._run(ctx, now))
            except StoreError as exc:  # the cache, not a bug: one line, and /healthz says it
                log.error("scheduled delivery run failed: %s", exc)
                self.problem, self.last_outcomes = str(exc), []
            except Exception:
                log.exception("scheduled delivery run failed")
                self.last_outcomes = []
            errors = [o.reason for o in self.last_outcomes if o.state == "error"]
            if errors:
                self.problem = errors[0]
            self.last_run = now
            for outcome in self.last_outcomes:
                log.info("delivery: %s", outcome.line())
            try:
                # the watch's baseline first: a commit after it is seen by the next watch
                self._data_version, wake = await lane.call(
                    lambda ctx: (data_version(ctx), next_wake(ctx, self.clock(), self.recheck))
                )
            except StoreError as exc:
                log.error("computing the next delivery time failed: %s", exc)
                wake = self.clock() + self.recheck
            except Exception:
                log.exception("computing the next delivery time failed")
                wake = self.clock() + self.recheck
            if self._again:  # a subscription changed while this run was going on
                self._again = False
                wake = self.clock()
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
        except StoreError as exc:
            log.error("periodic sync failed: %s", exc)
        except Exception:
            log.exception("periodic sync failed")
        self.syncs += 1

    def _sync_all(self, ctx: Context) -> dict[str, str | None]:
        repos = set(ctx.store.repos()) | {s.repo for s in SubscriptionStore(ctx.store.db).active()}
        repos.update(self.settings.prdigest_repo)
        return {
            repo: sync_now(self.settings, ctx.store.db, _profile_of(ctx), repo, max_wait=PERIODIC_MAX_WAIT)
            for repo in sorted(repos)
        }

    async def _deliver_lane(self) -> Lane:
        """The worker thread deliveries run in (on a host built without a path: found through
        one of the host's workers, once)."""
        if self._lane is None:
            from bot.host.serve import context_factory

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
            refresh=github_refresh(self.settings, ctx.store.db, _profile_of(ctx)),
            profiles=ctx.profiles,
            prose=prose_writer(self.settings, ctx.store.db),
        )
        return asyncio.run(deliverer.run(now))


def _profile_of(ctx: Context) -> Callable[[str], Profile]:
    """Each repository's profile, chosen as the worker's context chooses it."""

    def of(repo: str) -> Profile:
        return ctx.for_repo(repo).profile

    return of


def component(settings: Settings, options: ServeOptions) -> DeliveryScheduler:
    """``bot.host.serve``'s entry point for scheduled delivery."""
    return DeliveryScheduler(settings)
