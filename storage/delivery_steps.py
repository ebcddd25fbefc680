"""A delivery's messages, stored with its claim: one ledger step per message.

Why: a digest is built from the cache, and the cache changes (a sync between two attempts, a
reclassify). A delivery that is resumed — after a back-off, a crash or an expired lease — must
post the rest of *the same* digest, not a new one whose thread would not match its lead. So the
platform payload of every message is rendered once, stored here under the claim, and every
later attempt posts from these rows.

A step's key names its section (``lead``, ``risks``, ``risks.2`` for a section that needed a
second message), never its position: the key is also written into the posted message where
readers do not see it (Slack message metadata, the Discord embed URL), so a later run finds a
message that landed without a record by its key.

States: ``pending`` (not sent), ``sending`` (a request went out and no clear answer came back,
or the process died: look for it before sending again), ``posted`` (with the platform's message
id), ``dropped`` (the smaller layout replaced it). Every write checks, in the same transaction,
that the claim is still this process's, so a run that lost its lease records nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, cast

from storage.deliveries import Claim, transaction
from storage.prs import iso, parse_iso

if TYPE_CHECKING:
    import sqlite_utils

StepState = Literal["pending", "sending", "posted", "dropped"]


@dataclass(frozen=True)
class StoredStep:
    """One message of a delivery as stored. ``uploads``: ``{"id", "complete"}`` per file uploaded
    for it (Slack), oldest first."""

    delivery_id: int
    seq: int
    key: str
    body: dict[str, Any]
    fallback: dict[str, Any] | None
    state: StepState
    message_id: str | None
    uploads: tuple[dict[str, Any], ...]
    attempts: int
    sent_at: datetime | None

    @property
    def is_lead(self) -> bool:
        return self.seq == 0


_SELECT = (
    "SELECT delivery_id, seq, key, body, fallback, state, message_id, uploads, attempts, sent_at "
    "FROM delivery_steps"
)
_MINE = "EXISTS (SELECT 1 FROM deliveries WHERE id = ? AND state = 'claimed' AND lease_owner = ?)"


def _row(row: tuple[Any, ...]) -> StoredStep:
    return StoredStep(
        delivery_id=row[0],
        seq=row[1],
        key=row[2],
        body=json.loads(row[3]),
        fallback=json.loads(row[4]) if row[4] else None,
        state=cast(StepState, row[5]),
        message_id=row[6],
        uploads=tuple(json.loads(row[7])),
        attempts=row[8],
        sent_at=parse_iso(row[9]),
    )


class StepStore:
    """The ``delivery_steps`` table."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db

    def for_delivery(self, delivery_id: int) -> list[StoredStep]:
        rows = self.db.execute(f"{_SELECT} WHERE delivery_id = ? ORDER BY seq", (delivery_id,)).fetchall()
        return [_row(r) for r in rows]

    def get(self, delivery_id: int, key: str) -> StoredStep | None:
        row = self.db.execute(f"{_SELECT} WHERE delivery_id = ? AND key = ?", (delivery_id, key)).fetchone()
        return _row(row) if row else None

    def store(self, claim: Claim, steps: Sequence[tuple[str, dict[str, Any], dict[str, Any] | None]]) -> bool:
        """Store a delivery's messages (key, body, the lead's fallback) in order; False when the
        claim is no longer ours or the messages were stored already (nothing written)."""
        d = claim.delivery
        with transaction(self.db):
            mine = self.db.execute(f"SELECT {_MINE}", (d.id, claim.owner)).fetchone()[0]
            there = self.db.execute("SELECT COUNT(*) FROM delivery_steps WHERE delivery_id = ?", (d.id,))
            if not mine or there.fetchone()[0]:
                return False
            for seq, (key, body, fallback) in enumerate(steps):
                self.db.execute(
                    "INSERT INTO delivery_steps (delivery_id, seq, key, body, fallback) VALUES (?, ?, ?, ?, ?)",
                    (
                        d.id,
                        seq,
                        key,
                        json.dumps(body, ensure_ascii=False),
                        json.dumps(fallback, ensure_ascii=False) if fallback is not None else None,
                    ),
                )
        return True

    def _update(self, claim: Claim, key: str, sets: str, values: Sequence[Any]) -> bool:
        d = claim.delivery
        with transaction(self.db):
            cursor = self.db.execute(
                f"UPDATE delivery_steps SET {sets} WHERE delivery_id = ? AND key = ? AND {_MINE}",
                (*values, d.id, key, d.id, claim.owner),
            )
        return cursor.rowcount == 1

    def sending(self, claim: Claim, key: str, *, now: datetime) -> bool:
        """Mark a step as sent (before the request goes out); False when the claim is lost."""
        return self._update(
            claim, key, "state = 'sending', attempts = attempts + 1, sent_at = ?", (iso(now),)
        )

    def unsent(self, claim: Claim, key: str) -> bool:
        """The platform answered that the request did not take effect: no need to look for it."""
        return self._update(claim, key, "state = 'pending'", ())

    def posted(self, claim: Claim, key: str, message_id: str, *, now: datetime) -> bool:
        return self._update(
            claim, key, "state = 'posted', message_id = ?, posted_at = ?", (message_id, iso(now))
        )

    def uploads(self, claim: Claim, key: str, uploads: Sequence[dict[str, Any]]) -> bool:
        return self._update(claim, key, "uploads = ?", (json.dumps(list(uploads)),))

    def use_fallback(self, claim: Claim) -> bool:
        """The platform refused the lead as too large: the lead becomes its smaller layout (the
        title and summary, and where to read the rest) and every reply is dropped."""
        d = claim.delivery
        with transaction(self.db):
            if not self.db.execute(f"SELECT {_MINE}", (d.id, claim.owner)).fetchone()[0]:
                return False
            self.db.execute(
                "UPDATE delivery_steps SET body = fallback, fallback = NULL, state = 'pending' "
                "WHERE delivery_id = ? AND seq = 0 AND fallback IS NOT NULL",
                (d.id,),
            )
            self.db.execute(
                "UPDATE delivery_steps SET state = 'dropped' WHERE delivery_id = ? AND seq > 0", (d.id,)
            )
        return True
