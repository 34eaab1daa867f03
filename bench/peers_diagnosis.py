"""Why an evidence-aware chunk set wins or loses against the best plain splitter, question by
question (issue 33): reads a finished run's stored evaluations and indexes, changes nothing.

For one cell (retriever, mode, budget) it takes the best evidence-aware and the best plain
chunk set (as the report's Summary does: evaluation/compare.py), or the ones named, and prints

- the questions each gets and the other misses, by question type;
- for every question one of them misses: where the gold passage was — the rank of the first
  retrieved chunk that touches it, the rank at which the delivered chunks cover it (the
  report's rule: >= 50% of its characters) and the characters delivered by then (the budget
  rule: above the budget, it is not delivered) — for both sets;
- the other evidence-aware sets' and the same plain library's other sizes' recall on the
  questions lost, which tells size, delivery (expand) and header apart: ``evidence-wide`` is
  ``evidence`` delivered as 2,000-character parents, ``evidence-lean`` the same units without
  a header (500-character parents), ``structure`` 800-character units delivered as they are.

    .venv/bin/python bench/peers_diagnosis.py --corpus ../shared/devdata/tatqa_dev \\
        --data /tmp/peers/runs/tatqa_dev/store --chunkers data/chunkers-peers.yaml \\
        --retriever bm25 --mode global --budget 1500 [--evidence evidence --plain chonkie-1000]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from finchunk_pipeline import (
    evaluate_retriever,  # noqa: E402
    load_retriever,  # noqa: E402
)
from finchunk_pipeline.assets.resources import PipelineResource  # noqa: E402
from finchunk_pipeline.evaluation.compare import best, mean_recall, paired_bootstrap  # noqa: E402
from finchunk_pipeline.builders.evaluation import document_reader  # noqa: E402
from finchunk_pipeline.evaluation.expander import parent_expander  # noqa: E402
from finchunk_pipeline.evaluation.retrieval import gold_spans
from finchunk_pipeline.evaluation.retriever_modes import CHUNK_COLUMNS  # noqa: E402
from finchunk_pipeline.index.registry import LoadRequest
from finchunk_pipeline.storage.files import read_json  # noqa: E402
from finchunk_pipeline.types.chunks import spans_of  # noqa: E402

VARIANTS = ("evidence", "evidence-lean", "evidence-wide", "structure", "structure-h", "auto", "auto-h",
            "packed", "packed-h", "paragraph")


def stored_entries(pipeline: PipelineResource) -> dict[str, list[dict]]:
    """{chunk set: its evaluation entries} for every declared set evaluated in this data root."""
    ws = pipeline.workspace()
    out = {}
    for config in pipeline.chunker_configs():
        path = ws.evaluation_dir(config.version_name) / "evaluation.json"
        if path.exists():
            out[config.name] = read_json(path)["entries"]
    return out


def entry(entries: dict[str, list[dict]], name: str, retriever: str, mode: str) -> dict | None:
    for e in entries.get(name, []):
        if e.get("retriever") == retriever and e.get("mode") == mode and e.get("per_question"):
            return e
    return None


def recalls(e: dict, budget: int) -> dict[str, float]:
    pq = e["per_question"]
    return dict(zip(pq["ids"], pq["recall"][str(budget)]))


def where_gold(pipeline: PipelineResource, name: str, retriever: str, mode: str, questions: pd.DataFrame,
               passages: pd.DataFrame, budget: int) -> dict[str, dict]:
    """Per question: rank of the first retrieved chunk touching a gold passage, rank at which
    the delivered chunks cover one (>= 50%), characters delivered by then (mode global or
    filtered; the first gold passage of multi-passage questions)."""
    ws = pipeline.workspace()
    config = pipeline.chunker_config(name)
    chunks = ws.chunks.read(config.chunks_version_name, columns=CHUNK_COLUMNS)
    expander = parent_expander(chunks, document_reader(ws.manifest_path, ws.blocks), config.expand) if config.expand else None
    r = load_retriever(retriever, ws.index_dir(config.version_name), LoadRequest(chunks))
    ev = evaluate_retriever(r, chunks, passages, questions, mode, expander=expander, budgets=(budget,))
    gold = gold_spans(passages)
    allowed = None
    if mode == "filtered":
        doc_ids = chunks["doc_id"].to_numpy()
        allowed = [np.isin(doc_ids, list(d)) for d in questions["doc_ids"]]
    langs = [r.question_language(list(d)) for d in questions["doc_ids"]] if hasattr(r, "question_language") else None
    hits = r.search_many(questions["question"].tolist(), 100, allowed, **({"languages": langs} if langs else {}))
    spans = [spans_of(v) for v in chunks["spans"]]
    out = {}
    for (_, q), ranked, score in zip(questions.iterrows(), hits, ev.scores):
        g = [gold[p] for p in q["gold_passages"]]
        touch = None
        for rank, (row, _) in enumerate(ranked, 1):
            d = chunks["doc_id"].iat[row]
            if any(d == gd and any(s < ge and e > gs for s, e in spans[row]) for gd, gs, ge in g):
                touch = rank
                break
        covered = next((k for k, n in enumerate(score.retrieved, 1) if n), None)
        out[q["question_id"]] = {"touch": touch, "covered": covered,
                                 "chars": score.chars[covered - 1] if covered else None}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--chunkers", default=str(ROOT / "data" / "chunkers-peers.yaml"))
    ap.add_argument("--retriever", default="bm25")
    ap.add_argument("--mode", default="global")
    ap.add_argument("--budget", type=int, default=1500)
    ap.add_argument("--evidence", help="the evidence-aware set (default: the cell's best)")
    ap.add_argument("--plain", help="the plain set (default: the cell's best)")
    ap.add_argument("--examples", type=int, default=12, help="questions listed (losses first)")
    ap.add_argument("--type", help="list only questions of this question type")
    ap.add_argument("--json", help="also write the per-question rows here")
    args = ap.parse_args()

    pipeline = PipelineResource(corpus_dir=str(Path(args.corpus).resolve()), data_root=str(Path(args.data).resolve()),
                                chunkers_file=str(Path(args.chunkers).resolve()))
    entries = stored_entries(pipeline)
    cell = [e for es in entries.values() for e in es
            if e.get("retriever") == args.retriever and e.get("mode") == args.mode and e.get("per_question")]
    ev = entry(entries, args.evidence, args.retriever, args.mode) if args.evidence else \
        best([e for e in cell if e.get("family") == "evidence"], args.budget)
    pl = entry(entries, args.plain, args.retriever, args.mode) if args.plain else \
        best([e for e in cell if e.get("family") == "plain"], args.budget)
    re_, rp = recalls(ev, args.budget), recalls(pl, args.budget)
    ids = list(ev["per_question"]["ids"])
    types = dict(zip(ids, ev["per_question"]["types"]))
    d, lo, hi = paired_bootstrap([re_[i] for i in ids], [rp[i] for i in ids])
    print(f"# {Path(args.corpus).name}: {args.retriever} {args.mode} @{args.budget:,}\n")
    print(f"{ev['name']} {100 * mean_recall(ev, args.budget):.1f} vs {pl['name']} {100 * mean_recall(pl, args.budget):.1f}: "
          f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}] over {len(ids)} questions\n")
    lost = [i for i in ids if rp[i] > re_[i]]
    won = [i for i in ids if re_[i] > rp[i]]
    print(f"questions {ev['name']} gets less of than {pl['name']}: {len(lost)}; more of: {len(won)}; "
          f"equal: {len(ids) - len(lost) - len(won)}\n")
    print("| question type | questions | evidence ahead | plain ahead |\n|---|---:|---:|---:|")
    for t, n in sorted(Counter(types.values()).items()):
        print(f"| {t} | {n} | {sum(types[i] == t for i in won)} | {sum(types[i] == t for i in lost)} |")

    # the other evidence-aware sets and the plain library's other sizes on the questions lost
    print(f"\nOn the {len(lost)} questions lost — mean recall of each set there (and over all questions):\n")
    print("| chunk set | family | on the lost questions | on all |\n|---|---|---:|---:|")
    library = pl["strategy"]
    others = [n for n in entries if n in VARIANTS] + \
             [n for n in entries if (entry(entries, n, args.retriever, args.mode) or {}).get("strategy") == library]
    for n in dict.fromkeys([ev["name"], pl["name"], *others]):
        e = entry(entries, n, args.retriever, args.mode)
        if e is None:
            continue
        r = recalls(e, args.budget)
        on_lost = sum(r[i] for i in lost) / len(lost) if lost else float("nan")
        print(f"| {n} | {e['family']} | {100 * on_lost:.1f} | {100 * mean_recall(e, args.budget):.1f} |")

    corpus = pipeline.corpus()
    questions = corpus.questions.set_index("question_id", drop=False)
    listed = [i for i in lost + won if args.type in (None, types[i])][:args.examples] if args.examples else []
    rows = []
    if listed:
        qs = questions.loc[listed]
        wg_e = where_gold(pipeline, ev["name"], args.retriever, args.mode, qs, corpus.passages, args.budget)
        wg_p = where_gold(pipeline, pl["name"], args.retriever, args.mode, qs, corpus.passages, args.budget)
        print(f"\nQuestion by question (touch = rank of the first retrieved chunk touching the gold passage; "
              f"covered = rank at which the delivered chunks cover it, chars = characters delivered by then):\n")
        print(f"| question | type | {ev['name']} | touch / covered / chars | {pl['name']} | touch / covered / chars |")
        print("|---|---|---:|---|---:|---|")
        for i in listed:
            a, b = wg_e[i], wg_p[i]
            text = str(questions.at[i, "question"]).replace("|", "/")[:90]
            fmt = lambda w: f"{w['touch'] or '–'} / {w['covered'] or '–'} / {w['chars'] or '–'}"  # noqa: E731
            print(f"| {i}: {text} | {types[i]} | {100 * re_[i]:.0f} | {fmt(a)} | {100 * rp[i]:.0f} | {fmt(b)} |")
            rows.append({"id": i, "type": types[i], "question": questions.at[i, "question"],
                         "evidence": {"recall": re_[i], **a}, "plain": {"recall": rp[i], **b}})
    if args.json:
        Path(args.json).write_text(json.dumps({"evidence": ev["name"], "plain": pl["name"], "lost": lost, "won": won,
                                               "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
