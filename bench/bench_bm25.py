"""Sparse BM25 (finchunk_pipeline.index.bm25) vs rank_bm25.BM25Okapi on the same chunks and tokens.

Checks identical top-10 on every query (rank_bm25 scores ordered stably: ties by lower
index) and the max score difference, then prints build and per-query times and the ratio.

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
from finchunk_pipeline.index.retriever import BM25Retriever
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
    args = ap.parse_args()
    texts = synthetic_chunks(args.size)
    rng = np.random.default_rng(1)
    queries = [" ".join(rng.choice(texts[int(rng.integers(len(texts)))].split(), 4)) + " revenue unknownword"
               for _ in range(args.queries)]
    tokens = [tokenize(t) for t in texts]
    qtokens = [tokenize(q) for q in queries]

    t = time.perf_counter(); ours = BM25Retriever.build(texts); ours_build = time.perf_counter() - t
    t = time.perf_counter(); ref = BM25Okapi(tokens); ref_build = time.perf_counter() - t

    t = time.perf_counter(); hits = ours.search_many(queries, args.k); ours_q = (time.perf_counter() - t) / len(queries)
    t = time.perf_counter(); ref_scores = [ref.get_scores(q) for q in qtokens]
    ref_top = [top_k(s, args.k) for s in ref_scores]; ref_q = (time.perf_counter() - t) / len(queries)

    same = sum([r for r, _ in h] == list(rt) for h, rt in zip(hits, ref_top))
    diff = max(abs(s - rs[r]) for h, rs in zip(hits, ref_scores) for r, s in h)
    print(f"$ {' '.join(['python'] + sys.argv)}")
    print(f"{args.size:,} chunks, {len(queries)} queries, top-{args.k}")
    print(f"{'':22}{'build s':>10}{'ms/query':>12}")
    print(f"{'sparse BM25 (ours)':22}{ours_build:>10.2f}{ours_q * 1000:>12.2f}")
    print(f"{'rank_bm25.BM25Okapi':22}{ref_build:>10.2f}{ref_q * 1000:>12.2f}")
    print(f"speed-up per query: {ref_q / ours_q:.1f}x   identical top-{args.k}: {same}/{len(queries)}   "
          f"max score diff: {diff:.2e}")
    return 0 if same == len(queries) else 1


if __name__ == "__main__":
    sys.exit(main())
