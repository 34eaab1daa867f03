"""XBRL facts (schema.XBRL_FACTS) for the US filings, built from the very values the
filing prints: a duration fact for each statement-of-operations line and period
column of the current fiscal year (quarter and year-to-date in a 10-Q, fiscal year in
a 10-K; the prior-year comparative columns are not tagged), and an instant fact for
each balance-sheet line at the period end. A 10-K has no fourth-quarter fact (only
FY; the 10-Q for Q3 holds nine months), so Q4 must be derived. A 10-Q/A repeats all
facts of its quarter under its own accession and filing time, with the corrected values.
"""
from __future__ import annotations

import datetime as dt

DURATION = {
    "revenue": "us-gaap:Revenues",
    "cost": "us-gaap:CostOfRevenue",
    "gross": "us-gaap:GrossProfit",
    "sga": "us-gaap:SellingGeneralAndAdministrativeExpense",
    "rnd": "us-gaap:ResearchAndDevelopmentExpense",
    "op_income": "us-gaap:OperatingIncomeLoss",
    "tax": "us-gaap:IncomeTaxExpenseBenefit",
    "net_income": "us-gaap:NetIncomeLoss",
}
EPS = "us-gaap:EarningsPerShareDiluted"
INSTANT = {
    "cash": "us-gaap:CashAndCashEquivalentsAtCarryingValue",
    "assets": "us-gaap:Assets",
    "debt": "us-gaap:LongTermDebt",
    "equity": "us-gaap:StockholdersEquity",
}


def printed_value(value: float, unit: str) -> str:
    """How a fact value is printed in the filings (USD in millions with one decimal)."""
    return f"{value:.2f}" if unit == "USD/shares" else f"{value / 1e6:,.1f}"


def filing_facts(iss, *, form: str, accession: str, filed: dt.datetime, fy: int, fp: str,
                 durations: list[tuple[dt.date, dt.date, dict, str]],
                 instant: tuple[dt.date, dict]) -> list[dict]:
    """durations: (start, end, {line: tenths}, eps_string) per tagged column."""
    base = {"cik": iss.cik, "ticker": iss.ticker, "form": form, "accession": accession,
            "filed_at": filed, "fy": fy, "fp": fp}
    out = []
    for start, end, values, eps in durations:
        for key, concept in DURATION.items():
            out.append({**base, "concept": concept, "unit": "USD", "value": values[key] * 100_000.0,
                        "period_start": start, "period_end": end})
        out.append({**base, "concept": EPS, "unit": "USD/shares", "value": float(eps),
                    "period_start": start, "period_end": end})
    end, values = instant
    for key, concept in INSTANT.items():
        out.append({**base, "concept": concept, "unit": "USD", "value": values[key] * 100_000.0,
                    "period_start": None, "period_end": end})
    return out
