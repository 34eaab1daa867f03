"""Point-in-time look-ups: what was known about a figure on a given date.

``as_of`` may be a date (the end of that day UTC: anything filed that day counts), a
datetime (naive = UTC, inclusive) or an ISO string. A value filed after ``as_of`` —
including a later amendment — is never used. Ties on ``filed_at`` (companyfacts only has
the filing date) go to the amendment form, then the higher accession number.
Every query takes its values as parameters.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date, datetime
from typing import Any

import pandas as pd

from .store import FactsStore, as_of_bound, parse_date

# filing order among facts of one period: the newest wins
_ORDER = "filed_at {d}, (form LIKE '%/A') {d}, accession {d}"

# duration windows (days) of fiscal periods; 52/53-week years and quarters vary a little
DURATIONS = {
    "Q": (80, 100),     # one quarter (or a Q1 year-to-date)
    "H1": (170, 195),   # six months year-to-date
    "9M": (260, 285),   # nine months year-to-date
    "FY": (350, 380),   # fiscal year
}


@dataclass
class Fact:
    value: float
    unit: str
    filed_at: datetime
    accession: str
    form: str | None
    concept: str
    cik: str
    ticker: str | None
    period_start: date | None
    period_end: date
    fy: int | None
    fp: str | None

    def as_json(self) -> dict[str, Any]:
        """The CLI --json shape."""
        return {"value": self.value, "unit": self.unit,
                "filed_at": self.filed_at.isoformat() + "Z" if self.filed_at else None,
                "accession": self.accession, "form": self.form}

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _d(v: Any, what: str = "period date") -> date | None:
    """A period date, strictly (store.parse_date): "2023-02-01'; DROP ..." is an error, not
    2023-02-01."""
    return parse_date(v, what)


def _bound_sql(as_of: Any) -> tuple[str, datetime]:
    bound, inclusive = as_of_bound(as_of)
    return ("filed_at <= ?" if inclusive else "filed_at < ?"), bound


_SELECT = """SELECT f.value, f.unit, f.filed_at, f.accession, f.form, f.concept, f.cik,
                    COALESCE(e.ticker, f.ticker) AS ticker, f.period_start, f.period_end, f.fy, f.fp
             FROM facts f LEFT JOIN entities e USING (cik)"""


def _facts(rows) -> list[Fact]:
    return [Fact(*r) for r in rows]


def value(store: FactsStore, entity: str, concept: str, period_start: Any, period_end: Any,
          as_of: Any, unit: str | None = None) -> Fact | None:
    """The latest value filed at or before ``as_of`` for this exact period (period_start
    None for an instant), or None when nothing was known yet."""
    cik = store.resolve_entity(entity)
    concept = store.resolve_concept(concept, cik)
    cond, bound = _bound_sql(as_of)
    rows = store.con.execute(f"""
        {_SELECT}
        WHERE f.cik = ? AND f.concept = ? AND f.period_end = ?
          AND f.period_start IS NOT DISTINCT FROM ? AND (? IS NULL OR f.unit = ?)
          AND f.{cond}
        ORDER BY {_ORDER.format(d='DESC')} LIMIT 1""",
        [cik, concept, _d(period_end, "period end"), _d(period_start, "period start"), unit, unit, bound]).fetchall()
    return _facts(rows)[0] if rows else None


def history(store: FactsStore, entity: str, concept: str, period_start: Any, period_end: Any,
            unit: str | None = None) -> list[Fact]:
    """Every filed value for this period, in filing order."""
    cik = store.resolve_entity(entity)
    concept = store.resolve_concept(concept, cik)
    rows = store.con.execute(f"""
        {_SELECT}
        WHERE f.cik = ? AND f.concept = ? AND f.period_end = ?
          AND f.period_start IS NOT DISTINCT FROM ? AND (? IS NULL OR f.unit = ?)
        ORDER BY {_ORDER.format(d='ASC')}""",
        [cik, concept, _d(period_end, "period end"), _d(period_start, "period start"), unit, unit]).fetchall()
    return _facts(rows)


def known_facts(store: FactsStore, as_of: Any, cik: str | None = None,
                concept: str | None = None) -> pd.DataFrame:
    """For every (cik, concept, unit, period) the latest value filed by ``as_of``."""
    cond, bound = _bound_sql(as_of)
    return store.con.execute(f"""
        {_SELECT}
        WHERE f.{cond} AND (? IS NULL OR f.cik = ?) AND (? IS NULL OR f.concept = ?)
        QUALIFY row_number() OVER (
            PARTITION BY f.cik, f.concept, f.unit, f.period_start, f.period_end
            ORDER BY {_ORDER.format(d='DESC')}) = 1
        ORDER BY f.cik, f.concept, f.unit, f.period_end, f.period_start""",
        [bound, cik, cik, concept, concept]).df()


def cross_section(store: FactsStore, concept: str, as_of: Any, *, period_end: Any = None,
                  period_start: Any = None, duration: str | None = None,
                  fy: int | None = None, fp: str | None = None) -> pd.DataFrame:
    """All companies' values of ``concept`` as known at ``as_of``, for either

    - a period given by dates: ``period_end`` (+ ``period_start``, or ``duration`` one of
      Q/H1/9M/FY, or neither: every period ending that day), or
    - a fiscal period given by labels ``fy`` + ``fp`` (FY, Q1..Q4): for each company, the
      period its own ``fy``/``fp`` filing reported (the latest duration end in that filing,
      filed by ``as_of``), with a one-year duration for FY and one quarter for Q1..Q4;
      the value is then the latest filed by ``as_of`` for that period, from any filing.
    """
    cond, bound = _bound_sql(as_of)
    if (period_end is None) == (fy is None):
        raise ValueError("give either period_end or fy+fp")
    if fy is not None:
        if not fp:
            raise ValueError("fy needs fp (FY, Q1, Q2, Q3 or Q4)")
        lo, hi = DURATIONS["FY" if fp.upper() == "FY" else "Q"]
        join = f"""JOIN (SELECT cik, max(period_end) AS pe FROM facts
                         WHERE fy = ? AND upper(fp) = upper(?) AND period_start IS NOT NULL AND {cond}
                         GROUP BY cik) t ON f.cik = t.cik AND f.period_end = t.pe"""
        where = "(f.period_start IS NULL OR datediff('day', f.period_start, f.period_end) + 1 BETWEEN ? AND ?)"
        params: list = [fy, fp, bound, lo, hi]
    else:
        join = ""
        ps = _d(period_start, "period start")
        where = "f.period_end = ? AND (? IS NULL OR f.period_start = ?)"
        params = [_d(period_end, "period end"), ps, ps]
        if duration:
            lo, hi = DURATIONS[duration.upper()]
            where += " AND datediff('day', f.period_start, f.period_end) + 1 BETWEEN ? AND ?"
            params += [lo, hi]
    sql = f"""
        {_SELECT} {join}
        WHERE {where} AND f.concept = ? AND f.{cond}
        QUALIFY row_number() OVER (
            PARTITION BY f.cik, f.unit, f.period_start, f.period_end
            ORDER BY {_ORDER.format(d='DESC')}) = 1
        ORDER BY ticker, f.cik"""
    return store.con.execute(sql, params + [concept, bound]).df()


def value_by_duration(store: FactsStore, entity: str, concept: str, period_end: Any, duration: str | None,
                      as_of: Any, unit: str | None = None) -> Fact | None:
    """Like ``value`` when the period is named by its end and length ("three months ended
    ...": duration Q, H1, 9M or FY; None = an instant) rather than by its start date."""
    cik = store.resolve_entity(entity)
    concept = store.resolve_concept(concept, cik)
    cond, bound = _bound_sql(as_of)
    if duration is None:
        span, params = "f.period_start IS NULL", []
    else:
        lo, hi = DURATIONS[duration.upper()]
        span = "datediff('day', f.period_start, f.period_end) + 1 BETWEEN ? AND ?"
        params = [lo, hi]
    rows = store.con.execute(f"""
        {_SELECT}
        WHERE f.cik = ? AND f.concept = ? AND f.period_end = ? AND {span}
          AND (? IS NULL OR f.unit = ?) AND f.{cond}
        ORDER BY {_ORDER.format(d='DESC')} LIMIT 1""",
        [cik, concept, _d(period_end, "period end"), *params, unit, unit, bound]).fetchall()
    return _facts(rows)[0] if rows else None
