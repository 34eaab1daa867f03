"""FAISS search latency per query: flat (IndexFlatIP, exact) vs HNSW on random normalised vectors.

Per size: build time, ms/query in a batch of queries and one query at a time, ms/query with a
50% row mask (filters), and HNSW recall@10 against flat. Uniform random vectors in 384
dimensions have no neighbourhood structure, the worst case for HNSW: its recall here is a
floor, not what real embeddings get.

    /work/venv/bin/python bench/bench_dense.py                       # 10,000 and 100,000 x 384
    /work/venv/bin/python bench/bench_dense.py --sizes 10000 --dim 384
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from finchunk_pipeline.index.dense import DenseIndex


def unit(rng, n, d):
    v = rng.standard_normal((n, d), dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def per_query(fn, n) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) / n * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("-k", type=int, default=10)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        vecs, qs = unit(rng, n, args.dim), unit(rng, args.queries, args.dim)
        mask = rng.random(n) < 0.5
        exact = None
        for kind in ("flat", "hnsw"):
            t = time.perf_counter(); idx = DenseIndex.build(vecs, kind=kind); build = time.perf_counter() - t
            idx.search_many(qs[:5], args.k)  # warm-up (thread pool, caches)
            batch_hits = []
            batch = per_query(lambda: batch_hits.extend(idx.search_many(qs, args.k)), len(qs))
            single = per_query(lambda: [idx.search_many(qs[i:i + 1], args.k) for i in range(min(20, len(qs)))],
                               min(20, len(qs)))
            masked = per_query(lambda: idx.search_many(qs[:20], args.k, [mask] * 20), 20)
            ids = [{r for r, _ in h} for h in batch_hits]
            if kind == "flat":
                exact = ids
            recall = np.mean([len(a & b) / args.k for a, b in zip(ids, exact)])
            rows.append((n, kind, build, batch, single, masked, recall))
    print(f"$ {' '.join(['python'] + sys.argv)}")
    print(f"dim {args.dim}, {args.queries} queries, top-{args.k}; masked = 50% of rows allowed; "
          f"uniform random vectors (worst case for HNSW recall)")
    print(f"{'vectors':>9} {'index':>6} {'build s':>8} {'ms/q batch':>11} {'ms/q single':>12} {'ms/q masked':>12} {'recall@k':>9}")
    for n, kind, build, batch, single, masked, recall in rows:
        print(f"{n:>9,} {kind:>6} {build:>8.2f} {batch:>11.3f} {single:>12.3f} {masked:>12.3f} {recall:>9.3f}")
    by = {(n, kind): r for n, kind, *r in [(r[0], r[1], r[3]) for r in rows]}
    for n in sorted({r[0] for r in rows}):
        print(f"{n:,}: flat/hnsw batch latency ratio {by[(n, 'flat')][0] / by[(n, 'hnsw')][0]:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
