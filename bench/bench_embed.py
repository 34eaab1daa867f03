"""Embedding throughput: the pipeline's Embedder (dedup, length-sorted batches, Parquet cache
writes) vs a bare ``model.encode`` on the same texts, and the warm-cache rerun speed-up.

Texts: the embedding_text of a built chunk set when --chunks points at a chunks.parquet,
else synthetic ~400-character financial paragraphs. Model load and import are excluded.

    /work/venv/bin/python bench/bench_embed.py              # 200 synthetic texts
    /work/venv/bin/python bench/bench_embed.py --n 400 --chunks data/store/corpora/<c>/chunks/<v>/chunks.parquet
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time

import numpy as np


def synthetic_texts(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    parts = ["Revenue grew", "Operating margin fell", "Net debt decreased", "The Board proposes a dividend",
             "Free cash flow reached", "Capital expenditure was", "Goodwill impairment of", "Segment EBITDA rose"]
    out = []
    for i in range(n):
        words = []
        while sum(len(w) + 1 for w in words) < int(rng.integers(150, 600)):
            words.append(f"{rng.choice(parts)} {rng.integers(1, 9999):,}.{rng.integers(0, 9)} million in {2019 + i % 6};")
        out.append(" ".join(words))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--chunks", help="a chunks.parquet to take embedding_text from")
    ap.add_argument("--model", help="model path (default: the packaged all-MiniLM-L6-v2)")
    ap.add_argument("--batch-size", type=int, default=32)
    args = ap.parse_args()
    from finchunk_pipeline.index.embed import Embedder

    if args.chunks:
        import pandas as pd

        texts = pd.read_parquet(args.chunks, columns=["embedding_text"])["embedding_text"].tolist()[:args.n]
    else:
        texts = synthetic_texts(args.n)
    with tempfile.TemporaryDirectory() as cache:
        e = Embedder(model_path=args.model, cache_dir=cache, batch_size=args.batch_size)
        t = time.perf_counter(); model = e.model; load = time.perf_counter() - t
        model.encode(texts[:8], batch_size=8)  # warm-up
        t = time.perf_counter()
        model.encode(texts, batch_size=args.batch_size, normalize_embeddings=True, show_progress_bar=False)
        bare = time.perf_counter() - t
        t = time.perf_counter(); _, cold_stats = e.embed(texts); cold = time.perf_counter() - t
        t = time.perf_counter(); _, warm_stats = e.embed(texts); warm = time.perf_counter() - t
    n = len(texts)
    print(f"$ {' '.join(['python'] + sys.argv)}")
    print(f"{n} texts, mean {np.mean([len(x) for x in texts]):.0f} chars, batch {args.batch_size}, "
          f"model {e.model_id} (import + load {load:.1f}s, excluded)")
    print(f"{'':34}{'seconds':>9}{'texts/s':>9}")
    print(f"{'bare model.encode':34}{bare:>9.2f}{n / bare:>9.1f}")
    print(f"{'Embedder.embed, cold cache':34}{cold:>9.2f}{n / cold:>9.1f}   ({cold_stats.embedded} embedded)")
    print(f"{'Embedder.embed, warm cache':34}{warm:>9.3f}{n / warm:>9.0f}   ({warm_stats.cache_hits} cache hits)")
    print(f"pipeline overhead vs bare encode: {(cold / bare - 1) * 100:+.1f}%   warm-cache speed-up: {cold / warm:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
