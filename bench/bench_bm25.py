"""Sparse BM25 (finchunk_pipeline.index.bm25) vs rank_bm25.BM25Okapi and bm25s on the same chunks and tokens.

Checks identical top-10 on every query (rank_bm25 scores ordered stably: ties by lower
index) and the max score difference, then prints build and per-query times and the ratios.
bm25s (when installed: ``pip install bm25s``; method "lucene", one thread, the queries as
token lists in one batch) is a speed baseline only: it does not give BM25Okapi's scores
(no epsilon floor for negative idf), so its rankings differ on common words. Query times
are the best of ``--repeat`` passes over all queries; "ours" is ``BM25Retriever.search_many``
(query tokenisation included) and, on the same token lists bm25s gets, ``scores_many`` +
``top_k``. Build times include the per-index query structures built on first use.

    /work/venv/bin/python bench/bench_bm25.py                # 20,000 synthetic chunks
    /work/venv/bin/python bench/bench_bm25.py --size 100000  # slower: rank_bm25 loops in Python
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from rank_bm25 import BM25Okapi

from finchunk_pipeline.index.bm25 import top_k
from finchunk_pipeline.index.bm25_retriever import BM25Retriever
from finchunk_pipeline.index.tokenize import tokenize


def synthetic_chunks(n: int, seed: int = 0, vocab: int = 30_000) -> list[str]:
    rng = np.random.default_rng(seed)
    words = np.array([f"term{i}" for i in range(vocab)])
    finance = np.array("revenue dividend ebitda margin debt cash flow segment guidance impairment goodwill "
                       "lease pension tax auditor covenant capex".split())
    out = []
    ranks = rng.zipf(1.3, size=(n, 70)) % vocab  # Zipf: a few very common words (negative idf)
    lengths = rng.integers(20, 70, n)
    for i in range(n):
        toks = list(words[ranks[i, :lengths[i]]]) + list(rng.choice(finance, 3))
        out.append(" ".join(toks) + f" {rng.integers(100, 99999):,}.{rng.integers(0, 9)} million")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=20_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3, help="query passes; the best is kept")
    ap.add_argument("--no-rank-bm25", action="store_true", help="skip rank_bm25 (slow at 100k: ~200 ms/query)")
    args = ap.parse_args()
    print(f"$ {' '.join(['python'] + sys.argv)}")
    result = run(args.size, args.queries, args.k, args.repeat, not args.no_rank_bm25)
    for line in result["lines"]:
        print(line)
    return 0 if result["ok"] else 1


def best(fn, repeat: int) -> tuple[float, object]:
    out, t_best = None, float("inf")
    for _ in range(max(1, repeat)):
        t = time.perf_counter()
        out = fn()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best, out


def run(size: int, n_queries: int = 100, k: int = 10, repeat: int = 3, with_rank_bm25: bool = True) -> dict:
    """The measurements as a dict (ms per query, ratios, parity) plus printable lines."""
    args = argparse.Namespace(size=size, queries=n_queries, k=k)
    texts = synthetic_chunks(args.size)
    rng = np.random.default_rng(1)
    queries = [" ".join(rng.choice(texts[int(rng.integers(len(texts)))].split(), 4)) + " revenue unknownword"
               for _ in range(args.queries)]
    tokens = [tokenize(t) for t in texts]
    qtokens = [tokenize(q) for q in queries]

    t = time.perf_counter()
    ours = BM25Retriever.build(texts)
    ours.index._postings()
    ours_build = time.perf_counter() - t
    ours_q, hits = best(lambda: ours.search_many(queries, args.k), repeat)
    ours_q /= len(queries)
    ours_tok_q, _ = best(lambda: [top_k(r, args.k) for r in ours.index.scores_many(qtokens)], repeat)
    ours_tok_q /= len(queries)
    lines = [f"{args.size:,} chunks, {len(queries)} queries, top-{args.k}, best of {repeat} passes",
             f"{'':38}{'build s':>10}{'ms/query':>12}",
             f"{'sparse BM25 (ours), search_many':38}{ours_build:>10.2f}{ours_q * 1000:>12.3f}",
             f"{'sparse BM25 (ours), token lists':38}{'':>10}{ours_tok_q * 1000:>12.3f}"]
    result = {"size": args.size, "queries": len(queries), "ours_ms": ours_q * 1000, "ours_tok_ms": ours_tok_q * 1000}
    same = len(queries)
    if with_rank_bm25:
        t = time.perf_counter(); ref = BM25Okapi(tokens); ref_build = time.perf_counter() - t
        t = time.perf_counter(); ref_scores = [ref.get_scores(q) for q in qtokens]
        ref_top = [top_k(s, args.k) for s in ref_scores]; ref_q = (time.perf_counter() - t) / len(queries)
        same = sum([r for r, _ in h] == list(rt) for h, rt in zip(hits, ref_top))
        diff = max(abs(s - rs[r]) for h, rs in zip(hits, ref_scores) for r, s in h)
        lines.append(f"{'rank_bm25.BM25Okapi':38}{ref_build:>10.2f}{ref_q * 1000:>12.3f}")
        result.update(rank_bm25_ms=ref_q * 1000, identical=same, max_diff=diff, speedup_vs_rank_bm25=ref_q / ours_q)
    try:
        import bm25s
    except ImportError:
        bm25s = None
        lines.append("bm25s is not installed (pip install bm25s): no bm25s baseline")
    if bm25s is not None:
        t = time.perf_counter()
        b = bm25s.BM25(method="lucene")
        b.index(tokens, show_progress=False)
        b_build = time.perf_counter() - t
        b_q, _ = best(lambda: b.retrieve(qtokens, k=args.k, n_threads=1, show_progress=False), repeat)
        b_q /= len(queries)
        lines.append(f"{'bm25s ' + bm25s.__version__ + ' (lucene, 1 thread)':38}{b_build:>10.2f}{b_q * 1000:>12.3f}")
        result.update(bm25s_ms=b_q * 1000, ours_vs_bm25s=ours_q / b_q, ours_tok_vs_bm25s=ours_tok_q / b_q)
    tail = []
    if with_rank_bm25:
        tail.append(f"speed-up vs rank_bm25 per query: {result['speedup_vs_rank_bm25']:.1f}x   identical top-{args.k}: "
                    f"{same}/{len(queries)}   max score diff: {result['max_diff']:.2e}")
    if bm25s is not None:
        tail.append(f"ours / bm25s time per query: {result['ours_vs_bm25s']:.2f}x (search_many), "
                    f"{result['ours_tok_vs_bm25s']:.2f}x (token lists; goal <= 1.5x)")
    result["lines"] = lines + tail
    result["ok"] = same == len(queries)
    return result


if __name__ == "__main__":
    sys.exit(main())
