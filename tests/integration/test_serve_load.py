"""`finchunk serve` under load on 127.0.0.1: idle clients (connect, send nothing), slow clients
(a byte at a time) and a burst of real queries at once. Every query is answered; idle and
slow connections are closed by the server, not left to block it. Bounded: every client
stops by itself, and the only time limits are generous "answered at all" timeouts."""
from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from finchunk_pipeline.cli.serve import make_server

ANSWER_WITHIN = 30.0    # seconds: generous, "answered at all"


@dataclass
class _Hit:
    rank: int
    chunk_id: str

    def as_dict(self) -> dict:
        return {"rank": self.rank, "chunk_id": self.chunk_id}


class StubSearcher:
    """Answers after a little work; records whether two searches ever ran at once (the
    retriever and its model are not assumed to be thread-safe)."""

    version, retriever_name = "cs-test", "bm25"

    def __init__(self):
        self.running, self.overlapped, self.calls = 0, False, 0
        self._lock = threading.Lock()

    def fusion(self, query):
        return None   # as Searcher.fusion for a retriever that fuses nothing (bm25)

    def search(self, query, k, filters=None, budget=None):
        with self._lock:
            self.running += 1
            self.overlapped |= self.running > 1
            self.calls += 1
        time.sleep(0.005)
        with self._lock:
            self.running -= 1
        if query == "boom":
            raise RuntimeError("index file unreadable")
        return [_Hit(i + 1, f"{query}#c{i}") for i in range(k)]


@pytest.fixture
def serve():
    started = []

    def start(**kw):
        searcher = StubSearcher()
        server = make_server(searcher, 0, **kw)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        started.append(server)
        return server, searcher, f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


def _get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=ANSWER_WITHIN) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _idle(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=ANSWER_WITHIN)
    return s


def _closed_by_server(s: socket.socket) -> bool:
    """Whether the server closed ``s`` (within ANSWER_WITHIN); reads and drops what it sent."""
    try:
        while True:
            data = s.recv(4096)
            if not data:
                return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def _slow_client(port: int, stop: threading.Event, log: list) -> None:
    """Sends a request a byte every 0.1 s, never finishing its headers; stops when the server
    closes the connection (or when the test ends)."""
    request = b"GET /health HTTP/1.1\r\nHost: x\r\n" + b"X-Pad: " + b"a" * 10000
    with socket.create_connection(("127.0.0.1", port), timeout=ANSWER_WITHIN) as s:
        for i in range(len(request)):
            if stop.is_set():
                log.append("stopped by the test")
                return
            try:
                s.sendall(request[i:i + 1])
            except OSError:
                log.append("closed by the server")
                return
            time.sleep(0.1)
        log.append("never closed")


def test_one_idle_client_does_not_stop_the_server(serve):
    server, _, base = serve()
    idle = _idle(server.server_address[1])
    try:
        assert _get(base + "/health")[0] == 200
    finally:
        idle.close()


def test_load_with_idle_and_slow_clients_mixed_in(serve):
    server, searcher, base = serve(timeout=1.0, request_deadline=2.0)
    port = server.server_address[1]
    stop, slow_log = threading.Event(), []
    idle = [_idle(port) for _ in range(10)]
    slow = [threading.Thread(target=_slow_client, args=(port, stop, slow_log), daemon=True) for _ in range(5)]
    for t in slow:
        t.start()
    try:
        paths = [f"/search?q=q{i}&k={1 + i % 5}" if i % 3 else "/health" for i in range(200)]
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda p: _get(base + p), paths))
        for path, (status, body) in zip(paths, answers):
            assert status == 200, (path, body)
            if path.startswith("/search"):
                q = path.split("q=")[1].split("&")[0]
                assert body["chunk_set"] == "cs-test" and body["hits"][0]["chunk_id"] == f"{q}#c0"
        assert searcher.calls == sum(p.startswith("/search") for p in paths)
        assert not searcher.overlapped             # the searcher is used one query at a time
        # idle connections are closed by the server (socket timeout), slow ones by its
        # deadline for a request's headers
        assert all(_closed_by_server(s) for s in idle)
        for t in slow:
            t.join(ANSWER_WITHIN)
        assert slow_log == ["closed by the server"] * 5
        assert _get(base + "/health")[0] == 200
    finally:
        stop.set()
        for s in idle:
            s.close()


def test_too_many_connections_are_told_so_and_a_failing_search_answers_500(serve):
    server, _, base = serve(timeout=30.0, max_connections=3)
    port = server.server_address[1]
    idle = [_idle(port) for _ in range(3)]
    try:
        end = time.monotonic() + ANSWER_WITHIN
        while server.open_connections < 3 and time.monotonic() < end:
            time.sleep(0.01)
        status, body = _get(base + "/health")
        assert status == 503 and "busy" in body["error"]
    finally:
        for s in idle:
            s.close()
    end = time.monotonic() + ANSWER_WITHIN
    while server.open_connections and time.monotonic() < end:
        time.sleep(0.01)
    assert _get(base + "/health")[0] == 200
    status, body = _get(base + "/search?q=boom")
    assert status == 500 and "index file unreadable" in body["error"]
