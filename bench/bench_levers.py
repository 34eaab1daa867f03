"""Each retrieval lever of the evidence-aware policy, measured alone, on real labelled sets.

For a plain splitter (``recursive`` 500) and the evidence-aware small-to-big policy
(``evidence``: structure units of <= 300 characters, one table row per unit with its
caption/header, a header line, delivered as bounded parents of 800 characters), recall at
equal budget under a ladder of settings, each adding one lever to the previous:

  1. ``v1``          plain analyzer, no document prior, budget rule v1 (every chunk pays its
                     whole indexed text), no parent expansion — where we started;
  2. ``+assembler``  budget rule v2: repeated evidence and shared headers paid once;
  3. ``+analyzer``   the finance analyzer (stems, phrases, fiscal years, accounting concepts);
  4. ``+prior``      the document prior (weight 1.0);
  5. ``+expand``     small-to-big delivery (the chunk set's ``expand``; none for recursive).

Same code as the pipeline (parsers, strategies, BM25Retriever, evaluate_retriever), without
Dagster. Budgets: 1,500 for FinQA / TAT-QA (global), 2,000 and 5,000 for FinanceBench
(filtered and global). Usage:

    python bench/bench_levers.py [--sets finqa_dev,tatqa_dev,financebench_dev] [--devdata DIR]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from finchunk_pipeline import chunk_document  # noqa: E402
from finchunk_pipeline import ChunkerConfig  # noqa: E402
from finchunk_pipeline.chunking.expand import expand_chunk  # noqa: E402
from finchunk_pipeline.storage.chunks import chunks_to_table  # noqa: E402
from finchunk_pipeline.parse.content import controls_as_spaces  # noqa: E402
from finchunk_pipeline import load_corpus  # noqa: E402
from finchunk_pipeline.evaluation import budget as budget_rule  # noqa: E402
from finchunk_pipeline import evaluate_retriever  # noqa: E402
from finchunk_pipeline.index.bm25_retriever import BM25Retriever  # noqa: E402
from finchunk_pipeline.index.documents import document_texts  # noqa: E402
from finchunk_pipeline import select_parser  # noqa: E402

META = ("doc_id", "title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end", "filed_at")
POLICIES = {
    "recursive": (ChunkerConfig("recursive", "recursive", {"size": 500}), 0),
    "evidence": (ChunkerConfig("evidence", "structure", {"max_chars": 300, "table_max_chars": 150,
                                                         "link_notes_chars": 0}, header=True,
                               context_fields=("title", "period", "section")), 800),
}
LADDER = [  # (label, analyzer, prior, budget rule, expand)
    ("v1", "plain", 0.0, "1", False),
    ("+assembler", "plain", 0.0, "2", False),
    ("+analyzer", "finance", 0.0, "2", False),
    ("+prior", "finance", 1.0, "2", False),
    ("+expand", "finance", 1.0, "2", True),
]
PLAN = {"finqa_dev": [("global", 1500)], "tatqa_dev": [("global", 1500)],
        "financebench_dev": [("filtered", 2000), ("filtered", 5000), ("global", 5000)]}


def deliver_v1(ranked, budget=None, k=None):
    """Budget rule v1: every chunk pays its whole indexed text, overlaps and headers again."""
    by_doc, used, texts = {}, 0, []
    for i, c in enumerate(ranked):
        if (k is not None and i >= k) or (budget is not None and used >= budget):
            break
        remaining = None if budget is None else budget - used
        if remaining is None or c.n_chars <= remaining:
            by_doc.setdefault(c.doc_id, []).extend(c.spans)
            used += c.n_chars
            texts.append(c.text)
            continue
        body_len = max(1, c.n_chars - c.header_chars)
        body = max(0, remaining - c.header_chars)
        raw_len = sum(e - s for s, e in c.spans)
        by_doc.setdefault(c.doc_id, []).extend(budget_rule.span_prefix(c.spans, (body * raw_len) // body_len))
        used += remaining
        texts.append(c.text[:remaining])
        break
    return {d: budget_rule.merge_spans(s) for d, s in by_doc.items()}, used, "\n\n".join(texts)


def parse_corpus(path: Path):
    corpus = load_corpus(path)
    docs = []
    for rec in corpus.documents.to_dict("records"):
        if rec["doc_id"] in corpus.document_problems:
            continue
        spec = select_parser(rec["doc_type"], rec["format"])
        text, _ = controls_as_spaces(rec["text"])
        docs.append((spec.fn(rec["doc_id"], text, rec), {k: rec.get(k) for k in META}))
    return corpus, docs


def run_set(name: str, devdata: Path) -> list[tuple]:
    t0 = time.perf_counter()
    corpus, docs = parse_corpus(devdata / name)
    by_id = {d.doc_id: d for d, _ in docs}
    rows = []
    for policy, (config, expand) in POLICIES.items():
        chunks = chunks_to_table([c for d, m in docs for c in chunk_document(config.chunker, d, m)]).to_pandas()
        doc_texts = document_texts(chunks)
        memo: dict[int, tuple] = {}

        def expander(row: int, _chunks=chunks, _memo=memo, _n=expand):
            if row not in _memo:
                doc = by_id[_chunks["doc_id"].iat[row]]
                _memo[row] = expand_chunk({"view_spans": _chunks["view_spans"].iat[row]}, doc, _n)
            return _memo[row]

        retrievers: dict[tuple, BM25Retriever] = {}
        for label, analyzer, prior, rule, use_expand in LADDER:
            key = (analyzer, prior)
            if key not in retrievers:
                retrievers[key] = BM25Retriever.build(chunks["embedding_text"].tolist(), analyzer,
                                                      chunks["doc_id"].tolist(), doc_texts, prior)
            cells = []
            for mode, budget in PLAN[name]:
                import finchunk_pipeline.evaluation.retrieval as retrieval

                saved = retrieval.deliver, budget_rule.deliver
                if rule == "1":  # the v1 rule in every budget metric of this evaluation
                    retrieval.deliver = budget_rule.deliver = deliver_v1
                try:
                    s = evaluate_retriever(retrievers[key], chunks, corpus.passages, corpus.questions, mode,
                                           max_k=10, expander=expander if (use_expand and expand) else None,
                                           budgets=(budget,)).summary()
                finally:
                    retrieval.deliver, budget_rule.deliver = saved
                cells.append(next(p["recall"] for p in s["budget"] if p["chars"] == budget))
            rows.append((name, policy, label, cells))
            print(f"{name:17s} {policy:10s} {label:11s} " + "  ".join(
                f"{mode} @{b:,}: {100 * c:5.1f}" for (mode, b), c in zip(PLAN[name], cells)), flush=True)
    print(f"  ({name}: {time.perf_counter() - t0:.0f} s)", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="finqa_dev,tatqa_dev,financebench_dev")
    ap.add_argument("--devdata", default=os.environ.get("FINCHUNK_DEVDATA",
                                                        str(Path(__file__).resolve().parents[2] / "shared" / "devdata")))
    args = ap.parse_args(argv)
    for name in args.sets.split(","):
        run_set(name.strip(), Path(args.devdata))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
