"""A total deadline for one download, however slowly the server drips.

A read timeout bounds each wait for the next bytes, not the whole answer: a server that
sends one byte a second never trips it. ``DeadlineWatch`` shuts the socket the request is
using when its time is up (a timer thread), so whatever read is blocked — headers or body —
ends at once; the caller sees ``watch.expired``.

The socket is found through the session's adapter (``WatchedAdapter``): its connections tell
the watch of the current thread which socket they send on, when they connect and on every
request (a kept-alive connection is reused without connecting again)."""
from __future__ import annotations

import socket
import threading
import time

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

_current = threading.local()


class DeadlineWatch:
    """``with DeadlineWatch(end):`` — at ``end`` (time.monotonic()) the socket the current
    thread's request uses is shut down; ``expired`` says it happened."""

    def __init__(self, end: float | None):
        self.end = end
        self.expired = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def remaining(self) -> float | None:
        return None if self.end is None else self.end - time.monotonic()

    def __enter__(self) -> "DeadlineWatch":
        self._outer = getattr(_current, "watch", None)
        _current.watch = self
        if self.end is not None:
            self._timer = threading.Timer(max(0.0, self.remaining()), self._expire)
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._sock = None
        _current.watch = self._outer

    def attach(self, sock: socket.socket | None) -> None:
        if sock is None:
            return
        with self._lock:
            self._sock = sock
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            if self._sock is not None:
                _shut(self._sock)


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed
        pass


def _attach(sock) -> None:
    watch = getattr(_current, "watch", None)
    if watch is not None:
        watch.attach(sock)


class _ReportsItsSocket:
    """Mixed into urllib3's connections: tells the current watch the socket it sends on, when
    it connects and on every request (a kept-alive connection is reused without connecting)."""

    def connect(self):
        super().connect()
        _attach(self.sock)

    def request(self, *args, **kwargs):
        _attach(self.sock)
        return super().request(*args, **kwargs)


class _WatchedHTTPConnection(_ReportsItsSocket, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_ReportsItsSocket, HTTPSConnection):
    pass


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


class WatchedAdapter(HTTPAdapter):
    """requests' adapter whose connections report their sockets to the current watch."""

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}
