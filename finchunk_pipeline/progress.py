"""Progress of long stages (parsing, chunking, embedding): counts, rate and ETA.

A ``Progress`` reports at most every ``every`` seconds and always at the end, to Dagster's
log (``context.log.info``: the run's logs in the UI) and, when ``FINCHUNK_PROGRESS=1``
(``finchunk run`` sets it), to the terminal (stderr), e.g.::

    chunk set semantic: 120/1,000 documents (12%), 3.1/s, ETA 4m 44s
    chunk set semantic: 1,000/1,000 documents in 5m 21s
"""
from __future__ import annotations

import sys
import time
from typing import Callable

from .settings import Settings

TERMINAL_ENV = "FINCHUNK_PROGRESS"
DEFAULT_EVERY = 10.0


def duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"


class Progress:
    def __init__(self, label: str, unit: str, log: Callable[[str], None] | None = None,
                 every: float = DEFAULT_EVERY, clock: Callable[[], float] = time.monotonic,
                 terminal: bool | None = None):
        self.label, self.unit, self.log, self.every, self.clock = label, unit, log, every, clock
        self.terminal = Settings().progress == "1" if terminal is None else terminal
        self.start = clock()
        self.last: float | None = None
        self.finished = False

    def message(self, done: int, total: int, now: float) -> str:
        elapsed = now - self.start
        if done >= total:
            return f"{self.label}: {done:,}/{total:,} {self.unit} in {duration(elapsed)}"
        text = f"{self.label}: {done:,}/{total:,} {self.unit} ({100 * done / total:.0f}%)" if total else \
            f"{self.label}: {done:,} {self.unit}"
        if done and elapsed > 0:
            rate = done / elapsed
            text += f", {rate:,.1f}/s, ETA {duration((total - done) / rate)}"
        return text

    def __call__(self, done: int, total: int) -> str | None:
        """Report ``done`` of ``total``; returns the message when one was emitted."""
        if total <= 0:
            return None  # nothing to do: nothing to report
        now = self.clock()
        final = done >= total
        if self.finished or (not final and now - (self.last if self.last is not None else self.start) < self.every):
            return None
        self.last = now
        self.finished = final
        msg = self.message(done, total, now)
        if self.log is not None:
            self.log(msg)
        if self.terminal:
            print(f"    {msg}", file=sys.stderr, flush=True)
        return msg
