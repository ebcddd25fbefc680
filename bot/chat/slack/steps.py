"""A scheduled digest on Slack, one message at a time (``bot.chat.steps.StepPoster``).

Every message carries Slack message metadata ``{"delivery": KEY, "step": STEP}`` (event type
``prdigest_delivery``), which readers do not see: the lead is found again in the channel's
history (``conversations.history``), a reply in the lead's thread (``conversations.replies``),
both with ``include_all_metadata``. Slack has no idempotency key for ``chat.postMessage``, so a
post whose answer was lost is never repeated blindly: the deliverer waits ``settle`` seconds (the
client's timeout, twice) and looks for it first.

The chart is uploaded without being shared (files.getUploadURLExternal, the upload URL,
files.completeUploadExternal) and shown by the lead's image block. Its file id is handed to
``on_uploads`` as soon as Slack issues it, before a byte is sent, so an upload whose process died
is known to the next run, which reuses a completed one and deletes one left half-way.

Many channels are posted to at once (``bot.delivery.lanes``), so the poster keeps Slack's limits
itself (``bot.chat.pacing``): each channel a message a second, counted from the previous answer,
and each paced method (posting, the two upload calls) within its workspace-wide rate
(``WORKSPACE``). A 429 on a paced method pauses that channel and that method for every sender
for its Retry-After — Slack does not say which limit was hit — and the request goes again in a
later slot; only a wait longer than ``MAX_RETRY_AFTER`` (or a fourth 429) is raised, carrying
the wait, for the deliverer to hand the delivery to a later run. slack_sdk's own 429 retry is
kept for the other methods.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import aiohttp
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.chat.pacing import Quota, Rate, Spacing
from bot.chat.post import PostError, TransientPostError
from bot.chat.slack.post import (
    HISTORY_PAGE,
    HISTORY_PAGES,
    MAX_RETRY_AFTER,
    METADATA_EVENT,
    RATE_LIMIT_RETRIES,
    BoundedRateLimitRetryHandler,
    SlackPoster,
    _answered,
    _kwargs,
    explain,
    web_client,
    without_images,
)
from bot.chat.slack.render import SlackMessage, render
from bot.chat.steps import Landed, OnUploads, Step, files_from_json, files_json, part_keys, section_keys
from bot.config.retry_after import retry_after
from bot.config.settings import Settings
from commands.model import Attachment, Reply

log = logging.getLogger(__name__)

T = TypeVar("T")

FILE_MARK = "prdigest-file:"  # stands for an upload's id in a stored lead until it is uploaded
POST = "chat.postMessage"
GET_UPLOAD_URL = "files.getUploadURLExternal"
COMPLETE_UPLOAD = "files.completeUploadExternal"
# Slack's workspace-wide limits per app and method: posting "several hundred messages a minute"
# (the exact figure is not published: 600 a minute, and a 429 says when it is less), the upload
# calls Tier 4 ("100+ a minute"). Bursts are kept short: Slack may not show messages of a burst.
WORKSPACE: Mapping[str, Quota] = {
    POST: Quota(per_second=10.0, burst=4),
    GET_UPLOAD_URL: Quota(per_second=100 / 60, burst=4),
    COMPLETE_UPLOAD: Quota(per_second=100 / 60, burst=4),
}


def rate_limited(exc: SlackApiError) -> float | None:
    """The wait a 429 asks for (1 s without a Retry-After); None for any other refusal."""
    if exc.response is None or exc.response.status_code != 429:
        return None
    header = exc.response.headers.get("Retry-After")
    wait = retry_after(str(header)) if header is not None else None
    return 1.0 if wait is None else wait


def step_metadata(delivery: str, step: str) -> dict[str, Any]:
    return {"event_type": METADATA_EVENT, "event_payload": {"delivery": delivery, "step": step}}


def matches(message: dict[str, Any], delivery: str, step: str) -> bool:
    """The message carries this delivery's step (a lead posted before steps had keys carries
    only the delivery: it is the lead)."""
    meta = message.get("metadata") or {}
    payload = meta.get("event_payload") or {}
    if meta.get("event_type") != METADATA_EVENT or payload.get("delivery") != delivery:
        return False
    return payload.get("step", "lead") == step


def shown_files(message: dict[str, Any]) -> tuple[str, ...]:
    return tuple(
        str(b["slack_file"]["id"])
        for b in message.get("blocks") or []
        if isinstance(b, dict) and b.get("type") == "image" and isinstance(b.get("slack_file"), dict)
    )


def part_counts(reply: Reply, files: dict[str, str]) -> list[int]:
    """How many messages the lead and each section take in ``render``'s thread layout: the lead
    alone, then each section after an empty lead (which renders as one message)."""
    counts = [len(render(replace(reply, sections=[]), mode="thread", files=files))]
    for section in reply.sections:
        alone = replace(reply, title="", blocks=[], sections=[section], files=[])
        counts.append(len(render(alone, mode="thread", files=files)) - 1)
    return counts


def keyed(reply: Reply, messages: Sequence[SlackMessage], files: dict[str, str]) -> list[str]:
    """A key per message: its part's key, with ``.2``… for a part's further messages."""
    counts = part_counts(reply, files)
    if sum(counts) != len(messages):  # the layout changed: keys by position, still unique
        log.warning("slack: %d messages but %d expected; keying them by position", len(messages), sum(counts))
        return ["lead", *(f"message-{i + 1}" for i in range(1, len(messages)))]
    return [k for part, n in zip(section_keys(reply), counts, strict=True) for k in part_keys(part, n)]


def chart_key(f: Attachment) -> str:
    """A chart by its name and bytes: two deliveries of one digest draw the same."""
    return f"{f.name}:{hashlib.sha256(f.data).hexdigest()}"


def with_files(blocks: list[dict[str, Any]], ids: dict[str, str]) -> list[dict[str, Any]] | None:
    """The stored blocks with each upload's real id; None when one of the files is missing."""
    out = copy.deepcopy(blocks)
    for block in out:
        ref = block.get("slack_file") if block.get("type") == "image" else None
        if isinstance(ref, dict) and str(ref.get("id", "")).startswith(FILE_MARK):
            name = str(ref["id"]).removeprefix(FILE_MARK)
            if name not in ids:
                return None
            ref["id"] = ids[name]
    return out


class SlackSteps(SlackPoster):
    """The Slack poster with the steps of a scheduled delivery (see the module docstring)."""

    def __init__(
        self,
        client: AsyncWebClient,
        *,
        pace: float = 1.0,
        timeout: float = 30.0,
        workspace: Mapping[str, Quota] = WORKSPACE,
    ) -> None:
        super().__init__(client, pace=pace)
        self.settle = 2 * timeout
        for handler in client.retry_handlers:  # the paced methods' 429s are waited out here
            if isinstance(handler, BoundedRateLimitRetryHandler):
                handler.skip = frozenset(workspace)
        self.channels = Spacing(pace)
        self.rates = {method: Rate(q.per_second, q.burst) for method, q in workspace.items()}
        # a chart's content → the id of its upload shown by a landed lead (None: it was not),
        # pending while that lead is on its way
        self._lent: dict[str, asyncio.Future[str | None]] = {}

    # -- rendering, once -------------------------------------------------------------------

    def steps(self, reply: Reply, *, key: str, repo: str, smaller: Reply | None = None) -> list[Step]:
        marks = {f.name: f"{FILE_MARK}{f.name}" for f in reply.files}
        messages = render(reply, mode="thread", files=marks)
        keys = keyed(reply, messages, marks)
        out = []
        for i, (step_key, message) in enumerate(zip(keys, messages, strict=True)):
            body: dict[str, Any] = message.payload()
            if i == 0 and reply.files:
                body["files"] = files_json(reply.files)
                # if the chart cannot go up: the lead without it
                bare = without_images(reply, {f.name for f in reply.files})
                body["plain"] = render(bare, mode="thread")[0].payload()
            fallback = None
            if i == 0 and smaller is not None:
                fallback = render(replace(smaller, files=[]), mode="thread")[0].payload()
            out.append(Step(step_key, body, fallback))
        return out

    def keyed(self, steps: Sequence[Step], *, key: str, repo: str) -> list[Step]:
        """The same steps: the key travels in each message's metadata, added when it is sent."""
        return list(steps)

    # -- posting -----------------------------------------------------------------------------

    async def send_step(
        self,
        channel: str,
        step: Step,
        *,
        lead: str | None,
        delivery: str,
        uploads: Sequence[dict[str, Any]] = (),
        on_uploads: OnUploads | None = None,
    ) -> Landed:
        """Post one message (a reply into ``lead``'s thread); raises ``PostError``."""
        body = step.body
        if not body.get("files"):
            message = SlackMessage(text=body["text"], blocks=body.get("blocks") or [])
            return Landed(await self._send(channel, message, lead, step_metadata(delivery, step.key)))
        files, owned = files_from_json(body["files"]), list[str]()
        ids: dict[str, str] = {}
        landed: Landed | None = None
        try:
            ids = await self.charts(files, list(uploads), on_uploads, owned)
            landed = await self._lead(channel, step, ids, lead, delivery)
            return landed
        finally:
            self._lend(owned, ids if landed else {}, files, landed.files if landed else ())

    async def _lead(
        self, channel: str, step: Step, ids: dict[str, str], lead: str | None, delivery: str
    ) -> Landed:
        """The lead with its charts (``ids``: name → uploaded file), or without them when one did
        not go up or Slack refused it in the message."""
        body = step.body
        blocks = with_files(body["blocks"], ids)
        plain = SlackMessage(text=body["plain"]["text"], blocks=body["plain"]["blocks"])
        message = SlackMessage(text=body["text"], blocks=blocks) if blocks is not None else plain
        try:
            ts = await self._send(channel, message, lead, step_metadata(delivery, step.key))
        except PostError as exc:
            if message is plain or exc.code != "invalid_blocks" or exc.uncertain:
                raise
            # Slack did not take the upload in the lead (still being processed, or deleted): a
            # clear refusal, so sending the lead without it cannot post it twice
            log.warning("slack refused the chart in the lead (%s); posting without it", exc.code)
            return Landed(await self._send(channel, plain, lead, step_metadata(delivery, step.key)))
        return Landed(ts, tuple(ids.values()) if message is not plain else ())

    async def _send(self, channel: str, message: SlackMessage, lead: str | None, meta: dict[str, Any]) -> str:
        kwargs = _kwargs(channel, message, lead)
        kwargs["metadata"] = meta
        try:
            resp = await self._paced(POST, channel, lambda: self.client.chat_postMessage(**kwargs))
        except (SlackClientError, OSError, TimeoutError, aiohttp.ClientError) as exc:
            failure = explain(exc, channel)
            failure.uncertain = not _answered(exc)
            log.warning("slack post to %s failed: %s", channel, failure)
            raise failure from None
        return str(resp["ts"])

    async def _paced(self, method: str, channel: str | None, call: Callable[[], Awaitable[T]]) -> T:
        """``call`` in its slot: the channel's spacing, then the method's workspace rate. A 429
        pauses both for its Retry-After (and slows the rate, ``Rate.refused``) and the request
        goes again in a later slot, while the waits add up to no more than MAX_RETRY_AFTER and
        the 429s to no more than RATE_LIMIT_RETRIES; then the 429 is raised (a clear refusal:
        nothing was posted)."""
        waited, refused = 0.0, 0
        while True:
            if channel is not None:
                await self.channels.wait(channel)
            rate = self.rates.get(method)
            if rate is not None:
                await rate.wait()
            try:
                answer = await call()
            except SlackApiError as exc:
                wait = rate_limited(exc)
                if wait is None:
                    raise
                refused += 1
                if refused > RATE_LIMIT_RETRIES or waited + wait > MAX_RETRY_AFTER:
                    raise
                log.info(
                    "slack %s%s: 429, every sender waits %.0f s",
                    method,
                    f" to {channel}" if channel else "",
                    wait,
                )
                waited += wait
                if rate is not None:
                    rate.refused(wait)
                if channel is not None:
                    self.channels.pause(channel, wait)
            else:
                if rate is not None:
                    rate.accepted()
                return answer
            finally:
                if channel is not None:
                    self.channels.answered(channel)

    # -- the chart -----------------------------------------------------------------------------

    async def charts(
        self,
        files: Sequence[Attachment],
        known: list[dict[str, Any]],
        on_uploads: OnUploads | None,
        owns: list[str] | None = None,
    ) -> dict[str, str]:
        """name → file id for each file: a completed upload of an earlier attempt is reused; one
        left half-way is deleted; the same chart shown by a lead that landed in this run is
        borrowed (``_borrow``); otherwise the file is uploaded now, and the charts this delivery
        lends once its lead lands are added to ``owns``. A file that cannot go up is left out
        (logged): the digest matters more than its chart."""
        out: dict[str, str] = {}
        for f in files:
            done = [u for u in known if u["name"] == f.name and u.get("complete") and not u.get("gone")]
            if done:
                out[f.name] = str(done[-1]["id"])
                continue
            for stale in [u for u in known if u["name"] == f.name and not u.get("gone")]:
                await self.delete_uploads([str(stale["id"])])
                stale["gone"] = True
            borrowed = await self._borrow(f, owns)
            if borrowed is not None:
                known.append({"id": borrowed, "name": f.name, "complete": True, "borrowed": True})
                if on_uploads is not None:
                    on_uploads(known)
                out[f.name] = borrowed
                continue
            file_id = await self._upload(f, known, on_uploads)
            if file_id is not None:
                out[f.name] = file_id
        return out

    async def _borrow(self, f: Attachment, owns: list[str] | None) -> str | None:
        """The id of this very chart, uploaded by another delivery of this run and shown by its
        lead that landed — waiting for that lead if it is on its way — or None: this delivery
        uploads its own (and, when ``owns`` is given, lends it once its lead landed). A borrowed
        upload is never deleted by the borrower (``unused_uploads``), and its owner keeps it: a
        landed lead shows it. Many channels with the same digest then upload its chart once."""
        key = chart_key(f)
        lent = self._lent.get(key)
        if lent is None:
            if owns is not None:
                self._lent[key] = asyncio.get_running_loop().create_future()
                owns.append(key)
            return None
        file_id = await asyncio.shield(lent)
        if file_id is None and self._lent.get(key) is lent:
            del self._lent[key]  # its lead did not land with it: the next delivery uploads and lends
        return file_id

    def _lend(
        self, owned: Sequence[str], ids: dict[str, str], files: Sequence[Attachment], shown: Sequence[str]
    ) -> None:
        """After the lead of ``owned`` charts was sent: lend those its landed message shows, tell
        the others' waiters to upload their own."""
        by_key = {chart_key(f): ids.get(f.name) for f in files}
        for key in owned:
            lent = self._lent.get(key)
            if lent is not None and not lent.done():
                file_id = by_key.get(key)
                lent.set_result(file_id if file_id is not None and file_id in shown else None)

    async def _upload(
        self, f: Attachment, known: list[dict[str, Any]], on_uploads: OnUploads | None
    ) -> str | None:
        try:
            resp = await self._paced(
                GET_UPLOAD_URL,
                None,
                lambda: self.client.files_getUploadURLExternal(
                    filename=f.name, length=len(f.data), alt_txt=f.description or None
                ),
            )
            file_id, url = str(resp["file_id"]), str(resp["upload_url"])
            entry: dict[str, Any] = {"id": file_id, "name": f.name, "complete": False}
            known.append(entry)
            if on_uploads is not None:
                on_uploads(known)
            timeout = aiohttp.ClientTimeout(total=self.settle / 2)
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.post(url, data=f.data) as answer,
            ):
                if answer.status != 200:
                    raise TransientPostError(f"the upload URL answered {answer.status}")
            title = f.description or f.name
            await self._paced(
                COMPLETE_UPLOAD,
                None,
                lambda: self.client.files_completeUploadExternal(files=[{"id": file_id, "title": title}]),
            )
        except (SlackClientError, OSError, TimeoutError, aiohttp.ClientError, PostError, KeyError) as exc:
            log.warning("slack upload of %s failed (%s); posting without it", f.name, type(exc).__name__)
            return None
        entry["complete"] = True
        if on_uploads is not None:
            on_uploads(known)
        return file_id

    async def delete_uploads(self, ids: Sequence[str]) -> None:
        """Delete uploads no posted message shows (best effort: a file already gone is fine)."""
        for file_id in ids:
            try:
                await self.client.files_delete(file=file_id)
            except (SlackClientError, OSError, TimeoutError, aiohttp.ClientError) as exc:
                log.info("could not delete the unused upload %s (%s)", file_id, type(exc).__name__)

    # -- looking ---------------------------------------------------------------------------------

    async def find_step(self, channel: str, step: Step, *, lead: str | None, delivery: str) -> Landed | None:
        """The message of this step if it is in the channel (the lead) or the lead's thread; None
        when it is not; ``PostError`` when the history cannot be read (then nobody can tell)."""
        cursor: str | None = None
        for _ in range(HISTORY_PAGES):
            try:
                if lead is None:
                    resp = await self.client.conversations_history(
                        channel=channel, limit=HISTORY_PAGE, include_all_metadata=True, cursor=cursor
                    )
                else:
                    resp = await self.client.conversations_replies(
                        channel=channel, ts=lead, limit=HISTORY_PAGE, include_all_metadata=True, cursor=cursor
                    )
            except (SlackClientError, OSError, TimeoutError, aiohttp.ClientError) as exc:
                raise explain(exc, channel) from None
            for message in resp.get("messages") or []:
                if lead is not None and str(message.get("ts")) == lead:
                    continue  # conversations.replies lists the lead first
                if matches(message, delivery, step.key):
                    return Landed(str(message["ts"]), shown_files(message))
            cursor = (resp.get("response_metadata") or {}).get("next_cursor") or None
            if not resp.get("has_more") or not cursor:
                return None
        return None

    async def link(self, channel: str, lead: str) -> str | None:
        return await self._link(channel, lead)

    async def close(self) -> None:
        """Nothing to release: the client opens a session per request, and uploads are the
        deliverer's to keep or delete (they are on its record)."""


def poster(settings: Settings) -> SlackSteps:
    """``bot.chat.steps``'s entry point (ConfigError without SLACK_BOT_TOKEN)."""
    return SlackSteps(web_client(settings), timeout=settings.prdigest_post_timeout)
