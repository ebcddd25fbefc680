"""Scheduled delivery: every due digest posted exactly once and whole, and every miss on record.

One run (``Deliverer.run(now)``, used by ``prdigest deliver`` and the scheduler in ``serve``):

1. **Resume** claims whose lease expired — a process died between claim and record, a transient
   failure asked for a later attempt, a partial delivery's retry time came, or ``deliveries
   --retry`` reset a row — from the messages stored with the claim.
2. **Deliver** what each active subscription is owed (``commands.schedule.owed``): a period
   due within the catch-up window is claimed (``BEGIN IMMEDIATE``; a second process or a retried
   job gets nothing), built through the same command path as a typed ``/digest`` (filtered as the
   subscription says, with its chart), rendered once for its platform and stored with the claim
   (``storage.delivery_steps``), then posted one message at a time (``bot.delivery.posting``:
   every message keyed by its section, looked for before it is sent again). A period past the
   window is recorded as skipped, with the reason, and logged.

Different channels are delivered to at the same time, each channel's deliveries in order
(``bot.delivery.lanes``; the posters keep the platforms' limits, ``bot.chat.pacing``), and
subscriptions asking for the same digest share one build of it (``bot.delivery.builds``).

Outcomes: ``posted`` only when every message landed. When the lead landed and a reply did not,
``partial`` names what is missing and why; a transient cause is resumed by a later run (from the
stored messages, never a rebuilt digest) until the catch-up window ends, when the row stays
``partial`` with the reason and ``deliveries --retry`` resumes it. Nothing landed: transient
failures hand the claim to a later run (``retrying``), permanent ones (unknown channel, bot not
in it, archived, missing permission) are ``failed`` with the poster's one-line reason. A revoked
or invalid token holds every further delivery to that platform in the run. A storage fault (a
read-only or full disk, a lock held past PRDIGEST_LOCK_TIMEOUT) stops the run with one line.
Nothing of an error ever goes to a channel: the only things posted are digests and the
quiet-week line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Protocol, TypeVar

from bot.chat.steps import StepPoster
from bot.config.settings import ConfigError
from bot.delivery.builds import Built, Once, content_key
from bot.delivery.lanes import Job, Opened, fan_out
from bot.delivery.posting import ATTEMPTS, MAX_WAIT, LostClaim, Progress, StepRun, Stop, unused_uploads
from classify.rules import Profile
from commands.invocations import digest_words, subscription_digest
from commands.locale import t
from commands.model import Heading, Paragraph, Reply
from commands.registry import Context, Profiles, dispatch
from commands.schedule import DEFAULT_CATCHUP, Due, owed
from storage.db import StoreError
from storage.deliveries import DEFAULT_LEASE, RETRY_REQUESTED, Claim, Delivery, DeliveryStore
from storage.delivery_steps import StepStore, StoredStep
from storage.prs import PRStore, iso
from storage.subscriptions import Subscription, SubscriptionStore

if TYPE_CHECKING:
    from bot.prose.writer import ProseWriter
    from storage.connection import Cache

log = logging.getLogger(__name__)

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]
PosterFactory = Callable[[str], StepPoster]
# ``refresh(repo)`` brings the cache up to date before a digest (``bot.ingest.refresh``); None when it
# synced, else a reason code (no_token, unreachable, rate_limited, rejected) for the freshness note.
Refresh = Callable[[str], Awaitable[str | None]]

BACKOFF = (2.0, 8.0)  # seconds before the 2nd and 3rd send of a step
# channels delivered to at once: enough to keep Slack's workspace rate busy (10 messages a
# second) while each channel waits its second between messages and its chart's upload
CONCURRENCY = 64
RETRY_LATER = timedelta(minutes=15)  # a delivery that kept failing transiently is resumed after this
AUTH_CODES = frozenset(
    {"invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive", "401"}
)
# outcomes that leave something undelivered: `prdigest deliver` exits non-zero
MISSING = frozenset({"failed", "unknown", "partial", "retrying", "error"})


class Worker(Protocol):
    """Runs ``fn(context)`` off the event loop, on a thread with its own cache connection
    (``serve``'s lane): building a digest and drawing its chart take long enough to stall the
    chat front ends sharing the loop."""

    def __call__(self, fn: Callable[[Context], T], /) -> Awaitable[T]: ...


@dataclass(frozen=True)
class Outcome:
    """What a run did with one period of one subscription.

    ``state``: posted, partial, failed, unknown, skipped (missed or a silent quiet week),
    retrying (nothing landed yet; a later run resumes it), held (another process holds it, or its
    platform is held this run), error (the cache could not record it) or planned (``--dry-run``)."""

    subscription: int
    target: str
    period_start: date
    state: str
    reason: str = ""
    ids: tuple[str, ...] = ()
    title: str = ""

    def line(self) -> str:
        """One line for the CLI and the log: ``posted slack:C1 #3 2026-05-04 (2 messages)``."""
        text = f"{self.state:8} {self.target} #{self.subscription} {self.period_start}"
        if self.title:
            text += f" — {self.title}"
        if self.ids:
            text += f" ({len(self.ids)} message{'s' if len(self.ids) != 1 else ''})"
        if self.reason:
            text += f": {self.reason}"
        return text


def owner_id() -> str:
    """Who holds a claim: host, process and a random part (two runs in one process differ)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def freshness_note(store: PRStore, repo: str, lang: str, why: str) -> str:
    """``Data as of 2026-05-11 06:40 UTC (not synced: GITHUB_TOKEN is not set).`` — ``why`` is a
    fixed reason code (``bot.ingest.refresh``), never an exception's text."""
    row = store.db.execute("SELECT MAX(updated_at) FROM sync_state WHERE repo = ?", (repo,)).fetchone()
    stamp = row[0] if row and row[0] else None
    if stamp is None:
        span = store.merged_range(repo)
        stamp = iso(span[1]) if span else None
    reason = t(lang, f"delivery.why.{why}")
    if stamp is None:
        return t(lang, "delivery.freshness_none", repo=repo, why=reason)
    return t(lang, "delivery.freshness", when=stamp.replace("T", " ").replace("Z", " UTC"), why=reason)


def _minute(moment: datetime) -> str:
    return iso(moment.replace(microsecond=0))


@dataclass
class Deliverer:
    """Runs due deliveries against one database; see the module docstring."""

    db: Cache
    profile: Profile
    posters: PosterFactory
    owner: str = field(default_factory=owner_id)
    catchup: timedelta = DEFAULT_CATCHUP
    lease: timedelta = DEFAULT_LEASE
    refresh: Refresh | None = None
    profiles: Profiles | None = None
    """each repository's profile (the digest of a subscription's repository answers with it)"""
    prose: ProseWriter | None = None  # a language model wording the digests (``bot.prose``)
    worker: Worker | None = None  # where the digest is built and drawn (None: here, on this loop)
    sleep: Sleep = asyncio.sleep
    backoff: Sequence[float] = BACKOFF
    concurrency: int = CONCURRENCY
    _open: dict[str, StepPoster] = field(default_factory=dict, init=False)
    _held: dict[str, str] = field(default_factory=dict, init=False)
    _started: float = field(default_factory=time.monotonic, init=False)
    _titles: dict[int, str] = field(default_factory=dict, init=False)  # delivery id → digest title
    _builds: Once[tuple[object, ...], Built] = field(default_factory=Once, init=False)
    _synced: Once[str, str | None] = field(default_factory=Once, init=False)  # repo → refresh()

    @property
    def subscriptions(self) -> SubscriptionStore:
        return SubscriptionStore(self.db)

    @property
    def ledger(self) -> DeliveryStore:
        return DeliveryStore(self.db)

    async def run(self, now: datetime, *, dry_run: bool = False) -> list[Outcome]:
        """Deliver everything due at ``now`` once (resumptions first, then new periods; outcomes
        in that order). A storage fault ends the run with an ``error`` outcome naming it (nothing
        more can be recorded)."""
        self._started = time.monotonic()
        self._builds, self._synced = Once(), Once()
        outcomes: list[Outcome] = []
        try:
            subs = {s.id: s for s in self.subscriptions.all() if s.id is not None}
            outcomes.extend(self._pending(subs, now))
            planned = self._plan(subs, now, dry_run)
            jobs = [
                Job(i, p[0].platform, p[0].channel, p) for i, p in enumerate(planned) if isinstance(p, tuple)
            ]
            done: dict[int, Outcome] = {}

            async def work(job: Job[tuple[Subscription, Due]], opened: Opened) -> Outcome:
                sub, due = job.item
                return await self._deliver(sub, due, now, dry_run, opened=opened)

            async def ready(job: Job[tuple[Subscription, Due]]) -> None:
                await self._prefetch(*job.item, now)

            try:
                await fan_out(
                    jobs, work, limit=self.concurrency, results=done, ready=None if dry_run else ready
                )
            finally:
                outcomes.extend(
                    p if isinstance(p, Outcome) else done[i]
                    for i, p in enumerate(planned)
                    if i in done or isinstance(p, Outcome)
                )
        except StoreError as exc:
            log.warning("delivery run stopped: %s", exc)
            outcomes.append(Outcome(0, "-", now.date(), "error", str(exc)))
        finally:
            self._builds, self._synced = Once(), Once()  # nothing built outlives the run
            await self.close()
        return outcomes

    async def _prefetch(self, sub: Subscription, due: Due, now: datetime) -> None:
        """Build the digest a new period will post before its delivery takes one of the run's
        places, so that deliveries whose digest is built post while others are still drawn. A
        resumed delivery may have its messages stored already: it builds only if it must. What
        goes wrong here goes wrong again, and is handled, when the delivery itself asks."""
        if due.index < 0 or sub.platform in self._held:
            return
        with contextlib.suppress(Exception):
            poster = self._poster(sub.platform)
            await self._builds.get(content_key(sub, due), lambda: self._built(poster, sub, due, now))

    def _plan(
        self, subs: dict[int, Subscription], now: datetime, dry_run: bool
    ) -> list[Outcome | tuple[Subscription, Due]]:
        """What the run does, in order: the expired claims to resume, then each subscription's
        owed periods — a delivery to make, or a miss recorded at once (its Outcome)."""
        planned: list[Outcome | tuple[Subscription, Due]] = []
        for stale in self.ledger.expired_claims(now):
            sub = subs.get(stale.subscription_id)
            if sub is not None and not sub.paused:
                planned.append((sub, Due(-1, stale.period_start, stale.period_end, stale.due_at)))
        for sub in subs.values():
            assert sub.id is not None
            for due, verdict in owed(sub, now, self.catchup):
                if self.ledger.find(sub.id, due.start_date) is not None:
                    continue
                planned.append(self._skip(sub, due, now, dry_run) if verdict == "skip" else (sub, due))
        return planned

    def _pending(self, subs: dict[int, Subscription], now: datetime) -> list[Outcome]:
        """What another process holds at ``now``, or a later run will resume: said, so that a
        pending digest is never invisible ("nothing due")."""
        out = []
        for d in self.ledger.leased(now):
            sub = subs.get(d.subscription_id)
            if sub is None or sub.paused or d.lease_until is None:
                continue
            if d.lease_owner is None:
                reason = f"resumes at {_minute(d.lease_until)}: {d.reason}"
                out.append(Outcome(d.subscription_id, sub.target, d.period_start, "retrying", reason))
            else:
                reason = f"leased to {d.lease_owner} until {_minute(d.lease_until)}"
                out.append(Outcome(d.subscription_id, sub.target, d.period_start, "held", reason))
        for d in self.ledger.recent(limit=200):
            sub = subs.get(d.subscription_id)
            if d.state == "partial" and d.lease_until is not None and d.lease_until > now and sub is not None:
                reason = f"resumes at {_minute(d.lease_until)}: {d.reason}"
                out.append(Outcome(d.subscription_id, sub.target, d.period_start, "partial", reason))
        return out

    async def close(self) -> None:
        posters, self._open = list(self._open.values()), {}
        for poster in posters:
            await poster.close()

    # -- one period -------------------------------------------------------------------------------

    def _skip(self, sub: Subscription, due: Due, now: datetime, dry_run: bool) -> Outcome:
        assert sub.id is not None
        hours = self.catchup.total_seconds() / 3600
        reason = (
            f"missed: due {iso(due.due)}, and no prdigest ran within the catch-up window "
            f"({hours:g} h, PRDIGEST_CATCHUP)"
        )
        if not dry_run and self.ledger.skip(
            sub.id, due.start_date, due.end_date, due.due, reason=reason, now=now
        ):
            log.warning("delivery skipped: %s #%s period %s: %s", sub.target, sub.id, due.start_date, reason)
        return Outcome(sub.id, sub.target, due.start_date, "skipped", reason)

    async def _deliver(
        self, sub: Subscription, due: Due, now: datetime, dry_run: bool, *, opened: Opened | None = None
    ) -> Outcome:
        assert sub.id is not None
        if dry_run:
            reply = self.build(sub, due, now)
            title = reply.title if reply is not None else "(quiet week: nothing posted)"
            return Outcome(sub.id, sub.target, due.start_date, "planned", title=title)
        if sub.platform in self._held:
            return Outcome(sub.id, sub.target, due.start_date, "held", self._held[sub.platform])
        claim = self.ledger.claim(
            sub.id, due.start_date, due.end_date, due.due, owner=self.owner, now=now, lease=self.lease
        )
        if claim is None:
            return Outcome(
                sub.id, sub.target, due.start_date, "held", "claimed by another run or already done"
            )
        try:
            return await self._claimed(sub, due, claim, now, opened)
        except LostClaim as exc:
            log.warning("%s", exc)
            return Outcome(sub.id, sub.target, due.start_date, "held", "taken over by another run")
        except StoreError:
            raise  # the cache cannot record anything more: the run stops with one line
        except Exception:  # a bug must not leave a claim dangling or reach a channel
            log.exception("delivery %s crashed", claim.delivery.key)
            return self._finish(sub, claim, "failed", now, reason="internal error (see the prdigest log)")

    async def _claimed(
        self, sub: Subscription, due: Due, claim: Claim, now: datetime, opened: Opened | None = None
    ) -> Outcome:
        d = claim.delivery
        try:
            poster = self._poster(sub.platform)
        except ConfigError as exc:
            return self._finish(sub, claim, "failed", now, reason=str(exc))
        steps = StepStore(self.db)
        window_over = now - d.due_at > self.catchup and d.reason.startswith("retrying")
        if not steps.for_delivery(d.id):
            if window_over:
                return self._finish(
                    sub, claim, "failed", now, reason=d.reason.replace("retrying", "gave up", 1)
                )
            early = await self._render(poster, sub, due, claim, now)
            if early is not None:
                return early
        run = StepRun(
            poster,
            self.ledger,
            steps,
            claim,
            sub.channel,
            clock=lambda: self._clock(now),
            sleep=self.sleep,
            backoff=self.backoff,
            lease=self.lease,
            sends=not window_over,
            on_lead=opened,
        )
        progress = await run.run()
        return await self._settle(poster, sub, claim, progress, now)

    async def _render(
        self, poster: StepPoster, sub: Subscription, due: Due, claim: Claim, now: datetime
    ) -> Outcome | None:
        """Store the digest's messages with the claim (built once per run for every subscription
        asking for the same digest, keyed for this delivery); an Outcome when there is nothing to
        post (a quiet week kept silent, a digest that cannot be built)."""
        d = claim.delivery
        period = Due(-1, d.period_start, d.period_end, d.due_at)
        built = await self._builds.get(
            content_key(sub, period), lambda: self._built(poster, sub, period, now)
        )
        if built.failed is not None:  # e.g. the repository is not in the cache: tell the admin
            return self._finish(sub, claim, "failed", now, reason=built.failed)
        if built.silent:
            return self._finish(
                sub, claim, "skipped", now, reason="quiet week: nothing merged (quiet = silent)"
            )
        rendered = poster.keyed(built.steps, key=d.key, repo=sub.repo)
        steps = StepStore(self.db)
        if not steps.store(claim, [(s.key, s.body, s.fallback) for s in rendered]):
            raise LostClaim(f"delivery {d.key}: the claim was taken over before its messages were stored")
        if claim.takeover:  # an attempt before this one may have posted without storing anything
            steps.sending(claim, "lead", now=d.created_at)
        self._titles[d.id] = built.title
        return None

    async def _built(self, poster: StepPoster, sub: Subscription, due: Due, now: datetime) -> Built:
        """The digest for ``due`` as ``sub`` asks for it, worded, charted and rendered for its
        platform without a delivery key: shared by every subscription asking for the same one."""
        why_stale = await self._synced.get(sub.repo, lambda: self._refresh(sub.repo))
        reply = await self._work(lambda ctx: self.digest(sub, due, now, why_stale=why_stale, ctx=ctx))
        if reply is not None and not reply.ok:
            return Built(failed=reply.title)
        if reply is None:
            return Built(silent=True)
        worded = await self.worded(sub, reply)
        # the chart is drawn off the loop — on serve's worker, else in the chart thread (matplotlib:
        # one chart at a time) — so the posts and the chat front ends go on meanwhile
        if self.worker is not None:
            reply = await self._work(lambda _: charted(worded))
        else:
            reply = await asyncio.get_running_loop().run_in_executor(_CHARTS, charted, worded)
        reply = self.laid_out(reply, sub, chart=False)
        words = " ".join(digest_words(sub, due.period_word))
        rendered = poster.steps(reply, key="", repo=sub.repo, smaller=smaller(reply, sub, words))
        return Built(title=reply.title, steps=tuple(rendered))

    async def _settle(
        self, poster: StepPoster, sub: Subscription, claim: Claim, progress: Progress, now: datetime
    ) -> Outcome:
        """Record what a run achieved: posted, partial, retrying, failed or unknown."""
        d, stop = claim.delivery, progress.stop
        lead = progress.lead
        landed = lead.state == "posted"
        ids = tuple(str(s.message_id) for s in progress.landed)
        permalink = await poster.link(sub.channel, str(lead.message_id)) if landed else None
        title = self._titles.get(d.id, "")
        note = "; ".join(progress.notes)
        if stop is None:
            await self._tidy(poster, claim, lead, landed=True)
            return self._finish(
                sub, claim, "posted", now, reason=note, ids=ids, permalink=permalink, title=title
            )
        cause = self._cause(sub, stop)
        if not landed:
            return await self._not_landed(poster, sub, claim, progress, stop, cause, now)
        wanted = progress.wanted
        missing = ", ".join(s.key for s in progress.missing)
        posted = f"posted {len(progress.landed)} of {len(wanted)} messages (missing: {missing})"
        await self._tidy(poster, claim, lead, landed=True)
        if stop.kind == "permanent":
            reason = f"{posted}: {cause}; fix that, then `prdigest deliveries --retry {d.id}`"
            return self._finish(
                sub, claim, "partial", now, reason=reason, ids=ids, permalink=permalink, title=title
            )
        if stop.kind == "window" or self._past_window(d, now):
            reason = f"gave up at the end of the catch-up window: {posted}: {cause}; `prdigest deliveries --retry {d.id}` resumes it"
            return self._finish(
                sub, claim, "partial", now, reason=reason, ids=ids, permalink=permalink, title=title
            )
        until = self._retry_at(now, stop)
        reason = f"retrying at {_minute(until)}: {posted}: {cause}"
        return self._finish(
            sub,
            claim,
            "partial",
            now,
            reason=reason,
            ids=ids,
            permalink=permalink,
            title=title,
            retry_at=until,
        )

    async def _not_landed(
        self,
        poster: StepPoster,
        sub: Subscription,
        claim: Claim,
        progress: Progress,
        stop: Stop,
        cause: str,
        now: datetime,
    ) -> Outcome:
        """Nothing landed: failed (a clear refusal, or the window ended), unknown (nobody can
        tell) or retrying (a later run resumes it)."""
        d, title = claim.delivery, self._titles.get(claim.delivery.id, "")
        if stop.kind in ("permanent", "window"):
            await self._tidy(poster, claim, progress.lead, landed=False)
            reason = cause if stop.kind == "permanent" else d.reason.replace("retrying", "gave up", 1)
            return self._finish(sub, claim, "failed", now, reason=reason, title=title)
        if stop.kind == "unknown":
            return self._finish(sub, claim, "unknown", now, reason=cause, title=title)
        if progress.lead.state == "pending":  # refused with a clear answer: its chart is unused
            await self._tidy(poster, claim, progress.lead, landed=False)
        until = self._retry_at(now, stop)
        if stop.retry_after is not None and stop.retry_after > MAX_WAIT:
            reason = (
                f"retrying at {_minute(until)} ({sub.platform} asked to wait {stop.retry_after:g} s): {cause}"
            )
        else:
            reason = f"retrying after {ATTEMPTS} attempts: {cause}"
        self.ledger.release(claim, now=now, until=until, reason=reason)
        log.warning("delivery %s: %s", d.key, reason)
        return Outcome(d.subscription_id, sub.target, d.period_start, "retrying", reason, title=title)

    def _cause(self, sub: Subscription, stop: Stop) -> str:
        if stop.error is not None:
            if stop.kind == "permanent" and stop.error.code in AUTH_CODES:
                self._hold(sub.platform, str(stop.error))
            return str(stop.error)
        return stop.reason or stop.kind

    def _retry_at(self, now: datetime, stop: Stop) -> datetime:
        """When a later run may try again: RETRY_LATER from now, or later when the platform asked
        for a longer wait (never before it)."""
        later = self._clock(now) + RETRY_LATER
        if stop.retry_after is not None:
            later = max(later, self._clock(now) + timedelta(seconds=stop.retry_after))
        return later

    def _past_window(self, d: Delivery, now: datetime) -> bool:
        return now - d.due_at > self.catchup and not d.reason.startswith(RETRY_REQUESTED)

    async def _tidy(self, poster: StepPoster, claim: Claim, lead: StoredStep, *, landed: bool) -> None:
        """Delete the uploads the landed lead does not show (all of them when it has not landed),
        and note them gone, so that a later attempt uploads its own."""
        unused = unused_uploads(lead, landed=landed)
        if unused:
            await poster.delete_uploads(unused)
            marked = [{**u, "gone": True} if str(u["id"]) in unused else u for u in lead.uploads]
            StepStore(self.db).uploads(claim, lead.key, marked)

    def _clock(self, now: datetime) -> datetime:
        """The run's clock: ``now`` (when the run began) plus the real time spent since."""
        return now + timedelta(seconds=time.monotonic() - self._started)

    def _finish(
        self,
        sub: Subscription,
        claim: Claim,
        state: str,
        now: datetime,
        *,
        reason: str = "",
        ids: tuple[str, ...] = (),
        permalink: str | None = None,
        title: str = "",
        retry_at: datetime | None = None,
    ) -> Outcome:
        d = claim.delivery
        if not self.ledger.finish(
            claim,
            state,
            now=now,
            reason=reason,
            message_ids=ids,
            permalink=permalink,
            retry_at=retry_at,  # type: ignore[arg-type]
        ):
            log.error("delivery %s: the claim was lost before recording %s", d.key, state)
        if state in ("failed", "unknown", "partial"):
            log.warning("delivery %s to %s %s: %s", d.key, sub.target, state, reason)
        else:
            log.info("delivery %s to %s %s", d.key, sub.target, state)
        return Outcome(d.subscription_id, sub.target, d.period_start, state, reason, ids, title)

    def _hold(self, platform: str, reason: str) -> None:
        if platform not in self._held:
            self._held[platform] = f"{platform} deliveries held for this run: {reason}"
            log.error("%s", self._held[platform])

    def _poster(self, platform: str) -> StepPoster:
        if platform not in self._open:
            self._open[platform] = self.posters(platform)
        return self._open[platform]

    async def _work(self, fn: Callable[[Context], T]) -> T:
        """``fn(context)`` on the worker, or here with this run's own connection."""
        if self.worker is not None:
            return await self.worker(fn)
        return fn(self._context())

    def _context(self) -> Context:
        return Context(store=PRStore(self.db), profile=self.profile, profiles=self.profiles)

    async def _refresh(self, repo: str) -> str | None:
        if self.refresh is None:
            return "not_synced"
        try:
            return await self.refresh(repo)
        except Exception as exc:  # a failed sync still lets the digest go out from the cache
            log.warning("sync of %s before the digest failed: %s", repo, type(exc).__name__)
            return "unreachable"

    # -- the digest -------------------------------------------------------------------------------

    def build(
        self,
        sub: Subscription,
        due: Due,
        now: datetime,
        *,
        why_stale: str | None = None,
        chart: bool = False,
    ) -> Reply | None:
        """The digest for ``due`` exactly as ``digest <words>`` answers it, or the quiet-week line
        (None for a silent quiet week). ``why_stale`` adds how fresh the cache is; ``chart`` adds
        the chart at the end of the lead (``bot.delivery.chart.with_chart``) — a chart that cannot be drawn
        is logged and the digest goes without it."""
        reply = self.digest(sub, due, now, why_stale=why_stale)
        return None if reply is None else self.laid_out(reply, sub, chart=chart)

    def digest(
        self,
        sub: Subscription,
        due: Due,
        now: datetime,
        *,
        why_stale: str | None = None,
        ctx: Context | None = None,
    ) -> Reply | None:
        """``build`` before its layout: what a language model may word (``worded``) is still in
        the sections where the digest put it. ``ctx``: the cache and profiles to build from (a
        worker's; by default this run's own)."""
        inv = subscription_digest(sub, due.period_word, platform=sub.platform, now=now)
        ctx = self._context() if ctx is None else ctx
        store = ctx.store
        reply = dispatch(inv, ctx)
        if reply.ok and not reply.data.get("counts", {}).get("merged"):
            if sub.quiet == "silent":
                return None
            period = due.period(sub.timezone).label
            reply = Reply(
                command="digest",
                lang=reply.lang,
                title=t(sub.lang, "delivery.quiet", repo=sub.repo, period=period),
            )
        if why_stale is not None:
            reply.blocks.append(Paragraph(text=freshness_note(store, sub.repo, sub.lang, why_stale)))
        return reply

    def laid_out(self, reply: Reply, sub: Subscription, *, chart: bool) -> Reply:
        """The chart added (``chart``) and the subscription's layout applied."""
        if chart:
            reply = charted(reply)
        if sub.layout == "single":
            reply = single(reply)
        return reply

    async def worded(self, sub: Subscription, reply: Reply) -> Reply:
        """The digest with a language model's verified sentences (``bot.prose``), when one is
        configured and the subscription has not turned it off. Computed before anything is posted:
        a delivery resumed after a crash posts what was built, and the model is never a reason a
        digest is not posted."""
        if self.prose is None or sub.prose == "off":
            return reply
        try:
            return await self.prose.write(reply)
        except Exception:
            log.exception("prose for %s failed; posting the computed digest", sub.target)
            return reply


_CHARTS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prdigest-chart")  # matplotlib: one at a time


def charted(reply: Reply) -> Reply:
    """The digest with its chart (matplotlib is imported only now), or as it was when drawing fails."""
    try:
        from bot.delivery.chart import with_chart

        return with_chart(reply)
    except Exception:  # a chart is an extra: never the reason a digest is not posted
        log.exception("the chart for %r could not be drawn; posting the digest without it", reply.title)
        return reply


def smaller(reply: Reply, sub: Subscription, words: str) -> Reply:
    """The smaller layout, for a digest the platform refused as too large: the title and the
    executive summary only, and where the rest can be read."""
    lead = [b for b in reply.blocks if isinstance(b, Paragraph)][:2]
    more = t(sub.lang, "delivery.smaller", command=f"/digest {words}")
    return replace(reply, blocks=[*lead, Paragraph(text=more)], sections=[], files=[])


def single(reply: Reply) -> Reply:
    """The "single message" layout: every section folded into the lead (posters split it only
    where the platform's limits force them to)."""
    blocks = list(reply.blocks)
    for section in reply.sections:
        blocks.append(Heading(text=section.title, level=3))
        blocks.extend(section.blocks)
    return replace(reply, blocks=blocks, sections=[])
