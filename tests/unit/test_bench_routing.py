"""bench/bench_routing.py: budgets beyond the pipeline's (5,000 characters) without changing the
evaluation module, and the routing-only mode on the embedded corpus."""
from __future__ import annotations

import importlib.util

import pandas as pd

from finchunk_pipeline.evaluation import retrieval as retrieval_mod
from finchunk_pipeline.index.bm25_retriever import BM25Retriever
from finchunk_pipeline.routing import Catalog
from finchunk_pipeline.routing.search import Router
from finchunk_pipeline import PROJECT_ROOT


def _bench():
    spec = importlib.util.spec_from_file_location("bench_routing", PROJECT_ROOT / "bench" / "bench_routing.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_evaluate_scores_any_budget_and_restores_the_module():
    bench = _bench()
    before = retrieval_mod.BUDGETS
    text = ["Revenue was 100 million. " * 100, "Dividend of 5 cents. " * 100]   # 2,500 and 2,100 characters
    chunks = pd.DataFrame({"chunk_id": ["a#0", "b#0"], "doc_id": ["a", "b"],
                           "spans": [[{"start": 0, "end": len(text[0])}], [{"start": 0, "end": len(text[1])}]],
                           "embedding_text": text, "source_text": text})
    passages = pd.DataFrame({"passage_id": ["pa", "pb"], "doc_id": ["a", "b"], "start": [0, 0],
                             "end": [len(text[0]), len(text[1])]})
    questions = pd.DataFrame({"question_id": ["q"], "question": ["revenue and dividend?"], "question_type": ["text"],
                              "doc_ids": [["a", "b"]], "gold_passages": [["pa", "pb"]], "answer": [None]})
    router = Router(Catalog.from_frame(pd.DataFrame({"doc_id": ["a", "b"], "issuer": ["A plc", "B plc"]})),
                    chunks["doc_id"].tolist())
    _, s = bench.evaluate(BM25Retriever.build(text), chunks, passages, questions, "routed", router, (1500, 2000, 5000))
    recall = {p["chars"]: p["recall"] for p in s["budget"]}
    assert recall == {1500: 0.5, 2000: 0.5, 5000: 1.0}   # both passages only fit in 5,000 characters
    assert retrieval_mod.BUDGETS == before


def test_routing_only_on_the_embedded_corpus(capsys):
    assert _bench().main(["--routing-only"]) == 0
    out = capsys.readouterr().out
    assert "corpus default: 41 documents, 331 questions" in out
    assert '"accuracy": 1.0' in out and '"none": 0' in out
