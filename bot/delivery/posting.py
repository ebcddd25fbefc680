"""Posting a claimed delivery's stored messages, one ledger step at a time.

The rules that make a digest whole or visibly not, and never doubled:

- Steps are posted in their stored order; the first failure stops the run (a reply never lands
  before the one above it, and never in a thread whose lead is missing).
- A step is marked ``sending`` before its request goes out. A step found ``sending`` — this run
  got no clear answer (a dropped connection, a timeout, a 5xx), or the process that sent it died —
  is first looked for by its key (``find_step``), and only sent again when it is not there. The
  look waits until ``settle`` seconds after the request went out (the client's timeout, twice),
  so a post the platform stores late is seen rather than doubled. History that cannot be read
  stops the delivery as ``unknown``: nobody can tell, so nothing is risked.
- A clear refusal (an error code, a 4xx, a 429) did not take effect: the step goes back to
  ``pending`` and is sent again without a look. Retry-After is honoured: nothing is sent again
  before the wait the platform asked for; a wait longer than ``MAX_WAIT`` hands the delivery to a
  later run at that time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from bot.chat.post import PermanentPostError, PostError
from bot.chat.steps import Landed, Step, StepPoster
from storage.deliveries import Claim, DeliveryStore
from storage.delivery_steps import StepStore, StoredStep

log = logging.getLogger(__name__)

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]

ATTEMPTS = 3  # sends of one step within one run, for transient errors
MAX_WAIT = 60.0  # the longest Retry-After a run waits out itself (a longer one: a later run)
# the platform refused the message's size or shape: post the smaller layout instead (Slack's
# codes; Discord's 50035 "Invalid Form Body" for an embed over its limits)
LAYOUT_CODES = frozenset({"msg_too_long", "msg_blocks_too_long", "invalid_blocks", "50035"})


class LostClaim(Exception):
    """Another run took the claim over (its lease ran out) before this one posted."""


@dataclass
class Stop:
    """Why posting stopped before every step landed."""

    kind: str  # permanent | transient | unknown | layout | window
    error: PostError | None = None
    reason: str = ""
    retry_after: float | None = None


@dataclass
class Progress:
    """Where a delivery stands after a run: the steps as stored and why it stopped, if it did."""

    steps: list[StoredStep]
    stop: Stop | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def lead(self) -> StoredStep:
        return self.steps[0]

    @property
    def landed(self) -> list[StoredStep]:
        return [s for s in self.steps if s.state == "posted"]

    @property
    def missing(self) -> list[StoredStep]:
        return [s for s in self.steps if s.state not in ("posted", "dropped")]

    @property
    def wanted(self) -> list[StoredStep]:
        return [s for s in self.steps if s.state != "dropped"]


def step_of(stored: StoredStep) -> Step:
    return Step(stored.key, stored.body, stored.fallback)


@dataclass
class StepRun:
    """Posts the stored steps of one claim (see the module docstring). ``clock`` is the run's
    clock (wall time as the run sees it); ``renew`` extends the lease, False when it is lost."""

    poster: StepPoster
    ledger: DeliveryStore
    store: StepStore
    claim: Claim
    channel: str
    clock: Callable[[], datetime]
    sleep: Sleep
    backoff: Sequence[float]
    lease: timedelta
    sends: bool = True  # False: only look for what may have landed (the window has ended)
    on_lead: Callable[[], None] | None = None  # told once the lead is there (others may start posting)
    found: int = 0  # messages an earlier attempt had posted, found by their keys
    _sent: dict[str, float] = field(default_factory=dict)  # step key → when this run sent it

    @property
    def key(self) -> str:
        return self.claim.delivery.key

    async def run(self) -> Progress:
        progress = Progress(self.store.for_delivery(self.claim.delivery.id))
        i = 0
        while i < len(progress.steps):
            stored = progress.steps[i]
            if stored.state in ("posted", "dropped"):
                if stored.is_lead:
                    self._lead_landed()
                i += 1
                continue
            lead = progress.lead.message_id if not stored.is_lead else None
            got = await self.one(stored, lead)
            progress.steps = self.store.for_delivery(self.claim.delivery.id)
            if isinstance(got, Stop):
                if got.kind == "layout" and self.store.use_fallback(self.claim):
                    progress.notes.append("posted in the smaller layout (the full digest was too large)")
                    progress.steps = self.store.for_delivery(self.claim.delivery.id)
                    continue
                progress.stop = got
                return self._noted(progress)
            if stored.is_lead:
                self._shown(progress.lead, got)
                self._lead_landed()
            i += 1
        return self._noted(progress)

    def _lead_landed(self) -> None:
        if self.on_lead is not None:
            self.on_lead()

    def _noted(self, progress: Progress) -> Progress:
        if self.found:
            n = self.found
            progress.notes.append(
                f"found {n} message{'s' if n != 1 else ''} already posted; not posted again"
            )
        return progress

    async def one(self, stored: StoredStep, lead: str | None) -> Landed | Stop:
        """One step: look first when it may have landed, then send, up to ATTEMPTS times."""
        step, state, transient = step_of(stored), stored.state, 0
        what = "the lead" if stored.is_lead else f"the reply {stored.key!r}"
        while True:
            if state == "sending":
                found = await self._look(stored, step, lead, what)
                if isinstance(found, str):
                    return Stop("unknown", reason=found)
                if found is not None:
                    self._record(stored.key, found)
                    self.found += 1
                    return found
            if not self.sends:
                return Stop("window")
            self._renew()
            if not self.store.sending(self.claim, stored.key, now=self.clock()):
                raise LostClaim(f"delivery {self.key}: the claim was taken over before posting")
            state, self._sent[stored.key] = "sending", time.monotonic()
            try:
                landed = await self._posting(self._send(stored, step, lead))
            except PermanentPostError as exc:
                if not exc.uncertain:
                    self.store.unsent(self.claim, stored.key)
                layout = exc.code in LAYOUT_CODES and stored.is_lead and stored.fallback is not None
                return Stop("layout" if layout and not exc.uncertain else "permanent", exc)
            except PostError as exc:
                if not exc.uncertain:  # a clear answer: it did not take effect
                    self.store.unsent(self.claim, stored.key)
                    state = "pending"
                transient += 1
                log.info(
                    "delivery %s %s: transient failure (attempt %d): %s", self.key, stored.key, transient, exc
                )
                # after no clear answer the look waits until the post has had time to land: that
                # wait is the back-off
                wait = 0.0 if exc.uncertain else self.backoff[min(transient - 1, len(self.backoff) - 1)]
                if exc.retry_after is not None:
                    wait = max(wait, exc.retry_after)
                if transient >= ATTEMPTS or wait > MAX_WAIT:
                    return Stop("transient", exc, retry_after=exc.retry_after)
                if wait > 0:
                    await self.sleep(wait)
                continue
            self._record(stored.key, landed)
            return landed

    async def _send(self, stored: StoredStep, step: Step, lead: str | None) -> Landed:
        def on_uploads(uploads: list[dict[str, Any]]) -> None:
            self.store.uploads(self.claim, stored.key, uploads)

        known = self.store.get(stored.delivery_id, stored.key)  # uploads an earlier send recorded
        uploads = known.uploads if known is not None else stored.uploads
        return await self.poster.send_step(
            self.channel, step, lead=lead, delivery=self.key, uploads=uploads, on_uploads=on_uploads
        )

    async def _look(self, stored: StoredStep, step: Step, lead: str | None, what: str) -> Landed | str | None:
        """The step's message if it landed, None if not, or why that cannot be told — after
        waiting until the platform has had ``settle`` seconds to store a late post."""
        sent = self._sent.get(stored.key)
        if sent is not None:
            wait = self.poster.settle - (time.monotonic() - sent)
        elif stored.sent_at is not None:
            wait = self.poster.settle - (self.clock() - stored.sent_at).total_seconds()
        else:
            wait = 0.0
        if wait > 0:
            log.info("delivery %s: waiting %.1f s before looking for %s", self.key, wait, what)
            await self.sleep(wait)
        try:
            return await self.poster.find_step(self.channel, step, lead=lead, delivery=self.key)
        except PostError as exc:
            return (
                f"could not check whether {what} posted: {exc}; check the channel, then "
                f"`prdigest deliveries --retry {self.claim.delivery.id}`"
            )

    def _record(self, key: str, landed: Landed) -> None:
        if not self.store.posted(self.claim, key, landed.id, now=self.clock()):
            raise LostClaim(f"delivery {self.key}: the claim was lost before recording {key}")

    def _shown(self, lead: StoredStep, landed: Landed) -> None:
        """Note which uploads the landed lead shows: the others are deleted at the end."""
        if lead.uploads:
            marked = [{**u, "shown": str(u["id"]) in landed.files} for u in lead.uploads]
            self.store.uploads(self.claim, lead.key, marked)

    def _renew(self) -> None:
        if not self.ledger.renew(self.claim, now=self.clock(), lease=self.lease):
            raise LostClaim(f"delivery {self.key}: the claim was taken over before posting")

    async def _posting(self, work: Awaitable[T]) -> T:
        """``work`` while the lease is renewed every third of its length: a send slower than the
        lease (a slow upload, long 429 waits) is never taken for a dead process's."""
        task = asyncio.ensure_future(work)
        every = max(self.lease.total_seconds() / 3, 0.01)
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=every)
                if done:
                    return task.result()
                if not self.ledger.renew(self.claim, now=self.clock(), lease=self.lease):
                    log.error("delivery %s: the lease was lost while posting", self.key)
                    return await task  # finish the send; recording it will say the claim is gone
        finally:
            if not task.done():
                task.cancel()


def unused_uploads(lead: StoredStep, *, landed: bool) -> list[str]:
    """Uploads to delete: those the landed lead does not show, or all when the lead will not be
    posted (a clear refusal, the window's end) — never one borrowed from another delivery, whose
    own landed lead shows it."""
    return [
        str(u["id"])
        for u in lead.uploads
        if not u.get("gone") and not u.get("borrowed") and not (landed and u.get("shown"))
    ]
