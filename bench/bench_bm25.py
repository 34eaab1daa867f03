"""Sparse BM25 (finchunk_pipeline.index.bm25) vs rank_bm25.BM25Okapi and bm25s on the same chunks.

Rows (query times: the best of ``--repeat`` passes over all queries, the passes of every row
interleaved so that a change in the machine's load hits every row alike):

- "ours, finance": ``BM25Retriever`` with the default analyzer, as the pipeline uses it:
  ``search_many`` end to end (query analysis included), and pre-tokenised (the queries'
  terms analysed beforehand: scoring + ``top_k`` only);
- "ours, plain": the plain analyzer, i.e. the very token lists rank_bm25 and bm25s get:
  its top-10 must equal rank_bm25's on every query (rank_bm25 scores ordered stably: ties by
  lower index), with the max score difference printed;
- bm25s (``pip install bm25s``; method "lucene", one thread, the token lists in one batch,
  their tokenisation not timed) is a speed baseline only: it does not give BM25Okapi's scores
  (no epsilon floor for negative idf), so its rankings differ on common words.

The goal (issue 16) is the per-query time of "ours, finance, search_many" against bm25s.
Build times include the per-index query structures (a first query); index sizes are of the
saved folders. ``--profile`` adds a cProfile of ``search_many`` and the time split (query
analysis / scoring / top-k).

    python bench/bench_bm25.py                 # 20,000 synthetic chunks
    python bench/bench_bm25.py --size 100000   # slower: rank_bm25 loops in Python (~0.3 s/query)
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

from finchunk_pipeline.index.bm25 import top_k
from finchunk_pipeline.index.bm25_retriever import BM25Retriever
from finchunk_pipeline.index.tokenize import tokenize
from finchunk_pipeline.storage.indexes import save_index


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
    ap.add_argument("--repeat", type=int, default=5, help="query passes; the best is kept")
    ap.add_argument("--no-rank-bm25", action="store_true", help="skip rank_bm25 (slow at 100k: ~0.3 s/query)")
    ap.add_argument("--profile", action="store_true", help="time split and a cProfile of search_many")
    args = ap.parse_args()
    print(f"$ {' '.join(['python'] + sys.argv)}")
    result = run(args.size, args.queries, args.k, args.repeat, not args.no_rank_bm25, args.profile)
    for line in result["lines"]:
        print(line)
    return 0 if result["ok"] else 1


def best(fns: dict[str, object], repeat: int) -> dict[str, float]:
    """Best time of each function over ``repeat`` interleaved passes (s)."""
    out = {name: float("inf") for name in fns}
    for _ in range(max(1, repeat)):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            out[name] = min(out[name], time.perf_counter() - t)
    return out


def ranked(index, terms: list[list[str]], k: int) -> list[np.ndarray]:
    """Scoring + top_k on analysed queries (iter_scores: one row at a time, where it exists)."""
    rows = index.iter_scores(terms) if hasattr(index, "iter_scores") else index.scores_many(terms)
    return [top_k(row, k) for row in rows]


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def build_ours(texts: list[str], analyzer: str, queries: list[str], k: int) -> tuple[BM25Retriever, float, float]:
    """(retriever, build s including a first query, saved size MB)."""
    t = time.perf_counter()
    ours = BM25Retriever.build(texts, analyzer=analyzer)
    ours.search_many(queries[:1], k)
    build_s = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        save_index(ours, Path(tmp) / "bm25")
        size = folder_mb(Path(tmp) / "bm25")
    return ours, build_s, size


def build_bm25s(tokens: list[list[str]]):
    """(bm25s.BM25 or None, build s, saved size MB, version)."""
    try:
        import bm25s
    except ImportError:
        return None, 0.0, 0.0, ""
    t = time.perf_counter()
    b = bm25s.BM25(method="lucene")
    b.index(tokens, show_progress=False)
    build_s = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        b.save(tmp)
        size = folder_mb(Path(tmp))
    return b, build_s, size, bm25s.__version__


def run(size: int, n_queries: int = 100, k: int = 10, repeat: int = 5, with_rank_bm25: bool = True,
        profile: bool = False) -> dict:
    """The measurements as a dict (ms per query, ratios, parity) plus printable lines."""
    texts = synthetic_chunks(size)
    rng = np.random.default_rng(1)
    queries = [" ".join(rng.choice(texts[int(rng.integers(len(texts)))].split(), 4)) + " revenue unknownword"
               for _ in range(n_queries)]
    tokens = [tokenize(t) for t in texts]
    qtokens = [tokenize(q) for q in queries]
    fin, fin_build, fin_mb = build_ours(texts, "finance", queries, k)
    plain, plain_build, plain_mb = build_ours(texts, "plain", queries, k)
    fin_terms = [fin.analyzer.query_terms(q) for q in queries]
    b, b_build, b_mb, b_version = build_bm25s(tokens)
    fns = {"fin": lambda: fin.search_many(queries, k), "fin_tok": lambda: ranked(fin.index, fin_terms, k),
           "plain": lambda: plain.search_many(queries, k), "plain_tok": lambda: ranked(plain.index, qtokens, k)}
    if b is not None:
        fns["bm25s"] = lambda: b.retrieve(qtokens, k=k, n_threads=1, show_progress=False)
    ms = {name: s * 1000 / n_queries for name, s in best(fns, repeat).items()}
    hits = plain.search_many(queries, k)
    result = {"size": size, "queries": n_queries, "ours_ms": ms["fin"], "ours_tok_ms": ms["fin_tok"],
              "ours_plain_ms": ms["plain"], "ours_plain_tok_ms": ms["plain_tok"],
              "ours_build_s": fin_build, "ours_index_mb": fin_mb}
    lines = [f"{size:,} chunks, {n_queries} queries, top-{k}, best of {repeat} interleaved passes",
             f"{'':40}{'build s':>9}{'index MB':>10}{'ms/query':>10}",
             f"{'ours, finance: search_many':40}{fin_build:>9.2f}{fin_mb:>10.1f}{ms['fin']:>10.3f}",
             f"{'ours, finance: pre-tokenised':40}{'':>19}{ms['fin_tok']:>10.3f}",
             f"{'ours, plain: search_many':40}{plain_build:>9.2f}{plain_mb:>10.1f}{ms['plain']:>10.3f}",
             f"{'ours, plain: pre-tokenised':40}{'':>19}{ms['plain_tok']:>10.3f}"]
    same = n_queries
    if with_rank_bm25:
        same = parity(tokens, qtokens, hits, k, result, lines)
    if b is not None:
        lines.append(f"{'bm25s ' + b_version + ' (lucene, 1 thread)':40}{b_build:>9.2f}{b_mb:>10.1f}{ms['bm25s']:>10.3f}")
        result.update(bm25s_ms=ms["bm25s"], bm25s_build_s=b_build, bm25s_index_mb=b_mb,
                      **{f"{key}_vs_bm25s": ms[name] / ms["bm25s"] for key, name in
                         (("ours", "fin"), ("ours_tok", "fin_tok"), ("ours_plain", "plain"), ("ours_plain_tok", "plain_tok"))})
        lines.append(f"ours / bm25s per query: finance {result['ours_vs_bm25s']:.2f}x end to end (goal <= 1.5x), "
                     f"{result['ours_tok_vs_bm25s']:.2f}x pre-tokenised; plain {result['ours_plain_vs_bm25s']:.2f}x, "
                     f"{result['ours_plain_tok_vs_bm25s']:.2f}x")
    else:
        lines.append("bm25s is not installed (pip install bm25s): no bm25s baseline")
    if profile:
        lines += time_split(fin, queries, fin_terms, k, repeat)
    result["lines"] = lines
    result["ok"] = same == n_queries
    return result


def parity(tokens, qtokens, hits, k: int, result: dict, lines: list[str]) -> int:
    """rank_bm25 on the plain token lists: build and query time, top-k parity, max diff."""
    t = time.perf_counter()
    ref = BM25Okapi(tokens)
    ref_build = time.perf_counter() - t
    t = time.perf_counter()
    ref_scores = [ref.get_scores(q) for q in qtokens]
    ref_top = [top_k(s, k) for s in ref_scores]
    ref_q = (time.perf_counter() - t) / len(qtokens)
    same = sum([r for r, _ in h] == list(rt) for h, rt in zip(hits, ref_top))
    diff = max(abs(s - rs[r]) for h, rs in zip(hits, ref_scores) for r, s in h)
    lines.append(f"{'rank_bm25.BM25Okapi (plain tokens)':40}{ref_build:>9.2f}{'':>10}{ref_q * 1000:>10.3f}")
    lines.append(f"ours (plain) = rank_bm25: identical top-{k} {same}/{len(qtokens)}, max score diff {diff:.2e}; "
                 f"ours (plain) {ref_q * 1000 / result['ours_plain_ms']:.0f}x faster per query")
    result.update(rank_bm25_ms=ref_q * 1000, identical=same, max_diff=diff,
                  speedup_vs_rank_bm25=ref_q * 1000 / result["ours_plain_ms"])
    return same


def time_split(ours: BM25Retriever, queries: list[str], terms: list[list[str]], k: int, repeat: int) -> list[str]:
    """Where search_many's time goes: query analysis, scoring, top-k (interleaved passes),
    then a cProfile of search_many."""
    import cProfile
    import io
    import pstats

    index = ours.index
    rows = index.scores_many(terms)
    scoring = (lambda: [None for _ in index.iter_scores(terms)]) if hasattr(index, "iter_scores") \
        else (lambda: index.scores_many(terms))
    t = best({"analysis": lambda: [ours.analyzer.query_terms(q) for q in queries], "scoring": scoring,
              "top-k": lambda: [top_k(r, k) for r in rows], "search_many": lambda: ours.search_many(queries, k)}, repeat)
    out = ["time split of ours, finance (ms/query): " + ", ".join(f"{name} {s * 1000 / len(queries):.3f}"
                                                            for name, s in t.items())]
    prof = cProfile.Profile()
    prof.runcall(ours.search_many, queries, k)
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(12)
    return out + ["cProfile of search_many (one pass):"] + [ln for ln in buf.getvalue().splitlines() if ln.strip()][3:]


if __name__ == "__main__":
    sys.exit(main())
