"""Slack's request signature, checked before anything reads the request.

Every request to ``POST /slack/events`` must carry ``X-Slack-Request-Timestamp`` (ASCII digits,
within five minutes) and ``X-Slack-Signature`` (``v0=`` + HMAC-SHA256 of ``v0:TIMESTAMP:BODY``
with SLACK_SIGNING_SECRET). Anyone can reach the endpoint, so a refusal must cost nothing: it is
counted by reason (``/healthz`` shows the counts), logged as one short line without the body —
which may carry a ``response_url`` and a token — and at most one such line every ``quiet``
seconds, the others summed into the next one, so a flood cannot fill the log.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping

log = logging.getLogger(__name__)

MAX_SKEW = 300  # seconds, Slack's own rule
_STAMP = re.compile(r"[0-9]{1,12}")  # ASCII only: str.isdigit() also takes "²"
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")


class SlackVerifier:
    """``refusal(headers, body)``: None for a genuine request, else the reason (counted, logged)."""

    def __init__(self, secret: str, *, quiet: float = 10.0, clock: Callable[[], float] = time.time) -> None:
        self._secret = secret.encode()
        self._quiet = quiet
        self._clock = clock
        self.refused: Counter[str] = Counter()
        self._last_line = float("-inf")
        self._unlogged = 0

    def reason(self, headers: Mapping[str, str], body: bytes) -> str | None:
        stamp = headers.get("X-Slack-Request-Timestamp", "")
        signature = headers.get("X-Slack-Signature", "")
        if not stamp or not signature:
            return "unsigned"
        if not _STAMP.fullmatch(stamp):
            return "bad timestamp"
        if abs(self._clock() - int(stamp)) > MAX_SKEW:
            return "stale timestamp"
        if not _SIGNATURE.fullmatch(signature):
            return "bad signature"
        mac = hmac.new(self._secret, b"v0:" + stamp.encode() + b":" + body, hashlib.sha256)
        if not hmac.compare_digest("v0=" + mac.hexdigest(), signature):
            return "bad signature"
        return None

    def refusal(self, headers: Mapping[str, str], body: bytes, peer: str | None) -> str | None:
        why = self.reason(headers, body)
        if why is not None:
            self.count(why, peer, len(body))
        return why

    def count(self, why: str, peer: str | None, size: int) -> None:
        """Count a refused request; log one line unless one was logged within ``quiet`` s."""
        self.refused[why] += 1
        now = time.monotonic()
        if now - self._last_line < self._quiet:
            self._unlogged += 1
            return
        more = f" (and {self._unlogged} more since the last line)" if self._unlogged else ""
        log.info("refused a Slack request from %s: %s, %d bytes%s", peer or "?", why, size, more)
        self._last_line = now
        self._unlogged = 0

    def health(self) -> dict[str, object]:
        return {"refused": sum(self.refused.values()), "refused_by_reason": dict(self.refused)}
