"""bench/bench_fusion.py: the named copy of a corpus (its questions name their documents, so the
routing analyzer routes them), left out with its source in leave-one-dataset-out, and the rule
the report calls "as shipped" is index/hybrid.py's."""
from __future__ import annotations

import argparse
import importlib.util

import pandas as pd
import pytest

from finchunk_pipeline import PROJECT_ROOT
from finchunk_pipeline.index.hybrid import DENSE_WEIGHT, NAMED_DENSE_WEIGHT
from finchunk_pipeline.routing import Catalog, analyze


def _bench():
    spec = importlib.util.spec_from_file_location("bench_fusion", PROJECT_ROOT / "bench" / "bench_fusion.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _corpus(folder):
    folder.mkdir()
    docs = pd.DataFrame({"doc_id": ["finqa:PKG/2009/page_65", "finqa:STT/2011/page_83"],
                         "title": ["PKG 2009 annual report, page 65", "STT 2011 annual report, page 83"],
                         "doc_type": ["10-K", "10-K"], "issuer": ["PKG", "STT"], "ticker": ["PKG", "STT"],
                         "fiscal_year": [2009, 2011], "text": ["purchase commitments ...", "tax on losses ..."]})
    docs.to_parquet(folder / "documents.parquet")
    pd.DataFrame({"passage_id": ["p1"], "doc_id": ["finqa:PKG/2009/page_65"], "start": [0], "end": [5]}).to_parquet(
        folder / "passages.parquet")
    pd.DataFrame({"question_id": ["q1", "q2"],
                  "question": ["what percentage of commitments are due after 2014?", "what was the tax in 2011?"],
                  "doc_ids": [["finqa:PKG/2009/page_65"], ["finqa:STT/2011/page_83"]]}).to_parquet(
        folder / "questions.parquet")
    return docs


def test_named_copy_names_each_question_s_document_and_links_the_rest(tmp_path):
    bench = _bench()
    docs = _corpus(tmp_path / "finqa_dev")
    out = tmp_path / "finqa_dev-named"
    assert bench.name_questions(argparse.Namespace(corpus=str(tmp_path / "finqa_dev"), out=str(out))) == 0
    q = pd.read_parquet(out / "questions.parquet")
    assert q["question"].tolist() == ["In PKG's 2009 annual report, what percentage of commitments are due after 2014?",
                                      "In STT's 2011 annual report, what was the tax in 2011?"]
    assert (out / "documents.parquet").is_symlink() and (out / "passages.parquet").is_symlink()
    catalog = Catalog.from_frame(docs)
    before = pd.read_parquet(tmp_path / "finqa_dev" / "questions.parquet")["question"]
    assert [analyze(t, catalog).action for t in before] == ["none", "none"]
    routes = [analyze(t, catalog) for t in q["question"]]
    assert [r.action for r in routes] == ["filter", "filter"]
    assert [r.doc_ids for r in routes] == [("finqa:PKG/2009/page_65",), ("finqa:STT/2011/page_83",)]
    # the copy is its source's dataset; its folder must say so
    assert bench.dataset("finqa_dev-named") == "finqa_dev" and bench.dataset("finqa_dev") == "finqa_dev"
    with pytest.raises(SystemExit, match="-named"):
        bench.name_questions(argparse.Namespace(corpus=str(tmp_path / "finqa_dev"), out=str(tmp_path / "copy")))


def test_the_rule_reported_as_shipped_is_the_hybrid_s():
    bench = _bench()
    assert bench.SHIPPED == ("named", (NAMED_DENSE_WEIGHT, DENSE_WEIGHT))
    cell = {"named": [True, False], "recall": {f"wrrf:{NAMED_DENSE_WEIGHT}": [1.0, 1.0], f"wrrf:{DENSE_WEIGHT}": [0.0, 0.0]}}
    assert bench.per_question(cell, *bench.SHIPPED).tolist() == [1.0, 0.0]


def test_grid_counts_the_sets_each_rule_holds_within_a_point_of_the_better_half():
    bench = _bench()
    named, other = f"wrrf:{NAMED_DENSE_WEIGHT}", f"wrrf:{DENSE_WEIGHT}"
    # set a: the named weight helps (hybrid 0.75 against bm25 0.5: +25); set b: it costs 50 points
    a = {"set": "a", "mode": "filtered", "budget": 5000, "named": [True, True],
         "recall": {"bm25": [1.0, 0.0], "dense": [0.0, 0.0], named: [1.0, 0.5], other: [1.0, 0.0], "rrf": [0.0, 0.0]}}
    b = {"set": "b", "mode": "filtered", "budget": 5000, "named": [True, False],
         "recall": {"bm25": [1.0, 1.0], "dense": [0.0, 0.0], named: [0.0, 0.0], other: [1.0, 1.0], "rrf": [1.0, 1.0]}}
    table = bench.grid_table([{"corpus": "c", "embed_backend": bench.DEFAULT_BACKEND, "cells": [a, b]}])
    rows = {line.split(" | ")[3]: line.split(" | ")[4:] for line in table.splitlines()[2:]}
    shipped = rows[f"named {(NAMED_DENSE_WEIGHT, DENSE_WEIGHT)} (as shipped)"]
    assert shipped[:3] == ["1", "-50.0", "-12.50"]       # a: +25, b: -50 (b's first question is named)
    assert rows["wrrf 0.05 (before)"][:3] == ["2", "+0.0", "+0.00"]
    assert rows["rrf (plain)"][:3] == ["1", "-50.0", "-25.00"]
