"""The delivery ledger: one row per (subscription, period start), the claim that makes posting
happen exactly once.

Protocol (``bot.delivery.deliverer`` follows it):

1. ``claim`` inserts the row as ``claimed`` with a lease (owner and expiry) under ``BEGIN
   IMMEDIATE``. Only one process can insert it; every other caller gets ``None``. A claim whose
   lease expired (its process died between claim and record) can be taken over: the new claim
   says ``takeover=True``, and the caller must look for the earlier post before posting again.
2. The owner stores the delivery's messages with the claim (``storage.delivery_steps``), posts
   them one step at a time, then ``finish``-es the row as ``posted`` (every message landed),
   ``partial`` (the lead landed, some replies did not: the reason names what is missing; with a
   ``retry_at`` a later run resumes it), ``failed`` (a permanent error, with the reason) or
   ``unknown`` (it could not tell whether an earlier attempt posted, so it did not risk a
   duplicate). ``finish`` only succeeds for the lease's owner.
3. A period that was not delivered within the catch-up window is recorded as ``skipped`` with the
   reason (``skip``), so a miss is visible rather than silent.

``retry`` turns a ``failed``, ``unknown``, ``partial`` or ``skipped`` row back into an expired
claim: the next run takes it over and resumes it from its stored messages, looking for every
message that may have landed before it posts it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal, cast

from storage.prs import iso, parse_iso

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from storage.connection import Cache


def transaction(db: Cache) -> AbstractContextManager[Cache]:
    """The one write transaction (``storage.transaction.write_transaction``), imported when first
    needed: the CLI registers the subscription commands at every start, and ``prdigest --help``
    must not load SQLite for them."""
    from storage.transaction import write_transaction

    return write_transaction(db)


State = Literal["claimed", "posted", "partial", "failed", "unknown", "skipped"]
FINAL_STATES: tuple[State, ...] = ("posted", "partial", "failed", "unknown", "skipped")
RETRY_REQUESTED = "retry requested (prdigest deliveries --retry)"
DEFAULT_LEASE = timedelta(minutes=15)
_EPOCH = "1970-01-01T00:00:00Z"


@dataclass(frozen=True)
class Delivery:
    id: int
    subscription_id: int
    period_start: date  # the local Monday the period starts on (the ledger key)
    period_end: date  # the local Monday after its last day
    due_at: datetime
    state: State
    attempts: int
    lease_owner: str | None
    lease_until: datetime | None
    reason: str
    message_ids: tuple[str, ...]
    permalink: str | None
    created_at: datetime
    updated_at: datetime

    @property
    def key(self) -> str:
        """The delivery's id as it is written into every posted message (Slack metadata, the
        Discord embed URL), so that a later attempt can find it: ``prdigest-d-<sub>-<period start>``."""
        return delivery_key(self.subscription_id, self.period_start)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "subscription": self.subscription_id,
            "period_start": self.period_start.isoformat(),
            "period_end": self.period_end.isoformat(),
            "due_at": iso(self.due_at),
            "state": self.state,
            "attempts": self.attempts,
            "reason": self.reason,
            "message_ids": list(self.message_ids),
            "permalink": self.permalink,
            "updated_at": iso(self.updated_at),
        }


@dataclass(frozen=True)
class Claim:
    """A claim this process holds; ``takeover`` when an earlier attempt may have posted."""

    delivery: Delivery
    owner: str
    takeover: bool


def delivery_key(subscription_id: int, period_start: date) -> str:
    return f"prdigest-d-{subscription_id}-{period_start.isoformat()}"


_SELECT = (
    "SELECT id, subscription_id, period_start, period_end, due_at, state, attempts, lease_owner, "
    "lease_until, reason, message_ids, permalink, created_at, updated_at FROM deliveries"
)


def _row(row: tuple[Any, ...]) -> Delivery:
    return Delivery(
        id=row[0],
        subscription_id=row[1],
        period_start=date.fromisoformat(row[2]),
        period_end=date.fromisoformat(row[3]),
        due_at=cast(datetime, parse_iso(row[4])),
        state=cast(State, row[5]),
        attempts=row[6],
        lease_owner=row[7],
        lease_until=parse_iso(row[8]),
        reason=row[9],
        message_ids=tuple(json.loads(row[10])),
        permalink=row[11],
        created_at=cast(datetime, parse_iso(row[12])),
        updated_at=cast(datetime, parse_iso(row[13])),
    )


class DeliveryStore:
    """The ``deliveries`` table."""

    def __init__(self, db: Cache) -> None:
        self.db = db

    def get(self, delivery_id: int) -> Delivery | None:
        row = self.db.execute(f"{_SELECT} WHERE id = ?", (delivery_id,)).fetchone()
        return _row(row) if row else None

    def find(self, subscription_id: int, period_start: date) -> Delivery | None:
        row = self.db.execute(
            f"{_SELECT} WHERE subscription_id = ? AND period_start = ?",
            (subscription_id, period_start.isoformat()),
        ).fetchone()
        return _row(row) if row else None

    def for_subscription(self, subscription_id: int, *, limit: int = 20) -> list[Delivery]:
        rows = self.db.execute(
            f"{_SELECT} WHERE subscription_id = ? ORDER BY period_start DESC LIMIT ?",
            (subscription_id, limit),
        ).fetchall()
        return [_row(r) for r in rows]

    def recent(self, *, limit: int = 50) -> list[Delivery]:
        rows = self.db.execute(f"{_SELECT} ORDER BY updated_at DESC, id DESC LIMIT ?", (limit,)).fetchall()
        return [_row(r) for r in rows]

    def latest_start(self, subscription_id: int) -> date | None:
        """The latest period start in the ledger (any state) for a subscription."""
        row = self.db.execute(
            "SELECT MAX(period_start) FROM deliveries WHERE subscription_id = ?", (subscription_id,)
        ).fetchone()
        return date.fromisoformat(row[0]) if row and row[0] else None

    def expired_claims(self, now: datetime) -> list[Delivery]:
        """Claims whose lease ran out (their process died, a transient failure asked for a later
        attempt, or ``retry`` reset them) and partial deliveries whose next attempt is due."""
        rows = self.db.execute(
            f"{_SELECT} WHERE state IN ('claimed', 'partial') AND lease_until <= ? ORDER BY due_at",
            (iso(now),),
        ).fetchall()
        return [_row(r) for r in rows]

    def leased(self, now: datetime) -> list[Delivery]:
        """Claims another process holds (or handed back with a later retry time) at ``now``."""
        rows = self.db.execute(
            f"{_SELECT} WHERE state = 'claimed' AND lease_until > ? ORDER BY due_at", (iso(now),)
        ).fetchall()
        return [_row(r) for r in rows]

    def claim(
        self,
        subscription_id: int,
        period_start: date,
        period_end: date,
        due_at: datetime,
        *,
        owner: str,
        now: datetime,
        lease: timedelta = DEFAULT_LEASE,
    ) -> Claim | None:
        """Claim a period for ``owner``; ``None`` when it is done, skipped, or someone holds it."""
        stamp, until = iso(now), iso(now + lease)
        with transaction(self.db):
            current = self.find(subscription_id, period_start)
            if current is None:
                self.db.execute(
                    "INSERT INTO deliveries (subscription_id, period_start, period_end, due_at, state, "
                    "attempts, lease_owner, lease_until, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, 'claimed', 1, ?, ?, ?, ?)",
                    (
                        subscription_id,
                        period_start.isoformat(),
                        period_end.isoformat(),
                        iso(due_at),
                        owner,
                        until,
                        stamp,
                        stamp,
                    ),
                )
                takeover = False
            elif (
                current.state in ("claimed", "partial")
                and current.lease_until is not None
                and current.lease_until <= now
            ):
                self.db.execute(
                    "UPDATE deliveries SET state = 'claimed', attempts = attempts + 1, lease_owner = ?, "
                    "lease_until = ?, updated_at = ? WHERE id = ?",
                    (owner, until, stamp, current.id),
                )
                takeover = True
            else:
                return None
            got = self.find(subscription_id, period_start)
        assert got is not None
        return Claim(got, owner, takeover)

    def renew(self, claim: Claim, *, now: datetime, lease: timedelta = DEFAULT_LEASE) -> bool:
        """Extend the lease (long retries); False when the claim is no longer ours."""
        with transaction(self.db):
            cursor = self.db.execute(
                "UPDATE deliveries SET lease_until = ?, updated_at = ? "
                "WHERE id = ? AND state = 'claimed' AND lease_owner = ?",
                (iso(now + lease), iso(now), claim.delivery.id, claim.owner),
            )
        return cursor.rowcount == 1

    def finish(
        self,
        claim: Claim,
        state: State,
        *,
        now: datetime,
        reason: str = "",
        message_ids: tuple[str, ...] = (),
        permalink: str | None = None,
        retry_at: datetime | None = None,
    ) -> bool:
        """Record the outcome of a claim; False when the claim is no longer ours (nothing written).
        ``retry_at`` (``partial`` only) is when a later run resumes the delivery; without it only
        ``retry`` does."""
        if state not in FINAL_STATES:
            raise ValueError(f"a claim ends posted, partial, failed, unknown or skipped, not {state!r}")
        if retry_at is not None and state != "partial":
            raise ValueError("only a partial delivery is resumed later")
        with transaction(self.db):
            cursor = self.db.execute(
                "UPDATE deliveries SET state = ?, reason = ?, message_ids = ?, permalink = ?, "
                "lease_owner = NULL, lease_until = ?, updated_at = ? "
                "WHERE id = ? AND state = 'claimed' AND lease_owner = ?",
                (
                    state,
                    reason[:500],
                    json.dumps(list(message_ids)),
                    permalink,
                    iso(retry_at) if retry_at is not None else None,
                    iso(now),
                    claim.delivery.id,
                    claim.owner,
                ),
            )
            if state == "posted" and cursor.rowcount == 1:
                # Every message landed and a posted delivery is never resumed: its stored payloads
                # (the lead's carries the chart, ~170 KB) would only grow the cache by that much
                # per channel per week. Keys, states and message ids stay for the ledger.
                self.db.execute(
                    "UPDATE delivery_steps SET body = '{}', fallback = NULL WHERE delivery_id = ?",
                    (claim.delivery.id,),
                )
        return cursor.rowcount == 1

    def release(self, claim: Claim, *, now: datetime, until: datetime, reason: str) -> bool:
        """Hand a claim back for a later run (after ``until``), noting why: a transient failure
        that outlasted the retries of this run. The row stays claimed, so nobody else posts."""
        with transaction(self.db):
            cursor = self.db.execute(
                "UPDATE deliveries SET lease_owner = NULL, lease_until = ?, reason = ?, updated_at = ? "
                "WHERE id = ? AND state = 'claimed' AND lease_owner = ?",
                (iso(until), reason[:500], iso(now), claim.delivery.id, claim.owner),
            )
        return cursor.rowcount == 1

    def skip(
        self,
        subscription_id: int,
        period_start: date,
        period_end: date,
        due_at: datetime,
        *,
        reason: str,
        now: datetime,
    ) -> bool:
        """Record a period as skipped (missed the catch-up window, …) unless it has a row already."""
        stamp = iso(now)
        with transaction(self.db):
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO deliveries (subscription_id, period_start, period_end, due_at, "
                "state, attempts, reason, created_at, updated_at) VALUES (?, ?, ?, ?, 'skipped', 0, ?, ?, ?)",
                (
                    subscription_id,
                    period_start.isoformat(),
                    period_end.isoformat(),
                    iso(due_at),
                    reason[:500],
                    stamp,
                    stamp,
                ),
            )
        return cursor.rowcount == 1

    def retry(self, delivery_id: int, *, now: datetime | None = None) -> Delivery:
        """Make a failed, unknown, partial or skipped delivery eligible again (as an expired claim,
        so the next run resumes it, looking for what landed before posting).
        ``KeyError``/``ValueError`` otherwise."""
        stamp = iso(now or datetime.now(UTC))
        with transaction(self.db):
            current = self.get(delivery_id)
            if current is None:
                raise KeyError(delivery_id)
            if current.state not in ("failed", "unknown", "partial", "skipped"):
                raise ValueError(
                    f"delivery {delivery_id} is {current.state}; only failed, unknown, partial or skipped "
                    "ones can be retried"
                )
            self.db.execute(
                "UPDATE deliveries SET state = 'claimed', lease_owner = NULL, lease_until = ?, "
                "reason = ?, updated_at = ? WHERE id = ?",
                (_EPOCH, f"{RETRY_REQUESTED}; before: {current.reason}"[:500], stamp, delivery_id),
            )
        got = self.get(delivery_id)
        assert got is not None
        return got
