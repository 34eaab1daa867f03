"""Which fusion of BM25 and dense the hybrid retriever should use (issue 30, step 1): every
candidate rule scored from the same candidate lists, question by question, out of fold.

Step ``score`` (one dev corpus): for each chunk set and mode it loads the stored BM25 and dense
retrievers once (``load_retriever``), takes each question's BM25 and dense candidates ONCE (depth
100: the evaluation asks for 100 chunks and ``HybridRetriever`` takes ``max(depth=100, k)`` from
each list), fuses them with every candidate rule and scores each fused ranking with the
evaluation's own recall at a character budget (``budget.score_budgets`` over the same
``DeliveredChunk``s ``evaluate_retriever`` builds: context headers, small-to-big expansion,
the budget rule). Writes per-question recalls to a JSON file.

Step ``report`` (all corpora): chooses each rule's constant in sample, by document folds within
each cell (4 folds, the question's first document) and leave-one-dataset-out (the constant that
maximises the mean recall over the other corpora's cells, each cell weighted alike), and prints
the markdown table: each cell x {bm25, dense, rrf, every rule}, and hybrid − max(bm25, dense)
with a paired bootstrap 95% interval (evaluation/compare.py).

Candidate rules (d = dense weight; BM25 rows scoring exactly 0 are no candidates, as in
index/hybrid.py; ties break by lower row):

- ``rrf``: plain RRF (index/hybrid.py's first default), 1/(60 + rank_bm25) + 1/(60 + rank_dense);
- ``wrrf(d)``: 2 x [(1 − d)/(60 + rank_bm25) + d/(60 + rank_dense)] (d = 0.5 is ``rrf``);
- ``tail(d)``: ``wrrf`` with a row missing from a list ranked just below it (DEPTH + 1 = 101)
  instead of not voting there: the lists are cut at 100, and a cut is not a verdict;
- ``minmax(d)``: (1 − d) minmax(bm25) + d minmax(dense), each over its own candidates, a missing
  row 0 (index/hybrid.py's ``weighted``);
- ``z(d)``: the same with z-scores over each list's candidates, a missing row its list's minimum;
- ``agree(d)``: ``wrrf`` with the query's dense weight d x overlap@10 (the share of BM25's top 10
  in dense's top 10): dense votes as far as it agrees with BM25;
- ``margin(d)``: ``wrrf`` with dense weight d x (1 − m), m = (s1 − s10)/s1 of BM25's scores:
  a BM25 list with a clear winner gives dense less say;
- ``zconf``: ``z`` with d = c_dense/(c_bm25 + c_dense), c = the top score's z within its own list
  (how far each list's winner stands out; no constant);
- ``zc(d)``: ``z`` with the query's dense weight 2d x c_dense/(c_bm25 + c_dense) (``zconf``'s
  share around a base weight d: d when both winners stand out alike);
- ``figures(d_num, d_text)``: ``wrrf`` with d_num for questions holding a digit (figures, years)
  and d_text for the others (scored from ``wrrf``'s per-question recalls);
- ``named(d_named, d_other)``: ``wrrf`` with d_named for questions that name documents (the
  routing analyzer's route is not ``none``: an issuer, ticker or period it finds in the corpus's
  metadata) and d_other for the others — complete filings asked about by name vs look-alike
  pages asked about by content. index/hybrid.py ships it as ``named(NAMED_DENSE_WEIGHT,
  DENSE_WEIGHT)`` (the rows "as shipped"; ``wrrf(0.05)`` was the default before it).

Step ``grid`` (score files of whole runs, e.g. every chunk set of financebench_dev's peer grid):
per mode and budget, how many chunk sets the rule as shipped, the one before it and plain RRF
each hold within one point of the better half (docs/benchmarks/fusion-grid.md).

Step ``name-questions`` writes a copy of a corpus (``<corpus>-named``, left out with its source
in leave-one-dataset-out) whose questions name their first document's issuer (or ticker) and
fiscal year ("In PKG's 2009 annual report, ..."), the documents and passages linked, not copied: page-level documents asked about by name, to tell whether a rule
keyed on naming serves naming or complete filings (finqa_dev's questions name nothing).

    nice -n 10 .venv/bin/python bench/bench_fusion.py score --corpus /work/shared/devdata/finqa_dev \\
        --data /tmp/peers/runs/finqa_dev/store --sets evidence,langchain-1000 --modes global \\
        --budgets 1500 --out /tmp/fu/scores/finqa_dev.json
    nice -n 10 .venv/bin/python bench/bench_fusion.py report /tmp/fu/scores/*.json --md docs/benchmarks/fusion.md
"""
from __future__ import annotations

import argparse
import json
import pickle
import platform
import re
import sys
import time
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _docs import command, provenance  # noqa: E402
from finchunk_pipeline.index.hybrid import DENSE_WEIGHT, NAMED_DENSE_WEIGHT  # noqa: E402
from finchunk_pipeline.models.backends import DEFAULT_BACKEND  # noqa: E402

SHIPPED = ("named", (NAMED_DENSE_WEIGHT, DENSE_WEIGHT))   # what index/hybrid.py does
BEFORE = ("wrrf", 0.05)                                   # index/hybrid.py's rule before it

DEPTH = 100          # what evaluate_retriever asks for; HybridRetriever takes max(100, k) from each list
RRF_K = 60
GRID = (0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7)   # dense weights
FOLDS = 4
FIGURE = re.compile(r"\d")
MIN_GAP = -1.0       # the bar: hybrid >= max(bm25, dense) - 1.0 point


# --- fusion rules over one question's (row, score) lists -----------------------------------------
def _ranked(scores: dict[int, float], k: int) -> list[int]:
    return [r for r, _ in sorted(scores.items(), key=lambda rs: (-rs[1], rs[0]))[:k]]


def wrrf(lex, sem, d: float, k: int = DEPTH) -> list[int]:
    s: dict[int, float] = {}
    for w, hits in ((1.0 - d, lex), (d, sem)):
        for rank, (row, _) in enumerate(hits, 1):
            s[row] = s.get(row, 0.0) + 2.0 * w / (RRF_K + rank)
    return _ranked(s, k)


def wrrf_tail(lex, sem, d: float, k: int = DEPTH) -> list[int]:
    """``wrrf`` with a row missing from a list ranked just below it (DEPTH + 1) instead of not
    voting: a list read 100 deep says little between its rank 60 and its rank 101, while
    wrrf's 0 for a missing row made dense's rank 60 outweigh one rank of BM25's."""
    rank_b = {row: i for i, (row, _) in enumerate(lex, 1)}
    rank_d = {row: i for i, (row, _) in enumerate(sem, 1)}
    s = {row: 2.0 * ((1.0 - d) / (RRF_K + rank_b.get(row, DEPTH + 1)) + d / (RRF_K + rank_d.get(row, DEPTH + 1)))
         for row in set(rank_b) | set(rank_d)}
    return _ranked(s, k)


def _norm(hits, how: str) -> tuple[dict[int, float], float]:
    """(row -> normalised score, the value of a row missing from the list)."""
    if not hits:
        return {}, 0.0
    x = np.array([h[1] for h in hits], dtype=np.float64)
    if how == "minmax":
        lo, hi = x.min(), x.max()
        v = (x - lo) / (hi - lo) if hi > lo else np.ones_like(x)
        return {int(r): float(a) for (r, _), a in zip(hits, v)}, 0.0
    sd = x.std()
    v = (x - x.mean()) / sd if sd > 0 else np.zeros_like(x)
    return {int(r): float(a) for (r, _), a in zip(hits, v)}, float(v.min())


def convex(lex, sem, d: float, how: str, k: int = DEPTH) -> list[int]:
    (b, b0), (s, s0) = _norm(lex, how), _norm(sem, how)
    return _ranked({r: (1 - d) * b.get(r, b0) + d * s.get(r, s0) for r in set(b) | set(s)}, k)


def top_z(hits) -> float:
    if len(hits) < 2:
        return 0.0
    x = np.array([h[1] for h in hits], dtype=np.float64)
    sd = x.std()
    return float((x[0] - x.mean()) / sd) if sd > 0 else 0.0


def overlap10(lex, sem) -> float:
    return len({r for r, _ in lex[:10]} & {r for r, _ in sem[:10]}) / 10.0


def bm25_margin(lex) -> float:
    if not lex or lex[0][1] <= 0:
        return 0.0
    s10 = lex[min(9, len(lex) - 1)][1]
    return float((lex[0][1] - s10) / lex[0][1])


def candidates(lex_raw, sem) -> dict[str, list[int]]:
    """Every candidate ranking of one question (rows, best first)."""
    lex = [h for h in lex_raw if h[1] != 0.0]
    out = {"bm25": [r for r, _ in lex_raw[:DEPTH]], "dense": [r for r, _ in sem[:DEPTH]],
           "rrf": wrrf(lex, sem, 0.5)}
    ov, m = overlap10(lex, sem), bm25_margin(lex)
    cb, cd = max(top_z(lex), 0.0), max(top_z(sem), 0.0)
    share = cd / (cb + cd) if cb + cd > 0 else 0.5
    out["zconf"] = convex(lex, sem, share, "z")
    for d in GRID:
        out[f"wrrf:{d}"] = wrrf(lex, sem, d)
        out[f"tail:{d}"] = wrrf_tail(lex, sem, d)
        out[f"minmax:{d}"] = convex(lex, sem, d, "minmax")
        out[f"z:{d}"] = convex(lex, sem, d, "z")
        out[f"agree:{d}"] = wrrf(lex, sem, d * ov)
        out[f"margin:{d}"] = wrrf(lex, sem, d * (1 - m))
        out[f"zc:{d}"] = convex(lex, sem, min(1.0, 2 * d * share), "z")
    return out


# --- step 1: score one corpus ----------------------------------------------------------------------
def _list(v) -> list:
    return list(v) if v is not None and not (isinstance(v, float) and v != v) else []


def score_corpus(args) -> int:
    from finchunk_pipeline import load_corpus, load_retriever  # noqa: F401
    from finchunk_pipeline.assets.resources import PipelineResource
    from finchunk_pipeline.builders.evaluation import document_reader, scored_scope
    from finchunk_pipeline.evaluation.budget import score_budgets
    from finchunk_pipeline.evaluation.expander import parent_expander

    def make_expander(chunks, ws, max_chars):
        return parent_expander(chunks, document_reader(ws.manifest_path, ws.blocks), max_chars)
    from finchunk_pipeline.evaluation.retrieval import delivery, gold_spans, question_languages
    from finchunk_pipeline.evaluation.retriever_modes import CHUNK_COLUMNS
    from finchunk_pipeline.index.registry import LoadRequest
    from finchunk_pipeline.routing import Catalog, analyze

    pipeline = PipelineResource(corpus_dir=str(Path(args.corpus).resolve()), data_root=str(Path(args.data).resolve()),
                                chunkers_file=str(Path(args.chunkers).resolve()))
    ws = pipeline.workspace()
    corpus = pipeline.corpus()
    passages, scope = scored_scope(ws, corpus.questions)
    questions = scope.questions
    qs = questions.to_dict("records")
    gold = gold_spans(passages)
    budgets = tuple(int(b) for b in args.budgets.split(","))
    out = {"corpus": Path(args.corpus).name, "embed_backend": args.embed_backend,
           "data": str(Path(args.data).resolve()), "cells": []}
    for set_name in args.sets.split(","):
        config = pipeline.chunker_config(set_name)
        index_dir = ws.index_dir(config.version_name)
        chunks = ws.chunks.read(config.chunks_version_name, columns=CHUNK_COLUMNS)
        expander = make_expander(chunks, ws, config.expand) if config.expand else None
        request = LoadRequest(chunks, None, ws.settings.embeddings_dir, embed_backend=args.embed_backend)
        bm25 = load_retriever("bm25", index_dir, request)
        dense = load_retriever("dense", index_dir, request)
        doc_ids = chunks["doc_id"].to_numpy()
        delivered = delivery(chunks, expander)  # as evaluate_retriever delivers them
        catalog = Catalog.from_parquet(ws.manifest_path)

        langs = question_languages(bm25, qs)
        texts_q = [q["question"] for q in qs]
        for mode in args.modes.split(","):
            allowed = [np.isin(doc_ids, _list(q["doc_ids"])) for q in qs] if mode == "filtered" else None
            t0 = time.perf_counter()
            cache = Path(args.lists_cache) / f"{out['corpus']}-{config.version_name}-{mode}.pkl" if args.lists_cache else None
            if cache is not None and cache.exists():
                lex, sem = pickle.loads(cache.read_bytes())
                t1 = t2 = time.perf_counter()
            else:
                lex = bm25.search_many(texts_q, DEPTH, allowed, **({"languages": langs} if langs is not None else {}))
                t1 = time.perf_counter()
                memo = getattr(getattr(dense, "embedder", None), "_query_memo", None)   # query vectors, kept
                qfile = Path(args.lists_cache) / f"{out['corpus']}-queries-{args.embed_backend}.pkl" if args.lists_cache else None
                if memo is not None and qfile is not None and qfile.exists():
                    memo.update(pickle.loads(qfile.read_bytes()))
                sem = dense.search_many(texts_q, DEPTH, allowed)
                t2 = time.perf_counter()
                if memo is not None and qfile is not None:
                    qfile.parent.mkdir(parents=True, exist_ok=True)
                    qfile.write_bytes(pickle.dumps(dict(memo)))
                if cache is not None:
                    cache.parent.mkdir(parents=True, exist_ok=True)
                    cache.write_bytes(pickle.dumps((lex, sem)))
            ids, types, folds, figures, named, recall = [], [], [], [], [], {}
            feats = {"overlap10": [], "bm25_margin": [], "gold_doc_top3": []}
            for q, a, b in zip(qs, lex, sem):
                g = [gold[p] for p in _list(q["gold_passages"])]
                if not g:
                    continue
                ids.append(q["question_id"])
                types.append(q["question_type"])
                first_doc = sorted(_list(q["doc_ids"]))[0] if _list(q["doc_ids"]) else g[0][0]
                folds.append(zlib.crc32(str(first_doc).encode()) % FOLDS)
                figures.append(bool(FIGURE.search(q["question"])))
                named.append(analyze(q["question"], catalog).action != "none")
                la = [h for h in a if h[1] != 0.0]
                feats["overlap10"].append(overlap10(la, b))
                feats["bm25_margin"].append(bm25_margin(la))
                ranked = candidates(a, b)
                gold_docs = set(_list(q["doc_ids"])) or {d for d, _, _ in g}
                # share of the top 3 chunks from a gold document, per retriever (document finding)
                feats["gold_doc_top3"].append({n: float(np.mean([doc_ids[r] in gold_docs for r in ranked[n][:3]]))
                                               if ranked[n] else 0.0 for n in ("bm25", "dense", "rrf", "margin:0.1")})
                for name, rows in ranked.items():
                    s = score_budgets(q["question_id"], q["question_type"], g, [delivered(r) for r in rows], budgets)
                    for bud in budgets:
                        recall.setdefault(f"{name}@{bud}", []).append(s.retrieved[bud] / s.n_gold)
            t3 = time.perf_counter()
            for bud in budgets:
                cell = {"set": set_name, "mode": mode, "budget": bud, "ids": ids, "types": types, "folds": folds,
                        "figures": figures, "named": named, **feats,
                        "recall": {k.rsplit("@", 1)[0]: v for k, v in recall.items() if k.endswith(f"@{bud}")}}
                out["cells"].append(cell)
                r = cell["recall"]
                print(f"{out['corpus']} {set_name} {mode} @{bud}: {len(ids)} questions; bm25 {100 * np.mean(r['bm25']):.1f} "
                      f"dense {100 * np.mean(r['dense']):.1f} rrf {100 * np.mean(r['rrf']):.1f} "
                      f"(bm25 {t1 - t0:.1f}s, dense {t2 - t1:.1f}s, fusion+scoring {t3 - t2:.1f}s)", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out))
    return 0


# --- a corpus whose questions name their documents ---------------------------------------------------
def name_questions(args) -> int:
    """A copy of ``args.corpus`` whose questions begin by naming their first document (its
    issuer or ticker and fiscal year); documents and passages are linked, not copied."""
    import pandas as pd

    src, out = Path(args.corpus).resolve(), Path(args.out)
    if not out.name.endswith(NAMED_SUFFIX):
        raise SystemExit(f"name-questions: the copy's folder must end with {NAMED_SUFFIX!r} (e.g. "
                         f"{src.name}{NAMED_SUFFIX}): the report leaves it out with {src.name}")
    docs = pd.read_parquet(src / "documents.parquet", columns=["doc_id", "issuer", "ticker", "fiscal_year"])
    meta = docs.set_index("doc_id")
    questions = pd.read_parquet(src / "questions.parquet")

    def named(row) -> str:
        ids = _list(row["doc_ids"])
        if not ids or ids[0] not in meta.index:
            raise ValueError(f"{src}: question {row['question_id']} has no document to name")
        m = meta.loc[ids[0]]
        who = m["ticker"] if isinstance(m["ticker"], str) and m["ticker"] else m["issuer"]
        if not isinstance(who, str) or not who or who == "unknown":
            raise ValueError(f"{src}: document {ids[0]} has no issuer or ticker to name (question {row['question_id']})")
        year = f" {int(m['fiscal_year'])}" if m["fiscal_year"] == m["fiscal_year"] and m["fiscal_year"] is not None else ""
        return f"In {who}'s{year} annual report, {row['question']}"

    questions["question"] = questions.apply(named, axis=1)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("documents.parquet", "passages.parquet"):
        link = out / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(src / name)
    questions.to_parquet(out / "questions.parquet")
    print(f"{len(questions)} questions naming their documents: {out}")
    return 0


# --- the shipped rule over a whole grid --------------------------------------------------------------
GRID_PAGE = ROOT / "docs" / "benchmarks" / "fusion-grid.md"


def grid_table(runs: list[dict]) -> str:
    """Per corpus and mode @ budget, over every chunk set scored: how many sets each rule (as
    shipped, before it, plain RRF) holds within MIN_GAP of the better half, its worst and mean
    gap, and in how many it is above both halves (mean)."""
    rules = [(f"{SHIPPED[0]} {SHIPPED[1]} (as shipped)", SHIPPED), (f"{BEFORE[0]} {BEFORE[1]} (before)", BEFORE),
             ("rrf (plain)", ("rrf", None))]
    out = ["| corpus | cell | sets | rule | sets within 1 point of the better half | worst gap | mean gap | above both |",
           "|---|---|---:|---|---:|---:|---:|---:|"]
    for run in runs:
        groups: dict[str, list[dict]] = {}
        for c in run["cells"]:
            groups.setdefault(f"{c['mode']} @{c['budget']:,}", []).append(c)
        for cell, cs in groups.items():
            for label, (family, param) in rules:
                gaps = np.array([100 * (per_question(c, family, param).mean()
                                        - max(np.mean(c["recall"]["bm25"]), np.mean(c["recall"]["dense"])))
                                 for c in cs])
                out.append(f"| {run_label(run)} | {cell} | {len(cs)} | {label} | {int((gaps >= MIN_GAP).sum())} "
                           f"| {gaps.min():+.1f} | {gaps.mean():+.2f} | {int((gaps > 0).sum())} |")
    return "\n".join(out) + "\n"


def grid(args) -> int:
    runs = [json.loads(Path(p).read_text()) for p in args.scores]
    table = grid_table(runs)
    print(table)
    if args.write:
        from _docs import write_page
        argv = [a for a in sys.argv[1:] if a != "--write"]
        block = (provenance(command("bench_fusion.py", argv), note="inputs scored by: " + "; ".join(
            f"`python bench/{r.get('command', 'bench_fusion.py score')}` ({r.get('date', '')})" for r in runs))
                 + table)
        write_page(GRID_PAGE, "Hybrid's fusion over every chunk set of a run (generated by bench/bench_fusion.py grid)",
                   block)
    return 0


# --- step 2: choose constants out of fold, report ----------------------------------------------------
FAMILIES = {  # family -> its parameter values (a candidate name is family:value; figures is two wrrf's)
    "wrrf": GRID, "tail": GRID, "minmax": GRID, "z": GRID, "agree": GRID, "margin": GRID, "zc": GRID,
    "figures": tuple((a, b) for a in GRID for b in GRID),
    "named": tuple((a, b) for a in GRID for b in GRID),
}


NAMED_SUFFIX = "-named"   # name-questions' copies: "<corpus>-named"


def dataset(corpus: str) -> str:
    """The dev dataset a scored corpus belongs to (a named copy: its source's)."""
    return corpus[:-len(NAMED_SUFFIX)] if corpus.endswith(NAMED_SUFFIX) else corpus


def run_label(run: dict) -> str:
    backend = run.get("embed_backend", "torch")   # score files before onnx-int8 was the default say torch
    return run["corpus"] if backend == DEFAULT_BACKEND else f"{run['corpus']} [{backend}]"


def cell_key(corpus: str, c: dict) -> str:
    return f"{corpus} {c['set']} {c['mode']} @{c['budget']:,}"


def per_question(c: dict, family: str, param) -> np.ndarray:
    r = c["recall"]
    if family in ("figures", "named"):
        yes, no = np.asarray(r[f"wrrf:{param[0]}"]), np.asarray(r[f"wrrf:{param[1]}"])
        return np.where(np.asarray(c[family]), yes, no)
    if family in ("rrf", "zconf", "bm25", "dense"):
        return np.asarray(r[family])
    return np.asarray(r[f"{family}:{param}"])


def best_param(cells: list[dict], family: str, masks: list[np.ndarray] | None = None):
    """The value maximising the mean over ``cells`` (each weighted alike) of the mean recall on
    the questions each mask keeps; ties: the first in grid order."""
    best, best_v = None, -1.0
    for p in FAMILIES[family]:
        vals = []
        for i, c in enumerate(cells):
            x = per_question(c, family, p)
            vals.append(x[masks[i]].mean() if masks is not None else x.mean())
        v = float(np.mean(vals))
        if v > best_v + 1e-12:
            best, best_v = p, v
    return best


def doc_fold_oof(c: dict, family: str) -> tuple[np.ndarray, list]:
    """Per-question recall with the constant chosen on the cell's other document folds."""
    folds = np.asarray(c["folds"])
    out = np.zeros(len(folds))
    chosen = []
    for f in range(FOLDS):
        test = folds == f
        if not test.any():
            continue
        p = best_param([c], family, [~test])
        chosen.append(p)
        out[test] = per_question(c, family, p)[test]
    return out, chosen


def report(args) -> int:
    from finchunk_pipeline.evaluation.compare import paired_bootstrap

    runs = [json.loads(Path(p).read_text()) for p in args.scores]
    # a run's label: its corpus, and the embedding backend when it is not torch (the same corpus
    # scored with two dense models); leaving a dataset out leaves out every backend's cells of it
    # and a copy whose questions name their documents (name-questions: "<corpus>-named") is its
    # source's dataset: the same documents and passages, left out together
    dataset_of = {run_label(r): dataset(r["corpus"]) for r in runs}
    cells = [(run_label(r), c) for r in runs for c in r["cells"]]
    corpora = sorted({dataset(r["corpus"]) for r in runs})
    fams = list(FAMILIES)
    pooled = {f: best_param([c for _, c in cells], f) for f in fams}            # one constant, all dev cells
    lodo = {(f, k): best_param([c for kk, c in cells if dataset_of[kk] != k], f) for f in fams for k in corpora}
    for label, ds in dataset_of.items():
        for f in fams:
            lodo[(f, label)] = lodo[(f, ds)]

    lines = []
    w = lines.append
    w("# Fusion of BM25 and dense: one rule, chosen by measurement (generated by bench/bench_fusion.py)\n")
    argv = [a for i, a in enumerate(sys.argv[1:]) if a not in ("--md", "--json") and
            (i == 0 or sys.argv[i] not in ("--md", "--json"))]   # where it writes: not what it measured
    w(provenance(command("bench_fusion.py", argv),
                 note=f"host {platform.node()}; inputs scored by (each loads the stored BM25 and dense indexes of a finished run):").rstrip())
    w("")
    for r in runs:
        w(f"- `python bench/{r.get('command', 'bench_fusion.py score --corpus ' + r['corpus'])}`"
          + (f" ({r['date']})" if r.get("date") else ""))
    w("")
    w(__doc__.split("Candidate rules")[1].split("    nice -n 10")[0].join(["Candidate rules", ""]).strip() + "\n")
    w("Recall % at the budget (the evaluation's recall at a character budget, per question). "
      "Constants: *pooled* = chosen on every dev cell below (in sample); *LODO* = chosen on the "
      "other corpora's cells (leave one dataset out: the honest figure for a constant fixed once); "
      "*doc-fold* = chosen per cell on the other 3 of 4 document folds (out of fold, but per "
      "corpus). A cell's gap is hybrid − max(bm25, dense) with a paired bootstrap 95% interval "
      "(2,000 resamples, evaluation/compare.py) against the better half of that cell.\n")
    w("## Constants chosen\n")
    w("| rule | pooled (all dev cells) | " + " | ".join(f"LODO without {k}" for k in corpora) + " |")
    w("|---|---|" + "---|" * len(corpora))
    for f in fams:
        w(f"| {f} | {pooled[f]} | " + " | ".join(str(lodo[(f, k)]) for k in corpora) + " |")
    w("")

    # per cell: baselines and every rule (pooled / LODO / doc-fold)
    w("## Every cell\n")
    head = ["bm25", "dense", "rrf", "zconf"] + [f"{f} pooled / LODO / doc-fold" for f in fams]
    w("| cell | questions | " + " | ".join(head) + " |")
    w("|---|---:|" + "---:|" * len(head))
    summary = {}
    for k, c in cells:
        b, d = np.asarray(c["recall"]["bm25"]), np.asarray(c["recall"]["dense"])
        row = [f"{100 * b.mean():.1f}", f"{100 * d.mean():.1f}", f"{100 * np.mean(c['recall']['rrf']):.1f}",
               f"{100 * np.mean(c['recall']['zconf']):.1f}"]
        for f in fams:
            ins = per_question(c, f, pooled[f]).mean()
            lo = per_question(c, f, lodo[(f, k)]).mean()
            df = doc_fold_oof(c, f)[0].mean()
            row.append(f"{100 * ins:.1f} / {100 * lo:.1f} / {100 * df:.1f}")
        w(f"| {cell_key(k, c)} | {len(b)} | " + " | ".join(row) + " |")
    w("")

    w("## Against the better half: hybrid − max(bm25, dense), 95% CI\n")
    w("The better half is the retriever with the higher mean in that cell. **bar** = the gap is ≥ "
      f"{MIN_GAP:+.1f} point; **win** = the interval is above 0 against both halves.\n")
    rules = [("rrf (plain)", "rrf", None), ("zconf", "zconf", None),
             (f"{BEFORE[0]} {BEFORE[1]} (before)", BEFORE[0], BEFORE),
             (f"{SHIPPED[0]} {SHIPPED[1]} (as shipped)", SHIPPED[0], SHIPPED)] + [(f, f, "pooled") for f in fams] + \
            [(f, f, "lodo") for f in fams] + [(f, f, "fold") for f in fams]
    w("| rule | constant | " + " | ".join(cell_key(k, c) for k, c in cells) + " | cells meeting the bar | worst gap |")
    w("|---|---|" + "---|" * len(cells) + "---:|---:|")
    for label, f, how in rules:
        cols, meets, worst = [], 0, 1e9
        for k, c in cells:
            b, d = np.asarray(c["recall"]["bm25"]), np.asarray(c["recall"]["dense"])
            better = b if b.mean() >= d.mean() else d
            other = d if b.mean() >= d.mean() else b
            if how is None:
                x = per_question(c, f, None)
            elif isinstance(how, tuple):
                x = per_question(c, f, how[1])
            elif how == "pooled":
                x = per_question(c, f, pooled[f])
            elif how == "lodo":
                x = per_question(c, f, lodo[(f, k)])
            else:
                x = doc_fold_oof(c, f)[0]
            g, glo, ghi = paired_bootstrap(x, better)
            _, olo, _ = paired_bootstrap(x, other)
            ok = 100 * g >= MIN_GAP
            meets += ok
            worst = min(worst, 100 * g)
            win = glo > 0 and olo > 0
            cols.append(f"{100 * x.mean():.1f}: {100 * g:+.1f} [{100 * glo:+.1f}, {100 * ghi:+.1f}]"
                        + (" **win**" if win else "") + ("" if ok else " ✗"))
            summary.setdefault(label + (f" ({how})" if isinstance(how, str) else ""), {})[cell_key(k, c)] = {
                "recall": float(x.mean()), "gap": g, "ci": [glo, ghi], "win": bool(win)}
        const = (how[1] if isinstance(how, tuple) else
                 {"pooled": pooled.get(f), "lodo": "per held-out corpus", "fold": "per fold"}.get(how, "–"))
        w(f"| {label}{' (' + how + ')' if isinstance(how, str) else ''} | {const} | " + " | ".join(cols)
          + f" | {meets}/{len(cells)} | {worst:+.1f} |")
    w("")

    # the ranking: a constant fixed once is judged by its leave-one-dataset-out cells
    w("## Ranking of the rules (leave-one-dataset-out constants)\n")
    w("Each rule with its constant chosen without the corpus it is scored on: cells meeting the bar, "
      "worst and mean gap to the better half, cells where it beats both halves (interval above 0), "
      "and the constant to ship (the pooled one: chosen on every dev cell).\n")
    w("| rank | rule | cells meeting the bar | worst gap | mean gap | wins | constant to ship |")
    w("|---:|---|---:|---:|---:|---:|---|")
    ranking = []
    for label, stats in summary.items():
        if not label.endswith("(lodo)") and label not in ("rrf (plain)", "zconf"):
            continue
        gaps = [100 * s["gap"] for s in stats.values()]
        meets = sum(g >= MIN_GAP for g in gaps)
        wins = sum(s["win"] for s in stats.values())
        ranking.append((-meets, -wins, -float(np.mean(gaps)), -min(gaps), label))
    for i, (m, wins, mg, wg, label) in enumerate(sorted(ranking), 1):
        fam = label.split(" ")[0]
        w(f"| {i} | {label} | {-m}/{len(cells)} | {-wg:+.1f} | {-mg:+.2f} | {-wins} | {pooled.get(fam, '–')} |")
    w("\nOrder: cells meeting the bar, then wins, then mean gap, then worst gap.\n")
    top = sorted(ranking)[0][-1].split(" (")[0]
    if top in FAMILIES:
        stats = summary[f"{top} (pooled)"]
        w(f"**First: `{top}`**, to ship with the constant chosen on every dev cell, **{pooled[top]}**: with it, "
          + "; ".join(f"{k} {100 * s['recall']:.1f} ({100 * s['gap']:+.1f} [{100 * s['ci'][0]:+.1f}, {100 * s['ci'][1]:+.1f}])"
                      for k, s in stats.items()) + ".\n")

    for label in (f"{SHIPPED[0]} {SHIPPED[1]} (as shipped)", f"{BEFORE[0]} {BEFORE[1]} (before)"):
        gaps = [100 * x["gap"] for x in summary[label].values()]
        w(f"**{label.replace(' (as shipped)', '').replace(' (before)', '')}** ({label.rsplit('(', 1)[1][:-1]}, "
          f"index/hybrid.py): {sum(g >= MIN_GAP for g in gaps)}/{len(cells)} cells meet the bar, worst gap "
          f"{min(gaps):+.1f}, {sum(x['win'] for x in summary[label].values())} wins.\n")

    w("## How each constant moves each cell (in sample)\n")
    w("Recall % of the one-constant rules at every dense weight d (rrf = wrrf at 0.5; margin: d is the weight before the shrink by 1 − m).\n")
    w("| rule | cell | " + " | ".join(str(d) for d in GRID) + " |")
    w("|---|---|" + "---:|" * len(GRID))
    for f in ("margin", "wrrf", "tail", "minmax", "z"):
        for k, c in cells:
            w(f"| {f} | {cell_key(k, c)} | " + " | ".join(f"{100 * per_question(c, f, d).mean():.1f}" for d in GRID) + " |")
    w("")

    # question-level evidence: the features the query-dependent rules read, and where rrf loses
    w("## Where the equal-weight fusion loses (question level)\n")
    w("Per cell: questions where rrf's recall is below the better half's (lost) and above it (won), "
      "the mean of the query features on the lost questions against all (overlap@10 of the two "
      "top-10 lists; BM25's margin (s1 − s10)/s1; share of questions holding a digit), and how "
      "often each retriever's top 3 chunks come from a gold document (document finding) on the "
      "lost, the won and all questions.\n")
    w("| cell | better half | rrf below it | rrf above it | overlap@10 lost / all | margin lost / all | digits lost / all "
      "| top 3 from a gold document, bm25 / dense / rrf: lost · won · all |")
    w("|---|---|---:|---:|---|---|---|---|")
    for k, c in cells:
        b, d = np.asarray(c["recall"]["bm25"]), np.asarray(c["recall"]["dense"])
        name, better = ("bm25", b) if b.mean() >= d.mean() else ("dense", d)
        r = np.asarray(c["recall"]["rrf"])
        lost = r < better
        ov, mg, fg = (np.asarray(c[x], dtype=float) for x in ("overlap10", "bm25_margin", "figures"))
        fmt = lambda v: f"{v[lost].mean():.2f} / {v.mean():.2f}" if lost.any() else f"– / {v.mean():.2f}"  # noqa: E731
        won = r > better
        g3 = c.get("gold_doc_top3") or []

        def docs(mask) -> str:
            rows = [x for x, m in zip(g3, mask) if m]
            return " / ".join(f"{np.mean([x[n] for x in rows]):.2f}" for n in ("bm25", "dense", "rrf")) if rows else "–"
        top3 = f"{docs(lost)} · {docs(won)} · {docs(np.ones(len(r), bool))}" if g3 else "–"
        w(f"| {cell_key(k, c)} | {name} | {int(lost.sum())} | {int(won.sum())} | {fmt(ov)} | {fmt(mg)} | {fmt(fg)} | {top3} |")
    w("")
    text = "\n".join(lines) + "\n"
    if args.md:
        Path(args.md).write_text(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"pooled": {f: pooled[f] for f in fams},
                                               "lodo": {f"{f} {k}": v for (f, k), v in lodo.items() if k in corpora},
                                               "summary": summary}, indent=1, default=str))
    print(text)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    s = sub.add_parser("score", help="score every fusion rule on one corpus's chunk sets")
    s.add_argument("--corpus", required=True)
    s.add_argument("--data", required=True)
    s.add_argument("--chunkers", default=str(ROOT / "data" / "chunkers-peers.yaml"))
    s.add_argument("--sets", required=True, help="comma-separated chunk sets (BM25 and dense indexes stored)")
    s.add_argument("--modes", default="global")
    s.add_argument("--budgets", default="1500")
    s.add_argument("--embed-backend", default=DEFAULT_BACKEND, help=f"default: {DEFAULT_BACKEND} (the pipeline's)")
    s.add_argument("--out", required=True)
    s.add_argument("--lists-cache", help="keep each cell's BM25 and dense lists here (pickle) and reuse them")
    n = sub.add_parser("name-questions", help="a copy of a corpus whose questions name their documents")
    n.add_argument("--corpus", required=True)
    n.add_argument("--out", required=True)
    g = sub.add_parser("grid", help="the shipped rule against the one before it over every cell of score files")
    g.add_argument("scores", nargs="+")
    g.add_argument("--write", action="store_true", help="write docs/benchmarks/fusion-grid.md")
    r = sub.add_parser("report", help="choose constants out of fold and write the table")
    r.add_argument("scores", nargs="+")
    r.add_argument("--md")
    r.add_argument("--json")
    args = ap.parse_args()
    if args.step == "score":
        rc = score_corpus(args)
        data = json.loads(Path(args.out).read_text())
        data["command"] = "bench_fusion.py " + " ".join(sys.argv[1:])
        data["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        Path(args.out).write_text(json.dumps(data))
        return rc
    if args.step == "name-questions":
        return name_questions(args)
    if args.step == "grid":
        return grid(args)
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
