"""The statement prior: a question that names a primary statement lifts the chunks inside it,
in the question's own documents only."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from finchunk_pipeline.index.bm25_retriever import BM25Retriever
from finchunk_pipeline.index.documents import document_texts
from finchunk_pipeline.index.entries.bm25 import build_retriever as build_bm25
from finchunk_pipeline.index.statements import BITS, named_statements, row_statements, section_statement
from finchunk_pipeline.storage.indexes import save_index

CF, BS, IS = BITS["cash_flow_statement"], BITS["balance_sheet"], BITS["income_statement"]


@pytest.mark.parametrize("question, mask", [
    ("What is the FY2018 capex? Use the cash flow statement.", CF),
    ("Please rely on the statement of cash flows.", CF),
    ("What was the largest liability in the Balance Sheet in 2022?", BS),
    ("per its statement of financial position", BS),
    ("from the statement of income and the cash flow statement", IS | CF),
    ("Consult the P&L.", IS),
    ("What drove the operating margin?", 0),
    ("Was the balance of the account settled?", 0),     # "balance" alone names no statement
])
def test_named_statements(question, mask):
    assert named_statements(question) == mask


def test_the_innermost_statement_heading_decides():
    assert section_statement(("PART IV", "Item 15", "CONSOLIDATED STATEMENTS OF CASH FLOWS")) == CF
    assert section_statement(("Item 8", "Consolidated Balance Sheets", "Statements of Operations")) == IS
    assert section_statement(("Item 7. MD&A", "Liquidity and Capital Resources")) == 0
    assert section_statement(None) == 0 and section_statement(()) == 0
    paths = [("A", "Consolidated Balance Sheets"), None, ("A", "Consolidated Balance Sheets"), ("x",)]
    assert row_statements(paths).tolist() == [BS, 0, BS, 0]


def _chunks(rows):
    """rows: (doc_id, section path, text); one span per chunk, laid end to end per document."""
    out, pos = [], {}
    for d, path, text in rows:
        s = pos.get(d, 0)
        out.append({"chunk_id": f"c{len(out)}", "doc_id": d, "section_path": list(path), "embedding_text": text,
                    "source_text": text, "view_spans": [{"start": s, "end": s + len(text)}]})
        pos[d] = s + len(text) + 2
    return pd.DataFrame(out)


ROWS = [
    # Northwind: an MD&A paragraph that talks about cash flows, and the statement's own row
    ("northwind", ("Item 7", "Liquidity"), "Operating cash flows rose as cash flow from "
                                           "operations grew."),
    ("northwind", ("Item 8", "Consolidated Statements of Cash Flows"), "Capital expenditures (1,200) (980)"),
    # another issuer's statement row, worded like Northwind's
    ("contoso", ("Item 8", "Consolidated Statements of Cash Flows"), "Capital expenditures (700) (650)"),
    ("contoso", ("Item 7", "Overview"), "Contoso sells software."),
    *[(f"x{i}", ("Item 1",), f"Unrelated business text number {i}.") for i in range(6)],
]
Q = "What were Northwind's capital expenditures? Use the cash flow statement."


def _build(chunks, weight):
    return BM25Retriever.build(chunks["embedding_text"].tolist(), "finance", chunks["doc_id"].tolist(),
                               document_texts(chunks), 1.0, section_paths=chunks["section_path"].tolist(),
                               statement_prior=weight)


def test_the_named_statement_rises_within_the_question_document():
    chunks = _chunks(ROWS)
    off, on = _build(chunks, 0.0), _build(chunks, 0.5)
    northwind = (chunks["doc_id"] == "northwind").to_numpy()
    first = lambda r, mask=None: r.search_many([Q], 1, None if mask is None else [mask])[0][0][0]  # noqa: E731
    # filtered to Northwind: without the prior its MD&A paragraph (more matching words) leads;
    # with it, the statement's row does
    assert first(off, northwind) == 0
    assert first(on, northwind) == 1
    # globally the prior lifts Northwind's statement, never Contoso's (Contoso's document is
    # not one of the question's best): Contoso's row keeps its score
    s_off, s_on = off.scores_many([Q])[0], on.scores_many([Q])[0]
    assert s_on[1] > s_off[1] and s_on[2] == pytest.approx(s_off[2])
    assert first(on) == 1
    # a question naming no statement ranks exactly as without the prior
    q = "Northwind capital expenditures"
    assert np.array_equal(on.scores_many([q])[0], off.scores_many([q])[0])


def test_weight_zero_and_no_sections_are_the_plain_retriever(tmp_path):
    chunks = _chunks(ROWS)
    plain = BM25Retriever.build(chunks["embedding_text"].tolist(), "finance", chunks["doc_id"].tolist(),
                                document_texts(chunks), 1.0)
    assert plain.statement_prior == 0.0 and "statement_prior" not in plain.describe()
    assert np.array_equal(_build(chunks, 0.0).scores_many([Q])[0], plain.scores_many([Q])[0])
    # without the document prior there is no gate: the statement prior stays off
    no_docs = BM25Retriever.build(chunks["embedding_text"].tolist(), "finance",
                                  section_paths=chunks["section_path"].tolist(), statement_prior=0.5)
    assert no_docs.statement_prior == 0.0


def test_round_trip_through_the_index_folder(tmp_path):
    chunks = _chunks(ROWS)
    built = build_bm25(chunks, "finance", 1.0, statement_prior=0.5)
    save_index(built, tmp_path / "bm25")
    loaded = BM25Retriever.from_files(tmp_path / "bm25")
    assert loaded.describe() == built.describe() and loaded.describe()["statement_prior"] == 0.5
    assert loaded.search_many([Q], 3) == built.search_many([Q], 3)
    assert loaded.row_statement.tolist() == row_statements(chunks["section_path"].tolist()).tolist()


def test_the_weights_are_read_and_checked_by_the_pipeline_resource(monkeypatch):
    from finchunk_pipeline.assets.resources import PipelineResource

    monkeypatch.delenv("FINCHUNK_STATEMENT_PRIOR", raising=False)
    monkeypatch.delenv("FINCHUNK_DOC_PRIOR", raising=False)
    assert PipelineResource().statement_prior_weight() == 0.5
    assert PipelineResource(statement_prior="0").statement_prior_weight() == 0.0
    monkeypatch.setenv("FINCHUNK_STATEMENT_PRIOR", "1.25")
    assert PipelineResource().statement_prior_weight() == 1.25
    with pytest.raises(ValueError, match="statement_prior / FINCHUNK_STATEMENT_PRIOR: not a number: 'lots'"):
        PipelineResource(statement_prior="lots").statement_prior_weight()
    with pytest.raises(ValueError, match="statement_prior / FINCHUNK_STATEMENT_PRIOR must be >= 0"):
        PipelineResource(statement_prior="-1").statement_prior_weight()
    assert PipelineResource(doc_prior="2").bm25_settings()[1] == 2.0
    with pytest.raises(ValueError, match="doc_prior / FINCHUNK_DOC_PRIOR: not a number"):
        PipelineResource(doc_prior="x").bm25_settings()
