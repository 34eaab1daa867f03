"""Embedding backends side by side (issue 30, step 2): speed on the same texts in one run, and
recall at equal budget of dense and hybrid on the dev sets' cells, per backend.

Speed: ``bench_embed.run`` over each text sample (the ``embedding_text`` of a stored chunk set:
short evidence units and long 2,000-character chunks embed at different rates), every backend
in the same process, one after another: texts per second of a bare ``encode`` (import and
model load, ONNX export or static distillation excluded and shown apart), the ratio to the
first backend, and the cosine of each vector to the first backend's.

Recall: read from the ``evaluation.json`` of finished ``finchunk run``s, one per corpus and
backend (``FINCHUNK_EMBED_BACKEND``; the same store, chunk sets and code): bm25, dense and
hybrid at each cell's budget. A run with ``FINCHUNK_DENSE_VECTORS=pooled`` is one more column
(``--recall``, labelled e.g. ``onnx-int8+pooled``), also read against its own backend's.

    python bench/bench_embeddings.py \\
        --run finqa_dev:torch:/tmp/s38/finqa-torch/evaluation.json --run finqa_dev:static:... \\
        --cell finqa_dev:evidence:global@1500 --cell financebench_dev:mdsplitter-2000:filtered@5000 \\
        --speed finqa_dev/evidence=<chunks.parquet> --speed financebench_dev/mdsplitter-2000=<chunks.parquet> \\
        --backends torch,onnx-int8,static --n 300 --write docs/benchmarks/embeddings.md
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _docs import command, provenance  # noqa: E402


def cell_recall(evaluation: dict, chunk_set: str, mode: str, budget: int) -> dict[str, float]:
    """{retriever: recall at ``budget``} of one chunk set and mode in an evaluation.json."""
    out = {}
    for e in evaluation["chunk_sets"]:
        if e["name"] == chunk_set and e["mode"] == mode:
            r = {b["chars"]: b["recall"] for b in e["budget"]}.get(budget)
            if r is not None:
                out[e["retriever"]] = r
    return out


def grid(label: str, evaluation: dict, corpus_dir: Path, budget: int) -> list[str]:
    """One run over many chunk sets: each set's bm25 / dense / hybrid at ``budget`` (filtered,
    global), how often hybrid holds max(bm25, dense) - 1, and what its dense indexes embedded
    (their markers under ``corpus_dir/indexes``)."""
    cells: dict[tuple[str, str], dict[str, float]] = {}
    for e in evaluation["chunk_sets"]:
        r = {b["chars"]: b["recall"] for b in e["budget"]}.get(budget)
        if r is not None and e["mode"] in ("filtered", "global"):
            cells.setdefault((e["name"], e["mode"]), {})[e["retriever"]] = 100 * r
    lines = [f"## One run, every chunk set: {label} (@{budget:,})", "",
             "| chunk set | mode | bm25 | dense | hybrid | hybrid ≥ max − 1 |", "|---|---|---:|---:|---:|---|"]
    held = beats = n = 0
    for (name, mode), r in sorted(cells.items()):
        if not all(k in r for k in ("bm25", "dense", "hybrid")):
            continue
        top = max(r["bm25"], r["dense"])
        n, held, beats = n + 1, held + (r["hybrid"] >= top - 1.0), beats + (r["hybrid"] > top)
        lines.append(f"| {name} | {mode} | {r['bm25']:.1f} | {r['dense']:.1f} | {r['hybrid']:.1f} | "
                     f"{'yes' if r['hybrid'] >= top - 1.0 else 'no'} |")
    embed = {"texts": 0, "embedded": 0, "cache_hits": 0}
    markers = sorted((corpus_dir / "indexes").glob("*/dense.json"))
    for marker in markers:
        e = json.loads(marker.read_text()).get("embed", {})
        for k in embed:
            embed[k] += e.get(k, 0)
    lines += ["", f"Hybrid ≥ max(bm25, dense) − 1 point in {held} of {n} cells, above both in {beats}. "
              f"The {len(markers)} dense indexes asked for {embed['texts']:,} vectors: {embed['embedded']:,} "
              f"embedded, {embed['cache_hits']:,} from the cache.", ""]
    return lines


def speed(samples: list[tuple[str, str]], backends: tuple[str, ...], n: int) -> tuple[list[str], dict]:
    import pandas as pd

    from bench_embed import run

    lines = ["| texts | backend | load / export s | texts/s | x " + backends[0] + " | cosine to " + backends[0]
             + " (min / mean) |", "|---|---|---:|---:|---:|---|"]
    results = {}
    for label, path in samples:
        texts = pd.read_parquet(path, columns=["embedding_text"])["embedding_text"].tolist()
        step = max(1, len(texts) // n)
        texts = texts[::step][:n]  # spread over the set, not its first document
        r = run(texts, backends)
        mean_chars = np.mean([len(t) for t in texts])
        results[label] = {"n": len(texts), "mean_chars": float(mean_chars), **r["backends"]}
        for b in backends:
            x = r["backends"][b]
            lines.append(f"| {label} ({len(texts)}, mean {mean_chars:,.0f} chars) | {b} | {x['load_s']:.1f} "
                         f"| {len(texts) / x['bare_s']:,.0f} | {x['speedup_vs_first']:.2f} "
                         f"| {x['cos_min']:.3f} / {x['cos_mean']:.3f} |")
    return lines, results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", action="append", default=[],
                    help="corpus:backend:evaluation.json[:set,set] (repeatable; the sets that run evaluated: a "
                         "run's evaluation.json also lists sets evaluated before it in the same store)")
    ap.add_argument("--cell", action="append", default=[], help="corpus:chunk_set:mode@budget")
    ap.add_argument("--speed", action="append", default=[], help="label=chunks.parquet (texts to time)")
    ap.add_argument("--backends", default="torch,onnx-int8,static")
    ap.add_argument("--recall", default="", help="the recall columns, labels of --run (default: --backends); "
                    "a run with FINCHUNK_DENSE_VECTORS=pooled is labelled e.g. onnx-int8+pooled")
    ap.add_argument("--grid", action="append", default=[],
                    help="label=evaluation.json:<store>/corpora/<corpus>: one run over many chunk sets")
    ap.add_argument("--grid-budget", type=int, default=5000)
    ap.add_argument("--n", type=int, default=300, help="texts per speed sample")
    ap.add_argument("--write", help="the markdown page to write")
    args = ap.parse_args()
    backends = tuple(b for b in args.backends.split(",") if b)
    labels = tuple(b for b in args.recall.split(",") if b) or backends

    runs: dict[tuple[str, str], dict] = {}  # several runs of a corpus and backend: their chunk sets together
    for spec in args.run:
        corpus, backend, path, *only = spec.split(":", 3)
        sets = json.loads(Path(path).read_text())["chunk_sets"]
        if only:
            sets = [e for e in sets if e["name"] in only[0].split(",")]
        runs.setdefault((corpus, backend), {"chunk_sets": []})["chunk_sets"].extend(sets)

    lines = ["# Embedding backends: speed and recall (generated by bench/bench_embeddings.py)", ""]
    argv = [a for i, a in enumerate(sys.argv[1:]) if a != "--write" and (i == 0 or sys.argv[i] != "--write")]
    lines.append(provenance(command("bench_embeddings.py", argv)).rstrip())
    lines.append("")
    lines.append(__doc__.split("\n\n")[1].replace("\n", " ") + "\n")

    summary: dict = {"speed": {}, "cells": {}}
    if args.speed:
        lines += ["## Speed (one process, the same texts)", ""]
        samples = [tuple(s.split("=", 1)) for s in args.speed]
        table, summary["speed"] = speed(samples, backends, args.n)
        lines += table + [""]

    if args.cell:
        lines += ["## Recall % at equal budget", "",
                  "Per cell: BM25 (one number: it embeds nothing), then dense and hybrid with each backend; "
                  "in brackets the difference to " + labels[0] + ".", ""]
        head = ["cell", "bm25"] + [f"dense {b}" for b in labels] + [f"hybrid {b}" for b in labels]
        lines += ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
        for spec in args.cell:
            corpus, chunk_set, rest = spec.split(":")
            mode, budget = rest.split("@")
            per = {b: cell_recall(runs[(corpus, b)], chunk_set, mode, int(budget)) for b in labels
                   if (corpus, b) in runs}
            ref = per.get(labels[0], {})
            bm25 = next((p["bm25"] for p in per.values() if "bm25" in p), None)
            row = [f"{corpus} {chunk_set} {mode} @{int(budget):,}", f"{100 * bm25:.1f}" if bm25 is not None else "–"]
            for retriever in ("dense", "hybrid"):
                for b in labels:
                    v = per.get(b, {}).get(retriever)
                    if v is None:
                        row.append("–")
                        continue
                    d = "" if b == labels[0] or retriever not in ref else f" ({100 * (v - ref[retriever]):+.1f})"
                    row.append(f"{100 * v:.1f}{d}")
            lines.append("| " + " | ".join(row) + " |")
            summary["cells"][spec] = {"bm25": bm25, **{b: per[b] for b in per}}
        lines.append("")
        # the reading: each backend against the first, over the cells both have
        lines += ["## Against " + labels[0], ""]
        for b in labels[1:]:
            for retriever in ("dense", "hybrid"):
                diffs = [100 * (c[b][retriever] - c[labels[0]][retriever]) for c in summary["cells"].values()
                         if b in c and labels[0] in c and retriever in c[b] and retriever in c[labels[0]]]
                if diffs:
                    lines.append(f"- {b}, {retriever}: mean {np.mean(diffs):+.1f} points, from {min(diffs):+.1f} "
                                 f"to {max(diffs):+.1f} over {len(diffs)} cells")
            base = b.split("+")[0]  # a variant (e.g. onnx-int8+pooled) against its own backend too
            if base != b and base != labels[0] and base in labels:
                for retriever in ("dense", "hybrid"):
                    diffs = [100 * (c[b][retriever] - c[base][retriever]) for c in summary["cells"].values()
                             if b in c and base in c and retriever in c[b] and retriever in c[base]]
                    if diffs:
                        lines.append(f"- {b} against {base}, {retriever}: mean {np.mean(diffs):+.1f} points, from "
                                     f"{min(diffs):+.1f} to {max(diffs):+.1f} over {len(diffs)} cells")
            ratios = [v[b]["speedup_vs_first"] for v in summary["speed"].values() if b in v]
            if ratios and labels[0] == backends[0]:
                lines.append(f"- {b}, speed: {min(ratios):.1f}x to {max(ratios):.1f}x the texts per second of "
                             f"{backends[0]}")
        lines.append("")
    for spec in args.grid:
        label, paths = spec.rsplit("=", 1)
        evaluation, corpus_dir = paths.split(":", 1)
        lines += grid(label, json.loads(Path(evaluation).read_text()), Path(corpus_dir), args.grid_budget)
    text = "\n".join(lines) + "\n"
    if args.write:
        Path(args.write).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
