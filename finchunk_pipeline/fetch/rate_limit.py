"""At most N requests in any rolling second, shared by all threads (HttpClient, the LLM
clients)."""
from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable


class RateLimiter:
    """At most ``rate`` acquisitions in any rolling second, shared by all threads.

    Two rules on the times acquisitions actually happened (not on reserved slots, which a
    late wake-up would bunch together): consecutive acquisitions are at least 1 / rate
    apart, and the acquisition N = max(1, floor(rate)) places back is more than N / rate
    seconds old, so no closed window of one second (N / rate) ever holds more than N. A
    caller holds the lock while it waits, so threads queue instead of racing."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        if rate <= 0:
            raise ValueError("rate must be > 0")
        self.interval = 1.0 / rate
        self.burst = max(1, int(rate))        # N acquisitions ...
        self.window = self.burst / rate       # ... per this many seconds (1 s when rate >= 1)
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._recent: deque[float] = deque(maxlen=self.burst)

    def _wait_needed(self, now: float) -> float:
        if not self._recent:
            return 0.0
        wait = self._recent[-1] + self.interval - now
        if len(self._recent) == self.burst:
            # strictly more than the window since the N-th last one
            oldest = self._recent[0]
            if now - oldest <= self.window:
                wait = max(wait, oldest + self.window - now + _EPSILON)
        return max(0.0, wait)

    def acquire(self) -> float:
        """Block until a request may go; returns the seconds waited."""
        waited = 0.0
        with self._lock:
            start = now = self._clock()
            while (wait := self._wait_needed(now)) > 0:
                self._sleep(wait)
                now = self._clock()
            self._recent.append(now)
            waited = now - start
        return waited


_EPSILON = 1e-3  # a wake-up exactly at the window's edge waits this much longer
