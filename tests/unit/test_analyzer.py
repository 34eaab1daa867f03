"""Lexical analyzers: the finance analyzer's stems, phrases, fiscal years and accounting concepts."""
from __future__ import annotations

import pytest

from finchunk_pipeline import get_analyzer
from finchunk_pipeline.index.analyzer import CONCEPT_PREFIX
from finchunk_pipeline.index.tokenize import tokenize

FIN = get_analyzer("finance")


def concepts(terms):
    return sorted(t[len(CONCEPT_PREFIX):] for t in terms if t.startswith(CONCEPT_PREFIX))


def test_plain_is_the_tokenizer():
    text = "Revenue rose to $1,234.5 million in FY2024."
    assert get_analyzer("plain").terms(text) == tokenize(text)


def test_statement_names_meet_in_one_concept():
    assert concepts(FIN.terms("CONSOLIDATED BALANCE SHEETS (In millions)")) == ["balance_sheet"]
    assert concepts(FIN.query_terms("Use the statement of financial position.")) == ["balance_sheet"]
    assert concepts(FIN.terms("Consolidated Statements of Operations")) == ["income_statement"]
    assert concepts(FIN.query_terms("based on the income statement")) == ["income_statement"]
    assert concepts(FIN.terms("STATEMENTS OF CASH FLOWS")) == ["cash_flow_statement"]


def test_line_items_by_their_many_names():
    assert "ppe" in concepts(FIN.query_terms("average PP&E between FY2018 and FY2019"))
    assert "ppe" in concepts(FIN.terms("Property and equipment, net 253 282"))
    assert "capex" in concepts(FIN.terms("Purchases of property, plant and equipment (1,061)"))
    assert "cogs" in concepts(FIN.terms("Cost of sales 6,594 2,810"))
    assert "cogs" in concepts(FIN.query_terms("(FY2019 COGS) / (average inventory)"))


def test_a_metric_in_a_question_looks_for_its_parts():
    q = FIN.query_terms("Does the company have positive working capital?")
    assert {"current_assets", "current_liabilities"} <= set(concepts(q))
    # documents are not expanded: the metric's parts come from their own names only
    assert concepts(FIN.terms("working capital was positive")) == []


def test_fiscal_years_stems_and_phrases():
    terms = FIN.terms("FY2019 revenues and FY19 net sales, fiscal 2019")
    assert terms.count("2019") == 3 and "fy2019" not in terms
    assert FIN.terms("revenues")[0] == FIN.terms("revenue")[0]
    assert "net_sale" in FIN.terms("net sales")
    # no phrase with a number in it: "2019_2018" is a column header, not a phrase
    assert not [t for t in FIN.terms("Revenue 2019 2018") if "_" in t and t[0].isdigit()]


def test_unknown_analyzer_is_named():
    with pytest.raises(ValueError, match="unknown analyzer 'klingon'"):
        get_analyzer("klingon")
