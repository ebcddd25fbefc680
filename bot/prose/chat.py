"""A chat answer first, its worded form after: how the front ends wait for the model.

A chat user must see an answer quickly, and a model may take seconds. ``stage`` starts the
writer on the computed digest and waits ``ACK_WAIT`` seconds: when the verified sentences are
back by then, the answer is sent once, worded; otherwise the computed answer goes out now and
``Staged.later`` brings the worded one (within ``PRDIGEST_LLM_TIMEOUT`` in all), which the front
end puts in place of what it sent (Slack: ``chat.update`` or the response_url's
``replace_original``; Discord: an edit of the interaction's messages). ``revision`` says whether
there is anything to put in place: a worded reply with at least one part the model wrote.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from bot.prose.writer import ProseWriter
from commands.model import Reply

log = logging.getLogger(__name__)

ACK_WAIT = 2.0  # seconds a chat answer waits for the model before it is sent computed


@dataclass
class Staged:
    """What to send now, and the worded reply still being written (None: nothing more)."""

    now: Reply
    later: asyncio.Task[Reply] | None = None

    async def revision(self) -> Reply | None:
        """The worded reply once it is written, when the model wrote any of it; else None."""
        if self.later is None:
            return None
        try:
            worded = await self.later
        except Exception:
            log.exception("prose for a chat answer failed; the computed answer stands")
            return None
        return worded if written(worded) else None

    def cancel(self) -> None:
        if self.later is not None:
            self.later.cancel()


def written(reply: Reply) -> bool:
    """Whether a model wrote any part of ``reply`` (``commands.prose.apply``'s report)."""
    parts = reply.data.get("prose", {}).get("parts", []) if reply.ok else []
    return any(p.get("prose") == "model" for p in parts)


async def stage(writer: ProseWriter | None, reply: Reply, wait: float | None = None) -> Staged:
    """Start wording ``reply``; sent once when it is back within ``wait`` (``ACK_WAIT``), else
    computed first."""
    if writer is None or reply.prose is None or not reply.ok:
        return Staged(reply)
    task = asyncio.ensure_future(writer.write(reply))
    done, _ = await asyncio.wait({task}, timeout=ACK_WAIT if wait is None else wait)
    if not done:
        return Staged(reply, task)
    worded = reply
    with contextlib.suppress(Exception):  # the writer logs its own trouble; the digest stands
        worded = task.result()
    return Staged(worded)
