"""Embedding throughput: the pipeline's Embedder (dedup, length-sorted batches, Parquet cache
writes) vs a bare ``model.encode`` on the same texts, and the warm-cache rerun speed-up.

Texts: the embedding_text of a built chunk set when --chunks points at a chunks.parquet,
else synthetic ~400-character financial paragraphs. Model load and import are excluded.

    /work/venv/bin/python bench/bench_embed.py              # 200 synthetic texts
    /work/venv/bin/python bench/bench_embed.py --n 400 --chunks data/store/corpora/<c>/chunks/<v>/chunks.parquet
    /work/venv/bin/python bench/bench_embed.py --backends torch,onnx,onnx-int8,static   # FINCHUNK_EMBED_BACKEND choices
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


def run(texts: list[str], backends: tuple[str, ...] = ("torch",), batch_size: int = 32,
        model: str | None = None) -> dict:
    """Per backend: bare ``encode`` of the texts, the pipeline's ``Embedder.embed`` cold and
    warm (a fresh cache folder), the overhead, and the cosine to torch's vectors."""
    from finchunk_pipeline.models.embed import Embedder

    out: dict = {"n": len(texts), "backends": {}}
    lines = [f"{len(texts)} texts, mean {np.mean([len(x) for x in texts]):.0f} chars, batch {batch_size}"]
    head = ["backend", "import + load/export s", "bare encode s", "texts/s", "Embedder.embed cold s", "overhead",
            "warm s", "x torch (bare)", "cosine to torch (min / mean)"]
    table = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 2) + "---|"]
    ref = None
    for backend in backends:
        with tempfile.TemporaryDirectory() as tmp:  # <tmp>/embeddings, an onnx export in <tmp>/models
            e = Embedder(model_path=model, cache_dir=f"{tmp}/embeddings", batch_size=batch_size, backend=backend)
            t = time.perf_counter(); m = e.model; load = time.perf_counter() - t
            m.encode(texts[:8], batch_size=8)  # warm-up
            t = time.perf_counter()
            bare_v = m.encode(texts, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False)
            bare = time.perf_counter() - t
            t = time.perf_counter(); vecs, cold_stats = e.embed(texts); cold = time.perf_counter() - t
            t = time.perf_counter(); _, warm_stats = e.embed(texts); warm = time.perf_counter() - t
        if ref is None:
            ref = (backend, bare, vecs)
        # vectors of another dimension (a static model's) have no cosine to the reference's
        cos = (vecs * ref[2]).sum(1) if vecs.shape == ref[2].shape else np.full(len(vecs), np.nan)
        r = {"load_s": load, "bare_s": bare, "cold_s": cold, "warm_s": warm, "overhead": cold / bare - 1,
             "speedup_vs_first": ref[1] / bare, "cos_min": float(cos.min()), "cos_mean": float(cos.mean()),
             "embedded": cold_stats.embedded, "cache_hits": warm_stats.cache_hits}
        out["backends"][backend] = r
        table.append(f"| {backend} | {load:.1f} | {bare:.2f} | {len(texts) / bare:.1f} | {cold:.2f} "
                     f"| {r['overhead'] * 100:+.1f}% | {warm:.3f} | {r['speedup_vs_first']:.2f}x "
                     f"| {r['cos_min']:.4f} / {r['cos_mean']:.4f} |")
        del bare_v
    out["lines"] = lines + [""] + table + [
        f"overhead: Embedder.embed (dedup, cache look-up and shard writes, length-sorted batches) over a bare "
        f"model.encode of the same texts; x and cosine relative to {backends[0]}"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--chunks", help="a chunks.parquet to take embedding_text from")
    ap.add_argument("--model", help="model path (default: the packaged all-MiniLM-L6-v2)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--backends", default="torch", help="comma-separated: torch,onnx,onnx-int8,static (the first is the reference)")
    args = ap.parse_args()
    if args.chunks:
        import pandas as pd

        texts = pd.read_parquet(args.chunks, columns=["embedding_text"])["embedding_text"].tolist()[:args.n]
    else:
        texts = synthetic_texts(args.n)
    print(f"$ {' '.join(['python'] + sys.argv)}")
    r = run(texts, tuple(b for b in args.backends.split(",") if b), args.batch_size, args.model)
    print("\n".join(r["lines"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
