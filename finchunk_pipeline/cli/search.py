"""``finchunk search``: top-k chunks of one chunk set for a query, with metadata filters.

Routing is on by default: the query analyzer infers which documents the query is about
(issuer, ticker, period, document type, from the documents' metadata), prints that route and
applies it before ranking; ``--no-route`` searches without it. With ``--json`` the route is
printed on stderr as one JSON object, and stdout stays the list of hits."""
from __future__ import annotations

import json
import sys


def add_store_args(p) -> None:
    """Where a stored chunk set is (corpus, data root, chunker file) and the query model: the
    options ``finchunk search`` and ``finchunk serve`` share."""
    p.add_argument("--corpus", help="corpus folder (default: the embedded data/corpus/default)")
    p.add_argument("--data", help="data root (default: data/store)")
    p.add_argument("--chunkers", help="chunker config file (default: data/chunkers.yaml)")
    p.add_argument("--model", help="embedding model path or name (default: the packaged all-MiniLM-L6-v2)")
    p.add_argument("-v", "--verbose", action="store_true", help="full tracebacks")


def register(sub) -> None:
    from ..index.registry import names

    p = sub.add_parser("search", help=f"search one chunk set ({', '.join(names())}) with optional filters")
    p.add_argument("query", help="the query text")
    p.add_argument("--chunk-set", required=True, help="chunk-set name from the chunker config (or a version name)")
    p.add_argument("-k", type=int, default=None,
                   help="number of hits (default 5; with --budget: no cap unless given)")
    p.add_argument("--budget", type=int, default=None,
                   help="characters of context: hits in rank order until the budget is filled, charged as the "
                        "evaluation charges them at that budget (a header once, evidence already delivered not "
                        "again, a parent bounded to a third of the budget), the last hit cut at the budget")
    p.add_argument("--retriever", default=None, choices=names(),
                   help="any registered retriever (index/registry.py); default: hybrid when the chunk set has a "
                        "dense index, else bm25. Retrievers reading an embedding index (dense, hybrid) load the "
                        "embedding model first (~12 s); bm25 answers in about a second")
    p.add_argument("--json", action="store_true", help="print one JSON list on stdout")
    p.add_argument("--doc-ids", help="comma-separated document ids to search within")
    p.add_argument("--issuer", help="issuer name (substring, case-insensitive) or ticker")
    p.add_argument("--doc-type", help="document type, e.g. annual_report")
    p.add_argument("--fiscal-year", type=int, help="fiscal year")
    p.add_argument("--as-of", help="only documents filed on or before this date (YYYY-MM-DD or ISO datetime)")
    p.add_argument("--units", action="store_true",
                   help="a chunk set declaring expand delivers each hit as its bounded parent (what the evaluation "
                        "scores); --units returns the matched chunks instead")
    p.add_argument("--no-route", action="store_true",
                   help="do not route: by default the documents the query names (issuer, ticker, period, "
                        "document type) are inferred, printed and searched first")
    add_store_args(p)
    p.set_defaults(func=run)


MODEL_LOAD_SECONDS = 12  # importing sentence-transformers and loading MiniLM on these machines


def choose_retriever(requested: str | None, index_dir) -> tuple[str, str]:
    """(retriever, why): the one asked for, else hybrid when the dense index exists, else bm25."""
    from ..index.registry import index_exists

    if requested:
        return requested, ""
    if index_exists("hybrid", index_dir):
        return "hybrid", " (BM25 + dense, fused by rank)"
    return "bm25", " (the default hybrid needs a dense index, and this chunk set has none: dense: false)"


def loads_model(name: str) -> bool:
    """Whether the retriever reads an index built with the embedding model (its queries are embedded)."""
    from ..index.registry import get, retrievers

    return any(retrievers()[n].index.embeds for n in get(name).indexes)


def run(args) -> int:

    from ..builders.search import open_searcher, resolve_chunk_set
    from ..index.search import Filters
    from ..settings import Settings
    from ..storage.workspace import Workspace

    settings = Settings().with_paths(args.corpus, args.data, args.chunkers)
    k = args.k if args.k is not None or args.budget is not None else 5
    if k is not None and k < 1:
        raise ValueError("-k must be at least 1")
    if args.budget is not None and args.budget < 1:
        raise ValueError("--budget must be at least 1 character")
    filters = Filters(
        doc_ids=[d.strip() for d in args.doc_ids.split(",") if d.strip()] if args.doc_ids else None,
        issuer=args.issuer, doc_type=args.doc_type, fiscal_year=args.fiscal_year, as_of=args.as_of,
    )
    ws = Workspace(settings)
    version = resolve_chunk_set(ws, args.chunk_set)
    retriever, why = choose_retriever(args.retriever, ws.index_dir(version))
    if not args.json:
        print(f"{retriever} search of chunk set {version}{why}", file=sys.stderr, flush=True)
        if loads_model(retriever):
            print(f"  loading the embedding model first (~{MODEL_LOAD_SECONDS} s; --retriever bm25 answers in "
                  "about a second) ...", file=sys.stderr, flush=True)
    searcher = open_searcher(version, retriever, ws, args.model, args.units)
    hits, route = searcher.search_with_route(args.query, k, filters, not args.no_route, args.budget)
    fusion = searcher.fusion(args.query)   # hybrid: dense's weight for this query
    if args.json:
        if route is not None:
            json.dump({"route": route.as_dict()}, sys.stderr, ensure_ascii=False)
            sys.stderr.write("\n")
        extra = {"dense_weight": fusion["dense_weight"]} if fusion is not None else {}
        json.dump([{**h.as_dict(), "retriever": retriever, **extra} for h in hits], sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    print(route.describe() if route is not None else "route: off (--no-route)")
    if not hits:
        why = (" (the filters exclude every document)" if filters.active() else
               "" if searcher.knows_any(args.query) else
               f" (no word of the query is in the index: {retriever} ranks by words; --retriever hybrid also by meaning)")
        print("no results" + why)
        return 0
    spent = f", {sum(h.extra['chars'] for h in hits):,} of {args.budget:,} characters" if args.budget else ""
    print(f"{len(hits)} hits{spent}, answered by {retriever}" + (
        f" (dense weight {fusion['dense_weight']:g}: the query names "
        f"{'a' if fusion['names_a_document'] else 'no'} document of the corpus)" if fusion is not None else ""))
    for h in hits:
        text = " ".join(h.display_text.split())
        cost = (f"  ({h.extra['chars']:,} chars{', cut at the budget' if h.extra['cut'] else ''})"
                if "chars" in h.extra else "")
        print(f"{h.rank:>2}. {h.score:8.4f}  {h.chunk_id}  [{h.section}]{cost}")
        if "matched" in h.extra:  # a bounded parent: say what matched in it
            matched = " ".join(h.extra["matched"]["text"].split())
            print(f"    parent of the match ({len(h.display_text):,} chars), matched: {matched[:120]}"
                  f"{'…' if len(matched) > 120 else ''}")
        print(f"    {text[:300]}{'…' if len(text) > 300 else ''}")
    return 0
