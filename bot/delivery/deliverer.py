"""Scheduled delivery: every due digest posted exactly once, and every miss on record.

One run (``Deliverer.run(now)``, used by ``prdigest deliver`` and the scheduler in ``serve``):

1. **Recover** claims whose lease expired — a process died between claim and record, a
   transient failure asked for a later attempt, or ``deliveries --retry`` reset a row. Before
   posting again, the platform's poster looks for the earlier post (Slack: the delivery key in
   the lead's message metadata; Discord: in the lead's embed footer); found → recorded as
   posted, not posted twice; cannot tell → recorded as ``unknown`` rather than risk a duplicate.
2. **Deliver** what each active subscription is owed (``commands.schedule.owed``): a period
   due within the catch-up window is claimed (``BEGIN IMMEDIATE``; a second process or a retried
   job gets nothing), built through the same command path as a typed ``/digest`` (filtered as the
   subscription says), posted through the platform's ``Poster`` with the delivery key, and
   recorded. A period past the window is recorded as skipped, with the reason, and logged.
   The digest carries its chart (``bot.delivery.chart.with_chart``); the lease is renewed while the post
   is in progress, so a post slower than the lease is never taken over.

Failures: transient errors (429, 5xx, network) are retried with back-off within the run, and if
they persist the claim is handed to a later run (until the catch-up window ends, then failed);
permanent ones (unknown channel, bot not in it, archived, missing permission) mark the delivery
failed with the poster's one-line reason. A revoked or invalid token holds every further
delivery to that platform in the run, with one log line. Nothing of an error ever goes to a
channel: the only things posted are digests and the quiet-week line.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

import sqlite_utils

from bot.chat.post import PermanentPostError, Poster, PostError, PostResult
from bot.config.settings import ConfigError
from classify.rules import Profile
from commands.locale import t
from commands.model import Heading, Invocation, Paragraph, Reply
from commands.registry import Context, dispatch
from commands.schedule import DEFAULT_CATCHUP, Due, owed
from storage.deliveries import DEFAULT_LEASE, Claim, Delivery, DeliveryStore
from storage.prs import PRStore, iso
from storage.subscriptions import Subscription, SubscriptionStore

if TYPE_CHECKING:
    from bot.prose.writer import ProseWriter

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
PosterFactory = Callable[[str], Poster]
# ``refresh(repo)`` brings the cache up to date before a digest (``bot.ingest.refresh``); None when it
# synced, else a reason code (no_token, unreachable, rate_limited, rejected) for the freshness note.
Refresh = Callable[[str], Awaitable[str | None]]

ATTEMPTS = 3  # posts tried within one run for transient errors
BACKOFF = (2.0, 8.0)  # seconds before the 2nd and 3rd attempt
RETRY_LATER = timedelta(minutes=15)  # a claim that kept failing transiently is tried again after this
# the platform refused the message's size or shape: post the smaller layout instead (Slack's
# codes; Discord's 50035 "Invalid Form Body" for an embed over its limits)
LAYOUT_CODES = frozenset({"msg_too_long", "msg_blocks_too_long", "invalid_blocks", "50035"})
AUTH_CODES = frozenset(
    {"invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive", "401"}
)


class LostClaim(Exception):
    """Another run took the claim over (its lease ran out) before this one posted."""


class FindsDeliveries(Protocol):
    """A poster that can look for an earlier post of a delivery (Slack: metadata in history;
    Discord: the footer among the channel's recent messages)."""

    async def find_delivery(self, channel: str, key: str) -> PostResult | None: ...


@dataclass(frozen=True)
class Outcome:
    """What a run did with one period of one subscription.

    ``state``: posted, failed, unknown, skipped (missed or a silent quiet week), held (another
    process owns it, or its platform is held this run) or planned (``--dry-run``)."""

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


def digest_words(sub: Subscription, due: Due) -> tuple[str, ...]:
    """The words of the ``digest`` command that builds this delivery — what a person would type
    to see the same view: ``digest 2026-W19 rocm core-path``."""
    words = [due.period_word, *sub.modules, *sub.flags]
    if sub.modules and sub.match != "any":
        words.append(sub.match)
    return tuple(words)


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


@dataclass
class Deliverer:
    """Runs due deliveries against one database; see the module docstring."""

    db: sqlite_utils.Database
    profile: Profile
    posters: PosterFactory
    owner: str = field(default_factory=owner_id)
    catchup: timedelta = DEFAULT_CATCHUP
    lease: timedelta = DEFAULT_LEASE
    refresh: Refresh | None = None
    prose: ProseWriter | None = None  # a language model wording the digests (``bot.prose``)
    sleep: Sleep = asyncio.sleep
    backoff: Sequence[float] = BACKOFF
    _open: dict[str, Poster] = field(default_factory=dict, init=False)
    _held: dict[str, str] = field(default_factory=dict, init=False)
    _started: float = field(default_factory=time.monotonic, init=False)

    @property
    def subscriptions(self) -> SubscriptionStore:
        return SubscriptionStore(self.db)

    @property
    def ledger(self) -> DeliveryStore:
        return DeliveryStore(self.db)

    async def run(self, now: datetime, *, dry_run: bool = False) -> list[Outcome]:
        """Deliver everything due at ``now`` once (recoveries first, then new periods)."""
        self._started = time.monotonic()
        outcomes: list[Outcome] = []
        try:
            subs = {s.id: s for s in self.subscriptions.all() if s.id is not None}
            for stale in self.ledger.expired_claims(now):
                sub = subs.get(stale.subscription_id)
                if sub is None or sub.paused:
                    continue
                due = Due(-1, stale.period_start, stale.period_end, stale.due_at)
                outcomes.append(await self._deliver(sub, due, now, dry_run))
            for sub in subs.values():
                assert sub.id is not None
                for due, verdict in owed(sub, now, self.catchup):
                    if self.ledger.find(sub.id, due.start_date) is not None:
                        continue
                    if verdict == "skip":
                        outcomes.append(self._skip(sub, due, now, dry_run))
                    else:
                        outcomes.append(await self._deliver(sub, due, now, dry_run))
        finally:
            await self.close()
        return outcomes

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

    async def _deliver(self, sub: Subscription, due: Due, now: datetime, dry_run: bool) -> Outcome:
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
            return await self._claimed(sub, due, claim, now)
        except LostClaim as exc:
            log.warning("%s", exc)
            return Outcome(sub.id, sub.target, due.start_date, "held", "taken over by another run")
        except Exception:  # a bug must not leave a claim dangling or reach a channel
            log.exception("delivery %s crashed", claim.delivery.key)
            return self._finish(sub, claim, "failed", now, reason="internal error (see the prdigest log)")

    async def _claimed(self, sub: Subscription, due: Due, claim: Claim, now: datetime) -> Outcome:
        delivery = claim.delivery
        try:
            poster = self._poster(sub.platform)
        except ConfigError as exc:
            return self._finish(sub, claim, "failed", now, reason=str(exc))
        if claim.takeover:
            if now - delivery.due_at > self.catchup and delivery.reason.startswith("retrying"):
                return self._finish(
                    sub, claim, "failed", now, reason=delivery.reason.replace("retrying", "gave up", 1)
                )
            earlier = await self._earlier_post(poster, sub, delivery)
            if isinstance(earlier, str):
                return self._finish(sub, claim, "unknown", now, reason=earlier)
            if earlier is not None:
                return self._finish(
                    sub,
                    claim,
                    "posted",
                    now,
                    reason=f"found the post of attempt {delivery.attempts - 1}; not posted again",
                    ids=earlier.ids,
                    permalink=earlier.permalink,
                )
        reply = self.digest(sub, due, now, why_stale=await self._refresh(sub.repo))
        if (
            reply is not None and not reply.ok
        ):  # e.g. the repository is not in the cache: tell the admin, not the channel
            return self._finish(sub, claim, "failed", now, reason=reply.title)
        if reply is None:
            return self._finish(
                sub, claim, "skipped", now, reason="quiet week: nothing merged (quiet = silent)"
            )
        reply = self.laid_out(await self.worded(sub, reply), sub, chart=True)
        reply.delivery_key = delivery.key
        return await self._post(poster, sub, claim, reply, now)

    async def _earlier_post(
        self, poster: Poster, sub: Subscription, delivery: Delivery
    ) -> PostResult | str | None:
        """The earlier attempt's post, None when there is none, or why it cannot be told."""
        return await self._landed(poster, sub, delivery.key, f"attempt {delivery.attempts - 1}")

    async def _landed(
        self, poster: Poster, sub: Subscription, key: str, which: str = "the failed post"
    ) -> PostResult | str | None:
        """The post carrying delivery ``key`` in the channel, None when there is none, or why it
        cannot be told (then the delivery is "unknown" rather than risk a duplicate)."""
        finder: Any = getattr(poster, "find_delivery", None)
        if finder is None:
            return (
                f"{which} may have posted and {sub.platform} cannot be searched "
                "for it; check the channel, then `prdigest deliveries --retry` if it is missing"
            )
        try:
            found: PostResult | None = await finder(sub.channel, key)
        except PostError as exc:
            return f"could not check whether {which} posted: {exc}"
        return found

    async def _post(
        self, poster: Poster, sub: Subscription, claim: Claim, reply: Reply, now: datetime
    ) -> Outcome:
        """Post with up to ATTEMPTS tries for transient errors (back-off between them), and one
        retry in the smaller layout when the platform refuses the message as too large."""
        d = claim.delivery
        words = " ".join(digest_words(sub, Due(-1, d.period_start, d.period_end, d.due_at)))
        last: PostError | None = None
        transient = 0
        note = ""
        while True:
            try:
                result = await self._posting(poster, reply, sub.channel, claim, now)
            except PermanentPostError as exc:
                if exc.code in LAYOUT_CODES and not exc.posted and not note:
                    log.warning("delivery %s: %s; posting the smaller layout", d.key, exc)
                    reply = smaller(reply, sub, words)
                    note = "posted in the smaller layout (the full digest was too large)"
                    continue
                if exc.code in AUTH_CODES:
                    self._hold(sub.platform, str(exc))
                return self._finish(sub, claim, "failed", now, reason=str(exc), title=reply.title)
            except PostError as exc:
                if exc.posted:  # the lead landed: a retry would post it twice
                    return self._finish(
                        sub, claim, "posted", now, reason=f"partly posted: {exc}", title=reply.title
                    )
                last, transient = exc, transient + 1
                log.info("delivery %s: transient failure (attempt %d): %s", d.key, transient, exc)
                if exc.uncertain:  # no clear answer: the lead may have landed; look before posting again
                    landed = await self._landed(poster, sub, d.key)
                    if isinstance(landed, str):
                        return self._finish(sub, claim, "unknown", now, reason=landed, title=reply.title)
                    if landed is not None:
                        return self._finish(
                            sub,
                            claim,
                            "posted",
                            now,
                            reason=f"posted despite the error ({exc}); not posted again",
                            ids=landed.ids,
                            permalink=landed.permalink,
                            title=reply.title,
                        )
                if transient >= ATTEMPTS:
                    break
                await self.sleep(self.backoff[min(transient - 1, len(self.backoff) - 1)])
                continue  # _posting renews the lease before it posts again
            return self._finish(
                sub,
                claim,
                "posted",
                now,
                reason=note,
                ids=result.ids,
                permalink=result.permalink,
                title=reply.title,
            )
        reason = f"retrying after {ATTEMPTS} attempts: {last}"
        self.ledger.release(claim, now=now, until=now + RETRY_LATER, reason=reason)
        log.warning("delivery %s: %s", d.key, reason)
        return Outcome(d.subscription_id, sub.target, d.period_start, "held", reason)

    async def _posting(
        self, poster: Poster, reply: Reply, channel: str, claim: Claim, now: datetime
    ) -> PostResult:
        """``poster.post`` while the lease is renewed every third of its length: a post slower
        than the lease (a paced thread of many replies, a slow upload, long 429 waits) is never
        taken for a dead process's and posted a second time. The lease is renewed first, too:
        when a slow build or sync let it run out and another run took the claim over, this run
        does not post (``LostClaim``). Times are the run's clock (``_clock``)."""
        if not self.ledger.renew(claim, now=self._clock(now), lease=self.lease):
            # the build or a sync outlasted the lease and another run took the claim: it posts
            raise LostClaim(f"delivery {claim.delivery.key}: the claim was taken over before posting")
        task = asyncio.ensure_future(poster.post(reply, channel))
        every = max(self.lease.total_seconds() / 3, 0.01)
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=every)
                if done:
                    return task.result()
                if not self.ledger.renew(claim, now=self._clock(now), lease=self.lease):
                    log.error("delivery %s: the lease was lost while posting", claim.delivery.key)
                    return await task  # finish the post; recording it will say the claim is gone
        finally:
            if not task.done():
                task.cancel()

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
    ) -> Outcome:
        d = claim.delivery
        if not self.ledger.finish(claim, state, now=now, reason=reason, message_ids=ids, permalink=permalink):  # type: ignore[arg-type]
            log.error("delivery %s: the claim was lost before recording %s", d.key, state)
        if state in ("failed", "unknown"):
            log.warning("delivery %s to %s %s: %s", d.key, sub.target, state, reason)
        else:
            log.info("delivery %s to %s %s", d.key, sub.target, state)
        return Outcome(d.subscription_id, sub.target, d.period_start, state, reason, ids, title)

    def _hold(self, platform: str, reason: str) -> None:
        if platform not in self._held:
            self._held[platform] = f"{platform} deliveries held for this run: {reason}"
            log.error("%s", self._held[platform])

    def _poster(self, platform: str) -> Poster:
        if platform not in self._open:
            self._open[platform] = self.posters(platform)
        return self._open[platform]

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
        self, sub: Subscription, due: Due, now: datetime, *, why_stale: str | None = None
    ) -> Reply | None:
        """``build`` before its layout: what a language model may word (``worded``) is still in
        the sections where the digest put it."""
        inv = Invocation(
            command="digest",
            args=digest_words(sub, due),
            repo=sub.repo,
            lang=sub.lang,  # type: ignore[arg-type]
            timezone=sub.timezone,
            now=now,
            platform=sub.platform,
        )
        store = PRStore(self.db)
        reply = dispatch(inv, Context(store=store, profile=self.profile))
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
