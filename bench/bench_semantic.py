"""Semantic chunking speed on a corpus (default: devdata tatqa_dev), as ratios in one run.

Rows, each over the same parsed documents, the model loaded once beforehand (import and
load excluded everywhere):

- ``original (v1)``: what semantic v1 embedded — every sentence unit, table rows included —
  one ``model.encode`` per document (batch 64, texts in hash order, a per-process memo);
- ``v3 before issue 16``: the v3 units (rows not embedded) through that same per-document
  embedding call;
- ``now, cold cache``: the pipeline's way (chunking/chunk_set.py): ``prepare`` embeds the sentences
  of up to PREPARE_GROUP documents in one call through the Embedder (duplicates once,
  length-sorted batches, the embedding cache by text hash), then ``pieces`` per document;
  an empty cache folder;
- ``now, warm cache``: the same again in a fresh process memo, the cache folder filled (a
  second chunk set, a rerun);
- with ``--backends torch,onnx-int8``: the cold row again per extra backend.

Chunk digests compare "now" with "v3 before" (identical spans expected for torch; a
different batch composition can move a float by ~1e-7, see README).

    FINCHUNK_DEVDATA=../shared/devdata python bench/bench_semantic.py [--docs N] [--backends torch,onnx-int8]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
DEVDATA = Path(os.environ.get("FINCHUNK_DEVDATA") or ROOT.parent / "shared" / "devdata")
META_FIELDS = ("doc_id", "title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end", "filed_at")


def load_docs(corpus: Path, n: int | None):
    from finchunk_pipeline import select_parser

    recs = pq.read_table(corpus / "documents.parquet").to_pylist()[:n]
    return [(select_parser(r["doc_type"], r["format"]).fn(r["doc_id"], r["text"], r),
             {k: r.get(k) for k in META_FIELDS}) for r in recs]


def per_document_embed(model):
    """semantic v1/v3's embed(): one encode per call, hash order, batch 64, process memo."""
    memo: dict[str, np.ndarray] = {}
    stats = {"embedded": 0}

    def embed(texts, model_path=None):
        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        missing = sorted({k: t for k, t in zip(keys, texts) if k not in memo}.items())
        if missing:
            vecs = model.encode([t for _, t in missing], batch_size=64, normalize_embeddings=True,
                                show_progress_bar=False, convert_to_numpy=True)
            stats["embedded"] += len(missing)
            for (k, _), v in zip(missing, vecs):
                memo[k] = v.astype(np.float32)
        return np.stack([memo[k] for k in keys]) if keys else np.zeros((0, 384), np.float32)
    return embed, stats


def digest(pieces: list) -> str:
    return hashlib.sha256(json.dumps(pieces).encode()).hexdigest()[:16]


def run(corpus: Path, n_docs: int | None = None, backends: tuple[str, ...] = ("torch",)) -> dict:
    import finchunk_pipeline.chunking.semantic as S
    from finchunk_pipeline import STRATEGIES
    from finchunk_pipeline.chunking.chunk_set import PREPARE_GROUP
    from finchunk_pipeline.chunking.strategy_context import ChunkingContext
    from finchunk_pipeline.chunking.sentence import sentence_units
    from finchunk_pipeline.models.embed import get_embedder

    docs = load_docs(corpus, n_docs)
    strategy = STRATEGIES["semantic"]
    params = {}
    lines = [f"corpus {corpus.name}: {len(docs)} documents, {sum(len(d.view_text) for d, _ in docs) / 1e6:.2f} MB view"]
    results: dict = {"docs": len(docs)}
    saved = S.embed
    with tempfile.TemporaryDirectory(prefix="bench_semantic_") as tmp:
        torch_embedder = get_embedder(None, Path(tmp) / "unused", backend="torch")
        model = torch_embedder.model          # import + load excluded
        model.encode(["warm up"], show_progress_bar=False)
        try:
            # 1. original v1: every unit (rows too), per document
            embed, st = per_document_embed(model)
            t = time.perf_counter()
            for doc, _ in docs:
                units = sentence_units(doc, include_headings=True)
                if units:
                    embed([doc.view_text[s:e] for (s, e), _ in units])
            results["v1_s"] = time.perf_counter() - t
            results["v1_embedded"] = st["embedded"]
            # 2. v3 before: v3 units, per document
            embed, st = per_document_embed(model)
            S.embed = embed
            t = time.perf_counter()
            before = [[p.view_spans for p in strategy.pieces(doc, params, meta)] for doc, meta in docs]
            results["v3_s"] = time.perf_counter() - t
            results["v3_embedded"] = st["embedded"]
        finally:
            S.embed = saved

        def now(cache: Path, backend: str) -> tuple[float, list]:
            S._CACHE.clear()
            context = ChunkingContext(embeddings_dir=cache, embed_backend=backend)  # the run's backend
            e = get_embedder(None, cache, backend=backend)
            e.model.encode(["warm up"], show_progress_bar=False)   # load / export excluded
            t = time.perf_counter()
            out = []
            for i in range(0, len(docs), PREPARE_GROUP):
                group = docs[i:i + PREPARE_GROUP]
                strategy.prepare(group, params, context=context)
                out += [[p.view_spans for p in strategy.pieces(doc, params, meta, context=context)]
                        for doc, meta in group]
            return time.perf_counter() - t, out

        try:
            for backend in backends:
                cache = Path(tmp) / backend / "embeddings"
                cold, pieces_now = now(cache, backend)
                results[f"{backend}_cold_s"] = cold
                results[f"{backend}_same_as_before"] = pieces_now == before
                results[f"{backend}_docs_differing"] = sum(a != b for a, b in zip(pieces_now, before))
                if backend == backends[0]:
                    warm, _ = now(cache, backend)
                    results[f"{backend}_warm_s"] = warm
        finally:
            S._CACHE.clear()
    v1 = results["v1_s"]
    rows = [("original (v1): all units, per document", v1, results["v1_embedded"], ""),
            ("v3 before issue 16: per document", results["v3_s"], results["v3_embedded"], "")]
    for backend in backends:
        same = results[f"{backend}_same_as_before"]
        rows.append((f"now ({backend}), cold cache", results[f"{backend}_cold_s"], results["v3_embedded"],
                     "identical chunks" if same else f"{results[backend + '_docs_differing']} documents differ"))
        if f"{backend}_warm_s" in results:
            rows.append((f"now ({backend}), warm cache", results[f"{backend}_warm_s"], 0, ""))
    lines += ["", "| semantic chunking | s | texts embedded | x original | x v3 before | chunks vs v3 before |",
              "|---|---:|---:|---:|---:|---|"]
    for label, s, n, note_ in rows:
        lines.append(f"| {label} | {s:.1f} | {n:,} | {v1 / s:.2f}x | {results['v3_s'] / s:.2f}x | {note_} |")
    results["speedup_vs_original"] = v1 / results[f"{backends[0]}_cold_s"]
    results["lines"] = lines
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEVDATA / "tatqa_dev")
    ap.add_argument("--docs", type=int, default=None, help="first N documents only")
    ap.add_argument("--backends", default="torch", help="comma-separated: torch,onnx,onnx-int8")
    args = ap.parse_args()
    if not (args.corpus / "documents.parquet").exists():
        print(f"{args.corpus}: no documents.parquet (set FINCHUNK_DEVDATA)")
        return 2
    print(f"$ {' '.join(['python'] + sys.argv)}")
    r = run(args.corpus, args.docs, tuple(b for b in args.backends.split(",") if b))
    print("\n".join(r["lines"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
