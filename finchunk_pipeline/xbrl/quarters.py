"""Fiscal quarters as known on a date, filed or derived from year-to-date figures.

Fiscal periods are identified by their dates, not by the ``fy``/``fp`` labels (in
companyfacts those describe the filing a value came from, not the value's period):

- a fiscal year starts on a date S that starts a half-year (~180 d), nine-month (~270 d)
  or full-year (~365 d) duration, or on the day after a full year ends;
- Q1 is the ~90-day period starting at S; its end e1 ends the first quarter; e2, e3, e4
  are the ends of the ~180/~270/~365-day periods starting at S, or of a ~90-day period
  starting the day after the previous quarter end;
- quarter k is (e[k-1] + 1, e[k]). If that period was filed it is returned as filed;
  otherwise it is derived: Q2 = H1 − Q1, Q3 = 9M − H1, Q4 = FY − 9M.

Everything uses only facts filed by ``as_of`` (the latest value of each period known then),
so works for any fiscal year end (e.g. January for Snowflake). The fiscal year label is the
company's own: the ``fy`` of its 10-K/10-Q whose reporting period (the latest duration end
in that filing) is one of the year's quarter ends; failing that, the calendar year of the
fiscal year end (year − 1 when it ends in the first week of January).

Values that are not additive over time (units with "/", e.g. USD/shares; per-share and
weighted-average concepts; the few flows in ``NON_ADDITIVE``) are only returned as filed,
never derived.
"""
from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from typing import Any

import pandas as pd

from .pit import DURATIONS, known_facts
from .store import FactsStore, as_of_bound

QUARTER_COLUMNS = ["cik", "ticker", "concept", "unit", "fiscal_year", "quarter", "period_start",
                   "period_end", "value", "method", "filed_value", "derived_value", "formula",
                   "accessions", "known_at"]
_YTD = {2: "H1", 3: "9M", 4: "FY"}
_FORMULA = {2: "H1 - Q1", 3: "9M - H1", 4: "FY - 9M"}
_TOL_DAYS = 14  # a fiscal year ends within two weeks of the same day each year (52/53 weeks)


# flows whose year-to-date values are not sums of their quarters (they depend on an opening
# balance or on what is still held at the period end)
NON_ADDITIVE = frozenset({
    "ContractWithCustomerLiabilityRevenueRecognized",
    "EquitySecuritiesFvNiUnrealizedGainLoss",
    "DebtSecuritiesUnrealizedGainLoss",
})


def additive(concept: str, unit: str) -> bool:
    local = concept.split(":")[-1]
    name = local.lower()
    return ("/" not in unit and "pershare" not in name and "weightedaverage" not in name
            and local not in NON_ADDITIVE)


def _in(days: int, kind: str) -> bool:
    lo, hi = DURATIONS[kind]
    return lo <= days <= hi


def _calendar_label(fy_end: date) -> int:
    return fy_end.year - 1 if (fy_end.month == 1 and fy_end.day <= 7) else fy_end.year


def filing_periods(store: FactsStore, as_of: Any, cik: str | None = None) -> pd.DataFrame:
    """One row per filing known by ``as_of``: its fy/fp labels, form and own period end
    (the latest end of a duration fact in it)."""
    bound, inclusive = as_of_bound(as_of)
    cond = "filed_at <= ?" if inclusive else "filed_at < ?"
    return store.con.execute(f"""
        SELECT cik, accession, any_value(form) AS form, mode(fy) AS fy, mode(fp) AS fp,
               max(period_end) FILTER (WHERE period_start IS NOT NULL) AS own_end
        FROM facts WHERE {cond} AND (? IS NULL OR cik = ?)
        GROUP BY cik, accession""", [bound, cik, cik]).df()


def _labels_by_end(filings: pd.DataFrame) -> dict[tuple[str, date], Counter]:
    out: dict[tuple[str, date], Counter] = {}
    for r in filings.itertuples(index=False):
        if pd.isna(r.own_end) or pd.isna(r.fy) or not str(r.form or "").startswith(("10-K", "10-Q")):
            continue
        end = pd.Timestamp(r.own_end).date()
        out.setdefault((r.cik, end), Counter())[int(r.fy)] += 1
    return out


def _quarters_of_group(g: pd.DataFrame, labels: dict, cik: str) -> list[dict]:
    """The quarters of one (cik, concept, unit): for each fiscal year start, the four quarter
    ends, the year's label, then each quarter filed or derived."""
    dur = g[g["period_start"].notna()]
    if dur.empty:
        return []
    known = _Durations(dur)
    concept, unit = g["concept"].iat[0], g["unit"].iat[0]
    can_derive = additive(concept, unit)
    ticker = g["ticker"].dropna().iat[0] if g["ticker"].notna().any() else None
    rows: list[dict] = []
    for s in sorted(known.year_starts()):
        ends = known.quarter_ends(s)
        if not any(ends.values()):
            continue
        label = _fiscal_label(s, ends, labels, cik)
        for k in (1, 2, 3, 4):
            row = _quarter_row(known, s, ends, k, can_derive) if ends[k] is not None else None
            if row is not None:
                rows.append({"cik": cik, "ticker": ticker, "concept": concept, "unit": unit,
                             "fiscal_year": label, "quarter": k, **row})
    return rows


class _Durations:
    """The duration facts of one concept known at the date: (start, end) -> latest fact, and
    for each start the ends with their length in days."""

    def __init__(self, dur: pd.DataFrame):
        self.periods: dict[tuple[date, date], Any] = {}
        for r in dur.itertuples(index=False):
            self.periods[(r.period_start, r.period_end)] = r
        self.by_start: dict[date, list[tuple[date, int]]] = {}
        for (s, e) in self.periods:
            self.by_start.setdefault(s, []).append((e, (e - s).days + 1))

    def year_starts(self) -> set[date]:
        """Starts of half-year, nine-month and full-year periods, and the day after a full year."""
        starts: set[date] = set()
        for (s, e) in self.periods:
            days = (e - s).days + 1
            if _in(days, "H1") or _in(days, "9M") or _in(days, "FY"):
                starts.add(s)
            if _in(days, "FY"):
                starts.add(e + timedelta(days=1))
        return starts

    def ytd(self, s: date, kind: str) -> date | None:
        """The latest end of a ``kind``-long period starting at s."""
        ends = sorted(e for e, d in self.by_start.get(s, []) if _in(d, kind))
        return ends[-1] if ends else None

    def quarter_ends(self, s: date) -> dict[int, date | None]:
        """e1..e4 of the fiscal year starting at s: the year-to-date ends, else the end of a
        quarter starting the day after the previous quarter end."""
        ends: dict[int, date | None] = {1: self.ytd(s, "Q")}
        for k in (2, 3, 4):
            prev = ends[k - 1]
            ends[k] = self.ytd(s, _YTD[k]) or (self.ytd(prev + timedelta(days=1), "Q") if prev else None)
        return ends


def _fiscal_label(s: date, ends: dict[int, date | None], labels: dict, cik: str) -> int:
    """The company's own label for the year (the fy its filings for the quarter ends vote
    for), when within a year of the calendar label of the fiscal year end."""
    votes: Counter = Counter()
    for k in (1, 2, 3, 4):
        if ends[k] is not None:
            votes.update(labels.get((cik, ends[k]), Counter()))
    fy_end = ends[4] or (date(s.year + 1, s.month, 1) - timedelta(days=1) if s.day == 1
                         else s + timedelta(days=364))
    label = _calendar_label(fy_end)
    if votes:
        best = votes.most_common(1)[0][0]
        if abs(best - label) <= 1:
            label = best
    return label


def _quarter_row(known: _Durations, s: date, ends: dict[int, date | None], k: int,
                 can_derive: bool) -> dict | None:
    """Quarter k of the year starting at s: its filed value (a ~90-day period), its value
    derived from the year-to-date figures, or None when neither is known."""
    e = ends[k]
    qs = s if k == 1 else (ends[k - 1] + timedelta(days=1) if ends[k - 1] else None)
    filed = known.periods.get((qs, e)) if qs is not None else None
    if filed is not None and not _in((e - qs).days + 1, "Q"):
        filed = None
    derived = None
    formula = None
    inputs: list = []
    if k > 1 and can_derive and ends[k - 1] is not None:
        cur = known.periods.get((s, e))
        prev = known.periods.get((s, ends[k - 1]))
        if cur is not None and prev is not None:
            derived = round(float(cur.value) - float(prev.value), 6)
            formula = _FORMULA[k]
            inputs = [cur, prev]
    if filed is None and derived is None:
        return None
    sources = [filed] if filed is not None else inputs
    return {
        "period_start": qs, "period_end": e,
        "value": float(filed.value) if filed is not None else derived,
        "method": "filed" if filed is not None else "derived",
        "filed_value": float(filed.value) if filed is not None else None,
        "derived_value": derived,
        "formula": formula,
        "accessions": ",".join(sorted({r.accession for r in sources})),
        "known_at": max(r.filed_at for r in sources),
    }


def derive_quarters(store: FactsStore, as_of: Any, entity: str | None = None,
                    concept: str | None = None) -> pd.DataFrame:
    """Quarters of every duration concept (or one entity/concept) as known at ``as_of``."""
    cik = store.resolve_entity(entity) if entity else None
    if concept:
        concept = store.resolve_concept(concept, cik)
    known = known_facts(store, as_of, cik=cik, concept=concept)
    if known.empty:
        return pd.DataFrame(columns=QUARTER_COLUMNS)
    for c in ("period_start", "period_end"):
        known[c] = [None if pd.isna(v) else pd.Timestamp(v).date() for v in known[c]]
    labels = _labels_by_end(filing_periods(store, as_of, cik))
    rows: list[dict] = []
    for (c_cik, _, _), g in known[known["period_start"].notna()].groupby(["cik", "concept", "unit"], sort=True):
        rows.extend(_quarters_of_group(g, labels, c_cik))
    return pd.DataFrame(rows, columns=QUARTER_COLUMNS)


def quarter(store: FactsStore, entity: str, concept: str, fiscal_year: int, q: int,
            as_of: Any, unit: str | None = None) -> dict | None:
    """One fiscal quarter as known at ``as_of`` (filed, else derived), or None."""
    df = derive_quarters(store, as_of, entity=entity, concept=concept)
    df = df[(df["fiscal_year"] == int(fiscal_year)) & (df["quarter"] == int(q))]
    if unit:
        df = df[df["unit"] == unit]
    if df.empty:
        return None
    return df.iloc[0].to_dict()


def _precision(*values: float, max_exp: int = 6) -> float:
    """The largest power of ten (<= 10**max_exp) dividing every value: the rounding step of
    figures reported in thousands or tenths of a million."""
    p = 1
    for k in range(1, max_exp + 1):
        step = 10 ** k
        if all(float(v).is_integer() and int(v) % step == 0 for v in values):
            p = step
        else:
            break
    return float(p)


def inconsistencies(quarters: pd.DataFrame) -> pd.DataFrame:
    """Quarters filed directly whose derived value (YTD differences) disagrees by more than
    the rounding step of the figures."""
    both = quarters[quarters["filed_value"].notna() & quarters["derived_value"].notna()]
    if both.empty:
        return both.assign(difference=pd.Series(dtype=float))
    tol = [_precision(f, d) for f, d in zip(both["filed_value"], both["derived_value"])]
    diff = (both["filed_value"] - both["derived_value"]).abs()
    bad = both[diff.to_numpy() > pd.Series(tol, index=both.index).to_numpy() + 1e-9]
    return bad.assign(difference=bad["filed_value"] - bad["derived_value"])
