"""``finchunk facts``: load XBRL facts into the DuckDB store and ask point-in-time questions.

  finchunk facts load PATH... [--ticker T] [--db DB]
  finchunk facts value ENTITY CONCEPT --period START END --as-of DATE [--json]
  finchunk facts history ENTITY CONCEPT --period START END [--json]
  finchunk facts quarter ENTITY CONCEPT --fiscal-year Y --quarter Q --as-of DATE [--json]
  finchunk facts cross-section CONCEPT --as-of DATE (--fy Y --fp FP | --period-end D [--duration Q|H1|9M|FY])

ENTITY is a ticker or a CIK (leading zeros optional); CONCEPT is taxonomy:Name (us-gaap,
ifrs-full, dei, ...). ``--period END`` alone (or START given as "-") names an instant.
"""
from __future__ import annotations

import argparse
import json
from datetime import date, datetime
from pathlib import Path
from typing import Any


def _db_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, help="DuckDB facts store (default: Settings().facts_db)")
    p.add_argument("-v", "--verbose", action="store_true")


def register(subparsers) -> None:
    parser = subparsers.add_parser("facts", help="XBRL facts store and point-in-time look-ups")
    sub = parser.add_subparsers(dest="facts_command", required=True)

    load = sub.add_parser("load", help="load companyfacts JSON files or corpus folders (xbrl_facts.parquet)")
    load.add_argument("paths", nargs="+", metavar="PATH")
    load.add_argument("--ticker", default=None,
                      help="ticker for a companyfacts JSON (the SEC file carries none); one PATH only")
    _db_arg(load)
    load.set_defaults(func=_load)

    def entity_concept(p):
        p.add_argument("entity", metavar="ENTITY", help="ticker or CIK")
        p.add_argument("concept", metavar="CONCEPT", help="taxonomy:Name, e.g. us-gaap:Revenues")
        p.add_argument("--unit", default=None)
        p.add_argument("--json", action="store_true", help="print JSON")
        _db_arg(p)

    value = sub.add_parser("value", help="the value known at a date for one period")
    entity_concept(value)
    value.add_argument("--period", nargs="+", required=True, metavar="DATE",
                       help="START END for a duration, END (or - END) for an instant")
    value.add_argument("--as-of", required=True, help="date (end of that day UTC) or ISO datetime")
    value.set_defaults(func=_value)

    hist = sub.add_parser("history", help="every filed value of one period, in filing order")
    entity_concept(hist)
    hist.add_argument("--period", nargs="+", required=True, metavar="DATE")
    hist.set_defaults(func=_history)

    q = sub.add_parser("quarter", help="a fiscal quarter as known at a date (filed or derived)")
    entity_concept(q)
    q.add_argument("--fiscal-year", type=int, required=True)
    q.add_argument("--quarter", type=int, required=True, choices=(1, 2, 3, 4))
    q.add_argument("--as-of", required=True)
    q.set_defaults(func=_quarter)

    cs = sub.add_parser("cross-section", help="all companies' values of a concept as known at a date")
    cs.add_argument("concept", metavar="CONCEPT")
    cs.add_argument("--as-of", required=True)
    cs.add_argument("--fy", type=int, default=None)
    cs.add_argument("--fp", default=None, help="FY, Q1, Q2, Q3, Q4")
    cs.add_argument("--period-end", default=None)
    cs.add_argument("--duration", default=None, choices=("Q", "H1", "9M", "FY"))
    cs.add_argument("--json", action="store_true")
    _db_arg(cs)
    cs.set_defaults(func=_cross_section)


# --- helpers --------------------------------------------------------------------------------
def _db_path(args) -> Path:
    if args.db:
        return Path(args.db)
    from finchunk_pipeline.settings import Settings
    return Settings().facts_db


def _open(args, write: bool = False):
    from finchunk_pipeline.xbrl.store import FactsStore
    path = _db_path(args)
    if not write and not path.exists():
        raise FileNotFoundError(f"no facts store at {path}: run `finchunk facts load PATH...` first")
    return FactsStore(path, read_only=not write)


def _period(values: list[str]) -> tuple[str | None, str]:
    """--period START END or END, each a strict YYYY-MM-DD (errors name the flag)."""
    from finchunk_pipeline.xbrl.store import parse_date

    if len(values) == 1:
        start, end = None, values[0]
    elif len(values) == 2:
        start, end = (None if values[0] in ("-", "") else values[0]), values[1]
    else:
        raise ValueError("--period takes START END (duration) or END (instant)")
    first = parse_date(start, "--period START")
    last = parse_date(end, "--period END")
    if last is None:
        raise ValueError("--period END is required")
    if first is not None and first > last:
        raise ValueError(f"--period START {start} is after END {end}: give the period's first day, then its last")
    return start, end


# the last day of the calendar (a common "everything known" date): the end of that day, as a
# datetime, since the day after it does not exist
_END_OF_TIME = datetime(9999, 12, 31, 23, 59, 59, 999999)


def _as_of(value: str) -> str | datetime:
    """--as-of checked as the store will use it (the end of a date's day, UTC): an error
    names the option and the value."""
    from finchunk_pipeline.xbrl.store import as_of_bound, parse_as_of

    parsed = parse_as_of(value, "--as-of")
    if parsed == date.max:
        return _END_OF_TIME
    try:
        as_of_bound(parsed)
    except (OverflowError, ValueError) as exc:  # e.g. 0001-01-01T00:00+01:00 is in year 0 in UTC
        raise ValueError(f"invalid --as-of {value!r}: outside the dates the store can compare ({exc})") from None
    return value


def _num(v: float) -> str:
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.6g}"


def _jsonable(v: Any) -> Any:
    import pandas as pd
    if v is None or (isinstance(v, float) and v != v):
        return None
    if isinstance(v, pd.Timestamp):
        v = v.to_pydatetime()
    if isinstance(v, datetime):
        return v.isoformat() + ("Z" if v.tzinfo is None else "")
    if isinstance(v, date):
        return v.isoformat()
    if hasattr(v, "item"):  # numpy scalars
        return _jsonable(v.item())
    try:
        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    return v


# --- commands -------------------------------------------------------------------------------
def _load(args) -> int:
    if args.ticker and len(args.paths) > 1:
        raise ValueError("--ticker applies to one companyfacts file; load files one at a time")
    with _open(args, write=True) as store:
        for p in args.paths:
            r = store.load_path(p, ticker=args.ticker)
            print(f"{r.source}: {r.rows} rows, {r.inserted} new, {r.duplicates} already stored"
                  + (f", {r.conflicts} conflicting (kept the stored value)" if r.conflicts else ""))
        s = store.stats()
        print(f"{store.path}: {s['facts']} facts, {s['entities']} entities, "
              f"{s['concepts']} concepts, {s['filings']} filings")
    return 0


def _value(args) -> int:
    from finchunk_pipeline.xbrl import pit
    start, end = _period(args.period)
    as_of = _as_of(args.as_of)
    with _open(args) as store:
        fact = pit.value(store, args.entity, args.concept, start, end, as_of, unit=args.unit)
    if args.json:
        print(json.dumps(fact.as_json() if fact else None))
    elif fact is None:
        print(f"nothing filed for {args.entity} {args.concept} {start or ''}..{end} by {args.as_of}")
    else:
        print(f"{_num(fact.value)} {fact.unit}  (filed {fact.filed_at:%Y-%m-%d} in {fact.form} {fact.accession})")
    return 0


def _history(args) -> int:
    from finchunk_pipeline.xbrl import pit
    start, end = _period(args.period)
    with _open(args) as store:
        facts = pit.history(store, args.entity, args.concept, start, end, unit=args.unit)
    if args.json:
        print(json.dumps([{**f.as_json(), "fy": f.fy, "fp": f.fp} for f in facts]))
        return 0
    if not facts:
        print(f"no value filed for {args.entity} {args.concept} {start or ''}..{end}")
    for f in facts:
        print(f"{f.filed_at:%Y-%m-%d}  {f.form or '':7} {f.accession}  fy={f.fy} fp={f.fp}  "
              f"{_num(f.value)} {f.unit}")
    return 0


def _quarter(args) -> int:
    from finchunk_pipeline.xbrl import quarters
    as_of = _as_of(args.as_of)
    with _open(args) as store:
        row = quarters.quarter(store, args.entity, args.concept, args.fiscal_year, args.quarter,
                               as_of, unit=args.unit)
    keys = ("value", "unit", "fiscal_year", "quarter", "period_start", "period_end", "method",
            "formula", "filed_value", "derived_value", "accessions", "known_at")
    out = {k: _jsonable(row[k]) for k in keys} if row else None
    if args.json:
        print(json.dumps(out))
    elif out is None:
        print(f"Q{args.quarter} of fiscal {args.fiscal_year} not known for {args.entity} "
              f"{args.concept} by {args.as_of}")
    else:
        how = "filed" if out["method"] == "filed" else f"derived {out['formula']}"
        print(f"FY{out['fiscal_year']} Q{out['quarter']} {out['period_start']}..{out['period_end']}: "
              f"{_num(out['value'])} {out['unit']}  ({how}; from {out['accessions']})")
    return 0


def _cross_section(args) -> int:
    from finchunk_pipeline.xbrl import pit
    as_of = _as_of(args.as_of)
    if args.period_end is not None:
        from finchunk_pipeline.xbrl.store import parse_date

        parse_date(args.period_end, "--period-end")
    with _open(args) as store:
        df = pit.cross_section(store, args.concept, as_of, fy=args.fy, fp=args.fp,
                               period_end=args.period_end, duration=args.duration)
    cols = ["ticker", "cik", "value", "unit", "period_start", "period_end", "filed_at", "form", "accession"]
    rows = [{c: _jsonable(r[c]) for c in cols} for r in df.to_dict("records")]
    for r in rows:
        for c in ("period_start", "period_end"):
            r[c] = r[c][:10] if r[c] else None
    if args.json:
        print(json.dumps(rows))
    else:
        for r in rows:
            print(f"{r['ticker'] or '-':8} {r['cik']}  {r['period_start'] or ''}..{r['period_end']}  "
                  f"{_num(r['value'])} {r['unit']}  (filed {str(r['filed_at'])[:10]} {r['form']})")
        if not rows:
            print("no values")
    return 0
