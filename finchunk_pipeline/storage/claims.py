"""Claims: one build of one artefact version at a time, on one data root.

Several runs may work on one data root at once (``finchunk run --jobs N``, two ``finchunk
run`` started by hand, a Dagster backfill whose runs overlap). Every build step (parse,
chunk set, index, evaluation, facts store) holds the claim on what it builds while it
checks whether that version exists and, if not, builds and publishes it. A second run
asking for the same version waits for the claim, then finds the version published and
reuses it: built once, evaluation history appended once.

- Local data root (one machine, or a shared POSIX volume): an advisory ``flock`` on
  ``<data root>/.claims/<key>.lock``. The kernel releases it when the holder's process
  ends, however it ends, so a crashed build never leaves a stale claim behind; the next
  claimant simply gets the lock. The lock files stay (empty); ``<key>.holder.json`` beside
  them says who holds or last held the claim, for the waiting message.
- Remote data root (``FINCHUNK_DATA_URL``; each machine has its own working copy, so a
  local lock protects only that copy): in addition, a lease in the object store under
  ``<url>/.claims/<key>/``. Each claim is a new generation object ``<n>.json`` created with
  an exclusive create (S3 ``If-None-Match: *``); only one claimant can create generation
  n+1. The holder renews its lease (``expires``) in the background and marks it released at
  the end. A generation that is released, or whose lease expired (the holder died), lets the
  next claimant create the next generation: stale claims recover after ``ttl`` seconds.
  Leases compare wall clocks of different machines: keep clock skew well under ``ttl``.
  An fsspec implementation without exclusive create is detected (probe) and then only the
  local lock is used, with a warning.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import socket
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from .files import write_json

DEFAULT_WAIT = 6 * 3600.0  # a chunk set of a large corpus may take an hour; don't give up early
DEFAULT_TTL = 120.0         # remote lease; renewed every ttl / 4
_KEY = re.compile(r"[^A-Za-z0-9._=-]+")


class ClaimTimeout(TimeoutError):
    pass


def claim_file_name(key: str) -> str:
    """A claim key ("chunks/<corpus>/<version>") as one safe file name."""
    name = _KEY.sub("_", key.replace("/", "__")).strip("._")
    if not name:
        raise ValueError(f"empty claim key {key!r}")
    return name[:200]


def _owner() -> dict:
    return {"host": socket.gethostname(), "pid": os.getpid(), "token": uuid.uuid4().hex,
            "since": time.time()}


@contextmanager
def local_lock(folder: Path, key: str, wait: float = DEFAULT_WAIT, poll: float = 0.1,
               log: Callable[[str], None] | None = None) -> Iterator[dict]:
    """Hold ``flock`` on ``folder/<key>.lock``; waits up to ``wait`` seconds."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    name = claim_file_name(key)
    lock_path = folder / f"{name}.lock"
    holder_path = folder / f"{name}.holder.json"
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        t0 = time.monotonic()
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not told and log is not None:
                    log(f"waiting for the claim on {key} (held by {_read_holder(holder_path)})")
                    told = True
                if time.monotonic() - t0 > wait:
                    raise ClaimTimeout(f"claim on {key} ({lock_path}) still held by "
                                       f"{_read_holder(holder_path)} after {wait:.0f} s")
                time.sleep(poll)
        me = _owner()
        write_json(holder_path, {**me, "key": key, "state": "held"})
        try:
            yield me
        finally:
            try:
                write_json(holder_path, {**me, "key": key, "state": "released", "released": time.time()})
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _read_holder(path: Path) -> str:
    try:
        h = json.loads(path.read_text(encoding="utf-8"))
        return f"pid {h.get('pid')} on {h.get('host')} since {time.ctime(h.get('since', 0))}"
    except (OSError, ValueError):
        return "another process"


# --- remote leases ---------------------------------------------------------------------------

_EXCLUSIVE_CREATE: dict[str, bool] = {}


def supports_exclusive_create(fs, root: str) -> bool:
    """Whether ``fs.pipe_file(mode="create")`` refuses to overwrite (probed once per root)."""
    cache_key = f"{type(fs).__name__}:{root}"
    if cache_key not in _EXCLUSIVE_CREATE:
        probe = f"{root}/.claims/.probe-{uuid.uuid4().hex}"
        ok = False
        try:
            fs.pipe_file(probe, b"1", mode="create")
            try:
                fs.pipe_file(probe, b"2", mode="create")
            except FileExistsError:
                ok = True
        except TypeError:  # an implementation without the ``mode`` argument
            ok = False
        finally:
            try:
                fs.rm_file(probe)
            except (FileNotFoundError, OSError):
                pass
        _EXCLUSIVE_CREATE[cache_key] = ok
    return _EXCLUSIVE_CREATE[cache_key]


class RemoteLease:
    """A generation-numbered lease under ``<root>/.claims/<key>/`` (see the module docstring)."""

    def __init__(self, fs, root: str, key: str, url: str, ttl: float = DEFAULT_TTL):
        self.fs, self.url, self.key, self.ttl = fs, url, key, ttl
        self.prefix = f"{root}/.claims/{claim_file_name(key)}"
        self.path: str | None = None
        self.me = _owner()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _generations(self) -> list[int]:
        try:
            names = self.fs.ls(self.prefix, detail=False, refresh=True)
        except FileNotFoundError:
            return []
        gens = []
        for n in names:
            stem = n.rstrip("/").rsplit("/", 1)[-1].removesuffix(".json")
            if stem.isdigit():
                gens.append(int(stem))
        return sorted(gens)

    def _read(self, gen: int) -> dict | None:
        try:
            return json.loads(self.fs.cat_file(f"{self.prefix}/{gen:012d}.json"))
        except FileNotFoundError:
            return None
        except ValueError:  # unreadable: treat as expired
            return {"state": "held", "expires": 0}

    def _body(self, state: str) -> bytes:
        return json.dumps({**self.me, "key": self.key, "state": state,
                           "expires": time.time() + self.ttl}).encode()

    def acquire(self, wait: float, poll: float, log: Callable[[str], None] | None) -> None:
        t0 = time.monotonic()
        told = False
        while True:
            gens = self._generations()
            last = gens[-1] if gens else 0
            current = self._read(last) if last else None
            free = current is None or current.get("state") != "held" or current.get("expires", 0) < time.time()
            if free:
                if current is not None and current.get("state") == "held" and log is not None:
                    log(f"remote claim on {self.key} expired (holder pid {current.get('pid')} on "
                        f"{current.get('host')}): taking it over")
                path = f"{self.prefix}/{last + 1:012d}.json"
                try:
                    self.fs.pipe_file(path, self._body("held"), mode="create")
                    self.path = path
                    break
                except FileExistsError:
                    continue  # another claimant created it first: look again
            if not told and log is not None:
                log(f"waiting for the remote claim on {self.key} in {self.url} (held by pid "
                    f"{current.get('pid')} on {current.get('host')})")
                told = True
            if time.monotonic() - t0 > wait:
                raise ClaimTimeout(f"remote claim on {self.key} in {self.url} still held by pid "
                                   f"{current.get('pid')} on {current.get('host')} after {wait:.0f} s")
            time.sleep(poll)
        for old in gens[:-1]:  # keep the last released generation and ours
            try:
                self.fs.rm_file(f"{self.prefix}/{old:012d}.json")
            except (FileNotFoundError, OSError):
                pass
        self._thread = threading.Thread(target=self._renew, name=f"lease-{self.key}", daemon=True)
        self._thread.start()

    def _renew(self) -> None:
        while not self._stop.wait(self.ttl / 4):
            try:
                self.fs.pipe_file(self.path, self._body("held"))
            except Exception:  # noqa: BLE001 - a missed renewal is retried; expiry is the fallback
                pass

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.path is not None:
            self.fs.pipe_file(self.path, self._body("released"))


@contextmanager
def claim(key: str, local_root: Path, mirror=None, *, wait: float = DEFAULT_WAIT, poll: float = 0.2,
          ttl: float = DEFAULT_TTL, log: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the claim on ``key``: the local lock under ``<local_root>/.claims`` and, with a
    remote data root (``mirror``, a RemoteMirror), the remote lease too."""
    with local_lock(Path(local_root) / ".claims", key, wait=wait, poll=min(poll, 0.1), log=log):
        if mirror is None:
            yield
            return
        if not supports_exclusive_create(mirror.fs, mirror.root):
            if log is not None:
                log(f"{mirror.url}: this filesystem has no exclusive create; the claim on {key} "
                    "covers this machine only")
            yield
            return
        lease = RemoteLease(mirror.fs, mirror.root, key, mirror.url, ttl=ttl)
        lease.acquire(wait, poll, log)
        try:
            yield
        finally:
            lease.release()
