"""How often a question's own document ranks first (top 2, 3, 5, 10) among all documents of a
labelled set, by document-level BM25 — the document prior alone (finance analyzer, every
document's whole text). It bounds what chunking can change in global mode: a chunk set can
only deliver the gold of a document the ranking reaches within the budget.

With ``--chunk-sets a,b`` the same table per chunk set of ``data/chunkers.yaml``, by the
pipeline's BM25 over that set's chunks (finance analyzer, document and statement priors, as
the evaluation ranks them globally): a document's rank is that of its first chunk in the
question's chunk ranking. Equal rows for an evidence-aware set and a plain splitter mean the
chunker does not change which document a question finds.

    python bench/bench_doc_finding.py [--sets tatqa_dev,finqa_dev,financebench_dev] [--devdata DIR]
    python bench/bench_doc_finding.py --sets tatqa_dev --chunk-sets evidence-lean,chonkie-recursive
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))   # bench_levers (parse_corpus)

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


def chunker_configs() -> dict:
    """The chunk sets of ``data/chunkers.yaml`` by name."""
    import yaml

    from finchunk_pipeline import parse_chunker_configs

    raw = yaml.safe_load((Path(__file__).resolve().parents[1] / "data" / "chunkers.yaml").read_text())
    return {c.name: c for c in parse_chunker_configs(raw)}


def chunk_ranks(parsed, config, depth: int = 200) -> np.ndarray:
    """Rank of each answerable question's first gold document among the documents of its
    ranked chunks (first chunk per document; beyond ``depth`` chunks: depth + 1).
    ``parsed``: (corpus, parsed documents) of bench_levers.parse_corpus, read once per set."""
    from finchunk_pipeline import chunk_document
    from finchunk_pipeline.storage.chunks import chunks_to_table
    from finchunk_pipeline.index.documents import document_texts

    corpus, docs = parsed
    chunks = chunks_to_table([c for d, m in docs for c in chunk_document(config.chunker, d, m)]).to_pandas()
    retriever = BM25Retriever.build(chunks["embedding_text"].tolist(), "finance", chunks["doc_id"].tolist(),
                                    document_texts(chunks), section_paths=chunks["section_path"].tolist())
    qs = corpus.questions[corpus.questions["gold_passages"].map(len) > 0]
    row_doc = chunks["doc_id"].to_numpy()
    out = []
    for q, hits in zip(qs.to_dict("records"), retriever.search_many(list(qs["question"]), depth)):
        order = list(dict.fromkeys(row_doc[r] for r, _ in hits))
        own = list(q["doc_ids"])[0]
        out.append(order.index(own) + 1 if own in order else depth + 1)
    return np.array(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="tatqa_dev,finqa_dev,financebench_dev")
    ap.add_argument("--devdata", default=os.environ.get("FINCHUNK_DEVDATA",
                                                        str(Path(__file__).resolve().parents[2] / "shared" / "devdata")))
    ap.add_argument("--chunk-sets", default="", help="rank documents by each chunk set's chunk ranking too")
    args = ap.parse_args(argv)
    print("| set | ranking | questions | documents | own document first | top 2 | top 3 | top 5 | top 10 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.sets.split(","):
        folder = Path(args.devdata) / name.strip()
        if not folder.exists():
            print(f"| {name} | (not found: {folder}) |")
            continue
        n_docs = pq.read_metadata(folder / "documents.parquet").num_rows
        chunk_sets = [c.strip() for c in args.chunk_sets.split(",") if c.strip()]
        rankings = [("documents (prior alone)", lambda: ranks(folder))]
        if chunk_sets:
            from bench_levers import parse_corpus

            configs, parsed = chunker_configs(), parse_corpus(folder)   # parsed once for every chunk set
            rankings += [(c, lambda c=c: chunk_ranks(parsed, configs[c])) for c in chunk_sets]
        for label, rank in rankings:
            r = rank()
            cells = " | ".join(f"{100 * (r <= k).mean():.1f}%" for k in (1, 2, 3, 5, 10))
            print(f"| {name} | {label} | {len(r)} | {n_docs} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
