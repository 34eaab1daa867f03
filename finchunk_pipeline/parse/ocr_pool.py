"""OCR in worker processes, each page under a time limit.

``OcrPool(engine, lang, dpi, workers, timeout)`` keeps up to ``workers`` worker processes
(parse/ocr_worker.py), each holding one loaded engine, and ``read(jobs)`` hands them pages
(a PDF file and a page number) as they free up, yielding each page's result as it comes back
(in completion order, with the key it was given). Bounded:

- processes: at most ``workers``, started only when there is a page for them (the caller
  keeps ``workers`` within the usable cores); each engine runs one thread
  (``OMP_THREAD_LIMIT=1``), so the pool uses at most ``workers`` cores;
- memory: a worker renders the page it reads, so at most ``workers`` page images exist at
  once, whatever the page count, and this process holds none; a job is a few bytes, so
  handing one out never waits on a worker;
- time: the engine stops a page at ``timeout`` seconds (its own deadline) and the page is
  reported timed out; a worker that has not answered ``GRACE`` seconds later (stuck in native
  code) is killed and replaced, and the page reported the same way. A new worker's start (an
  interpreter, the engine's model: about a second) is not counted in its first page's time:
  the worker says when it is ready, and is given ``STARTUP`` seconds to be. A worker that dies
  (crash, out of memory) costs its page only: the page is reported failed and a new worker
  takes the next one.

Workers are fresh interpreters joined to this process by a socket pair: a worker ends when
its connection closes — at ``close()``, or when this process ends however it ends. One pool
serves every document of a parse (``shared_pool``), so engines load once per process.
"""
from __future__ import annotations

import atexit
import socket
import subprocess
import sys
import time
from multiprocessing import connection
from multiprocessing.connection import Connection
from typing import Any, Hashable, Iterable, Iterator

from .ocr_worker import READY, PageJob, PageResult

GRACE = 10.0     # seconds past the page's time limit before a silent worker is killed
STARTUP = 120.0  # seconds a new worker may take to load its engine (not counted in a page's limit)

__all__ = ["GRACE", "OcrPool", "PageJob", "PageResult", "close_shared", "shared_pool"]


class _Worker:
    def __init__(self, engine: str, lang: str, dpi: int):
        mine, theirs = socket.socketpair()
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "finchunk_pipeline.parse.ocr_worker", str(theirs.fileno()), engine, lang,
                 str(dpi)], pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
        self.conn = Connection(mine.detach())
        self.ready = False   # its engine is loaded (it said READY)
        self.job: tuple[Hashable, float, float] | None = None   # key, sent at, deadline

    def stop(self) -> None:
        try:
            self.conn.close()
        except OSError:
            pass
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            pass


class OcrPool:
    def __init__(self, engine: str, lang: str, dpi: int, workers: int, timeout: float):
        self.engine, self.lang, self.dpi = engine, lang, dpi
        self.workers, self.timeout = max(1, workers), float(timeout)
        self._idle: list[_Worker] = []
        self.started = 0   # processes started (replacements included)

    @property
    def spec(self) -> tuple:
        return self.engine, self.lang, self.dpi, self.workers, self.timeout

    def pids(self) -> list[int]:
        """The idle workers' process ids (bench/bench_ocr.py reads their memory)."""
        return [w.process.pid for w in self._idle]

    def _new_worker(self) -> _Worker:
        self.started += 1
        return _Worker(self.engine, self.lang, self.dpi)

    def read(self, jobs: Iterable[tuple[Hashable, PageJob]]) -> Iterator[tuple[Hashable, PageResult]]:
        """Each job's (key, PageResult); ``jobs`` yields (key, PageJob), taken one per free worker."""
        pending = iter(jobs)
        busy: dict[Any, _Worker] = {}
        more = True
        try:
            while True:
                while more and len(busy) < self.workers:
                    job = next(pending, None)
                    if job is None:
                        more = False
                        break
                    self._send(busy, *job)
                if not busy:
                    return
                yield from self._collect(busy)
        finally:
            for w in busy.values():   # abandoned mid-way: those workers' answers are lost
                w.stop()

    def _send(self, busy: dict, key: Hashable, job: PageJob) -> None:
        w = self._idle.pop() if self._idle else self._new_worker()
        try:
            w.conn.send((job, self.timeout))
        except OSError:   # an idle worker that died meanwhile: a new one takes the page
            w.stop()
            w = self._new_worker()
            w.conn.send((job, self.timeout))
        now = time.perf_counter()
        w.job = (key, now, now + self.timeout + GRACE + (0.0 if w.ready else STARTUP))
        busy[w.conn] = w

    def _collect(self, busy: dict) -> Iterator[tuple[Hashable, PageResult]]:
        """Wait for the first answer or deadline; yield what finished, replace what failed."""
        deadline = min(w.job[2] for w in busy.values())
        ready = connection.wait(list(busy), timeout=max(0.0, deadline - time.perf_counter()))
        now = time.perf_counter()
        for conn in ready:
            w = busy[conn]
            key, sent, _ = w.job
            try:
                result = conn.recv()
            except (EOFError, OSError):
                del busy[conn]
                w.stop()
                yield key, PageResult("failed", now - sent,
                                      message=f"the OCR worker ended (exit code {w.process.returncode})")
                continue
            if result == READY:   # the page's time starts now
                w.ready, w.job = True, (key, now, now + self.timeout + GRACE)
                continue
            del busy[conn]
            self._idle.append(w)
            yield key, result
        for conn, w in list(busy.items()):
            key, sent, limit = w.job
            if now >= limit:
                del busy[conn]
                w.stop()
                yield key, PageResult("timeout", now - sent,
                                      message=f"the OCR worker did not answer within {self.timeout + GRACE:g} s; ended")

    def close(self) -> None:
        while self._idle:
            self._idle.pop().stop()


_shared: OcrPool | None = None


def shared_pool(engine: str, lang: str, dpi: int, workers: int, timeout: float) -> OcrPool:
    """The process's pool for these settings (a new one, the old closed, when they change)."""
    global _shared
    spec = (engine, lang, dpi, max(1, workers), float(timeout))
    if _shared is None or _shared.spec != spec:
        close_shared()
        _shared = OcrPool(*spec)
    return _shared


@atexit.register
def close_shared() -> None:
    """End the process's OCR workers (after a parse; they would otherwise idle until exit)."""
    global _shared
    if _shared is not None:
        _shared.close()
        _shared = None
