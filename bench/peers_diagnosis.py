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
        --retriever bm25 --mode global --budget 1500 [--evidence evidence --plain chonkie-1000] [--fractions]

The chunk sets are read by name (bench/_stored.py), with the chunks and indexes of their stored
versions: a peer set whose library is not installed here still competes and is diagnosed.
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
from finchunk_pipeline.evaluation.retrieval import delivery_at, gold_spans  # noqa: E402
from finchunk_pipeline.evaluation.retriever_modes import CHUNK_COLUMNS  # noqa: E402
from finchunk_pipeline.index.registry import LoadRequest  # noqa: E402
from finchunk_pipeline.types.chunks import spans_of  # noqa: E402
from finchunk_pipeline.evaluation.assembler import deliver  # noqa: E402
from finchunk_pipeline.evaluation.chunk_set import HUMAN  # noqa: E402
from finchunk_pipeline.evaluation.coverage import coverage_fraction  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from _stored import stored_entries  # noqa: E402

VARIANTS = ("evidence", "evidence-lean", "evidence-wide", "structure", "structure-h", "auto", "auto-h",
            "packed", "packed-h", "paragraph")


def entry(entries: dict[str, list[dict]], name: str, retriever: str, mode: str) -> dict | None:
    for e in entries.get(name, []):
        if e.get("retriever") == retriever and e.get("mode") == mode and e.get("per_question"):
            return e
    return None


def recalls(e: dict, budget: int) -> dict[str, float]:
    pq = e["per_question"]
    return dict(zip(pq["ids"], pq["recall"][str(budget)]))


def where_gold(pipeline: PipelineResource, e: dict, retriever: str, mode: str, questions: pd.DataFrame,
               passages: pd.DataFrame, budget: int) -> dict[str, dict]:
    """Per question: rank of the first retrieved chunk touching a gold passage, rank at which
    the delivered chunks cover one (>= 50%), characters delivered by then (mode global or
    filtered; the first gold passage of multi-passage questions), and the fraction of each
    gold passage the context of ``budget`` covers (a near miss: just under a half). ``e``: the
    set's stored evaluation entry, whose version names its stored chunks and indexes."""
    ws = pipeline.workspace()
    version = e["version"]   # the stored one: a peer's version names its library's (maybe not installed here)
    try:
        config = pipeline.chunker_config(e["name"])
    except Exception:        # a chunk set not runnable here (its library missing)
        config = None
    # its chunks: as declared when the declaration is the stored version, else as a peer set
    # stores them (named by its version)
    stored = config.chunks_version_name if config is not None and config.version_name == version else version
    try:
        chunks = ws.chunks.read(stored, columns=CHUNK_COLUMNS)
    except Exception as exc:
        raise SystemExit(f"{e['name']}: its stored chunks {stored} cannot be read here ({exc})") from exc
    expand = e.get("expand") or 0
    expander = parent_expander(chunks, document_reader(ws.manifest_path, ws.blocks), expand) if expand else None
    r = load_retriever(retriever, ws.index_dir(version), LoadRequest(chunks))
    deliver_at_budget = delivery_at(chunks, expander)(budget)
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
        by_doc = deliver([deliver_at_budget(row) for row, _ in ranked], budget)[0]
        out[q["question_id"]] = {"touch": touch, "covered": covered,
                                 "chars": score.chars[covered - 1] if covered else None,
                                 "fraction": [round(coverage_fraction(gs, ge, by_doc.get(gd, [])), 2) for gd, gs, ge in g]}
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
    ap.add_argument("--fractions", action="store_true",
                    help="also count every question's gold passages by the fraction of them each context covers")
    args = ap.parse_args()

    pipeline = PipelineResource(corpus_dir=str(Path(args.corpus).resolve()), data_root=str(Path(args.data).resolve()),
                                chunkers_file=str(Path(args.chunkers).resolve()))
    entries = stored_entries(args.corpus, args.data, HUMAN)   # by name: a peer set whose library is not
    # installed here is still read (its version names the library's version)
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
    if args.fractions:   # every question: how much of each gold passage each context covers
        wg_e = where_gold(pipeline, ev, args.retriever, args.mode, questions.loc[ids], corpus.passages, args.budget)
        wg_p = where_gold(pipeline, pl, args.retriever, args.mode, questions.loc[ids], corpus.passages, args.budget)
        print(f"\nGold passages by the fraction of them the context of {args.budget:,} characters covers (0.5 counts "
              "as retrieved; just under it, a near miss):\n")
        print("| chunk set | 0 | (0, 0.25) | [0.25, 0.5) | [0.5, 1] |\n|---|---:|---:|---:|---:|")
        for name, wg in ((ev["name"], wg_e), (pl["name"], wg_p)):
            fr = [x for i in ids for x in wg[i]["fraction"]]
            bins = (sum(x == 0 for x in fr), sum(0 < x < .25 for x in fr), sum(.25 <= x < .5 for x in fr),
                    sum(x >= .5 for x in fr))
            print(f"| {name} | " + " | ".join(str(b) for b in bins) + " |")
    if listed:
        if not args.fractions:
            qs = questions.loc[listed]
            wg_e = where_gold(pipeline, ev, args.retriever, args.mode, qs, corpus.passages, args.budget)
            wg_p = where_gold(pipeline, pl, args.retriever, args.mode, qs, corpus.passages, args.budget)
        print(f"\nQuestion by question (touch = rank of the first retrieved chunk touching the gold passage; "
              f"covered = rank at which the delivered chunks cover it, chars = characters delivered by then; "
              f"@{args.budget:,} = the fraction of each gold passage the context covers, 0.5 counts):\n")
        print(f"| question | type | {ev['name']} | touch / covered / chars / @{args.budget:,} | {pl['name']} | "
              f"touch / covered / chars / @{args.budget:,} |")
        print("|---|---|---:|---|---:|---|")
        for i in listed:
            a, b = wg_e[i], wg_p[i]
            text = str(questions.at[i, "question"]).replace("|", "/")[:90]
            fmt = lambda w: (f"{w['touch'] or '–'} / {w['covered'] or '–'} / {w['chars'] or '–'} / "  # noqa: E731
                             f"{', '.join(f'{x:.2f}' for x in w['fraction'])}")
            print(f"| {i}: {text} | {types[i]} | {100 * re_[i]:.0f} | {fmt(a)} | {100 * rp[i]:.0f} | {fmt(b)} |")
            rows.append({"id": i, "type": types[i], "question": questions.at[i, "question"],
                         "evidence": {"recall": re_[i], **a}, "plain": {"recall": rp[i], **b}})
    if args.json:
        Path(args.json).write_text(json.dumps({"evidence": ev["name"], "plain": pl["name"], "lost": lost, "won": won,
                                               "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
