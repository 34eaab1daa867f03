"""XBRL facts: companyfacts parsing, the DuckDB store, point-in-time look-ups, derived
quarters, the facts CLI, point-in-time questions and the Dagster xbrl assets."""
from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from finchunk_pipeline.xbrl import pit, quarters
from finchunk_pipeline.xbrl.companyfacts import companyfacts_rows, read_companyfacts
from finchunk_pipeline import FactsStore
from finchunk_pipeline.xbrl.store import UnknownEntityError

from tests.conftest import DEVDATA  # noqa: E402 (honours FINCHUNK_DEVDATA, e.g. from a git worktree)

SNOW_JSON = DEVDATA / "companyfacts" / "CIK0001640147.json"
SYNTH = Path(__file__).resolve().parents[2] / "data" / "corpus" / "default"
REV = "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
needs_snow = pytest.mark.skipif(not SNOW_JSON.exists(), reason="needs ../shared/devdata")


def utc(*a) -> datetime:
    return datetime(*a, tzinfo=timezone.utc)


def fact(concept="us-gaap:Revenues", value=100.0, start=None, end=date(2024, 3, 31), accession="A-1",
         filed=utc(2024, 5, 6, 20, 5), form="10-Q", cik="0000000042", ticker="EXM", fy=2024, fp="Q1",
         unit="USD") -> dict:
    return {"cik": cik, "ticker": ticker, "concept": concept, "unit": unit, "value": value,
            "period_start": start, "period_end": end, "form": form, "accession": accession,
            "filed_at": filed, "fy": fy, "fp": fp}


@pytest.fixture(scope="module")
def snow_store():
    if not SNOW_JSON.exists():
        pytest.skip("needs ../shared/devdata")
    s = FactsStore()
    s.load_companyfacts(SNOW_JSON, ticker="SNOW")
    yield s
    s.close()


# --- companyfacts parsing -----------------------------------------------------------------------
@needs_snow
def test_companyfacts_parsing_snowflake():
    obj = read_companyfacts(SNOW_JSON)
    rows = companyfacts_rows(obj, ticker="SNOW")
    n = sum(len(v) for t in obj["facts"].values() for c in t.values() for v in c["units"].values())
    assert len(rows) == n
    assert {r["concept"].split(":")[0] for r in rows} == set(obj["facts"])  # dei, us-gaap, srt
    fy25 = [r for r in rows if r["concept"] == REV and r["period_start"] == date(2024, 2, 1)
            and r["period_end"] == date(2025, 1, 31)]
    assert [(r["value"], r["accession"], r["form"]) for r in fy25] == [(3626396000.0, "0001640147-25-000052", "10-K")]
    assert fy25[0]["filed_at"] == utc(2025, 3, 21) and fy25[0]["cik"] == "0001640147"
    instants = [r for r in rows if r["concept"] == "dei:EntityCommonStockSharesOutstanding"]
    assert instants and all(r["period_start"] is None and r["unit"] == "shares" for r in instants)


def test_truncated_companyfacts_is_a_clear_error(tmp_path):
    p = tmp_path / "CIK0000000042.json"
    p.write_text('{"cik": 42, "facts": {"us-gaap": {')
    from finchunk_pipeline.xbrl.companyfacts import CompanyFactsError
    with pytest.raises(CompanyFactsError, match="CIK0000000042.json"):
        read_companyfacts(p)


# --- store -----------------------------------------------------------------------------------------
@needs_snow
def test_dedup_on_reload_and_entity_lookup(tmp_path):
    with FactsStore(tmp_path / "f.duckdb") as s:
        first = s.load_path(SNOW_JSON, ticker="SNOW")
        assert first.inserted == first.rows > 8000
    with FactsStore(tmp_path / "f.duckdb") as s:  # reopened from disk
        again = s.load_path(SNOW_JSON)
        assert again.inserted == 0 and again.duplicates == again.rows and again.conflicts == 0
        assert s.count() == first.rows and s.duplicate_keys() == 0
        for e in ("SNOW", "snow", "1640147", "0001640147", "CIK0001640147", "CIK1640147"):
            assert s.resolve_entity(e) == "0001640147"
        with pytest.raises(UnknownEntityError, match="SNOW"):
            s.resolve_entity("AAPL")


def test_append_only_keeps_first_value_and_counts_conflicts():
    s = FactsStore()
    base = fact(start=date(2024, 1, 1))
    assert s.insert([base, base]).inserted == 1  # repeated within the input
    r = s.insert([{**base, "value": 999.0}, {**base, "accession": "A-2", "filed_at": utc(2024, 6, 1)}])
    assert (r.inserted, r.conflicts) == (1, 1)
    h = pit.history(s, "EXM", "us-gaap:Revenues", date(2024, 1, 1), date(2024, 3, 31))
    assert [(f.accession, f.value) for f in h] == [("A-1", 100.0), ("A-2", 100.0)]
    assert s.duplicate_keys() == 0


# --- point in time ------------------------------------------------------------------------------
def test_amendment_old_value_before_new_value_after():
    s = FactsStore()
    q1 = dict(start=date(2024, 1, 1), end=date(2024, 3, 31))
    s.insert([fact(value=5795.7e6, accession="0000000042-24-000001", filed=utc(2024, 5, 6, 20, 5), **q1),
              fact(value=5695.5e6, accession="0000000042-24-000005", filed=utc(2024, 6, 9, 18, 5),
                   form="10-Q/A", **q1)])
    v = lambda as_of: pit.value(s, "EXM", "us-gaap:Revenues", "2024-01-01", "2024-03-31", as_of)
    assert v("2024-05-05") is None                                     # nothing filed yet
    assert v("2024-05-06").value == 5795.7e6                            # a date = end of that day UTC
    assert v(date(2024, 6, 8)).value == 5795.7e6                        # before the amendment
    assert v(datetime(2024, 6, 9, 18, 4)).value == 5795.7e6             # a minute before acceptance
    assert v("2024-06-09").value == 5695.5e6 and v("2024-06-09").form == "10-Q/A"
    assert v("2025-01-01").accession == "0000000042-24-000005"
    assert [f.value for f in pit.history(s, "42", "us-gaap:Revenues", "2024-01-01", "2024-03-31")] == [5795.7e6, 5695.5e6]
    cs = pit.cross_section(s, "us-gaap:Revenues", "2024-06-01", fy=2024, fp="Q1")
    assert list(cs["value"]) == [5795.7e6]
    cs = pit.cross_section(s, "us-gaap:Revenues", "2024-07-01", period_end="2024-03-31", duration="Q")
    assert list(cs["value"]) == [5695.5e6]


_T0 = datetime(2024, 1, 1)


@st.composite
def fact_sets(draw):
    n = draw(st.integers(1, 16))
    rows, used = [], set()
    for i in range(n):
        key = draw(st.tuples(st.sampled_from(["1", "2"]), st.sampled_from(["us-gaap:A", "ifrs-full:B"]),
                             st.sampled_from([date(2023, 12, 31), date(2024, 3, 31)]), st.booleans()))
        minutes = draw(st.integers(0, 400 * 24 * 60))
        while (key, minutes) in used:
            minutes += 1
        used.add((key, minutes))
        cik, concept, end, instant = key
        rows.append(fact(cik=cik, ticker=f"T{cik}", concept=concept, end=end,
                         start=None if instant else end - timedelta(days=89),
                         value=float(draw(st.integers(-1000, 1000))), accession=f"{cik}-{i:04d}",
                         filed=(_T0 + timedelta(minutes=minutes)).replace(tzinfo=timezone.utc)))
    as_of = draw(st.one_of(
        st.dates(date(2023, 12, 20), date(2025, 3, 1)),
        st.datetimes(datetime(2023, 12, 20), datetime(2025, 3, 1))))
    return rows, as_of


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fact_sets())
def test_property_no_answer_uses_a_fact_filed_after_as_of(data):
    rows, as_of = data
    s = FactsStore()
    s.insert(rows)
    df = pd.DataFrame(rows)
    df["filed"] = df["filed_at"].map(lambda t: t.replace(tzinfo=None))
    bound = (datetime(as_of.year, as_of.month, as_of.day) + timedelta(days=1)
             if not isinstance(as_of, datetime) else as_of)
    known = df[df["filed"] < bound] if not isinstance(as_of, datetime) else df[df["filed"] <= bound]
    for (cik, concept, start, end), _ in df.groupby(["cik", "concept", "period_start", "period_end"], dropna=False):
        start = None if pd.isna(start) else start
        got = pit.value(s, cik, concept, start, end, as_of)
        cand = known[(known["cik"] == cik) & (known["concept"] == concept) & (known["period_end"] == end)
                     & (known["period_start"].isna() if start is None else known["period_start"] == start)]
        if cand.empty:
            assert got is None
        else:
            best = cand.sort_values("filed").iloc[-1]
            assert got is not None and got.filed_at <= bound
            assert (got.accession, got.value) == (best["accession"], best["value"])
    # the bulk view agrees and never shows a later filing either
    kf = pit.known_facts(s, as_of)
    assert len(kf) == known.groupby(["cik", "concept", "period_start", "period_end"], dropna=False).ngroups
    assert (pd.to_datetime(kf["filed_at"]) <= pd.Timestamp(bound)).all()


# --- derived quarters -----------------------------------------------------------------------------
def _year(start: date, ends: list[date], ytd: list[float], filed: list[datetime], cik="0000000042",
          ticker="EXM", fy=2024, extra=()) -> list[dict]:
    """YTD facts (Q1, H1, 9M, FY) of one fiscal year, as 10-Q/10-K filings would tag them."""
    out = []
    for i, (e, v, f) in enumerate(zip(ends, ytd, filed)):
        fp = "FY" if i == 3 else f"Q{i + 1}"
        out.append(fact(cik=cik, ticker=ticker, start=start, end=e, value=v, filed=f,
                        accession=f"{cik}-{fy}-{i}", form="10-K" if i == 3 else "10-Q", fy=fy, fp=fp))
    return out + list(extra)


def test_q4_is_fy_minus_nine_months_december_and_january_year_ends():
    s = FactsStore()
    dec = _year(date(2024, 1, 1), [date(2024, 3, 31), date(2024, 6, 30), date(2024, 9, 30), date(2024, 12, 31)],
                [100, 210, 330, 460], [utc(2024, 5, 1), utc(2024, 8, 1), utc(2024, 11, 1), utc(2025, 2, 20)])
    # fiscal year ending January 31 (Snowflake-like), labelled 2025 by its own filings
    jan = _year(date(2024, 2, 1), [date(2024, 4, 30), date(2024, 7, 31), date(2024, 10, 31), date(2025, 1, 31)],
                [50, 120, 200, 300], [utc(2024, 6, 1), utc(2024, 9, 1), utc(2024, 12, 1), utc(2025, 3, 20)],
                cik="0000000077", ticker="JAN", fy=2025,
                extra=[fact(cik="0000000077", ticker="JAN", start=date(2024, 5, 1), end=date(2024, 7, 31),
                            value=70, accession="0000000077-2025-1", fy=2025, fp="Q2", filed=utc(2024, 9, 1))])
    s.insert(dec + jan)
    q4 = quarters.quarter(s, "EXM", "us-gaap:Revenues", 2024, 4, "2025-02-20")
    assert q4["value"] == 130 and q4["method"] == "derived" and q4["formula"] == "FY - 9M"
    assert (q4["period_start"], q4["period_end"]) == (date(2024, 10, 1), date(2024, 12, 31))
    assert quarters.quarter(s, "EXM", "us-gaap:Revenues", 2024, 4, "2025-02-19") is None  # 10-K not out
    assert quarters.quarter(s, "EXM", "us-gaap:Revenues", 2024, 2, "2024-08-01")["value"] == 110  # H1 - Q1
    assert quarters.quarter(s, "EXM", "us-gaap:Revenues", 2024, 3, "2024-11-01")["value"] == 120  # 9M - H1
    j4 = quarters.quarter(s, "JAN", "us-gaap:Revenues", 2025, 4, "2025-03-20")
    assert j4["value"] == 100 and (j4["period_start"], j4["period_end"]) == (date(2024, 11, 1), date(2025, 1, 31))
    j2 = quarters.quarter(s, "JAN", "us-gaap:Revenues", 2025, 2, "2024-09-01")
    assert j2["method"] == "filed" and j2["value"] == 70 and j2["derived_value"] == 70
    assert quarters.inconsistencies(quarters.derive_quarters(s, "2026-01-01")).empty


def test_quarters_use_only_facts_known_then_and_eps_is_never_derived():
    s = FactsStore()
    rows = _year(date(2024, 1, 1), [date(2024, 3, 31), date(2024, 6, 30), date(2024, 9, 30), date(2024, 12, 31)],
                 [100, 210, 330, 460], [utc(2024, 5, 1), utc(2024, 8, 1), utc(2024, 11, 1), utc(2025, 2, 20)])
    # the 9M figure is restated by a 10-Q/A after the 10-K
    rows.append(fact(start=date(2024, 1, 1), end=date(2024, 9, 30), value=320, accession="0000000042-25-9",
                     form="10-Q/A", filed=utc(2025, 4, 1), fp="Q3"))
    rows += [{**r, "concept": "us-gaap:EarningsPerShareDiluted", "unit": "USD/shares", "value": r["value"] / 100}
             for r in rows[:4]]
    s.insert(rows)
    assert quarters.quarter(s, "EXM", "us-gaap:Revenues", 2024, 4, "2025-03-01")["value"] == 130
    assert quarters.quarter(s, "EXM", "us-gaap:Revenues", 2024, 4, "2025-04-01")["value"] == 140
    assert quarters.quarter(s, "EXM", "us-gaap:EarningsPerShareDiluted", 2024, 4, "2025-03-01") is None


@needs_snow
def test_snowflake_q4_derived_equals_fy_minus_nine_months(snow_store):
    obj = read_companyfacts(SNOW_JSON)
    vals = obj["facts"]["us-gaap"]["RevenueFromContractWithCustomerExcludingAssessedTax"]["units"]["USD"]
    by_period = {(v["start"], v["end"]): v["val"] for v in vals}
    q = quarters.derive_quarters(snow_store, "2025-12-31", entity="SNOW", concept=REV)
    q4 = q[q["quarter"] == 4]
    assert len(q4) >= 5
    for r in q4.itertuples():
        fy_start = date(r.period_end.year - 1, 2, 1)
        fy = by_period[(fy_start.isoformat(), r.period_end.isoformat())]
        nine = by_period[(fy_start.isoformat(), (r.period_start - timedelta(days=1)).isoformat())]
        assert r.value == fy - nine and r.method == "derived"
    fy2025 = q4[q4["fiscal_year"] == 2025].iloc[0]  # Snowflake's fiscal 2025 ends 2025-01-31
    assert fy2025["period_end"] == date(2025, 1, 31) and fy2025["value"] == 3626396000 - 2639626000
    # before the FY2025 10-K was filed (2025-03-21) Q4 could not be known
    assert quarters.quarter(snow_store, "SNOW", REV, 2025, 4, "2025-03-20") is None


# --- CLI --------------------------------------------------------------------------------------------
@needs_snow
def test_cli_json_output_shapes(tmp_path, capsys, monkeypatch):
    import finchunk_pipeline.cli as cli
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("facts",))
    db = str(tmp_path / "facts.duckdb")
    assert cli.main(["facts", "load", str(SNOW_JSON), "--ticker", "SNOW", "--db", db]) == 0
    assert "8163 new" in capsys.readouterr().out

    def run(*argv):
        assert cli.main(["facts", *argv, "--db", db]) == 0
        return json.loads(capsys.readouterr().out)

    out = run("value", "SNOW", REV, "--period", "2024-02-01", "2025-01-31", "--as-of", "2025-03-21", "--json")
    assert out == {"value": 3626396000.0, "unit": "USD", "filed_at": "2025-03-21T00:00:00Z",
                   "accession": "0001640147-25-000052", "form": "10-K"}
    assert run("value", "1640147", REV, "--period", "2024-02-01", "2025-01-31", "--as-of", "2025-03-20", "--json") is None
    out = run("value", "0001640147", "us-gaap:Assets", "--period", "2025-01-31", "--as-of", "2025-12-31", "--json")
    assert set(out) == {"value", "unit", "filed_at", "accession", "form"}
    out = run("quarter", "SNOW", REV, "--fiscal-year", "2025", "--quarter", "4", "--as-of", "2025-03-21", "--json")
    assert out["value"] == 986770000.0 and out["method"] == "derived" and out["period_end"] == "2025-01-31"
    hist = run("history", "SNOW", REV, "--period", "2022-02-01", "2023-01-31", "--json")
    assert [h["filed_at"][:10] for h in hist] == ["2023-03-29", "2024-03-26", "2025-03-21"]
    assert cli.main(["facts", "value", "NOPE", REV, "--period", "2024-02-01", "2025-01-31",
                     "--as-of", "2025-03-21", "--db", db]) == 1
    assert "unknown entity" in capsys.readouterr().err


# --- point-in-time questions --------------------------------------------------------------------
def test_score_point_in_time_on_hand_made_questions():
    from finchunk_pipeline.xbrl.answer import parse_number, parse_question, score_point_in_time
    s = FactsStore()
    q1 = dict(start=date(2024, 1, 1), end=date(2024, 3, 31))
    s.insert([fact(value=5795.7e6, accession="X-1", filed=utc(2024, 5, 6, 20, 5), **q1),
              fact(value=5695.5e6, accession="X-5", filed=utc(2024, 6, 9, 18, 5), form="10-Q/A", **q1)])
    docs = pd.DataFrame({"doc_id": ["d1"], "ticker": ["EXM"], "issuer": ["Example Corp."]})
    text = ("As of {d}, what were Example Corp.'s reported revenues for the three months ended "
            "March 31, 2024, in USD millions?")
    qs = pd.DataFrame({
        "question_id": ["a", "b", "c"], "question_type": ["point_in_time"] * 3,
        "question": [text.format(d="May 20, 2024"), text.format(d="June 18, 2024"), "What is the revenue?"],
        "doc_ids": [["d1"], ["d1"], ["d1"]], "answer": ["5,795.7", "5,695.5", "1"],
        "as_of": [date(2024, 5, 20), date(2024, 6, 18), date(2024, 6, 18)]})
    r = score_point_in_time(qs, s, documents=docs)
    assert (r["total"], r["correct"], r["unparsed"]) == (3, 2, 1)
    assert [x["accession"] for x in r["rows"][:2]] == ["X-1", "X-5"]
    q = parse_question("As of 2024-06-18, what was EXM's total assets at March 31, 2024?")
    assert q.concepts[0] == "us-gaap:Assets" and q.duration is None and q.period_end == date(2024, 3, 31)
    assert parse_number("$(1,234.5) million") == -1234.5


@pytest.mark.skipif(not (SYNTH / "xbrl_facts.parquet").exists(), reason="synthetic corpus not generated")
def test_synthetic_corpus_point_in_time_and_q4():
    from finchunk_pipeline.xbrl.answer import parse_number, score_point_in_time
    s = FactsStore()
    s.load_path(SYNTH)
    if s.count() == 0:
        pytest.skip("synthetic corpus has no xbrl facts yet")
    questions = pd.read_parquet(SYNTH / "questions.parquet")
    documents = pd.read_parquet(SYNTH / "documents.parquet", columns=["doc_id", "ticker", "issuer"])
    r = score_point_in_time(questions, s, documents=documents)
    if r["total"]:
        assert r["correct"] == r["total"], [x for x in r["rows"] if not x["correct"]][:3]
    # "fourth-quarter fiscal YYYY revenues (fiscal year minus the first nine months)" = derived Q4
    pat = re.compile(r"What (?:was|were) (?P<name>.+?)'s fourth-quarter fiscal (?P<fy>\d{4}) "
                     r"(?P<what>revenues|net income)")
    checked = 0
    for row in questions[questions["question_type"] == "calculation"].itertuples():
        m = pat.match(row.question)
        if not m:
            continue
        cik = s.entity_by_name(m["name"])
        concept = {"revenues": "us-gaap:Revenues", "net income": "us-gaap:NetIncomeLoss"}[m["what"]]
        q4 = quarters.quarter(s, cik, concept, int(m["fy"]), 4, "2030-01-01")
        assert q4 is not None and q4["method"] == "derived", row.question
        assert round(q4["value"] / 1e6, 1) == parse_number(row.answer), row.question
        checked += 1
    assert checked > 0
    assert quarters.inconsistencies(quarters.derive_quarters(s, "2030-01-01")).empty


# --- Dagster ------------------------------------------------------------------------------------
def test_dagster_assets_and_checks(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from dagster import DagsterInstance, materialize

    from finchunk_pipeline.assets.xbrl import XBRL_ASSETS, XBRL_CHECKS, FactsStoreResource
    from finchunk_pipeline.corpus import schema
    from finchunk_pipeline.definitions import resources
    assert set(resources()) == {"pipeline", "facts_store"}  # built in one place: definitions.resources

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    rows = _year(date(2024, 1, 1), [date(2024, 3, 31), date(2024, 6, 30), date(2024, 9, 30), date(2024, 12, 31)],
                 [100, 210, 330, 460], [utc(2024, 5, 1), utc(2024, 8, 1), utc(2024, 11, 1), utc(2025, 2, 20)])
    rows.append(fact(start=date(2024, 4, 1), end=date(2024, 6, 30), value=110, accession="0000000042-2024-1", fp="Q2",
                     filed=utc(2024, 8, 1)))
    pq.write_table(pa.Table.from_pylist(rows, schema=schema.XBRL_FACTS), corpus / "xbrl_facts.parquet")
    cf = tmp_path / "CIK0000000077.json"
    cf.write_text(json.dumps({"cik": 77, "entityName": "Jan Corp", "facts": {"us-gaap": {"Revenues": {"units": {"USD": [
        {"start": "2024-02-01", "end": "2024-10-31", "val": 200, "accn": "77-1", "fy": 2025, "fp": "Q3",
         "form": "10-Q", "filed": "2024-12-01"},
        {"start": "2024-02-01", "end": "2025-01-31", "val": 300, "accn": "77-2", "fy": 2025, "fp": "FY",
         "form": "10-K", "filed": "2025-03-20"}]}}}}}))
    res = FactsStoreResource(db_path=str(tmp_path / "facts.duckdb"), corpus_dir=str(corpus),
                             companyfacts_paths=[str(cf)], tickers={"77": "JAN"})
    for attempt in range(2):  # the second run reloads the same sources: nothing new, checks still pass
        result = materialize([*XBRL_ASSETS, *XBRL_CHECKS], resources={"facts_store": res},
                             instance=DagsterInstance.ephemeral())
        assert result.success
        checks = {e.check_name: e.passed for e in result.get_asset_check_evaluations()}
        assert checks == {"xbrl_facts_no_duplicates": True, "xbrl_facts_not_filed_in_future": True,
                          "xbrl_quarters_consistent": True}
        md = {m.asset_key.path[-1]: m.materialization.metadata for m in result.get_asset_materialization_events()}
        assert md["xbrl_facts"]["facts"].value == len(rows) + 2
        assert md["xbrl_facts"]["new_rows"].value == (len(rows) + 2 if attempt == 0 else 0)
        assert md["xbrl_facts"]["entities"].value == 2 and "| entity |" in md["xbrl_facts"]["preview"].value
        assert md["xbrl_quarterly"]["derived"].value >= 2
    with FactsStore(tmp_path / "facts.duckdb", read_only=True) as s:
        q = s.frame("SELECT * FROM quarters WHERE quarter = 4 ORDER BY cik")
        assert list(q["value"]) == [130, 100] and list(q["ticker"]) == ["EXM", "JAN"]
