"""corpus/filing_metadata.html_metadata: an HTML filing's metadata read from a real HTML tree (bs4 + lxml)."""
from datetime import date

import pytest

from finchunk_pipeline.corpus.filing_metadata import html_metadata

IXBRL = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"><head><title>acme-20240928</title></head><body>
<div style="display:none"><ix:header></ix:header></div>
<p>FORM <ix:nonNumeric name="dei:DocumentType" contextRef="c">10-K</ix:nonNumeric></p>
<p>For the fiscal year ended <ix:nonNumeric contextRef="c" name="dei:DocumentPeriodEndDate"
 format="ixt:date-monthname-day-year-en"><ix:nonNumeric contextRef="c" name="dei:CurrentFiscalYearEndDate"
 format="ixt:date-monthname-day-en">September&#160;28</ix:nonNumeric>, 2024</ix:nonNumeric></p>
<p><ix:nonNumeric name="dei:EntityRegistrantName" contextRef="c"><span>Acme</span> &amp; Sons, Inc.</ix:nonNumeric></p>
<p><ix:nonNumeric name="dei:TradingSymbol" contextRef="c">acme</ix:nonNumeric>
<ix:nonNumeric name="dei:DocumentFiscalYearFocus" contextRef="c">2024</ix:nonNumeric></p>
<p><ix:nonNumeric name="dei:EntityRegistrantName" contextRef="c">Not the first value</ix:nonNumeric></p>
</body></html>"""


def test_nested_dei_facts_are_read_whole():
    # the period end wraps the fiscal year end: a tag regex stops at the inner closing tag
    assert html_metadata(IXBRL) == {"issuer": "Acme & Sons, Inc.", "doc_type": "10-K", "ticker": "ACME",
                                    "fiscal_year": 2024, "period_end": date(2024, 9, 28),
                                    "title": "acme-20240928"}


def test_without_dei_the_cover_page_text_is_read():
    cover = ("<html><head><title>Acme annual report</title></head><body><p>UNITED STATES</p>"
             "<p>FORM 10-K</p><p>For the fiscal year ended December 31, 2023</p><p><b>ACME CORP</b></p>"
             "<p>(Exact name of registrant as specified in its charter)</p><table><tr><td>1</td></tr></table>"
             "</body></html>")
    assert html_metadata(cover) == {"doc_type": "10-K", "period_end": date(2023, 12, 31), "fiscal_year": 2023,
                                    "issuer": "ACME CORP", "title": "Acme annual report"}


@pytest.mark.parametrize("markup", ["", "<p>broken <b>html", "<<<>>>&&&", "<ix:nonNumeric name='dei:DocumentType'>"])
def test_broken_markup_gives_what_it_can(markup):
    assert isinstance(html_metadata(markup), dict)
