"""``prdigest serve``'s host running in a background thread, for tests and benchmarks.

It is the real ``bot.host.serve.Host`` with the components the settings configure (unpaced posting),
listening on 127.0.0.1 at a free port, with its own event loop; ``with RunningHost(...)`` starts
it and stops it gracefully (the same path as SIGTERM).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from bot.config.components import ServeOptions
from bot.config.settings import Settings
from bot.host.http_guard import HttpLimits
from bot.host.runner import CommandRunner
from bot.host.serve import Host, build_host


class RunningHost:
    def __init__(
        self,
        settings: Settings,
        db: Path,
        *,
        runner: CommandRunner | None = None,
        socket_mode: bool | None = None,
        port: int = 0,
        limits: HttpLimits = HttpLimits(),
    ) -> None:
        self.settings = settings
        self.host: Host = build_host(
            settings,
            db=db,
            host="127.0.0.1",
            port=port,
            options=ServeOptions(socket_mode=socket_mode, pace=0),
            runner=runner,
            limits=limits,
        )
        self.port = 0
        self._ready = threading.Event()
        self.stopping = threading.Event()  # set once the stop request reached the host's loop
        self._stopped = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="prdigest-host", daemon=True)

    def _main(self) -> None:
        async def go() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            await self.host.run(stop=self._stop, on_ready=self._on_ready)

        try:
            asyncio.run(go())
        except BaseException as exc:
            self.error = exc
        finally:
            self._stopped.set()
            self._ready.set()

    def _on_ready(self, port: int) -> None:
        self.port = port
        self._ready.set()

    def __enter__(self) -> RunningHost:
        self._thread.start()
        assert self._ready.wait(15), "the host did not start"
        if self.error is not None:
            raise self.error
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None and not self._stopped.is_set():

            def request_stop() -> None:
                assert self._stop is not None
                self._stop.set()
                self.stopping.set()

            self._loop.call_soon_threadsafe(request_stop)
        self._thread.join(30)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"
