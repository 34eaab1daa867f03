"""A polite HTTP client for EDGAR-style APIs.

- a User-Agent with a contact (e-mail or URL) is required: the SEC refuses anonymous clients;
- at most ``max_rps`` requests per second across all threads (minimum interval, thread-safe);
- retries with exponential backoff on 429 / 5xx / connection errors / timeouts, honouring
  ``Retry-After`` (seconds or an HTTP date), capped at ``max_backoff``;
- raw responses cached on disk (atomic writes) and re-fetched conditionally with
  ``If-None-Match`` / ``If-Modified-Since``; a 304 serves the cached body;
- a body that fails validation (e.g. truncated JSON) raises an error naming the URL and is
  never cached;
- bounded: redirects are followed by hand, http(s) only, at most ``max_redirects`` and never in
  a loop; the body is read in pieces and refused past ``max_bytes`` after decompression (a
  gzip bomb stops at the limit); one URL takes at most ``deadline`` seconds in all, retries
  and slow-drip servers included (fetch/deadline.py). These refusals are not retried.
"""
from __future__ import annotations

import email.utils
import json
import random
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import urljoin, urlsplit

import requests

from ..hashing import sha256_bytes
from ..storage.files import write_bytes, write_json
from .deadline import DeadlineWatch, WatchedAdapter
from .limits import DEFAULT_DEADLINE, DEFAULT_MAX_BYTES, format_seconds, format_size
from .rate_limit import RateLimiter

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
FOLLOWED_SCHEMES = ("http", "https")
DEFAULT_MAX_REDIRECTS = 10
_READ_SIZE = 1 << 16  # decoded bytes per read: a compressed body is inflated this much at a time
_CONTACT = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+|https?://\S+")


class HttpError(RuntimeError):
    """A request that failed for good (after retries, or a non-retryable status)."""

    def __init__(self, url: str, message: str, status: int | None = None):
        self.url = url
        self.status = status
        self.message = message   # without the URL
        super().__init__(f"{message} ({url})")


class InvalidResponseError(HttpError):
    """The server answered 200 but the body is not what was expected (e.g. truncated JSON)."""


class RedirectRefused(HttpError):
    """A redirect to a scheme other than http(s), a loop, or too many redirects."""


class BodyTooLarge(HttpError):
    """The body is over the size limit (announced, received, or after decompression)."""


class DeadlineExceeded(HttpError):
    """The URL took longer than its total deadline."""


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


@dataclass
class Response:
    url: str
    status: int               # the status of the last network answer (200 or 304)
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    from_cache: bool = False  # True when a 304 (or offline cache use) served the cached body
    final_url: str = ""       # where the redirects, if any, ended ("" = ``url``)

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


@dataclass
class _Answer:
    """One network answer at the end of its redirects."""
    status: int
    reason: str
    url: str                   # the URL that answered
    body: bytes
    headers: Mapping[str, str]


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
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        deadline: float | None = DEFAULT_DEADLINE,
        max_redirects: int = DEFAULT_MAX_REDIRECTS,
    ):
        self.user_agent = check_user_agent(user_agent)
        self.max_bytes = max_bytes            # decoded body, per URL (None: no limit)
        self.deadline = deadline              # seconds per URL, all attempts (None: no deadline)
        self.max_redirects = max_redirects
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
            for prefix in ("http://", "https://"):  # sockets a deadline can shut
                s.mount(prefix, WatchedAdapter())
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
    def _delay(self, attempt: int, headers: Mapping[str, str] | None) -> float:
        ra = retry_after_seconds(headers.get("Retry-After")) if headers is not None else None
        if ra is not None:
            return min(ra, self.max_backoff)
        base = self.backoff * (2 ** attempt)
        return min(self.max_backoff, base * (1 + 0.1 * random.random()))

    def get(self, url: str, *, validate: Callable[[bytes, str], Any] | None = None,
            use_cache: bool = True) -> Response:
        """GET ``url`` with rate limiting, retries and the conditional disk cache, within
        the client's bounds (redirects, body size, total deadline).

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

        end = None if self.deadline is None else time.monotonic() + self.deadline
        last_error: str = "no attempt made"
        for attempt in range(self.max_retries + 1):
            answer: _Answer | None = None
            with DeadlineWatch(end) as watch:
                try:
                    answer = self._attempt(url, headers, watch)
                except (requests.ConnectionError, requests.Timeout,
                        requests.exceptions.ChunkedEncodingError) as exc:
                    if watch.expired:
                        raise self._late(url) from None
                    last_error = f"{exc.__class__.__name__}: {exc}"
                except requests.exceptions.ContentDecodingError as exc:
                    raise HttpError(url, f"the body could not be decompressed ({exc})") from None
                except requests.RequestException as exc:  # e.g. a redirect to an invalid URL
                    raise HttpError(url, f"{exc.__class__.__name__}: {exc}") from None
            if answer is not None:
                if answer.status == 304 and cached is not None:
                    return Response(url, 304, cached[0], {"Content-Type": cached[1].get("content_type") or "",
                                                          "ETag": cached[1].get("etag") or ""}, True, answer.url)
                if answer.status == 200:
                    if validate is not None:
                        validate(answer.body, url)
                    if use_cache:
                        self._store(url, answer.body, answer.headers)
                    return Response(url, 200, answer.body, answer.headers, False, answer.url)
                if answer.status not in RETRY_STATUSES:
                    raise HttpError(url, f"HTTP {answer.status} {answer.reason}".strip(), answer.status)
                last_error = f"HTTP {answer.status}"
            if attempt < self.max_retries:
                wait = self._delay(attempt, answer.headers if answer is not None else None)
                if end is not None and time.monotonic() + wait >= end:
                    raise self._late(url, last_error)
                self._sleep(wait)
        status = int(last_error.split()[1]) if last_error.startswith("HTTP ") else None
        raise HttpError(url, f"gave up after {self.max_retries + 1} attempts, last: {last_error}", status)

    def _late(self, url: str, last_error: str | None = None) -> DeadlineExceeded:
        tail = f"; last: {last_error}" if last_error else ""
        return DeadlineExceeded(url, f"not done within the {format_seconds(self.deadline)} deadline "
                                     f"for one download{tail}")

    def _attempt(self, url: str, headers: Mapping[str, str], watch: DeadlineWatch) -> "_Answer":
        """One GET of ``url``, redirects followed by hand (http(s) only, no loop, at most
        ``max_redirects``); the body is read for a 200 only."""
        chain = [url]
        current = url
        while True:
            self.limiter.acquire()
            with self._count_lock:
                self.requests_sent += 1
            resp = self.session.get(current, headers=headers, timeout=self.timeout, stream=True,
                                    allow_redirects=False)
            try:
                location = resp.headers.get("Location")
                if resp.status_code in REDIRECT_STATUSES and location:
                    current = self._next_hop(url, chain, urljoin(current, location.strip()))
                    continue
                body = self._read_body(url, resp, watch) if resp.status_code == 200 else b""
                return _Answer(resp.status_code, resp.reason or "", current, body, resp.headers)
            finally:
                resp.close()

    def _next_hop(self, url: str, chain: list[str], target: str) -> str:
        scheme = urlsplit(target).scheme.lower()
        if scheme not in FOLLOWED_SCHEMES:
            shown = target if len(target) <= 80 else target[:77] + "..."
            raise RedirectRefused(url, f"redirect to a {scheme or 'schemeless'}: URL refused ({shown}): "
                                       "only http(s) is followed")
        if target in chain:
            raise RedirectRefused(url, "redirect loop: " + " -> ".join([*chain[chain.index(target):], target]))
        if len(chain) > self.max_redirects:
            raise RedirectRefused(url, f"more than {self.max_redirects} redirects (last: {target})")
        chain.append(target)
        return target

    def _read_body(self, url: str, resp: requests.Response, watch: DeadlineWatch) -> bytes:
        """The decoded body, refused as soon as it passes ``max_bytes`` (announced by
        Content-Length, or counted as it is inflated: never more than the limit plus one read
        is held)."""
        limit = self.max_bytes
        announced = resp.headers.get("Content-Length", "")
        if limit is not None and announced.strip().isdigit() and int(announced) > limit:
            raise BodyTooLarge(url, f"over the size limit of {format_size(limit)} "
                                    f"(announced {format_size(int(announced))})")
        parts, size = [], 0
        for part in resp.iter_content(_READ_SIZE):
            size += len(part)
            if limit is not None and size > limit:
                compressed = resp.headers.get("Content-Encoding", "").strip().lower() not in ("", "identity")
                how = "after decompression" if compressed else "received"
                raise BodyTooLarge(url, f"over the size limit of {format_size(limit)} "
                                        f"(more than that {how})")
            parts.append(part)
            if watch.expired:
                raise self._late(url)
        if watch.expired:
            raise self._late(url)
        return b"".join(parts)

    def get_json(self, url: str, *, use_cache: bool = True) -> Any:
        resp = self.get(url, validate=parse_json, use_cache=use_cache)
        return resp.json()
