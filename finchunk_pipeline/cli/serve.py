"""``finchunk serve``: one chunk set's search over HTTP on 127.0.0.1, the model kept warm.

  finchunk serve --chunk-set S [--retriever hybrid] [--port 8765] [--corpus DIR] [--data DIR]

  GET /search?q=...&k=5[&budget=N][&doc_ids=a,b][&issuer=..][&doc_type=..][&fiscal_year=..][&as_of=DATE]
      -> {"chunk_set": version, "retriever": name, "hits": [{rank, chunk_id, doc_id, spans,
          section, display_text, score}, ...]} (hybrid adds "fusion": {"dense_weight": w,
          "names_a_document": bool}, index/hybrid.py; budget=N: the hits that fill N
          characters of context, as ``finchunk search --budget``, each with "chars" and
          "cut", and "budget" and "chars" spent at the top)
  GET /health -> {"ok": true, "chunk_set": ..., "retriever": ...}

The retriever (and for dense / hybrid the embedding model) is loaded once at start, so a
RAG application pays ~12 s once instead of on every query. Only 127.0.0.1 is bound.
SIGINT / SIGTERM stop it.

Connections are served concurrently (a thread each, the standard library's
ThreadingHTTPServer), so one client that connects and sends nothing, or sends a byte at a
time, blocks nobody: a connection silent for ``timeout`` seconds (10) is closed, and one that
has not sent its whole request within ``request_deadline`` seconds (30) is cut. At most
``max_connections`` (64) are open at once; one more is answered 503 at once. Searches run
one at a time (the retriever and its model are not assumed to be thread-safe); a search that
fails answers 500 with the reason.
"""
from __future__ import annotations

import json
import signal
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

HOST = "127.0.0.1"
IDLE_TIMEOUT = 10.0        # seconds a connection may stay silent
REQUEST_DEADLINE = 30.0    # seconds to send a whole request (request line and headers)
MAX_CONNECTIONS = 64       # open at once; more are answered 503
MAX_BUDGET = 100_000       # characters of context one /search may ask for


def register(sub) -> None:
    from ..index.registry import names
    from .search import add_store_args

    p = sub.add_parser("serve", help="serve one chunk set's search over HTTP on 127.0.0.1 (model kept warm)")
    p.add_argument("--chunk-set", required=True, help="chunk-set name from the chunker config (or a version name)")
    p.add_argument("--retriever", default=None, choices=names(),
                   help="default: hybrid when the chunk set has a dense index, else bm25")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--units", action="store_true",
                   help="answer with the matched chunks, not the bounded parents a chunk set declaring expand delivers")
    add_store_args(p)
    p.set_defaults(func=run)


class SearchServer(ThreadingHTTPServer):
    """A thread per connection, at most ``max_connections`` open (one more is answered 503
    and closed at once)."""

    daemon_threads = True
    request_queue_size = 128   # the listen backlog: a burst waits to be accepted, not refused

    def __init__(self, address, handler, max_connections: int = MAX_CONNECTIONS):
        super().__init__(address, handler)
        self.max_connections = max_connections
        self.open_connections = 0
        self._count = threading.Lock()

    def process_request(self, request, client_address):
        with self._count:
            busy = self.open_connections >= self.max_connections
            if not busy:
                self.open_connections += 1
        if busy:
            _refuse_busy(request, self.max_connections)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._closed()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._closed()

    def _closed(self) -> None:
        with self._count:
            self.open_connections -= 1


def _refuse_busy(request: socket.socket, limit: int) -> None:
    body = json.dumps({"error": f"server busy: {limit} connections open, try again"}).encode()
    try:
        request.settimeout(1.0)
        request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                        b"Retry-After: 1\r\nConnection: close\r\n"
                        + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    except OSError:
        pass


class SearchHandler(BaseHTTPRequestHandler):
    """GET /search and /health. ``make_server`` sets the class attributes below on a subclass."""

    searcher = None
    search_lock: threading.Lock
    idle_timeout = IDLE_TIMEOUT
    request_deadline = REQUEST_DEADLINE

    def setup(self):
        self.timeout = self.idle_timeout   # the socket's timeout (StreamRequestHandler.setup)
        super().setup()
        self._request_read = False
        self._cut_timer = threading.Timer(self.request_deadline, self._cut_if_still_reading)
        self._cut_timer.daemon = True
        self._cut_timer.start()

    def finish(self):
        self._cut_timer.cancel()
        super().finish()

    def _cut_if_still_reading(self):
        if not self._request_read:  # a slow client: its request is not all there yet
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def parse_request(self):
        ok = super().parse_request()  # the request line was read before, the headers here
        self._request_read = True
        return ok

    def log_message(self, fmt, *args):  # one line per request on stderr
        sys.stderr.write(f"{self.address_string()} {fmt % args}\n")

    def _send(self, status: int, payload: dict) -> None:
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlparse(self.path)
        params = {k: v[-1] for k, v in parse_qs(url.query).items()}
        who = {"chunk_set": self.searcher.version, "retriever": self.searcher.retriever_name}
        if url.path == "/health":
            return self._send(200, {"ok": True, **who})
        if url.path != "/search":
            return self._send(404, {"error": f"no such endpoint {url.path!r}: use /search?q=... or /health"})
        try:
            query, k, filters, budget = _search_params(params)
            with self.search_lock:
                hits = self.searcher.search(query, k, filters, budget=budget)
                fusion = self.searcher.fusion(query)   # hybrid: how it weighed dense for this query
        except ValueError as exc:
            return self._send(400, {"error": str(exc), **who})
        except Exception as exc:  # the server stays up; the client learns why
            sys.stderr.write(f"search {params.get('q')!r} failed: {exc.__class__.__name__}: {exc}\n")
            return self._send(500, {"error": f"search failed: {exc.__class__.__name__}: {exc}", **who})
        spent = {"budget": budget, "chars": sum(h.extra["chars"] for h in hits)} if budget is not None else {}
        self._send(200, {**who, **({"fusion": fusion} if fusion is not None else {}), **spent,
                         "hits": [h.as_dict() for h in hits]})


def _search_params(params: dict[str, str]):
    """(query, k, Filters, budget) from /search's parameters; ValueError names a bad one."""
    from ..index.search import Filters

    query = params.get("q", "").strip()
    if not query:
        raise ValueError("parameter q (the query) is required")
    budget = _whole(params, "budget", 1, MAX_BUDGET) if params.get("budget") else None
    # with a budget the hits fill it (k caps them only when given)
    k = _whole(params, "k", 1, 100) if params.get("k") else (5 if budget is None else 100)
    fy = params.get("fiscal_year")
    doc_ids = [d.strip() for d in params["doc_ids"].split(",") if d.strip()] if params.get("doc_ids") else None
    return query, k, Filters(doc_ids=doc_ids, issuer=params.get("issuer"), doc_type=params.get("doc_type"),
                             fiscal_year=int(fy) if fy else None, as_of=params.get("as_of")), budget


def _whole(params: dict[str, str], name: str, low: int, high: int) -> int:
    try:
        value = int(params[name])
    except ValueError:
        raise ValueError(f"parameter {name} must be a whole number, got {params[name]!r}") from None
    if not low <= value <= high:
        raise ValueError(f"parameter {name} must be between {low:,} and {high:,}")
    return value


def make_server(searcher, port: int = 0, *, timeout: float = IDLE_TIMEOUT,
                request_deadline: float = REQUEST_DEADLINE,
                max_connections: int = MAX_CONNECTIONS) -> SearchServer:
    """An HTTP server on 127.0.0.1:``port`` (0: any free port) answering with ``searcher``:
    concurrent connections, each closed after ``timeout`` seconds of silence or when its
    request is not all there after ``request_deadline``; searches one at a time."""
    handler = type("Handler", (SearchHandler,), {
        "searcher": searcher, "search_lock": threading.Lock(), "idle_timeout": timeout,
        "request_deadline": request_deadline})
    return SearchServer((HOST, port), handler, max_connections)


def run(args) -> int:

    from ..builders.search import open_searcher, resolve_chunk_set
    from ..settings import Settings
    from ..storage.workspace import Workspace
    from .search import MODEL_LOAD_SECONDS, choose_retriever, loads_model

    settings = Settings().with_paths(args.corpus, args.data, args.chunkers)
    ws = Workspace(settings)
    version = resolve_chunk_set(ws, args.chunk_set)
    retriever, why = choose_retriever(args.retriever, ws.index_dir(version))
    print(f"{retriever} search of chunk set {version}{why}", file=sys.stderr, flush=True)
    if loads_model(retriever):
        print(f"  loading the embedding model (~{MODEL_LOAD_SECONDS} s, once) ...", file=sys.stderr, flush=True)
    searcher = open_searcher(version, retriever, ws, args.model, units=args.units)
    searcher.search("warm up", 1)  # the first query loads what is loaded lazily
    server = make_server(searcher, args.port)

    def stop(signum, frame):
        raise KeyboardInterrupt

    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    print(f"serving http://{HOST}:{server.server_address[1]}/search?q=... (Ctrl-C or kill to stop)",
          file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.server_close()
        for s, h in old.items():
            signal.signal(s, h)
    return 0
