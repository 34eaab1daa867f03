"""Small inline-XBRL filings for tests, written the way EDGAR's are: an ``ix:header`` with hidden
facts, contexts and units; a cover page naming the registrant; statements as tables with
column headers; figures in sentences; a policy note as a TextBlock continued further down;
a dimensional (segment) table; quirks — a nested fact, ``ix:exclude``, a ``-sec-ix-hidden``
display, a sign, a dash for zero, a nil fact — each where a real filing has it."""
from __future__ import annotations

HEAD = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:{ix}="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:xbrldi="http://xbrl.org/2006/xbrldi"
 xmlns:us-gaap="http://fasb.org/us-gaap/2024" xmlns:dei="http://xbrl.sec.gov/dei/2024"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12">
<head><title>wdgt-20241231</title></head><body>
<div style="display:none"><{ix}:header><{ix}:hidden>
<{ix}:nonNumeric name="dei:AmendmentFlag" contextRef="c-1" id="h-1">false</{ix}:nonNumeric>
<{ix}:nonNumeric name="us-gaap:LeaseListing" contextRef="c-2" id="h-2">Other assets, noncurrent</{ix}:nonNumeric>
<{ix}:nonFraction name="us-gaap:HiddenAmount" contextRef="c-2" unitRef="usd" decimals="-6" scale="6" id="h-3">7</{ix}:nonFraction>
</{ix}:hidden><{ix}:references/><{ix}:resources>
<xbrli:context id="c-1"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000999999</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:startDate>{fy_start}</xbrli:startDate><xbrli:endDate>{end}</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:context id="c-2"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000999999</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:instant>{end}</xbrli:instant></xbrli:period></xbrli:context>
<xbrli:context id="c-3"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000999999</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:instant>{prior_end}</xbrli:instant></xbrli:period></xbrli:context>
<xbrli:context id="c-4"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000999999</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:startDate>{prior_start}</xbrli:startDate><xbrli:endDate>{prior_end}</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:context id="c-5"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000999999</xbrli:identifier><xbrli:segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegmentsAxis">wdgt:GizmoWorksMember</xbrldi:explicitMember></xbrli:segment></xbrli:entity><xbrli:period><xbrli:startDate>{fy_start}</xbrli:startDate><xbrli:endDate>{end}</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:context id="c-6"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000999999</xbrli:identifier><xbrli:segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegmentsAxis">wdgt:WidgetCoMember</xbrldi:explicitMember></xbrli:segment></xbrli:entity><xbrli:period><xbrli:startDate>{fy_start}</xbrli:startDate><xbrli:endDate>{end}</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
<xbrli:unit id="usdPerShare"><xbrli:divide><xbrli:unitNumerator><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unitNumerator><xbrli:unitDenominator><xbrli:measure>xbrli:shares</xbrli:measure></xbrli:unitDenominator></xbrli:divide></xbrli:unit>
</{ix}:resources></{ix}:header></div>
"""

BODY = """<div><p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p>
<p><span style="color:#ffffff"><{ix}:nonNumeric name="dei:EntityRegistrantName" contextRef="c-1" id="f-1">Example Widgets, Inc.</{ix}:nonNumeric></span></p>
<p>(Exact name of registrant as specified in its charter)</p></div>
<h2>Item 7. Management's Discussion and Analysis</h2>
<p>Net sales increased to $<{ix}:nonFraction name="us-gaap:Revenues" contextRef="c-1" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal" id="f-2">4,210</{ix}:nonFraction> million, driven by the GizmoWorks line. Restructuring charges were <{ix}:nonFraction name="us-gaap:RestructuringCharges" contextRef="c-1" unitRef="usd" decimals="-6" scale="6" format="ixt:fixed-zero" id="f-3">—</{ix}:nonFraction> this year.</p>
<h2>Item 8. Financial Statements</h2>
<p><b>CONSOLIDATED STATEMENTS OF OPERATIONS</b></p>
<p>(In millions, except per-share amounts)</p>
<table>
<tr><td></td><td>Year ended {end_words}</td><td>Year ended {prior_end_words}</td></tr>
<tr><td>Net sales</td><td>$<{ix}:nonFraction name="us-gaap:Revenues" contextRef="c-1" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal" id="f-4">4,210</{ix}:nonFraction></td><td>$<{ix}:nonFraction name="us-gaap:Revenues" contextRef="c-4" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal" id="f-5">3,985</{ix}:nonFraction></td></tr>
<tr><td>Cost of sales</td><td><{ix}:nonFraction name="us-gaap:CostOfRevenue" contextRef="c-1" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal" id="f-6">2,530</{ix}:nonFraction></td><td><{ix}:nonFraction name="us-gaap:CostOfRevenue" contextRef="c-4" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal" id="f-7">2,410</{ix}:nonFraction></td></tr>
<tr><td>Other income (expense), net</td><td>(<{ix}:nonFraction name="us-gaap:NonoperatingIncomeExpense" contextRef="c-1" unitRef="usd" decimals="-6" scale="6" sign="-" format="ixt:num-dot-decimal" id="f-8">35</{ix}:nonFraction>)</td><td><{ix}:nonFraction name="us-gaap:NonoperatingIncomeExpense" contextRef="c-4" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal" id="f-9">12</{ix}:nonFraction></td></tr>
<tr><td>Net income</td><td><{ix}:nonFraction name="us-gaap:NetIncomeLoss" contextRef="c-1" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal" id="f-10">915</{ix}:nonFraction></td><td><{ix}:nonFraction name="us-gaap:NetIncomeLoss" contextRef="c-4" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal" id="f-11">850</{ix}:nonFraction></td></tr>
<tr><td>Diluted earnings per share</td><td><{ix}:nonFraction name="us-gaap:EarningsPerShareDiluted" contextRef="c-1" unitRef="usdPerShare" decimals="2" format="ixt:num-dot-decimal" id="f-12">3.41</{ix}:nonFraction></td><td><{ix}:nonFraction name="us-gaap:EarningsPerShareDiluted" contextRef="c-4" unitRef="usdPerShare" decimals="2" format="ixt:num-dot-decimal" id="f-13">3.10</{ix}:nonFraction></td></tr>
</table>
<p><b>CONSOLIDATED BALANCE SHEETS</b></p>
<table>
<tr><td></td><td>{end_words}</td><td>{prior_end_words}</td></tr>
<tr><td>Cash and cash equivalents</td><td><{ix}:nonFraction name="us-gaap:CashAndCashEquivalentsAtCarryingValue" contextRef="c-2" unitRef="usd" decimals="-6" scale="6" id="f-14">1,204</{ix}:nonFraction></td><td><{ix}:nonFraction name="us-gaap:CashAndCashEquivalentsAtCarryingValue" contextRef="c-3" unitRef="usd" decimals="-6" scale="6" id="f-15">998</{ix}:nonFraction></td></tr>
<tr><td><span style="-sec-ix-hidden:h-2">Other assets, noncurrent</span></td><td><{ix}:nonFraction name="us-gaap:OtherAssetsNoncurrent" contextRef="c-2" unitRef="usd" decimals="-6" scale="6" id="f-16">310</{ix}:nonFraction></td><td><{ix}:nonFraction name="us-gaap:OtherAssetsNoncurrent" contextRef="c-3" unitRef="usd" decimals="-6" scale="6" xsi:nil="true" id="f-17"/></td></tr>
</table>
<h3>Note 1 — Summary of Significant Accounting Policies</h3>
<{ix}:nonNumeric name="us-gaap:RevenueRecognitionPolicyTextBlock" contextRef="c-1" id="f-18" continuedAt="f-18-c1" escape="true"><p>Revenue is recognized when control of the widgets transfers to the customer, generally on shipment.</p><p>Sales of <{ix}:nonFraction name="us-gaap:ContractWithCustomerLiability" contextRef="c-2" unitRef="usd" decimals="-6" scale="6" id="f-19">42</{ix}:nonFraction> million were deferred at year end.<{ix}:exclude> Page 12</{ix}:exclude></p></{ix}:nonNumeric>
<h3>Note 2 — Segments</h3>
<table>
<tr><td></td><td>GizmoWorks</td><td>WidgetCo</td></tr>
<tr><td>Segment revenue</td><td><{ix}:nonFraction name="us-gaap:Revenues" contextRef="c-5" unitRef="usd" decimals="-6" scale="6" id="f-20">2,600</{ix}:nonFraction></td><td><{ix}:nonFraction name="us-gaap:Revenues" contextRef="c-6" unitRef="usd" decimals="-6" scale="6" id="f-21">1,610</{ix}:nonFraction></td></tr>
</table>
<{ix}:continuation id="f-18-c1"><p>Shipping costs billed to customers are part of net sales.</p></{ix}:continuation>
</body></html>
"""


def filing_html(end: str = "2024-12-31", prior_end: str = "2023-12-31", ix: str = "ix") -> str:
    """One 10-K of Example Widgets, Inc. for the year ending ``end``."""
    from datetime import date, timedelta

    e, p = date.fromisoformat(end), date.fromisoformat(prior_end)
    words = lambda d: f"{d:%B} {d.day}, {d.year}"  # noqa: E731
    fields = dict(ix=ix, end=end, prior_end=prior_end, fy_start=str(p + timedelta(days=1)),
                  prior_start=str(date(p.year - 1, p.month, p.day) + timedelta(days=1)),
                  end_words=words(e), prior_end_words=words(p))
    return HEAD.format(**fields) + BODY.format(**fields)


def documents_rows(n: int = 2) -> list[dict]:
    """documents.parquet rows of ``n`` yearly 10-Ks (2024, 2023, ...)."""
    import pandas as pd

    rows = []
    for i in range(n):
        year = 2024 - i
        rows.append({"doc_id": f"wdgt-10k-{year}", "title": f"Example Widgets, Inc. — Form 10-K (FY {year})",
                     "doc_type": "10-K", "issuer": "Example Widgets", "ticker": "WDGT", "fiscal_year": year,
                     "period_end": pd.Timestamp(f"{year}-12-31").date(),
                     "filed_at": pd.Timestamp(f"{year + 1}-02-15", tz="UTC"), "language": "en", "format": "html",
                     "source_uri": None, "text": filing_html(f"{year}-12-31", f"{year - 1}-12-31")})
    return rows
