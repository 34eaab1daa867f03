"""The query analyzer (finchunk_pipeline/routing): names, tickers, abbreviations, periods,
document types, ambiguous questions, on the default corpus's metadata and on hand-made
metadata; and proof that it sees nothing but the question text and documents' metadata."""
from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from finchunk_pipeline.routing import HARD_THRESHOLD, METADATA_COLUMNS, VERSION, Catalog, Route, analyze
from finchunk_pipeline.routing.catalog import short_name, tokenize
from finchunk_pipeline.routing.periods import find_doc_types, find_periods
from finchunk_pipeline import DEFAULT_CORPUS


@pytest.fixture(scope="module")
def default_catalog() -> Catalog:
    return Catalog.from_frame(pd.read_parquet(DEFAULT_CORPUS / "documents.parquet"))


def doc(doc_id, issuer, ticker=None, fy=None, doc_type="10-K", title=None, period_end=None):
    return {"doc_id": doc_id, "issuer": issuer, "ticker": ticker, "fiscal_year": fy, "doc_type": doc_type,
            "title": title or f"{issuer} {fy} {doc_type}", "period_end": period_end}


HAND = [
    doc("axp-2022", "American Express Company", "AXP", 2022),
    doc("awk-2022", "American Water Works Company, Inc.", "AWK", 2022),
    doc("jnj-2022", "Johnson & Johnson", "JNJ", 2022),
    doc("jnj-2023q2", "Johnson & Johnson", "JNJ", 2023, "earnings_call", "Johnson & Johnson Q2 2023 earnings call"),
    doc("jpm-2022q2", "JPMorgan Chase & Co.", None, 2022, "10-Q", "JPMorgan Chase 2022Q2 10-Q"),
    doc("block-2016", "Block, Inc.", "SQ", 2016),
    doc("block-2020", "Block, Inc.", "SQ", 2020),
    doc("mmm-2018", "3M Company", "MMM", 2018),
    doc("mgm-2018", "MGM Resorts International", "MGM", 2018),
    doc("mgm-2023q2", "MGM Resorts International", "MGM", 2023, "10-Q", "MGM Resorts 2023Q2 10-Q"),
    doc("target-2023", "Target Corporation", "TGT", 2023),
    doc("san-2023", "Banco Santander, S.A.", "SAN", 2023, "annual_report"),
    doc("pfe-2021", "Pfizer Inc.", "PFE", 2021),
    doc("pfe-2023q2", "Pfizer Inc.", "PFE", 2023, "10-Q", "Pfizer 2023Q2 10-Q"),
    doc("fl-8k", "Foot Locker, Inc.", "FL", 2022, "8-K", "Foot Locker 2022 8-K"),
    doc("tatqa-1", "unknown", None, None, "annual_report", "TAT-QA annual report excerpt 1"),
    doc("ups-2023", "United Parcel Service, Inc.", "UPS", 2023),
]


@pytest.fixture(scope="module")
def hand() -> Catalog:
    return Catalog.build(HAND)


def kinds(route: Route) -> list[tuple[str, str, str]]:
    return [(m.kind, m.text, m.rule) for m in route.mentions]


# --- names, legal suffixes, tickers -------------------------------------------------------------

def test_full_name_and_year_narrow_to_one_report(default_catalog):
    q = "What was the revenue of Northwind Holdings plc in 2023, per its 2023 annual report?"
    r = analyze(q, default_catalog)
    assert r.action == "filter" and r.doc_ids == ("ar-northwind-holdings-2023",)
    assert r.issuers == ("Northwind Holdings plc",) and r.confidence == 1.0 and r.version == VERSION
    name = next(m for m in r.mentions if m.kind == "issuer")
    assert (name.start, name.end, name.rule) == (q.index("Northwind"), q.index(" in 2023"), "name")
    assert any("kept 1 of 2 Northwind Holdings plc documents" in s for s in r.reasons)


def test_legal_suffix_stripped_and_ticker(default_catalog):
    r = analyze("How many employees did Granite Peak Technologies have at the end of fiscal 2024, per the 10-K?",
                default_catalog)
    assert r.action == "filter" and r.doc_ids == ("10k-granite-peak-technologies-2024",)
    assert ("issuer", "Granite Peak Technologies", "short_name") in kinds(r)
    t = analyze("What were FQCR's revenues for the quarter ended June 30, 2024?", default_catalog)
    assert t.action == "filter" and t.doc_ids == ("10q-granite-peak-technologies-2024q2",)
    assert ("issuer", "FQCR", "ticker") in kinds(t) and ("period", "quarter ended June 30, 2024", "date") in kinds(t)
    # a ticker is matched only as written in capitals
    assert analyze("what were fqcr's revenues?", default_catalog).action == "none"


def test_fiscal_quarter_of_an_off_calendar_year(default_catalog):
    """Bluefin's fiscal year ends June 30: its Q2 FY2024 10-Q ends December 31, 2023."""
    r = analyze("What did Bluefin Therapeutics Corp. report in its Q2 fiscal 2024 10-Q?", default_catalog)
    assert r.doc_ids == ("10q-bluefin-therapeutics-2024q2", "10qa-bluefin-therapeutics-2024q2")
    call = analyze("What did the CFO of Copperline Brands say on the Q3 FY2024 earnings call?", default_catalog)
    assert call.doc_ids == ("call-copperline-brands-2024q3",)
    proxy = analyze("In Granite Peak Technologies Inc.'s 2025 proxy statement, who chairs the board?", default_catalog)
    assert proxy.doc_ids == ("proxy-granite-peak-technologies-2025",)


def test_title_names_a_document(default_catalog):
    r = analyze("What does Meridale Partners expect from Granite Peak Technologies Inc. next year?", default_catalog)
    assert r.action == "filter" and r.doc_ids == ("research-granite-peak-technologies-2024",)
    assert ("document", "Meridale Partners", "title") in kinds(r)


def test_every_default_corpus_question_keeps_its_documents(default_catalog):
    """Measured on the corpus's own questions (labels used only to score, here)."""
    qs = pd.read_parquet(DEFAULT_CORPUS / "questions.parquet")
    routes = [analyze(q, default_catalog) for q in qs["question"]]
    kept = [r.action == "none" or set(ids) <= set(r.doc_ids) for r, ids in zip(routes, qs["doc_ids"])]
    assert all(kept)
    assert sum(r.action == "filter" for r in routes) >= 0.95 * len(qs)


def test_abbreviations_ampersands_and_digits(hand):
    amex = analyze("Does AMEX have an improving operating margin profile as of 2022?", hand)
    assert amex.action == "filter" and amex.doc_ids == ("axp-2022",)
    assert ("issuer", "AMEX", "abbreviation") in kinds(amex)
    for q in ("Are JnJ's FY2022 financials that of a high growth company?", "Is J&J growing in FY2022?"):
        r = analyze(q, hand)
        assert r.action == "filter" and r.doc_ids == ("jnj-2022",), q
    jpm = analyze("In 2022 Q2, which of JPM's business segments had the highest net income?", hand)
    assert jpm.doc_ids == ("jpm-2022q2",) and jpm.issuers == ("JPMorgan Chase & Co.",)
    assert jpm.action == "boost"          # JPM abbreviates only the leading word of "JPMorgan Chase"
    assert analyze("What was 3M's FY2018 capex?", hand).doc_ids == ("mmm-2018",)
    assert analyze("Banco Santander's 2023 annual report: net interest income?", hand).doc_ids == ("san-2023",)
    # a leading word written in capitals; a half matched to the quarter that closes it
    mgm = analyze("Which debt did MGM hold among short term investments in H1 FY2023?", hand)
    assert mgm.action == "filter" and mgm.doc_ids == ("mgm-2023q2",)


def test_common_financial_acronyms_are_no_one(hand):
    r = analyze("What was the EBITDA margin and CAGR of revenue under GAAP in FY2022?", hand)
    assert r.action == "none" and r.doc_ids == ()
    assert [m.kind for m in r.mentions] == ["period"]
    assert "alone name no document" in r.reasons[-1]


# --- ambiguous questions --------------------------------------------------------------------------

def test_two_issuers_named_route_to_both(hand):
    r = analyze("Compare the FY2022 effective tax rates of American Express and Johnson & Johnson.", hand)
    assert r.action == "filter" and r.doc_ids == ("axp-2022", "jnj-2022")
    assert r.issuers == ("American Express Company", "Johnson & Johnson")


def test_shared_leading_word_is_ambiguous_and_only_boosts(hand):
    r = analyze("Which American company had the higher FY2022 revenue?", hand)
    assert r.action == "boost" and r.confidence < HARD_THRESHOLD
    assert r.doc_ids == ("awk-2022", "axp-2022")
    # the longest name wins over the shared word
    full = analyze("What did American Water Works spend on capex in 2022?", hand)
    assert full.action == "filter" and full.doc_ids == ("awk-2022",)


def test_no_issuer_is_searched_globally(hand):
    for q in ("Was there any drop in Cash & Cash equivalents between FY 2023 and Q2 of FY2024?",
              "Were there any board member nominees with more votes against?",
              "what is the block size of the storage array?"):
        r = analyze(q, hand)
        assert r.action == "none" and r.doc_ids == () and r.issuers == (), q


def test_issuer_named_like_a_common_word(hand):
    """Block and Target: routed when written as a name inside a sentence; only boosted at a
    sentence start (maybe just the word); never in lower case."""
    named = analyze("What was the FY2020 revenue growth rate for Block (formerly known as Square)?", hand)
    assert named.action == "filter" and named.doc_ids == ("block-2020",)
    start = analyze("Block sizes grew in 2016.", hand)
    assert start.action == "boost" and start.doc_ids == ("block-2016",)
    assert analyze("What is the target leverage ratio?", hand).action == "none"
    assert analyze("Did Target open new stores in 2023?", hand).doc_ids == ("target-2023",)
    # leading words followed by another name are that other name
    assert analyze("How much revenue came from the United States in 2023?", hand).action == "none"
    assert analyze("What did United report for 2023?", hand).doc_ids == ("ups-2023",)
    # a placeholder issuer ("unknown", TAT-QA) is no one
    assert analyze("Unknown factors drove revenue in 2019.", hand).action == "none"


def test_period_not_found_keeps_the_issuers_documents_and_prefers_the_nearest(hand):
    r = analyze("Were there events that increased Pfizer's net income in 2019?", hand)
    assert r.action == "filter" and r.doc_ids == ("pfe-2021", "pfe-2023q2")
    assert any("not narrowed" in s for s in r.reasons)
    assert r.preferred == ("pfe-2021",)          # nearest fiscal year to 2019
    future = analyze("What production rate changes is MGM forecasting for FY2025?", hand)
    assert future.doc_ids == ("mgm-2018", "mgm-2023q2") and future.preferred == ("mgm-2023q2",)
    # no period named: the latest documents are preferred, none is removed
    now = analyze("How much does Pfizer expect to pay to spin off Upjohn in the future?", hand)
    assert now.doc_ids == ("pfe-2021", "pfe-2023q2") and now.preferred == ("pfe-2023q2",)
    assert "preferring pfe-2023q2" in now.describe()
    # a period that narrows leaves nothing to prefer; one document: nothing to prefer
    assert analyze("What was Pfizer's FY2021 revenue?", hand).preferred == ()
    assert analyze("Is Target's business seasonal?", hand).preferred == ()
    assert analyze("For Pfizer, which region had the biggest drop in Q22023 revenues?", hand).doc_ids == ("pfe-2023q2",)
    assert analyze("What companies did Pfizer acquire, per this 10K report?", hand).doc_ids == ("pfe-2021",)
    assert analyze("Did Foot Locker file an 8-K on its annual meeting?", hand).doc_ids == ("fl-8k",)


def test_quarter_beats_year(hand):
    r = analyze("Did JnJ's net earnings as a percent of sales increase in Q2 of FY2023 compared to Q2 of FY2022?", hand)
    assert r.doc_ids == ("jnj-2023q2",)
    assert any("fiscal quarter" in s for s in r.reasons)


def test_route_is_deterministic_and_serialisable(hand):
    q = "Does AMEX have an improving operating margin profile as of 2022?"
    a, b = analyze(q, hand), analyze(q, Catalog.build(list(reversed(HAND))))
    assert a == b
    d = a.as_dict()
    assert d["action"] == "filter" and d["doc_ids"] == ["axp-2022"] and d["mentions"][0]["text"] == "AMEX"
    assert "AMEX" in a.describe() and "1 of 17 documents" in a.describe()


# --- periods and document types --------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("FY2019", [("fiscal_year", 2019, None)]),
    ("fiscal 2023", [("fiscal_year", 2023, None)]),
    ("FY23 vs FY'22", [("fiscal_year", 2023, None), ("fiscal_year", 2022, None)]),
    ("Q2 2024", [("quarter", 2024, 2)]),
    ("Q2 of FY2024", [("quarter", 2024, 2)]),
    ("Q3 fiscal 2024", [("quarter", 2024, 3)]),
    ("Q22023", [("quarter", 2023, 2)]),
    ("In 2022 Q2,", [("quarter", 2022, 2)]),
    ("third quarter of fiscal 2024", [("quarter", 2024, 3)]),
    ("H1 FY2023", [("half", 2023, 2)]),
    ("FY2015 - FY2017", [("fiscal_year", 2015, None), ("fiscal_year", 2016, None), ("fiscal_year", 2017, None)]),
    ("in 2022, up from $2021 million or 2019%", [("year", 2022, None)]),
])
def test_period_phrases(text, expected):
    assert [(p.kind, p.year, p.quarter) for p in find_periods(text)] == expected


def test_dates_and_doc_types():
    p = find_periods("as of December 31, 2022 and the quarter ended 30 June 2024")
    assert [(x.kind, x.day) for x in p] == [("date", date(2022, 12, 31)), ("date", date(2024, 6, 30))]
    types = {d.text: sorted(d.types) for d in find_doc_types(
        "its 10-K, the 10Q, an 8-K, the earnings call and the annual report; a $10K bonus")}
    assert types == {"10-K": ["10-K", "10-K/A"], "10Q": ["10-Q", "10-Q/A"], "8-K": ["8-K"],
                     "earnings call": ["earnings_call"], "annual report": ["10-K", "10-K/A", "annual_report"]}


def test_short_names_and_tokens():
    assert short_name(tuple(t for t, _, _ in tokenize("The Kraft Heinz Company"))) == ("kraft", "heinz")
    assert short_name(tuple(t for t, _, _ in tokenize("Meridian Global Equity UCITS ETF"))) == ("meridian", "global", "equity")
    assert short_name(tuple(t for t, _, _ in tokenize("Banco Santander, S.A."))) == ("banco", "santander")


# --- the analyzer's inputs: question text and documents' metadata, nothing else ------------------

def test_catalog_reads_metadata_columns_only():
    frame = pd.DataFrame(HAND)
    poisoned = frame.assign(text="Northwind Holdings plc answer 42", doc_ids=[["jnj-2022"]] * len(frame),
                            gold_passages=[["p1"]] * len(frame), answer="42")
    a, b = Catalog.from_frame(frame), Catalog.from_frame(poisoned)
    assert a.fingerprint == b.fingerprint and a.docs == b.docs and a.aliases == b.aliases
    assert set(METADATA_COLUMNS) == {"doc_id", "title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end"}
    assert analyze("What did Northwind Holdings report? answer 42", b).action == "none"
    with pytest.raises(ValueError, match="no doc_id column"):
        Catalog.from_frame(pd.DataFrame({"issuer": ["x"]}))


def test_analyzer_takes_a_string_not_a_question_record(hand):
    with pytest.raises(TypeError, match="question text"):
        analyze({"question": "AMEX?", "doc_ids": ["axp-2022"]}, hand)
    with pytest.raises(TypeError, match="routing Catalog"):
        analyze("AMEX?", pd.DataFrame(HAND))
