"""``serve`` stores closed weeks' storylines in the background, so a past week's digest reads them.

A past week's digest spends most of its time finding the week's storylines; once stored in the
cache (``commands.report.stored_themes``) they are read back in well under a millisecond. After
the host starts, and after every write of PR rows it sees (its own syncs, a ``prdigest sync`` or
``import`` in another process: the cache's write generation moved), this component finds and
stores the storylines of the closed ISO weeks (in ``PRDIGEST_TIMEZONE``) that have none current,
newest first, ``batch`` weeks at a time with a ``pause`` between batches (see ``BATCH``), in a one-thread lane of
its own with its own connection — chat commands run in their own threads and never wait for it
(the pause lets them have the interpreter between batches). A week whose storylines are current
costs one indexed read to skip; a write of one day makes the weeks whose storylines read that day
(the week itself and the four after it) be found again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from bot.host.runner import Lane
from commands.registry import Context

if TYPE_CHECKING:
    from bot.config.settings import Settings
    from bot.host.serve import Host, ServeOptions

log = logging.getLogger(__name__)

# weeks found per lane job (~30 ms each on the 200,000-PR benchmark) and seconds between jobs: the
# fill runs in a thread of this process, so while it works a chat command waits for the interpreter
# lock; one week per half second kept `pr`'s p99 at 6.4 ms against 5.0 ms without the fill (4 weeks
# per job: 16.7 against 2.2), and would store the 522 closed weeks of 200,000 PRs in ~4.5 minutes (522 × (0.5 s + ~30 ms))
BATCH = 1
PAUSE = 0.5
WATCH = 15.0  # seconds between looks at the cache's write generation once everything is stored


class StorylineFill:
    """The component (see the module docstring)."""

    name = "storyline_fill"

    def __init__(
        self, settings: Settings, *, batch: int = BATCH, pause: float = PAUSE, watch: float = WATCH
    ) -> None:
        self.settings = settings
        self.zone = ZoneInfo(settings.prdigest_timezone)
        self.batch = batch
        self.pause = pause
        self.watch = watch
        self.found = 0
        self.passes = 0
        self.stopped: str | None = None
        self._lane: Lane | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self, host: Host) -> None:
        from bot.host.serve import context_factory

        assert host.db is not None
        self._lane = Lane("fill", context_factory(host.settings, host.db), workers=1)
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._lane is not None:
            self._lane.close()

    def health(self) -> dict[str, Any]:
        return {"weeks_stored": self.found, "passes": self.passes, "stopped": self.stopped}

    def _some(self, ctx: Context, tried: set[tuple[str, datetime]]) -> int:
        """Find and store the storylines of up to ``batch`` closed weeks that have none current and
        were not tried in this pass (a read-only or busy cache stores nothing: no endless retry)."""
        from commands.report.stored_themes import closed_weeks, fill

        now = datetime.now(UTC)
        done = 0
        for repo in ctx.store.repos():
            weeks = [w for w in closed_weeks(ctx.store, repo, self.zone, now) if (repo, w.start) not in tried]
            found = fill(ctx.store, ctx.for_repo(repo).profile, repo, weeks, now, limit=self.batch - done)
            tried.update((repo, w.start) for w in found)
            done += len(found)
            if done >= self.batch:
                break
        return done

    async def _run(self) -> None:
        assert self._lane is not None
        lane = self._lane
        while True:
            try:
                seen = await lane.call(lambda ctx: ctx.store.change_token())
                tried: set[tuple[str, datetime]] = set()
                while (done := await lane.call(functools.partial(self._some, tried=tried))) > 0:
                    self.found += done
                    await asyncio.sleep(self.pause)
                self.passes += 1
                while await lane.call(lambda ctx: ctx.store.change_token()) == seen:
                    await asyncio.sleep(self.watch)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # never fatal to the host: logged once, and the fill stops
                log.warning("closed weeks' storylines are not stored in the background: %s", exc)
                self.stopped = str(exc)
                return


def component(settings: Settings, options: ServeOptions) -> StorylineFill:
    return StorylineFill(settings)
