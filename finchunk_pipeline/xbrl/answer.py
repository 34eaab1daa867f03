"""Answer a corpus's point-in-time questions from the facts store.

A question row (questions.parquet) with ``question_type == "point_in_time"`` and ``as_of``
set is parsed into (entity, concept, period) with the convention the synthetic generator
writes (finchunk_pipeline/corpus/synth/filings_html.py, ``_pit_questions``):

    As of <Month D, YYYY>, what were <Issuer>'s reported <measure> for the
    <three|six|nine|twelve> months ended <Month D, YYYY>, in USD millions?

Accepted variations: "was" or "were", "reported" optional, ISO dates, "at <date>" for
balance-sheet (instant) measures ("what was X's total assets at December 31, 2024"), a
scale of "USD millions" / "USD thousands" / "USD" (default millions), and "for fiscal
YYYY" (the fiscal year the company's own 10-K calls YYYY). The entity is a ticker or the
issuer name (names come from the corpus's documents.parquet, see
``FactsStore.names_from_documents``; a ticker of the question's documents is tried too).
``as_of`` is the row's column (the question text's date when the column is empty).
Spanish questions (the es corpus's form) are parsed by ``answer_es.py``; their expected
answers are read as Spanish numbers ("2.235,8").
Measures map to concepts through ``pit_query.MEASURES`` (first concept with a value wins).

Scoring: exact match after numeric normalisation — the expected answer and the fact value
(scaled) are compared at the expected answer's number of decimals.
"""
from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

import pandas as pd

from . import pit
from .answer_es import parse_pregunta, spanish_number
from .pit_query import PitQuery, measure_concepts
from .store import FactsStore

_SPANS = {"three": "Q", "3": "Q", "six": "H1", "6": "H1", "nine": "9M", "9": "9M", "twelve": "FY", "12": "FY"}
_SCALES = {"usd millions": 1e6, "millions": 1e6, "usd thousands": 1e3, "thousands": 1e3,
           "usd billions": 1e9, "usd": 1.0}
_DATE = r"(?:[A-Z][a-z]+ \d{1,2}, \d{4}|\d{4}-\d{2}-\d{2})"
PIT_QUESTION = re.compile(
    rf"^\s*As of (?P<as_of>{_DATE}),\s+what (?:was|were|is|are) (?P<entity>.+?)['\u2019]s? "
    rf"(?:reported )?(?P<measure>.+?) "
    rf"(?:for the (?P<span>three|six|nine|twelve|3|6|9|12) months ended (?P<end>{_DATE})"
    rf"|for fiscal(?: year)? (?P<fy>\d{{4}})"
    rf"|(?:at|as at|as of|on) (?P<instant>{_DATE}))"
    rf"(?:,? in (?P<scale>USD millions|USD thousands|USD billions|USD|millions|thousands))?\s*\??\s*$",
    re.IGNORECASE)


def _parse_date(s: str) -> date:
    s = s.strip()
    if re.match(r"\d{4}-\d{2}-\d{2}$", s):
        return date.fromisoformat(s)
    return datetime.strptime(s, "%B %d, %Y").date()


def parse_question(text: str) -> PitQuery | None:
    m = PIT_QUESTION.match(text or "")
    if not m:
        return parse_pregunta(text)
    concepts = measure_concepts(m["measure"])
    if not concepts:
        return None
    q = PitQuery(entity=m["entity"].strip(), measure=m["measure"].strip(), concepts=concepts,
                 as_of=_parse_date(m["as_of"]),
                 scale=_SCALES.get((m["scale"] or "USD millions").lower(), 1e6))
    if m["end"]:
        q.period_end, q.duration = _parse_date(m["end"]), _SPANS[m["span"].lower()]
    elif m["fy"]:
        q.fiscal_year, q.duration = int(m["fy"]), "FY"
    else:
        q.period_end = _parse_date(m["instant"])
    if any(c.endswith("PerShare") or "EarningsLossPerShare" in c for c in concepts) and not m["scale"]:
        q.scale = 1.0
    return q


def parse_number(s: Any) -> float | None:
    """'1,234.5' / '$1,234.5 million' / '(12.0)' / '−3.4' / '12.5%' -> float."""
    if s is None or (isinstance(s, float) and pd.isna(s)):
        return None
    if isinstance(s, (int, float)):
        return float(s)
    t = str(s).strip().replace("\u2212", "-").replace("\u2013", "-")
    neg = re.search(r"\(\s*[$\u20ac\u00a3]?\s*\d[\d,.]*\s*\)", t) is not None
    m = re.search(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+", t)
    if not m:
        return None
    v = float(m.group(0).replace(",", ""))
    return -abs(v) if neg else v


def _decimals(s: Any) -> int:
    m = re.search(r"\.(\d+)", str(s).replace(",", ""))
    return len(m.group(1)) if m else 0


def _resolve_entity(store: FactsStore, text: str, tickers: list[str]) -> str | None:
    for cand in [text, *tickers]:
        try:
            return store.resolve_entity(cand)
        except LookupError:
            pass
    return store.entity_by_name(text)


def _fy_period_end(store: FactsStore, cik: str, fiscal_year: int, as_of: Any) -> date | None:
    """The end of the fiscal year its own 10-K labels ``fiscal_year`` (known by as_of)."""
    cond, bound = pit._bound_sql(as_of)
    rows = store.con.execute(f"""
        SELECT max(period_end) FILTER (WHERE period_start IS NOT NULL)
        FROM facts WHERE cik = ? AND fy = ? AND fp = 'FY' AND form LIKE '10-K%' AND {cond}""",
        [cik, fiscal_year, bound]).fetchall()
    return rows[0][0] if rows else None


def answer(store: FactsStore, query: PitQuery, as_of: Any = None,
           tickers: list[str] | None = None) -> dict:
    """{'value', 'scaled', 'fact', 'concept', 'cik', 'error'} for one parsed question."""
    as_of = as_of or query.as_of
    cik = _resolve_entity(store, query.entity, tickers or [])
    if cik is None:
        return {"error": f"unknown entity {query.entity!r}"}
    period_end = query.period_end
    if query.fiscal_year is not None:
        period_end = _fy_period_end(store, cik, query.fiscal_year, as_of)
        if period_end is None:
            return {"error": f"no 10-K for fiscal {query.fiscal_year} known by {as_of}", "cik": cik}
    for concept in query.concepts:
        try:
            fact = pit.value_by_duration(store, cik, concept, period_end, query.duration, as_of)
        except KeyError:
            continue
        if fact is not None:
            return {"value": fact.value, "scaled": fact.value / query.scale, "fact": fact,
                    "concept": concept, "cik": cik, "error": None}
    return {"error": f"no {query.measure} fact known by {as_of}", "cik": cik}


def score_point_in_time(questions: pd.DataFrame, store: FactsStore,
                        documents: pd.DataFrame | None = None) -> dict:
    """Answer every point_in_time question with as_of set; exact match after numeric
    normalisation. Returns {total, correct, accuracy, unparsed, rows}."""
    if questions is None or len(questions) == 0 or "question_type" not in questions.columns:
        return {"total": 0, "correct": 0, "accuracy": None, "unparsed": 0, "rows": []}
    qs = questions[questions["question_type"] == "point_in_time"]
    if "as_of" in qs.columns:
        qs = qs[qs["as_of"].notna()]
    doc_tickers: dict[str, str] = {}
    if documents is not None and "ticker" in documents.columns:
        store.names_from_documents(documents)
        doc_tickers = {d: t for d, t in zip(documents["doc_id"], documents["ticker"]) if isinstance(t, str)}
    rows = []
    for r in qs.to_dict("records"):
        expected = r.get("answer")
        query = parse_question(r["question"])
        row = {"question_id": r.get("question_id"), "question": r["question"],
               "as_of": str(pd.Timestamp(r["as_of"]).date()) if r.get("as_of") is not None else None,
               "expected": expected, "predicted": None, "correct": False, "concept": None,
               "accession": None, "filed_at": None, "error": None}
        if query is None:
            row["error"] = "question not in a recognised point-in-time form"
            rows.append(row)
            continue
        as_of = pd.Timestamp(r["as_of"]).date() if r.get("as_of") is not None else query.as_of
        tickers = [doc_tickers[d] for d in (r.get("doc_ids") if r.get("doc_ids") is not None else [])
                   if d in doc_tickers]
        try:
            res = answer(store, query, as_of=as_of, tickers=tickers)
        except (LookupError, ValueError) as exc:
            res = {"error": str(exc)}
        row["error"] = res.get("error")
        if res.get("fact") is not None and query.locale == "es" and expected is not None:
            expected = spanish_number(expected)
        if res.get("fact") is not None:
            fact = res["fact"]
            d = _decimals(expected) if expected is not None else 1
            row.update(predicted=f"{res['scaled']:,.{d}f}", concept=res["concept"],
                       accession=fact.accession, filed_at=str(fact.filed_at))
            exp = parse_number(expected)
            row["correct"] = exp is not None and round(res["scaled"], d) == round(exp, d)
        rows.append(row)
    total = len(rows)
    correct = sum(1 for r in rows if r["correct"])
    return {"total": total, "correct": correct, "accuracy": (correct / total) if total else None,
            "unparsed": sum(1 for r in rows if r["error"] == "question not in a recognised point-in-time form"),
            "rows": rows}
