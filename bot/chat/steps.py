"""A scheduled delivery's messages as separate steps, the same way for every platform.

``Poster.post`` sends a whole Reply in one go, which suits an answer typed in chat. A scheduled
digest needs more: its messages are rendered once and stored with the claim
(``storage.delivery_steps``), then posted one at a time, each carrying the delivery key and its
own step key where readers do not see them, so that any later run can tell which of them landed
— a lost answer, a crash or an expired lease never makes a message appear twice, and a reply
that failed is posted later under the lead that is already there.

A platform's poster offers this as ``StepPoster`` (``bot.chat.slack.steps``,
``bot.chat.discord.steps``; ``bot.chat.platforms.step_poster_for`` picks one); ``bot.delivery.deliverer``
drives it. Payloads are plain JSON (what
the platform is sent), so they can be stored; files travel in them base64-encoded.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from commands.model import Attachment, Reply

# what a poster calls, with every upload known for a step so far, right after each change: the
# record survives the process, so a later run can reuse or delete what this one uploaded
OnUploads = Callable[[list[dict[str, Any]]], None]


@dataclass(frozen=True)
class Step:
    """One message of a delivery: its key (``lead``, ``risks``, ``risks.2``), the payload as the
    platform gets it and, for the lead, the smaller layout sent if the platform refuses it as too
    large."""

    key: str
    body: dict[str, Any]
    fallback: dict[str, Any] | None = None


@dataclass(frozen=True)
class Landed:
    """A step's message on the platform: its id and the uploaded files it shows."""

    id: str
    files: tuple[str, ...] = ()


class StepPoster(Protocol):
    """What scheduled delivery needs from a platform. ``settle`` is how long after a request was
    sent the platform has stored its message or never will, as far as prdigest can tell (the
    client's timeout plus a margin): a look for a step whose answer was lost waits until then."""

    platform: str
    settle: float

    def steps(self, reply: Reply, *, key: str, repo: str, smaller: Reply | None = None) -> list[Step]: ...

    def keyed(self, steps: Sequence[Step], *, key: str, repo: str) -> list[Step]:
        """``steps`` rendered with another delivery key (``""`` when shared by every delivery of
        one digest, ``bot.delivery.builds``) as ``steps(…, key=key)`` would have rendered them."""
        ...

    async def send_step(
        self,
        channel: str,
        step: Step,
        *,
        lead: str | None,
        delivery: str,
        uploads: Sequence[dict[str, Any]] = (),
        on_uploads: OnUploads | None = None,
    ) -> Landed: ...

    async def find_step(
        self, channel: str, step: Step, *, lead: str | None, delivery: str
    ) -> Landed | None: ...

    async def delete_uploads(self, ids: Sequence[str]) -> None: ...

    async def link(self, channel: str, lead: str) -> str | None: ...

    async def close(self) -> None: ...


@runtime_checkable
class LivePosting(Protocol):
    """A chat front end of ``serve`` that lends its live connection to scheduled digests (the
    Slack component's Web API client, the Discord component's logged-in client and its HTTP
    session), so that the Monday clock posts through the session already open instead of
    logging in again at every run. ``name`` is the platform's."""

    name: str

    def step_poster(self) -> StepPoster | None:
        """A new step poster on the live connection; None while there is none (not started,
        stopped)."""


# ``live(platform)``: a step poster on the live connection of ``serve``'s component for that
# platform, or None where none serves it
LivePosters = Callable[[str], "StepPoster | None"]


def section_keys(reply: Reply) -> list[str]:
    """A key per part of the reply: ``lead``, then each section's own key (``Section.key``, set by
    the command that built it) or, without one, ``section-N``; a repeated key gets ``-2``."""
    keys = ["lead"]
    for n, section in enumerate(reply.sections, 1):
        key = section.key or f"section-{n}"
        while key in keys:
            key = f"{key}-2"
        keys.append(key)
    return keys


def part_keys(key: str, count: int) -> list[str]:
    """The keys of a part that needed ``count`` messages: ``risks``, ``risks.2``, …"""
    return [key if i == 0 else f"{key}.{i + 1}" for i in range(count)]


def files_json(files: Sequence[Attachment]) -> list[dict[str, str]]:
    return [
        {
            "name": f.name,
            "content_type": f.content_type,
            "description": f.description,
            "data": base64.b64encode(f.data).decode("ascii"),
        }
        for f in files
    ]


def files_from_json(items: Sequence[dict[str, Any]]) -> list[Attachment]:
    return [
        Attachment(
            name=str(i["name"]),
            content_type=str(i.get("content_type") or "application/octet-stream"),
            data=base64.b64decode(str(i["data"])),
            description=str(i.get("description") or ""),
        )
        for i in items
    ]
