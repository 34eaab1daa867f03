"""A client for OpenAI-compatible chat endpoints (``POST <base URL>/chat/completions``).

Used by the LLM enricher and the ``answers`` asset; works with hosted APIs (OpenAI, Azure's
OpenAI-compatible routes, Together, Groq, ...) and local servers (llama.cpp ``llama-server``,
vLLM, Ollama's ``/v1``, LM Studio). Only ``requests`` is needed, not the openai package.

Configuration comes from the environment, one prefix per use (``FINCHUNK_LLM`` for the
enricher, ``FINCHUNK_ANSWER`` for answers):

| variable | meaning | default |
|---|---|---|
| ``<P>_BASE_URL`` | the endpoint's base URL, e.g. ``http://127.0.0.1:8080/v1`` | none: not configured |
| ``<P>_MODEL`` | model name sent with each request | none (the enricher may declare it) |
| ``<P>_API_KEY`` | sent as ``Authorization: Bearer …``; local servers need none | none |
| ``<P>_CONCURRENCY`` | requests in flight at once | 4 |
| ``<P>_RPS`` | at most this many requests per second (all threads) | 2 |
| ``<P>_TIMEOUT`` | seconds to wait for one answer (read timeout; connect: 10 s) | 60 |
| ``<P>_MAX_RETRIES`` | retries of one request (429, 5xx, timeouts, connection errors) | 4 |
| ``<P>_BACKOFF`` / ``<P>_MAX_BACKOFF`` | first backoff and the longest wait (seconds; caps Retry-After too) | 1 / 60 |
| ``<P>_PRICE_INPUT`` / ``<P>_PRICE_OUTPUT`` | USD per million prompt / completion tokens, for the cost | none: cost not computed |

Retries back off exponentially (1 s, 2 s, 4 s … at most 60 s, with jitter) and honour a
``Retry-After`` header (seconds or an HTTP date). 400/401/403/404/422 are not retried: they
mean a misconfiguration, and the error says which (key, URL, model) with the server's
message. Token counts come from each answer's ``usage``.
"""
from __future__ import annotations

import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence
from urllib.parse import urlparse

import requests

from ..settings import Settings
from ..fetch.http import RateLimiter, retry_after_seconds

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
CONNECT_TIMEOUT = 10.0


class LLMConfigError(ValueError):
    """The endpoint is not configured, or configured wrongly (names the variable)."""


class LLMRequestError(RuntimeError):
    """A request failed for good: a non-retryable status, or retries exhausted."""

    def __init__(self, url: str, message: str, status: int | None = None, fatal: bool = False):
        self.url, self.status, self.fatal = url, status, fatal
        super().__init__(f"{message} ({url})")


def _env_number(env: Mapping[str, str], name: str, default: float, kind=float, minimum: float = 0.0):
    raw = env.get(name)
    if raw is None or not str(raw).strip():
        return default
    try:
        value = kind(str(raw).strip())
    except ValueError:
        raise LLMConfigError(f"{name}={raw!r} is not a number") from None
    if value < minimum:
        raise LLMConfigError(f"{name}={raw!r} must be at least {minimum}")
    return value


@dataclass(frozen=True)
class LLMSettings:
    base_url: str
    model: str
    api_key: str = ""
    concurrency: int = 4
    rps: float = 2.0
    timeout: float = 60.0
    max_retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 60.0
    price_input: float | None = None   # USD per 1M prompt tokens
    price_output: float | None = None  # USD per 1M completion tokens
    prefix: str = "FINCHUNK_LLM"

    @property
    def url(self) -> str:
        base = self.base_url.rstrip("/")
        return base if base.endswith("/chat/completions") else f"{base}/chat/completions"

    @staticmethod
    def configured(prefix: str, env: Mapping[str, str] | None = None) -> bool:
        """Whether ``<prefix>_BASE_URL`` is set in ``env`` (default: the process's Settings().llm_env)."""
        env = Settings().llm_env if env is None else env
        return bool(str(env.get(f"{prefix}_BASE_URL", "")).strip())

    @classmethod
    def from_env(cls, prefix: str = "FINCHUNK_LLM", model: str = "", what: str = "the LLM enricher",
                 env: Mapping[str, str] | None = None) -> "LLMSettings":
        """Settings from ``<prefix>_*`` variables; ``model`` (declared elsewhere) wins over
        ``<prefix>_MODEL``. Raises LLMConfigError naming what is missing or wrong."""
        env = Settings().llm_env if env is None else env
        base = str(env.get(f"{prefix}_BASE_URL", "")).strip()
        if not base:
            raise LLMConfigError(
                f"{what} needs an OpenAI-compatible chat endpoint: set {prefix}_BASE_URL, e.g. "
                f"http://127.0.0.1:8080/v1 (a local llama.cpp / vLLM / Ollama server) or "
                f"https://api.openai.com/v1, and {prefix}_API_KEY if the server wants a key")
        parsed = urlparse(base)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise LLMConfigError(f"{prefix}_BASE_URL={base!r} is not an http(s) URL such as http://127.0.0.1:8080/v1")
        model = (model or str(env.get(f"{prefix}_MODEL", ""))).strip()
        if not model:
            raise LLMConfigError(f"{what} needs a model name: set {prefix}_MODEL"
                                 + (" or enrich.model in the chunker config" if prefix == "FINCHUNK_LLM" else ""))
        prices = {}
        for key, var in (("price_input", "PRICE_INPUT"), ("price_output", "PRICE_OUTPUT")):
            raw = env.get(f"{prefix}_{var}")
            prices[key] = _env_number(env, f"{prefix}_{var}", 0.0) if raw not in (None, "") else None
        return cls(
            base_url=base, model=model, api_key=str(env.get(f"{prefix}_API_KEY", "")).strip(),
            concurrency=int(_env_number(env, f"{prefix}_CONCURRENCY", 4, int, 1)),
            rps=_env_number(env, f"{prefix}_RPS", 2.0, float, 0.001),
            timeout=_env_number(env, f"{prefix}_TIMEOUT", 60.0, float, 0.001),
            max_retries=int(_env_number(env, f"{prefix}_MAX_RETRIES", 4, int, 0)),
            backoff=_env_number(env, f"{prefix}_BACKOFF", 1.0, float, 0.0),
            max_backoff=_env_number(env, f"{prefix}_MAX_BACKOFF", 60.0, float, 0.0),
            prefix=prefix, **prices)


@dataclass
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class Usage:
    """What the client did, for the assets' metadata."""
    requests: int = 0          # HTTP requests sent (retries included)
    completions: int = 0       # successful answers
    retries: int = 0
    rate_limited: int = 0      # 429 answers
    timeouts: int = 0
    server_errors: int = 0     # 5xx answers and connection errors
    failed: int = 0            # jobs that failed for good
    prompt_tokens: int = 0
    completion_tokens: int = 0
    waited_seconds: float = 0.0  # backoff / Retry-After sleeps

    def cost(self, settings: LLMSettings) -> float | None:
        if settings.price_input is None and settings.price_output is None:
            return None
        return round(self.prompt_tokens * (settings.price_input or 0) / 1e6
                     + self.completion_tokens * (settings.price_output or 0) / 1e6, 6)

    def as_dict(self, settings: LLMSettings | None = None) -> dict:
        out = {k: getattr(self, k) for k in ("requests", "completions", "retries", "rate_limited", "timeouts",
                                             "server_errors", "failed", "prompt_tokens", "completion_tokens")}
        out["waited_seconds"] = round(self.waited_seconds, 3)
        if settings is not None:
            out["model"] = settings.model
            out["cost_usd"] = self.cost(settings)
        return out


def _server_message(resp: requests.Response) -> str:
    try:
        body = resp.json()
        err = body.get("error") if isinstance(body, dict) else None
        msg = err.get("message") if isinstance(err, dict) else err if isinstance(err, str) else None
        if msg:
            return str(msg)[:300]
    except ValueError:
        pass
    return (resp.text or "").strip()[:300]


class ChatClient:
    def __init__(self, settings: LLMSettings, sleep: Callable[[float], None] = time.sleep,
                 session_factory: Callable[[], requests.Session] = requests.Session):
        self.settings = settings
        self.limiter = RateLimiter(settings.rps)
        self.usage = Usage()
        self._sleep = sleep
        self._session_factory = session_factory
        self._local = threading.local()
        self._lock = threading.Lock()
        self._stop: LLMRequestError | None = None  # a fatal error: no further requests

    @property
    def session(self) -> requests.Session:
        s = getattr(self._local, "session", None)
        if s is None:
            s = self._local.session = self._session_factory()
            s.headers.update({"Content-Type": "application/json"})
            if self.settings.api_key:
                s.headers["Authorization"] = f"Bearer {self.settings.api_key}"
        return s

    def _count(self, **kw) -> None:
        with self._lock:
            for k, v in kw.items():
                setattr(self.usage, k, getattr(self.usage, k) + v)

    def _delay(self, attempt: int, resp: requests.Response | None) -> float:
        ra = retry_after_seconds(resp.headers.get("Retry-After")) if resp is not None else None
        if ra is not None:
            return min(ra, self.settings.max_backoff)
        base = self.settings.backoff * (2 ** attempt)
        return min(self.settings.max_backoff, base * (1 + 0.1 * random.random()))

    def _fatal(self, resp: requests.Response) -> LLMRequestError:
        s, url, msg = resp.status_code, self.settings.url, _server_message(resp)
        hint = {401: f"the server refused the API key: check {self.settings.prefix}_API_KEY",
                403: f"the server refused the API key: check {self.settings.prefix}_API_KEY",
                404: f"no chat completions endpoint or no model {self.settings.model!r} there: check "
                     f"{self.settings.prefix}_BASE_URL (it usually ends in /v1) and the model name"}.get(
            s, f"the server rejected the request for model {self.settings.model!r}")
        return LLMRequestError(url, f"HTTP {s}: {hint}" + (f"; server says: {msg}" if msg else ""), s, fatal=True)

    def complete(self, messages: Sequence[dict], max_tokens: int = 256, temperature: float = 0.0) -> Completion:
        """One chat completion, with rate limiting and retries."""
        url = self.settings.url
        payload = {"model": self.settings.model, "messages": list(messages), "max_tokens": int(max_tokens),
                   "temperature": float(temperature)}
        last = "no attempt made"
        for attempt in range(self.settings.max_retries + 1):
            if self._stop is not None:
                raise self._stop
            self.limiter.acquire()
            self._count(requests=1)
            resp = None
            try:
                resp = self.session.post(url, data=json.dumps(payload),
                                         timeout=(min(CONNECT_TIMEOUT, self.settings.timeout), self.settings.timeout))
                body = resp.content
            except requests.Timeout as exc:
                self._count(timeouts=1)
                last = f"timed out after {self.settings.timeout:g} s ({exc.__class__.__name__})"
                resp = None
            except requests.ConnectionError as exc:
                self._count(server_errors=1)
                last = f"connection failed: {exc.__class__.__name__}: {str(exc)[:200]}"
                resp = None
            else:
                if resp.status_code == 200:
                    return self._parse(body, url)
                if resp.status_code not in RETRY_STATUSES:
                    err = self._fatal(resp)
                    if resp.status_code in (401, 403, 404):
                        self._stop = err  # every other request would fail the same way
                    raise err
                if resp.status_code == 429:
                    self._count(rate_limited=1)
                else:
                    self._count(server_errors=1)
                last = f"HTTP {resp.status_code}" + (f": {_server_message(resp)}" if resp.status_code != 429 else "")
            if attempt < self.settings.max_retries:
                wait = self._delay(attempt, resp)
                self._count(retries=1, waited_seconds=wait)
                self._sleep(wait)
        status = int(last.split()[1].rstrip(":")) if last.startswith("HTTP ") else None
        raise LLMRequestError(url, f"gave up after {self.settings.max_retries + 1} attempts, last: {last}", status)

    def _parse(self, body: bytes, url: str) -> Completion:
        try:
            data = json.loads(body.decode("utf-8"))
            text = data["choices"][0]["message"]["content"]
        except (UnicodeDecodeError, ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMRequestError(url, f"not an OpenAI-compatible chat completion ({exc.__class__.__name__}: "
                                       f"{body[:120]!r})") from None
        usage = data.get("usage") or {}
        c = Completion(str(text or "").strip(), int(usage.get("prompt_tokens") or 0),
                       int(usage.get("completion_tokens") or 0))
        self._count(completions=1, prompt_tokens=c.prompt_tokens, completion_tokens=c.completion_tokens)
        return c

    def complete_many(self, jobs: Sequence[tuple[str, Sequence[dict]]], max_tokens: int = 256,
                      temperature: float = 0.0) -> tuple[dict[str, Completion], dict[str, str]]:
        """Run ``jobs`` ((key, messages), ...) with at most ``concurrency`` in flight.
        Returns (completions by key, errors by key): one failing job never loses the others'
        results. After a fatal error (bad key, wrong URL) the remaining jobs are not sent."""
        done: dict[str, Completion] = {}
        failed: dict[str, str] = {}

        def one(job):
            key, messages = job
            try:
                return key, self.complete(messages, max_tokens, temperature), None
            except LLMRequestError as exc:
                self._count(failed=1)
                return key, None, str(exc)

        workers = max(1, min(self.settings.concurrency, len(jobs)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm") as pool:
            for key, completion, error in pool.map(one, jobs):
                if completion is not None:
                    done[key] = completion
                else:
                    failed[key] = error
        return done, failed

    @property
    def fatal_error(self) -> LLMRequestError | None:
        return self._stop
