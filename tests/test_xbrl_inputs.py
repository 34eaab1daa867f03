"""XBRL inputs a user types or a file carries: concept names are never patterns, dates are
validated strictly, companyfacts errors name the file and the value."""
from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from finchunk_pipeline.xbrl import pit
from finchunk_pipeline.xbrl.store import FactsStore


def _fact(concept: str, value: float, accession: str = "A-1") -> dict:
    return {"cik": "0000000042", "ticker": "EXM", "concept": concept, "unit": "USD", "value": value,
            "period_start": date(2024, 1, 1), "period_end": date(2024, 3, 31), "form": "10-Q",
            "accession": accession, "filed_at": datetime(2024, 5, 6, tzinfo=timezone.utc),
            "fy": 2024, "fp": "Q1"}


@pytest.fixture
def store():
    s = FactsStore()
    s.insert([_fact("us-gaap:RevenueNet", 1.0), _fact("us-gaap:Revenue_Net", 2.0, "A-2"),
              _fact("us-gaap:CostOfRevenue", 3.0, "A-3")])
    yield s
    s.close()


@pytest.mark.parametrize("name", ["Revenue%", "Revenue_et", "%", "_evenueNet", "%Revenue"])
def test_wildcards_in_a_bare_concept_match_nothing(store, name):
    with pytest.raises(KeyError, match="unknown concept"):
        store.resolve_concept(name)


def test_bare_concept_matches_its_exact_name(store):
    assert store.resolve_concept("RevenueNet") == "us-gaap:RevenueNet"
    assert store.resolve_concept("Revenue_Net") == "us-gaap:Revenue_Net"
    fact = pit.value(store, "EXM", "Revenue_Net", "2024-01-01", "2024-03-31", "2024-06-01")
    assert fact is not None and fact.value == 2.0
