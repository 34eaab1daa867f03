"""XBRL inputs a user types or a file carries: concept names are never patterns, dates are
validated strictly, companyfacts errors name the file and the value."""
from __future__ import annotations

import re
from datetime import date, datetime, timezone

import pytest

from finchunk_pipeline.xbrl import pit
from finchunk_pipeline import FactsStore


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


INJECTION = "2023-02-01'; DROP TABLE facts; --"


@pytest.mark.parametrize("bad", [INJECTION, "2023-02-01x", "2023-2-1", "2023-02-30", "20230201 ", "Feb 1 2023"])
def test_period_dates_are_validated_strictly(store, bad):
    with pytest.raises(ValueError, match="invalid period end"):
        pit.value(store, "EXM", "RevenueNet", "2024-01-01", bad, "2024-06-01")
    with pytest.raises(ValueError, match="invalid period start"):
        pit.history(store, "EXM", "RevenueNet", bad, "2024-03-31")
    assert store.count() == 3  # nothing was executed as SQL


@pytest.mark.parametrize("bad", [INJECTION, "2024-06-01x", "2024-06-01T25:00", "06/01/2024", "2024-06"])
def test_as_of_is_validated_strictly(store, bad):
    with pytest.raises(ValueError, match="invalid as_of"):
        pit.value(store, "EXM", "RevenueNet", "2024-01-01", "2024-03-31", bad)


def test_valid_dates_and_datetimes_still_work(store):
    for as_of in ("2024-06-01", "2024-05-06T00:00:00Z", "2024-05-06 00:00", "2024-05-06T00:00:00+00:00",
                  date(2024, 6, 1), datetime(2024, 6, 1)):
        assert pit.value(store, "EXM", "RevenueNet", "2024-01-01", "2024-03-31", as_of).value == 1.0
    assert pit.value(store, "EXM", "RevenueNet", date(2024, 1, 1), "2024-03-31", "2024-05-05") is None


def test_cli_names_the_flag_of_a_bad_date(tmp_path, capsys, monkeypatch):
    import finchunk_pipeline.cli as cli

    monkeypatch.setattr(cli, "COMMAND_MODULES", ("facts",))
    db = tmp_path / "facts.duckdb"
    with FactsStore(db) as s:
        s.insert([_fact("us-gaap:RevenueNet", 1.0)])
    base = ["facts", "value", "EXM", "us-gaap:RevenueNet", "--db", str(db)]
    assert cli.main(base + ["--period", "2024-01-01", INJECTION, "--as-of", "2024-06-01"]) == 1
    assert "invalid --period END" in capsys.readouterr().err
    assert cli.main(base + ["--period", "2024-01-01", "2024-03-31", "--as-of", INJECTION]) == 1
    assert "invalid --as-of" in capsys.readouterr().err
    assert cli.main(base + ["--period", "2024-01-01", "2024-03-31", "--as-of", "2024-06-01", "--json"]) == 0
    assert '"value": 1.0' in capsys.readouterr().out


# --- companyfacts errors name the file ----------------------------------------------------------
def _companyfacts(values: list) -> dict:
    return {"cik": 42, "entityName": "Example", "facts": {"us-gaap": {"Revenues": {"units": {"USD": values}}}}}


GOOD = {"start": "2024-01-01", "end": "2024-03-31", "val": 5, "accn": "A-1", "fy": 2024, "fp": "Q1",
        "form": "10-Q", "filed": "2024-05-06"}


@pytest.mark.parametrize("field,value,message", [
    ("end", "2024-13-45", "bad end '2024-13-45'"),
    ("end", "2024-03-31'; DROP", "bad end"),
    ("start", "31/03/2024", "bad start"),
    ("filed", "yesterday", "bad filed"),
    ("val", "1,000", "bad val '1,000'"),
    ("val", "NaN", "bad val"),
    ("val", True, "bad val True"),
])
def test_bad_companyfacts_value_names_the_file_concept_and_value(tmp_path, field, value, message):
    import json

    from finchunk_pipeline.xbrl.companyfacts import CompanyFactsError

    path = tmp_path / "CIK0000000042.json"
    path.write_text(json.dumps(_companyfacts([GOOD, {**GOOD, "accn": "A-2", field: value}])))
    with FactsStore() as s, pytest.raises(CompanyFactsError) as exc:
        s.load_companyfacts(path)
    text = str(exc.value)
    assert str(path) in text and "us-gaap:Revenues [USD] value #1" in text and message in text
    # the same through the Dagster asset's path (the JSON read first, then loaded)
    from finchunk_pipeline.xbrl.companyfacts import read_companyfacts

    with FactsStore() as s, pytest.raises(CompanyFactsError, match=re.escape(str(path))):
        s.load_companyfacts(read_companyfacts(path), source=str(path))


@pytest.mark.parametrize("facts", [[], {"us-gaap": []}, {"us-gaap": {"Revenues": {"units": {"USD": {}}}}},
                                   {"us-gaap": {"Revenues": {"units": {"USD": ["x"]}}}}])
def test_malformed_companyfacts_shape_is_an_error_naming_the_source(facts):
    from finchunk_pipeline.xbrl.companyfacts import CompanyFactsError, companyfacts_rows

    with pytest.raises(CompanyFactsError, match="https://example.test/CIK42.json"):
        companyfacts_rows({"cik": 42, "facts": facts}, source="https://example.test/CIK42.json")
