"""Raw-socket helpers on 127.0.0.1: a server that never answers, clients that never finish.

``HangingServer`` stands in for an unreachable GitHub: it accepts connections and says nothing
until ``release()``, after which it closes every connection it holds and every new one at once.
``slow_headers`` opens connections that send the start of a request head and stop, as a
slow-header attack does; ``still_open`` tells which of them the server has not closed.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterable


class HangingServer:
    def __init__(self) -> None:
        self._sock = socket.create_server(("127.0.0.1", 0), backlog=64)
        self._sock.settimeout(0.2)
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._released = threading.Event()
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="hanging-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._changed:
                self.accepted += 1
                if self._released.is_set():
                    conn.close()
                else:
                    self._held.append(conn)
                self._changed.notify_all()

    def wait_accepted(self, count: int, timeout: float = 15.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.accepted >= count, timeout)

    def release(self) -> None:
        with self._changed:
            self._released.set()
            for conn in self._held:
                conn.close()
            self._held.clear()

    def __enter__(self) -> HangingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
        self._stop.set()
        self._sock.close()
        self._thread.join(5)


def slow_headers(port: int, count: int, path: str = "/healthz", timeout: float = 10) -> list[socket.socket]:
    """``count`` connections to 127.0.0.1:port, each having sent an unfinished request head."""
    socks = []
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".encode()
    try:
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
            s.sendall(head)
            socks.append(s)
    except BaseException:
        close_all(socks)
        raise
    return socks


def still_open(socks: Iterable[socket.socket]) -> int:
    """How many of ``socks`` the server has not closed (no EOF, no reset, nothing sent)."""
    alive = 0
    for s in socks:
        s.setblocking(False)
        try:
            data = s.recv(1)
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
        else:
            del data  # EOF, or an answer: either way the server is done with it
        finally:
            s.setblocking(True)
    return alive


def close_all(socks: Iterable[socket.socket]) -> None:
    for s in socks:
        s.close()
