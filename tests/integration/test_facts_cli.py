"""`finchunk facts`: --as-of 9999-12-31 (the calendar's last day) answers like any date; a
date the store cannot use is refused with an error naming the option and the value; a
period whose start is after its end is refused."""
from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from finchunk_pipeline.cli import main
from finchunk_pipeline import FactsStore

REV = "us-gaap:Revenues"


def _fact(start, end, fp, value, filed):
    return {"cik": "0001640147", "ticker": "SNOW", "concept": REV, "unit": "USD", "value": value,
            "period_start": start, "period_end": end, "form": "10-K" if fp == "FY" else "10-Q",
            "accession": f"A-{fp}", "filed_at": filed, "fy": 2025, "fp": fp}


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "facts.duckdb"
    with FactsStore(path) as store:
        store.insert([
            _fact(date(2024, 2, 1), date(2025, 1, 31), "FY", 3626.0, datetime(2025, 3, 21, tzinfo=timezone.utc)),
            _fact(date(2024, 2, 1), date(2024, 10, 31), "Q3", 2640.0, datetime(2024, 11, 27, tzinfo=timezone.utc)),
        ])
    return str(path)


def _err(capsys, argv) -> str:
    assert main(["facts", *argv]) == 1
    return capsys.readouterr().err


@pytest.mark.parametrize("as_of", ["0001-01-01T00:00:00+01:00", "0001-01-01T00:30+02:00"])
@pytest.mark.parametrize("command", [
    ["value", "SNOW", REV, "--period", "2024-02-01", "2025-01-31"],
    ["quarter", "SNOW", REV, "--fiscal-year", "2025", "--quarter", "4"],
    ["cross-section", REV, "--fy", "2024", "--fp", "FY"],
])
def test_an_as_of_the_store_cannot_use_names_the_option(db, capsys, command, as_of):
    err = _err(capsys, [*command, "--as-of", as_of, "--db", db])
    assert "--as-of" in err and as_of in err, err


def test_far_dates_the_store_can_use_still_answer(db, capsys):
    # 9999-12-31, the calendar's last day (a common "everything known" date), means the end
    # of that day as any other date does (it failed with "date value out of range")
    for as_of in ("9999-12-31", "2100-12-31", "9999-12-30", "9999-12-31T23:59:59+00:00", "2300-01-01T00:00:00"):
        assert main(["facts", "value", "SNOW", REV, "--period", "2024-02-01", "2025-01-31",
                     "--as-of", as_of, "--db", db]) == 0
        assert capsys.readouterr().out.startswith("3,626 USD")


@pytest.mark.parametrize("command", [
    ["value", "SNOW", REV, "--as-of", "2025-03-21"],
    ["history", "SNOW", REV],
])
def test_a_period_that_starts_after_it_ends_is_refused(db, capsys, command):
    err = _err(capsys, [*command, "--period", "2025-01-31", "2024-02-01", "--db", db])
    assert "--period" in err and "2025-01-31" in err and "after" in err, err
