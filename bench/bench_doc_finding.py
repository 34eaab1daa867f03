"""How often a question's own document ranks first (top 2, 3, 5, 10) among all documents of a
labelled set, by document-level BM25 — the document prior alone (finance analyzer, every
document's whole text). It bounds what chunking can change in global mode: a chunk set can
only deliver the gold of a document the ranking reaches within the budget.

    python bench/bench_doc_finding.py [--sets tatqa_dev,finqa_dev,financebench_dev] [--devdata DIR]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from finchunk_pipeline.index.bm25_retriever import BM25Retriever  # noqa: E402


def ranks(folder: Path) -> np.ndarray:
    """Rank of each answerable question's first gold document (1 = best)."""
    docs = pq.read_table(folder / "documents.parquet", columns=["doc_id", "text"]).to_pandas()
    qs = pq.read_table(folder / "questions.parquet").to_pandas()
    qs = qs[qs["gold_passages"].map(len) > 0]
    retriever = BM25Retriever.build(list(docs["text"]), doc_prior=0.0)
    pos = {d: i for i, d in enumerate(docs["doc_id"])}
    scores = retriever.scores_many(list(qs["question"]))
    gold = np.array([pos[list(d)[0]] for d in qs["doc_ids"]])
    own = scores[np.arange(len(gold)), gold]
    return (scores > own[:, None]).sum(axis=1) + 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="tatqa_dev,finqa_dev,financebench_dev")
    ap.add_argument("--devdata", default=os.environ.get("FINCHUNK_DEVDATA",
                                                        str(Path(__file__).resolve().parents[2] / "shared" / "devdata")))
    args = ap.parse_args(argv)
    print("| set | questions | documents | own document first | top 2 | top 3 | top 5 | top 10 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.sets.split(","):
        folder = Path(args.devdata) / name.strip()
        if not folder.exists():
            print(f"| {name} | (not found: {folder}) |")
            continue
        r = ranks(folder)
        n_docs = pq.read_metadata(folder / "documents.parquet").num_rows
        cells = " | ".join(f"{100 * (r <= k).mean():.1f}%" for k in (1, 2, 3, 5, 10))
        print(f"| {name} | {len(r)} | {n_docs} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
