"""Reply in, Reply with verified sentences out: the model asked once per part, within bounds.

``ProseWriter.write(reply)`` is the one entry point — the CLI, the chat front ends and the
deliverer call it before rendering. For each part of the reply (``Reply.prose``):

1. the sentence cache is read by content (``commands.prose.key.cache_key``): a part asked
   before with the same facts, model and prompt is answered from it (and checked again);
2. the other parts are asked in parallel (at most ``parallel`` in flight), at most
   ``max_requests`` requests per digest in all, retries included;
3. each answer is verified (``commands.prose.verify``); a failed one is asked once more, naming
   the failures; a second failure leaves the part's computed lines;
4. a 429 waits its Retry-After when that fits in the time left; a 5xx or dropped connection is
   tried once more; whatever is not back when ``timeout`` seconds have passed since the start
   stays computed — a digest never waits longer than that in all;
5. verified sentences (and parts whose answers failed the checks) are stored in the cache, so
   the same part is not asked of the model again; timeouts and outages are not stored.

Nothing is sent when the reply has no parts (every answer but a digest, ``prose=off``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.prose.client import ChatClient, ModelError, SchemaRefused
from bot.prose.config import ProseConfig
from commands.model import ProsePart, Reply
from commands.prose.apply import Outcome, apply_prose
from commands.prose.key import cache_key
from commands.prose.prompt import messages, retry_messages
from commands.prose.verify import Problem, Sentence, verify

log = logging.getLogger(__name__)

MAX_NAMED_PROBLEMS = 12  # failures named in the retry request


class SentenceCache(Protocol):
    """Where verified sentences are kept by content (``storage.prose_cache`` behind it)."""

    async def load(self, keys: Sequence[str]) -> dict[str, str]: ...

    async def save(self, answers: Mapping[str, str]) -> None: ...


class NoCache:
    """A cache that keeps nothing (benchmarks of the cold path)."""

    async def load(self, keys: Sequence[str]) -> dict[str, str]:
        return {}

    async def save(self, answers: Mapping[str, str]) -> None:
        return None


@dataclass
class Budget:
    """Requests left for one digest."""

    left: int
    used: int = 0

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        self.used += 1
        return True


@dataclass
class WriteReport:
    """What one ``write`` did (logged; read by the benchmark)."""

    parts: int = 0
    written: int = 0
    cached: int = 0
    requests: int = 0
    seconds: float = 0.0
    computed: dict[str, str] = field(default_factory=dict)


def _stored(outcome: Outcome) -> str | None:
    """An outcome as the cache keeps it: sentences, or the checks the answers failed."""
    if outcome.sentences is not None:
        return json.dumps({"sentences": [s.as_dict() for s in outcome.sentences]}, ensure_ascii=False)
    if outcome.reason == "checks_failed":
        return json.dumps({"failed": [p.as_dict() for p in outcome.problems]}, ensure_ascii=False)
    return None


def _from_cache(part: ProsePart, text: str) -> Outcome:
    """A cached outcome, its sentences checked again (a cache is never trusted blindly)."""
    try:
        data = json.loads(text)
    except ValueError:
        data = {}
    if "sentences" in data:
        verdict = verify(part.facts, text)
        if verdict.ok:
            return Outcome(part, verdict.sentences, cached=True)
        return Outcome(part, None, verdict.problems, "checks_failed", cached=True)
    problems = tuple(
        Problem(str(p.get("check", "")), str(p.get("message", "")), p.get("sentence"))
        for p in data.get("failed", [])
        if isinstance(p, dict)
    )
    return Outcome(part, None, problems, "checks_failed", cached=True)


class ProseWriter:
    """Words a Reply's parts with the configured model (see the module docstring)."""

    def __init__(
        self,
        config: ProseConfig,
        cache: SentenceCache,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.config = config
        self.cache = cache
        self.clock = clock
        self.sleep = sleep
        self.structured = True  # False once the server refused response_format
        self.last = WriteReport()

    async def write(self, reply: Reply) -> Reply:
        """``reply`` with verified sentences in place of the parts the model got right."""
        if reply.prose is None or not reply.ok:
            return reply
        parts = reply.prose()
        if not parts:
            return reply
        start = self.clock()
        report = WriteReport(parts=len(parts))
        keys = {p.key: cache_key(p.facts, self.config.model, p.kind) for p in parts}
        stored = await self.cache.load(list(keys.values()))
        outcomes = {p.key: _from_cache(p, stored[keys[p.key]]) for p in parts if keys[p.key] in stored}
        asked = [p for p in parts if p.key not in outcomes]
        if asked:
            budget = Budget(self.config.max_requests)
            fresh = await self._ask_all(asked, start + self.config.timeout, budget)
            outcomes.update(fresh)
            report.requests = budget.used
            keep = {keys[k]: text for k, o in fresh.items() if (text := _stored(o)) is not None}
            await self.cache.save(keep)
        ordered = [outcomes[p.key] for p in parts]
        report.written = sum(1 for o in ordered if o.written)
        report.cached = sum(1 for o in ordered if o.cached)
        report.computed = {o.part.key: o.reason for o in ordered if not o.written}
        report.seconds = self.clock() - start
        self.last = report
        log.info(
            "prose: %d of %d parts written by the model (%d from the cache), %d requests in %.1f s%s",
            report.written,
            report.parts,
            report.cached,
            report.requests,
            report.seconds,
            f"; computed: {report.computed}" if report.computed else "",
        )
        return apply_prose(reply, ordered, self.config.model)

    async def _ask_all(
        self, parts: Sequence[ProsePart], deadline: float, budget: Budget
    ) -> dict[str, Outcome]:
        client = ChatClient(self.config, structured=self.structured)
        gate = asyncio.Semaphore(max(1, self.config.parallel))

        async def one(part: ProsePart) -> Outcome:
            async with gate:
                return await self._ask(client, part, deadline, budget)

        tasks = {p.key: asyncio.ensure_future(one(p)) for p in parts}
        try:
            await asyncio.wait(tasks.values(), timeout=max(0.0, deadline - self.clock()))
        finally:
            for task in tasks.values():
                task.cancel()
            await asyncio.gather(*tasks.values(), return_exceptions=True)
            self.structured = client.structured
            await client.aclose()
        out = {}
        for part in parts:
            task = tasks[part.key]
            if task.done() and not task.cancelled() and task.exception() is None:
                out[part.key] = task.result()
            else:
                out[part.key] = Outcome(part, None, reason="timeout")
        return out

    async def _ask(self, client: ChatClient, part: ProsePart, deadline: float, budget: Budget) -> Outcome:
        first = messages(part.kind, part.facts)
        try:
            answer = await self._request(client, first, deadline, budget)
            verdict = verify(part.facts, answer)
            if verdict.ok:
                return Outcome(part, verdict.sentences)
            named = [str(p) for p in verdict.problems[:MAX_NAMED_PROBLEMS]]
            log.info("prose: %s failed %d checks; asking once more", part.key, len(verdict.problems))
            again = await self._request(client, retry_messages(first, answer, named), deadline, budget)
        except ModelError as exc:
            log.warning("prose: %s stays computed: %s", part.key, exc)
            return Outcome(part, None, reason=exc.reason)
        verdict = verify(part.facts, again)
        if verdict.ok:
            return Outcome(part, verdict.sentences)
        log.info(
            "prose: %s stays computed: the second answer failed %d checks", part.key, len(verdict.problems)
        )
        return Outcome(part, None, verdict.problems, "checks_failed")

    async def _request(
        self, client: ChatClient, msgs: list[dict[str, str]], deadline: float, budget: Budget
    ) -> str:
        """One answer, with the waits and the one repeat the module docstring describes."""
        failures = 0
        while True:
            left = deadline - self.clock()
            if left <= 0:
                raise ModelError("timeout", "no time left")
            if not budget.take():
                raise ModelError("request_budget", f"{self.config.max_requests} requests used")
            try:
                return await client.complete(msgs, timeout=left)
            except SchemaRefused:
                log.info("prose: the server refused response_format; asking for plain JSON")
                continue
            except ModelError as exc:
                if exc.reason == "rate_limited":
                    wait = 1.0 if exc.wait is None else exc.wait
                    if self.clock() + wait >= deadline:
                        raise
                    await self.sleep(wait)
                    continue
                failures += 1
                if exc.reason != "unavailable" or failures > 1:
                    raise


def sentences_of(reply: Reply) -> list[Sentence]:
    """Every model-written sentence of a reply written by ``ProseWriter`` (tests, benchmarks)."""
    report = reply.data.get("prose", {})
    return [
        Sentence(s["text"], tuple(s["prs"])) for p in report.get("parts", []) for s in p.get("sentences", [])
    ]


def write_blocking(reply: Reply, writer: ProseWriter) -> Reply:
    """``writer.write(reply)`` from synchronous code without an event loop (the CLI)."""
    if reply.prose is None:
        return reply
    return asyncio.run(writer.write(reply))
