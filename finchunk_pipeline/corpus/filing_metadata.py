"""What a filing's own content says about it: issuer, document type, fiscal year, period end,
ticker and title — from an HTML filing's inline-XBRL dei facts (read from a real tree, bs4 over
lxml), from the cover page of a text or PDF filing, from a PDF's document information, and from
a file name. ``corpus/from_files.py`` takes the first value found per field."""
from __future__ import annotations

import re
from datetime import date, datetime

_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_FORM = re.compile(r"\bFORM\s+(10-K|10-Q|8-K|20-F|40-F|S-1|DEF\s?14A)(/A)?\b", re.I)
_FY_END = re.compile(rf"(?:fiscal\s+)?(?:year|quarter(?:ly period)?|period)\s+ended\s+({_MONTHS})\s+(\d{{1,2}}),?\s+((?:19|20)\d\d)", re.I)
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")


DEI_TAGS = ("ix:nonnumeric", "ix:nonfraction", "title")
COVER_HTML_CHARS = 300_000   # the cover page of an HTML filing lies in its first characters


def _soup(markup: str, only: tuple[str, ...] | None = None):
    """BeautifulSoup over lxml (both declared dependencies): a real HTML tree, where the
    metadata sits in nested elements that a tag regex cannot follow."""
    import warnings

    from bs4 import BeautifulSoup, SoupStrainer, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():  # inline XBRL starts with an XML declaration: it is HTML
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        return BeautifulSoup(markup, "lxml", parse_only=SoupStrainer(list(only)) if only else None)


def _dei_facts(soup) -> dict[str, str]:
    """The first value of each inline-XBRL dei fact (``name="dei:..."``). Facts nest — the
    period end wraps the fiscal year end (``<ix:nonNumeric name="dei:DocumentPeriodEndDate">
    <ix:nonNumeric name="dei:CurrentFiscalYearEndDate">September 28</ix:nonNumeric>, 2024
    </ix:nonNumeric>``) — so each fact's value is all the text inside it."""
    dei: dict[str, str] = {}
    for tag in soup.find_all(DEI_TAGS[:2]):
        name = str(tag.get("name") or "")
        if name.lower().startswith("dei:") and name[4:] not in dei:
            value = " ".join(tag.get_text("").split())
            dei[name[4:]] = re.sub(r"\s+([.,])", r"\1", value)
    return dei


def html_metadata(text: str) -> dict:
    """issuer, doc_type, ticker, fiscal year, period end and title of an HTML filing: from its
    inline-XBRL dei facts; what they leave out, from the cover page's visible text (read as
    ``text_metadata`` reads a text filing's)."""
    soup = _soup(text, DEI_TAGS)
    dei = _dei_facts(soup)
    out: dict = {}
    if dei.get("EntityRegistrantName"):
        out["issuer"] = dei["EntityRegistrantName"]
    if dei.get("DocumentType"):
        out["doc_type"] = dei["DocumentType"].upper()
    if dei.get("TradingSymbol"):
        out["ticker"] = dei["TradingSymbol"].upper()
    if dei.get("DocumentFiscalYearFocus", "").isdigit():
        out["fiscal_year"] = int(dei["DocumentFiscalYearFocus"])
    period = parse_date(dei.get("DocumentPeriodEndDate", ""))
    if period:
        out["period_end"] = period
    title = soup.find("title")
    if title is not None and " ".join(title.get_text(" ").split()):
        out["title"] = " ".join(title.get_text(" ").split())
    if not {"issuer", "doc_type", "period_end"} <= out.keys():
        cover = _soup(text[:COVER_HTML_CHARS]).get_text("\n")
        out = {**text_metadata(cover[:6000]), **out}
    return out


def parse_date(s: str) -> date | None:
    s = s.strip()
    for fmt in ("%Y-%m-%d", "%B %d, %Y", "%B %d %Y", "%b %d, %Y", "%b. %d, %Y"):
        try:
            return datetime.strptime(s, fmt).date()
        except ValueError:
            continue
    return None


def text_metadata(first_page: str) -> dict:
    """doc_type, fiscal year / period end and registrant from a filing's cover page."""
    out: dict = {}
    form = _FORM.search(first_page)
    if form:
        out["doc_type"] = form.group(1).upper().replace(" ", "") + (form.group(2) or "").upper()
    end = _FY_END.search(first_page)
    if end:
        period = parse_date(f"{end.group(1)} {end.group(2)}, {end.group(3)}")
        if period:
            out["period_end"] = period
            out["fiscal_year"] = period.year
    lines = [ln.strip() for ln in first_page.splitlines() if ln.strip()]
    for k, ln in enumerate(lines):
        if re.match(r"\(?exact name of registrant", ln, re.I) and k:
            name = re.sub(r"^.*_{3,}\s*", "", lines[k - 1]).strip(" _")   # underline rules before it
            name = re.sub(r"\s+([.,])", r"\1", " ".join(name.split()))
            if name and not re.match(r"commission file", name, re.I):
                out["issuer"] = name
            break
    return out


def pdf_metadata(data: bytes, name: str) -> dict:
    from ..parse.pdf_layout import iter_pages, open_pdf

    out: dict = {}
    pdf = open_pdf(data, name)
    try:
        info = pdf.get_metadata_dict(skip_empty=True)
        title = (info.get("Title") or "").strip()
        if re.search(r"[A-Za-z]{3}", title):          # not an accession number or a file id
            out["title"] = title
        pages = iter_pages(pdf)
        first = []
        for page in pages:  # the cover: the first two pages with text
            first.extend(line.text for line in page.lines)
            if page.number >= 2:
                break
        pages.close()
    finally:
        pdf.close()
    cover = text_metadata("\n".join(first))
    out.update(cover)  # the cover page beats a producer's Author field
    return out


def filename_metadata(stem: str) -> dict:
    out: dict = {"title": stem.replace("_", " ").strip()}
    year = _YEAR.search(stem)
    if year:
        out["fiscal_year"] = int(year.group(1))
    compact = stem.upper().replace("-", "")
    for tag, doc_type in (("10K", "10-K"), ("10Q", "10-Q"), ("8K", "8-K"), ("ANNUAL", "annual_report"),
                          ("EARNINGS", "other"), ("PROXY", "proxy"), ("PROSPECTUS", "prospectus")):
        if re.search(rf"(?:^|[_\s]){tag}(?:[_\s]|$)|\d{tag}\b|_{tag}", compact):
            out["doc_type"] = doc_type
            break
    first = re.split(r"[_\s]", stem)[0]
    if first and not first.isdigit():
        out["issuer"] = first
    return out
