"""XBRL names and periods in plain words, for questions a person would ask.

- a concept's name in words (no packaged taxonomy labels are used; see docs): the local
  name split at capitals, with the taxonomy's conventions read as a reader writes them —
  ``IncomeLoss`` "income (loss)", ``IncreaseDecrease`` "increase (decrease)", a trailing
  qualifier (``Current``, ``Noncurrent``, ``Net``, ``Gross``, ``Basic``, ``Diluted``) after a
  comma: ``us-gaap:PropertyPlantAndEquipmentNet`` -> "property plant and equipment, net";
- a dimension member as the filing spells it: ``aapl:IPhoneMember`` -> "iPhone" when the
  document's text holds that spelling, else its words ("i phone"); an axis without ``Axis``;
- a period: "fiscal year 2024", "the three months ended June 28, 2025", "September 28, 2024".
"""
from __future__ import annotations

import re
from datetime import date

_SPLIT = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_PAIRS = (("income loss", "income (loss)"), ("profit loss", "profit (loss)"), ("gain loss", "gain (loss)"),
          ("increase decrease", "increase (decrease)"), ("expense benefit", "expense (benefit)"),
          ("earnings losses", "earnings (losses)"))
_QUALIFIERS = ("current", "noncurrent", "net", "gross", "basic", "diluted")
_SMALL = {"and", "or", "of", "to", "in", "on", "for", "from", "by", "with", "the", "a", "an", "per"}
_DROP_TAIL = ("member", "axis", "domain", "text block", "abstract", "line items", "table")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")


def local_name(qname: str) -> str:
    return qname.split(":", 1)[-1]


def split_words(name: str) -> list[str]:
    return [w.lower() for w in _SPLIT.findall(name)]


def concept_words(qname: str) -> str:
    """``us-gaap:OtherAssetsCurrent`` -> "other assets, current"."""
    words = split_words(local_name(qname))
    tail = []
    while len(words) > 1 and words[-1] in _QUALIFIERS and not tail:
        tail.insert(0, words.pop())
    text = " ".join(words)
    for a, b in _PAIRS:
        text = re.sub(rf"\b{a}\b", b, text)
    return text + (", " + " ".join(tail) if tail else "")


def topic_words(qname: str) -> str:
    """A TextBlock concept's subject: ``us-gaap:IncomeTaxDisclosureTextBlock`` -> "income tax"."""
    text = " ".join(split_words(local_name(qname)))
    for suffix in (" text block", " policy", " disclosure", " policies"):
        if text.endswith(suffix):
            text = text[: -len(suffix)]
    return re.sub(r"\b(?:disclosure|policy|policies)\b", "", text).replace("  ", " ").strip() or text


def _spelled(words: list[str], view_lower: str | None, view: str | None) -> str | None:
    """The document's own spelling of ``words`` run together ("iphone" -> "iPhone"), when it
    occurs as a whole word."""
    if not view or not words:
        return None
    joined = "".join(words)
    if len(joined) < 3:
        return None
    m = re.search(rf"(?<![A-Za-z]){re.escape(joined)}(?![A-Za-z])", view_lower or view.lower())
    return view[m.start():m.end()] if m else None


def member_words(qname: str, view: str | None = None, view_lower: str | None = None) -> str:
    """A dimension member (or axis) in words, as the document spells it where it can."""
    words = split_words(local_name(qname))
    text = " ".join(words)
    for tail in _DROP_TAIL:
        if text.endswith(" " + tail):
            words = words[: -len(tail.split())]
            break
    if len(words) <= 2:
        spelled = _spelled(words, view_lower, view)
        if spelled:
            return spelled
    return " ".join(words)


def iso(d: str | None) -> date | None:
    try:
        return date.fromisoformat(d[:10]) if d else None
    except ValueError:
        return None


def date_words(d: date) -> str:
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def months_between(start: date, end: date) -> int:
    return round(((end - start).days + 1) / 30.44)


def fiscal_year(end: date, doc_end: date | None, doc_fy: int | None) -> int:
    """The fiscal year a period ending ``end`` belongs to: the document's fiscal year, minus
    the whole years between its period end and ``end``; the calendar year of ``end`` when
    the document gives none."""
    if doc_end is None or doc_fy is None:
        return end.year
    return doc_fy - round((doc_end - end).days / 365.25)


def period_words(start: str | None, end: str | None, doc_end: date | None = None,
                 doc_fy: int | None = None) -> str | None:
    """"fiscal year 2024", "the three months ended June 28, 2025", "September 28, 2024" (an
    instant), or None when the period cannot be read."""
    e = iso(end)
    if e is None:
        return None
    s = iso(start)
    if s is None:
        return date_words(e)
    m = months_between(s, e)
    if m == 12:
        return f"fiscal year {fiscal_year(e, doc_end, doc_fy)}"
    names = {1: "one month", 3: "three months", 6: "six months", 9: "nine months"}
    if m in names:
        return f"the {names[m]} ended {date_words(e)}"
    return f"the period from {date_words(s)} to {date_words(e)}"
