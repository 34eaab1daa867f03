"""``finchunk serve``: one chunk set's search over HTTP on 127.0.0.1, the model kept warm.

  finchunk serve --chunk-set S [--retriever hybrid] [--port 8765] [--corpus DIR] [--data DIR]

  GET /search?q=...&k=5[&doc_ids=a,b][&issuer=..][&doc_type=..][&fiscal_year=..][&as_of=DATE]
      -> {"chunk_set": version, "retriever": name, "hits": [{rank, chunk_id, doc_id, spans,
          section, display_text, score}, ...]}
  GET /health -> {"ok": true, "chunk_set": ..., "retriever": ...}

The retriever (and for dense / hybrid the embedding model) is loaded once at start, so a
RAG application pays ~12 s once instead of on every query. Only 127.0.0.1 is bound. One
request at a time. SIGINT / SIGTERM stop it.
"""
from __future__ import annotations

import json
import signal
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlparse

HOST = "127.0.0.1"


def register(sub) -> None:
    from ..index.registry import names
    from .search import add_store_args

    p = sub.add_parser("serve", help="serve one chunk set's search over HTTP on 127.0.0.1 (model kept warm)")
    p.add_argument("--chunk-set", required=True, help="chunk-set name from the chunker config (or a version name)")
    p.add_argument("--retriever", default=None, choices=names(),
                   help="default: hybrid when the chunk set has a dense index, else bm25")
    p.add_argument("--port", type=int, default=8765)
    add_store_args(p)
    p.set_defaults(func=run)


def make_server(searcher, port: int = 0) -> HTTPServer:
    """An HTTP server on 127.0.0.1:``port`` (0: any free port) answering with ``searcher``."""
    from ..index.search import Filters

    class Handler(BaseHTTPRequestHandler):
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
            who = {"chunk_set": searcher.version, "retriever": searcher.retriever_name}
            if url.path == "/health":
                return self._send(200, {"ok": True, **who})
            if url.path != "/search":
                return self._send(404, {"error": f"no such endpoint {url.path!r}: use /search?q=... or /health"})
            try:
                query = params.get("q", "").strip()
                if not query:
                    raise ValueError("parameter q (the query) is required")
                k = int(params.get("k", 5))
                if not 1 <= k <= 100:
                    raise ValueError("parameter k must be between 1 and 100")
                fy = params.get("fiscal_year")
                filters = Filters(
                    doc_ids=[d.strip() for d in params["doc_ids"].split(",") if d.strip()] if params.get("doc_ids")
                    else None,
                    issuer=params.get("issuer"), doc_type=params.get("doc_type"),
                    fiscal_year=int(fy) if fy else None, as_of=params.get("as_of"))
                hits = searcher.search(query, k, filters)
            except ValueError as exc:
                return self._send(400, {"error": str(exc), **who})
            self._send(200, {**who, "hits": [h.as_dict() for h in hits]})

    return HTTPServer((HOST, port), Handler)


def run(args) -> int:

    from ..index.search import Searcher, resolve_chunk_set
    from ..settings import Settings
    from ..workspace import Workspace
    from .search import MODEL_LOAD_SECONDS, choose_retriever, loads_model

    settings = Settings().with_paths(args.corpus, args.data, args.chunkers)
    ws = Workspace(settings)
    version = resolve_chunk_set(ws, args.chunk_set)
    retriever, why = choose_retriever(args.retriever, ws.index_dir(version))
    print(f"{retriever} search of chunk set {version}{why}", file=sys.stderr, flush=True)
    if loads_model(retriever):
        print(f"  loading the embedding model (~{MODEL_LOAD_SECONDS} s, once) ...", file=sys.stderr, flush=True)
    searcher = Searcher(version, retriever, ws, args.model)
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
