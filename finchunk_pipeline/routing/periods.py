"""Periods and document types written in a text (a question, or a document's title).

Periods: ``FY2019``, ``FY 2019``, ``FY19``, ``FY'19``, ``fiscal 2023``, ``fiscal year 2023``;
quarters ``Q2 2024``, ``Q2 of FY2024``, ``Q2 FY24``, ``Q2'2023``, ``Q22023``, ``2022 Q2``,
``2024Q2``, ``second quarter of (fiscal) 2024``, ``Q3 fiscal 2024``; halves ``H1 FY2023``,
``first half of 2023`` (a half is matched to the quarter that closes it: H1 -> Q2, H2 -> Q4);
dates ``December 31, 2022``, ``31 December 2022``, ``2022-12-31`` (``as of`` / ``ended`` /
``quarter ended`` before them are part of the phrase); ranges ``FY2015 - FY2017`` /
``from 2016 to 2018`` add the years between; bare years 1950-2099.

Document types: ``10-K``/``10K``, ``annual report``, ``10-Q``, ``quarterly report``,
``8-K``, ``earnings call``/``conference call``/``transcript``, ``proxy statement``,
``prospectus``, ``KID``/``key information document``, ``research note``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

MONTHS = {m: i for i, m in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"), 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_ORD = r"(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th)"
_YEAR4 = r"(?:19[5-9]\d|20\d\d)"
_FYWORD = r"(?:FY|fiscal(?:[\s-]+year)?)"

# document types: (pattern, flags, types it means). Patterns are matched case-insensitively
# unless the flags say otherwise (KID is a word in lower case).
DOC_TYPE_PATTERNS: tuple[tuple[str, int, frozenset[str]], ...] = (
    (r"(?<![$€£])\b(?:form\s+)?10-?K(?:405)?(?:/A)?\b", re.I, frozenset({"10-K", "10-K/A"})),
    (r"\bannual\s+reports?\b|\bform\s+20-?F\b", re.I, frozenset({"annual_report", "10-K", "10-K/A"})),
    (r"(?<![$€£])\b(?:form\s+)?10-?Q(?:/A)?\b|\bquarterly\s+reports?\b", re.I, frozenset({"10-Q", "10-Q/A"})),
    (r"\b(?:form\s+)?8-K\b|\bform\s+8K\b|\bcurrent\s+report\b", re.I, frozenset({"8-K"})),
    (r"\b(?:earnings|conference)\s+calls?\b|\bearnings\s+(?:release|transcript)s?\b|\btranscripts?\b",
     re.I, frozenset({"earnings_call"})),
    (r"\bproxy\s+statements?\b|\b(?:\d{4}|its|the|their)\s+proxy\b", re.I, frozenset({"proxy"})),
    (r"\bprospectus(?:es)?\b", re.I, frozenset({"prospectus"})),
    (r"\bKIDs?\b", 0, frozenset({"kid"})),
    (r"\bkey\s+information\s+documents?\b", re.I, frozenset({"kid"})),
    (r"\b(?:research|analyst)\s+(?:notes?|reports?)\b|\bequity\s+research\b", re.I, frozenset({"research"})),
)
_DOC_TYPE_RES = tuple((re.compile(p, f), types) for p, f, types in DOC_TYPE_PATTERNS)
# in a title (not in a question) a bare "earnings" names the document: "Amcor 2023Q4 EARNINGS"
_TITLE_EARNINGS = re.compile(r"\bearnings\b", re.I)


@dataclass(frozen=True)
class PeriodMention:
    kind: str                 # fiscal_year | year | quarter | half | date
    start: int
    end: int
    text: str
    year: int | None = None   # the fiscal year (or calendar year of a date)
    quarter: int | None = None
    day: date | None = None
    confidence: float = 0.9

    def describe(self) -> str:
        if self.kind == "date":
            return f"period ending {self.day.isoformat()}"
        if self.kind in ("quarter", "half"):
            base = f"Q{self.quarter}" if self.kind == "quarter" else f"H{1 if self.quarter == 2 else 2} (Q{self.quarter})"
            return f"{base} of fiscal {self.year}" if self.year else base
        return f"fiscal year {self.year}" if self.kind == "fiscal_year" else f"year {self.year}"


@dataclass(frozen=True)
class DocTypeMention:
    start: int
    end: int
    text: str
    types: frozenset[str]


def _year(text: str) -> int:
    y = int(text.strip("'’"))
    if y < 100:
        return 2000 + y if y < 70 else 1900 + y
    return y


# a year after a quarter / half: "of FY2024", "FY24", "fiscal 2024", "2024", "'23"
_QYEAR = (r"(?:\s*(?:of\s+)?(?:" + _FYWORD + r"\s*['’]?\s*(?P<year>" + _YEAR4 + r"|\d{2}(?!\d))"
          r"|['’]?\s*(?P<year4>" + _YEAR4 + r")|['’](?P<year2>\d{2}(?!\d))))?")
_NOT_MONEY = r"(?<![$€£\d.,])"

_PATTERNS: tuple[tuple[str, re.Pattern], ...] = (
    # dates first: they hold a year that must not count again as a bare year
    ("date", re.compile(r"(?:\bas\s+of\s+|\b(?:quarter|year|period|months)\s+ended\s+)?\b" + _MONTH
                        + r"\s+(?P<day>\d{1,2}),?\s+(?P<year>" + _YEAR4 + r")\b", re.I)),
    ("date", re.compile(r"(?:\bas\s+of\s+)?\b(?P<day>\d{1,2})\s+" + _MONTH + r",?\s+(?P<year>" + _YEAR4 + r")\b", re.I)),
    ("date", re.compile(r"\b(?P<year>" + _YEAR4 + r")-(?P<mnum>\d{2})-(?P<day>\d{2})\b")),
    # quarters: 2022 Q2, 2024Q2, FY2024 Q2; Q2 2024, Q2 of FY2024, Q2 FY24, Q2'2023, Q22023, Q3 fiscal 2024
    ("quarter", re.compile(r"\b(?:" + _FYWORD + r"\s*)?(?P<year>" + _YEAR4 + r")\s*-?\s*Q(?P<q>[1-4])\b", re.I)),
    ("quarter", re.compile(r"\bQ(?P<q>[1-4])" + _QYEAR + r"(?![A-Za-z0-9])", re.I)),
    ("quarter", re.compile(r"\b" + _ORD + r"[\s-]+(?:fiscal[\s-]+)?quarter(?:\s+(?:of\s+)?(?:" + _FYWORD
                           + r"\s*)?(?P<year>" + _YEAR4 + r"))?", re.I)),
    # halves: H1 FY2023, 1H23, first half of 2023
    ("half", re.compile(r"\b(?:H(?P<h>[12])|(?P<h2>[12])H)" + _QYEAR + r"(?![A-Za-z0-9])", re.I)),
    ("half", re.compile(r"\b(?P<hw>first|second)\s+half(?:\s+(?:of\s+)?(?:" + _FYWORD + r"\s*)?(?P<year>"
                        + _YEAR4 + r"))?", re.I)),
    # fiscal years: FY2019, FY 2019, FY19, FY'19, fiscal 2023, fiscal year 2023
    ("fiscal_year", re.compile(r"\b" + _FYWORD + r"\s*['’]?\s*(?P<year>" + _YEAR4 + r"|\d{2})(?!\d)", re.I)),
    ("year", re.compile(_NOT_MONEY + r"(?P<year>" + _YEAR4 + r")(?!\d|,\d|\s*%)")),
)
_RANGE = re.compile(r"^\s*(?:-|–|—|to|through)\s*$", re.I)
CONFIDENCE = {"date": 0.95, "quarter": 0.9, "half": 0.9, "fiscal_year": 0.9, "year": 0.7}


def find_periods(text: str) -> list[PeriodMention]:
    """Period mentions in ``text``, in reading order; a span is taken by the first pattern
    that matches it (dates before quarters before fiscal years before bare years)."""
    taken: list[tuple[int, int]] = []
    found: list[PeriodMention] = []
    for kind, rx in _PATTERNS:
        for m in rx.finditer(text):
            s, e = m.span()
            if any(s < te and ts < e for ts, te in taken):
                continue
            g = m.groupdict()
            y = g.get("year") or g.get("year4") or g.get("year2")
            year = _year(y) if y else None
            quarter = day = None
            if kind == "date":
                month = int(g["mnum"]) if g.get("mnum") else MONTHS[g["month"].lower().rstrip(".")]
                try:
                    day = date(year, month, int(g["day"]))
                except ValueError:
                    continue
            elif kind == "quarter":
                quarter = int(g["q"]) if g.get("q") else ORDINALS[g["ord"].lower()]
            elif kind == "half":
                half = int(g.get("h") or g.get("h2") or (1 if (g.get("hw") or "").lower() == "first" else 2))
                quarter = 2 if half == 1 else 4
            if kind in ("quarter", "half") and quarter is None:
                continue
            taken.append((s, e))
            found.append(PeriodMention(kind, s, e, text[s:e], year, quarter, day, CONFIDENCE[kind]))
    found.sort(key=lambda p: p.start)
    return _fill_ranges(text, found)


def _fill_ranges(text: str, found: list[PeriodMention]) -> list[PeriodMention]:
    """``FY2015 - FY2017`` / ``from 2016 to 2018``: the years between join as fiscal years."""
    out = list(found)
    for a, b in zip(found, found[1:]):
        if a.kind not in ("fiscal_year", "year") or b.kind not in ("fiscal_year", "year"):
            continue
        if not _RANGE.match(text[a.end:b.start]):
            continue
        if a.year and b.year and 1 < b.year - a.year <= 5:
            for y in range(a.year + 1, b.year):
                out.append(PeriodMention(a.kind, a.start, b.end, text[a.start:b.end], y, None, None,
                                         min(a.confidence, b.confidence)))
    out.sort(key=lambda p: (p.start, p.year or 0))
    return out


def find_doc_types(text: str) -> list[DocTypeMention]:
    out: list[DocTypeMention] = []
    for rx, types in _DOC_TYPE_RES:
        for m in rx.finditer(text):
            s, e = m.span()
            if any(s < o.end and o.start < e for o in out):
                continue
            out.append(DocTypeMention(s, e, text[s:e], types))
    out.sort(key=lambda d: d.start)
    return out


def title_doc_types(title: str) -> set[str]:
    """Document types a title names (``Best Buy 2024Q2 10Q`` -> 10-Q; ``... EARNINGS`` -> earnings_call)."""
    types: set[str] = set()
    for m in find_doc_types(title):
        types |= m.types
    if _TITLE_EARNINGS.search(title):
        types.add("earnings_call")
    return types
