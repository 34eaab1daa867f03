"""Inline XBRL for the synthetic SEC filings, tagged the way EDGAR filings are: each figure
of the statements that ``xbrl.filing_facts`` reports is wrapped in place in
``<ix:nonFraction>`` (concept, context, unit, scale 6 for USD millions printed with one
decimal), the registrant's name in ``<ix:nonNumeric name="dei:EntityRegistrantName">``, and
the contexts and units go in an ``ix:header`` inside a hidden ``<div>`` at the end of the body
(so no passage before it moves). Tags add markup only: the visible text is what it was.

Only what the facts table holds is tagged — the current fiscal year's columns and the
balance sheet at the period end (xbrl.py) — so the filing and ``xbrl_facts.parquet`` agree."""
from __future__ import annotations

import datetime as dt

from .xbrl import DURATION, EPS, INSTANT

NAMESPACES = ('xmlns:ix="http://www.xbrl.org/2013/inlineXBRL" xmlns:xbrli="http://www.xbrl.org/2003/instance" '
              'xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12" '
              'xmlns:us-gaap="http://fasb.org/us-gaap/2024" xmlns:dei="http://xbrl.sec.gov/dei/2024"')
CONCEPTS = {**DURATION, **INSTANT, "eps": EPS}


class InlineXbrl:
    """The tags of one filing: contexts by period, fact ids in document order."""

    def __init__(self, cik: str):
        self.cik = cik
        self.contexts: dict[tuple[dt.date | None, dt.date], str] = {}
        self.n = 0

    def context(self, start: dt.date | None, end: dt.date) -> str:
        key = (start, end)
        if key not in self.contexts:
            self.contexts[key] = f"c-{len(self.contexts) + 1}"
        return self.contexts[key]

    def _id(self) -> str:
        self.n += 1
        return f"f-{self.n}"

    def figure(self, key: str, printed: str, start: dt.date | None, end: dt.date) -> str:
        """``printed`` wrapped in its fact's tag, or as it is when ``key`` is not a tagged line
        or the figure is negative (printed with a minus, not in the tag's number format)."""
        concept = CONCEPTS.get(key)
        if concept is None or printed.startswith("-"):
            return printed
        if key == "eps":
            unit, scale = 'unitRef="usdPerShare" decimals="2"', ""
        else:
            unit, scale = 'unitRef="usd" decimals="-5"', ' scale="6"'
        return (f'<ix:nonFraction name="{concept}" contextRef="{self.context(start, end)}" {unit}{scale} '
                f'format="ixt:num-dot-decimal" id="{self._id()}">{printed}</ix:nonFraction>')

    def registrant(self, name: str, start: dt.date, end: dt.date) -> str:
        return (f'<ix:nonNumeric name="dei:EntityRegistrantName" contextRef="{self.context(start, end)}" '
                f'id="{self._id()}">{name}</ix:nonNumeric>')

    def header(self) -> str:
        """The hidden ``ix:header``: every context used and the two units."""
        ctx = []
        for (start, end), cid in self.contexts.items():
            period = (f"<xbrli:instant>{end}</xbrli:instant>" if start is None else
                      f"<xbrli:startDate>{start}</xbrli:startDate><xbrli:endDate>{end}</xbrli:endDate>")
            ctx.append(f'<xbrli:context id="{cid}"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">'
                       f"{self.cik}</xbrli:identifier></xbrli:entity><xbrli:period>{period}</xbrli:period>"
                       f"</xbrli:context>")
        units = ('<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>'
                 '<xbrli:unit id="usdPerShare"><xbrli:divide><xbrli:unitNumerator><xbrli:measure>iso4217:USD'
                 "</xbrli:measure></xbrli:unitNumerator><xbrli:unitDenominator><xbrli:measure>xbrli:shares"
                 "</xbrli:measure></xbrli:unitDenominator></xbrli:divide></xbrli:unit>")
        return ('<div style="display:none"><ix:header><ix:references/><ix:resources>' + "".join(ctx) + units
                + "</ix:resources></ix:header></div>")
