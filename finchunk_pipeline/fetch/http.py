"""A polite HTTP client for EDGAR-style APIs.

- a User-Agent with a contact (e-mail or URL) is required: the SEC refuses anonymous clients;
- at most ``max_rps`` requests per second across all threads (minimum interval, thread-safe);
- retries with exponential backoff on 429 / 5xx / connection errors / timeouts, honouring
  ``Retry-After`` (seconds or an HTTP date), capped at ``max_backoff``;
- raw responses cached on disk (atomic writes) and re-fetched conditionally with
  ``If-None-Match`` / ``If-Modified-Since``; a 304 serves the cached body;
- a body that fails validation (e.g. truncated JSON) raises an error naming the URL and is
  never cached.
"""
from __future__ import annotations

import email.utils
import json
import random
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping

import requests

from ..storage import sha256_bytes, write_bytes, write_json

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_CONTACT = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+|https?://\S+")


class HttpError(RuntimeError):
    """A request that failed for good (after retries, or a non-retryable status)."""

    def __init__(self, url: str, message: str, status: int | None = None):
        self.url = url
        self.status = status
        super().__init__(f"{message} ({url})")


class InvalidResponseError(HttpError):
    """The server answered 200 but the body is not what was expected (e.g. truncated JSON)."""


class UserAgentError(ValueError):
    pass


def check_user_agent(user_agent: str | None) -> str:
    """Return the User-Agent, or raise a clear error when it has no contact."""
    ua = (user_agent or "").strip()
    if not ua:
        raise UserAgentError(
            "a User-Agent with a contact is required for SEC EDGAR, e.g. "
            "--user-agent \"Jane Doe jane@example.com\" (or set FINCHUNK_USER_AGENT)")
    if not _CONTACT.search(ua):
        raise UserAgentError(
            f"User-Agent {ua!r} has no contact: include an e-mail address or URL, e.g. "
            "\"Jane Doe jane@example.com\"")
    return ua


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


@dataclass
class Response:
    url: str
    status: int               # the status of the last network answer (200 or 304)
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    from_cache: bool = False  # True when a 304 (or offline cache use) served the cached body

    def text(self) -> str:
        return decode_text(self.body, self.headers.get("Content-Type"))

    def json(self) -> Any:
        return parse_json(self.body, self.url)


def decode_text(body: bytes, content_type: str | None = None) -> str:
    m = re.search(r"charset=([\w.-]+)", content_type or "", re.I)
    if m:
        try:
            return body.decode(m.group(1))
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("cp1252", errors="replace")


def parse_json(body: bytes, url: str) -> Any:
    try:
        return json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        tail = body[-40:].decode("utf-8", errors="replace")
        raise InvalidResponseError(
            url, f"invalid or truncated JSON ({len(body)} bytes, {exc}; ends with {tail!r})") from exc


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


class HttpClient:
    def __init__(
        self,
        user_agent: str | None,
        *,
        cache_dir: str | Path | None = None,
        max_rps: float = 10.0,
        timeout: float | tuple[float, float] = (10.0, 60.0),
        max_retries: int = 5,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.user_agent = check_user_agent(user_agent)
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.limiter = RateLimiter(max_rps)
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._sleep = sleep
        self._local = threading.local()
        self._session = session
        self.requests_sent = 0
        self._count_lock = threading.Lock()

    # one requests.Session per thread (Session is not documented as thread-safe)
    @property
    def session(self) -> requests.Session:
        if self._session is not None:
            return self._session
        s = getattr(self._local, "session", None)
        if s is None:
            s = requests.Session()
            s.headers.update({"User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate"})
            self._local.session = s
        return s

    # --- cache -------------------------------------------------------------------------
    def _cache_paths(self, url: str) -> tuple[Path, Path] | None:
        if self.cache_dir is None:
            return None
        key = sha256_bytes(url.encode("utf-8"))
        base = self.cache_dir / key[:2] / key
        return base.with_suffix(".body"), base.with_suffix(".json")

    def cached(self, url: str) -> tuple[bytes, dict] | None:
        paths = self._cache_paths(url)
        if paths is None or not paths[0].exists() or not paths[1].exists():
            return None
        try:
            meta = json.loads(paths[1].read_text(encoding="utf-8"))
            body = paths[0].read_bytes()
        except (OSError, ValueError):
            return None
        if meta.get("sha256") != sha256_bytes(body) or meta.get("url") != url:
            return None  # torn or foreign entry: ignore it
        return body, meta

    def _store(self, url: str, body: bytes, headers: Mapping[str, str]) -> None:
        paths = self._cache_paths(url)
        if paths is None:
            return
        write_bytes(paths[0], body)
        write_json(paths[1], {
            "url": url,
            "sha256": sha256_bytes(body),
            "etag": headers.get("ETag"),
            "last_modified": headers.get("Last-Modified"),
            "content_type": headers.get("Content-Type"),
            "fetched_at": datetime.now(timezone.utc).isoformat(),
        })

    # --- requests ----------------------------------------------------------------------
    def _delay(self, attempt: int, response: requests.Response | None) -> float:
        ra = retry_after_seconds(response.headers.get("Retry-After")) if response is not None else None
        if ra is not None:
            return min(ra, self.max_backoff)
        base = self.backoff * (2 ** attempt)
        return min(self.max_backoff, base * (1 + 0.1 * random.random()))

    def get(self, url: str, *, validate: Callable[[bytes, str], Any] | None = None,
            use_cache: bool = True) -> Response:
        """GET ``url`` with rate limiting, retries and the conditional disk cache.

        ``validate(body, url)`` runs on a fresh 200 body before it is cached; it raises to
        reject the body (the error propagates, nothing is cached)."""
        cached = self.cached(url) if use_cache else None
        headers: dict[str, str] = {}
        if cached is not None:
            meta = cached[1]
            if meta.get("etag"):
                headers["If-None-Match"] = meta["etag"]
            if meta.get("last_modified"):
                headers["If-Modified-Since"] = meta["last_modified"]

        last_error: str = "no attempt made"
        for attempt in range(self.max_retries + 1):
            self.limiter.acquire()
            with self._count_lock:
                self.requests_sent += 1
            resp: requests.Response | None = None
            try:
                resp = self.session.get(url, headers=headers, timeout=self.timeout)
                body = resp.content  # reads the whole body: a short read raises here
            except (requests.ConnectionError, requests.Timeout,
                    requests.exceptions.ChunkedEncodingError) as exc:
                last_error = f"{exc.__class__.__name__}: {exc}"
                if resp is not None:
                    resp.close()
                resp = None
            else:
                if resp.status_code == 304 and cached is not None:
                    return Response(url, 304, cached[0], {"Content-Type": cached[1].get("content_type") or "",
                                                          "ETag": cached[1].get("etag") or ""}, True)
                if resp.status_code == 200:
                    if validate is not None:
                        validate(body, url)
                    if use_cache:
                        self._store(url, body, resp.headers)
                    return Response(url, 200, body, dict(resp.headers), False)
                if resp.status_code not in RETRY_STATUSES:
                    raise HttpError(url, f"HTTP {resp.status_code} {resp.reason or ''}".strip(),
                                    resp.status_code)
                last_error = f"HTTP {resp.status_code}"
            if attempt < self.max_retries:
                self._sleep(self._delay(attempt, resp))
        status = int(last_error.split()[1]) if last_error.startswith("HTTP ") else None
        raise HttpError(url, f"gave up after {self.max_retries + 1} attempts, last: {last_error}", status)

    def get_json(self, url: str, *, use_cache: bool = True) -> Any:
        resp = self.get(url, validate=parse_json, use_cache=use_cache)
        return resp.json()
