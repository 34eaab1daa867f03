"""What one line of extracted text is: a heading (and its level), a footnote, a page number,
a title; and which footnote marks a piece of text cites.

Shared by the plain-text parser (``text.py``), its tables (``text_tables.py``) and the PDF
parser (``pdf.py``): each asks the same questions of a line, so the answers live here once.
Spanish documents (the current document language ``es``, ``lang.current``) add ``Nota 7 —``
note headings and the section titles of Spanish filings; English rules stay first.
"""
from __future__ import annotations

import re

from ..lang.current import current_language
from .footnotes import SUPERSCRIPTS, cited_marks, sup_to_digits

_PART = re.compile(r"^\s*part\s+(?:i{1,3}|iv|v)\b", re.I)
_ITEM = re.compile(r"^\s*item\s*\d{1,2}[a-z]?\s*[.:\-–—]", re.I)
_NOTE_HEAD = re.compile(r"^\s*note\s+\d{1,2}\s*[.:\-–—]\s*\S", re.I)
NOTE_LINE = re.compile(rf"^\s*(?:\(\s*(\d{{1,2}}|[a-z])\s*\)|([{SUPERSCRIPTS}]+)|(\d{{1,2}})(?=\s)|([*†‡]+))\s*\S")
PAGE_NO = re.compile(r"^\s*(?:page\s+)?\d{1,3}(?:\s+of\s+\d{1,3})?\s*$|^\s*-\s*\d{1,3}\s*-\s*$", re.I)
NUM_CELL = re.compile(
    r"^[$€£¥]?\s*[(\-–—+]?\s*[$€£¥]?\s*\d[\d,]*(?:\.\d+)?\s*\)?\s*(?:%|x|pts|bps)?\)?$|^[—–-]{1,3}$|^n/?[ma]$",
    re.I,
)
YEAR_CELL = re.compile(r"(?:19|20)\d\d")
# the first non-blank character of a line NOTE_LINE can match (besides decimal digits), and
# the first two a PART / Item heading can ("pa", "it"; re.I lets "İ" and "ı" match "i")
NOTE_FIRST = frozenset("(*†‡" + SUPERSCRIPTS)
_PART_HEADS = frozenset(p + q for p in "pP" for q in "aA")
_ITEM_HEADS = frozenset(p + q for p in "iIİı" for q in "tT")
_NOTE_HEADS = frozenset(p + q for p in "nN" for q in "oO")
PART_ITEM_HEADS = _PART_HEADS | _ITEM_HEADS

_ES_NOTE_HEAD = re.compile(r"^\s*nota\s+(?:n[.º°]\s*)?\d{1,2}\s*[.:\-–—]\s*\S", re.I)
_ES_SECTION = re.compile(
    r"^\s*(?:(?:\d{1,2}|[ivx]{1,4})[.)]\s+)?(?:informe de gesti[oó]n(?: consolidado)?|cuentas anuales(?: consolidadas)?|"
    r"memoria(?: consolidada)?|informe de auditor[ií]a|estados financieros(?: consolidados)?|"
    r"datos fundamentales para el inversor|documento de datos fundamentales|objetivos? y pol[ií]tica de inversi[oó]n|"
    r"perfil de riesgo y remuneraci[oó]n|gastos|rentabilidad hist[oó]rica|informaci[oó]n pr[aá]ctica|"
    r"informe anual de gobierno corporativo|estado de informaci[oó]n no financiera|folleto)\s*[.:]?\s*$", re.I)

# _PAREN_CITE ("Revenue (1)") without its look-behind, so the search starts at a literal "("
# (fast); the look-behind is checked per match (_paren_cite_at): the same matches, same order
_PAREN_MARK = re.compile(r"\(\s*(\d{1,2}|[a-z])\s*\)(?=\s|$|[,.;:])")
_CITE_BEFORE = re.compile(r"[A-Za-z)\]]")


def spanish() -> bool:
    return current_language() == "es"


def is_num(cell: str) -> bool:
    """A figure ("$1,234.5", "(12)", "—", "n/m", "12%"), not a year."""
    c = cell.strip()
    return bool(NUM_CELL.match(c)) and not YEAR_CELL.fullmatch(c)


def line_heading_level(line: str) -> int:
    """1 (PART), 2 (Item, Spanish section), 3 (Note, ALL CAPS), or 0: not a heading line."""
    level = _english_heading_level(line)
    if level or not spanish():
        return level
    s = line.strip()
    if _ES_SECTION.match(s):
        return 2
    if _ES_NOTE_HEAD.match(s) and len(s) <= 120:
        return 3
    return 0


def _english_heading_level(line: str) -> int:
    s = line.strip()
    if not s or len(s) > 200:
        return 0
    head = s[:2]  # each regex tried only on a line that starts as it must
    if head in _PART_HEADS and _PART.match(s) and len(s) <= 120:
        return 1
    if head in _ITEM_HEADS and _ITEM.match(s):
        return 2
    if head in _NOTE_HEADS and _NOTE_HEAD.match(s) and len(s) <= 120:
        return 3
    if len(s) > 100 or s.endswith((",", ";")):
        return 0
    if s.isascii() and not s.isupper():
        return 0  # an ASCII line with a lower-case letter (or none at all): not ALL CAPS
    letters = [c for c in s if c.isalpha()]
    if len(letters) >= 4 and all(c.isupper() for c in letters):
        return 3
    return 0


def is_part_or_item(line: str) -> bool:
    """``line_heading_level(line) in (1, 2)``, cheaper: PART and Item lines (Spanish sections)."""
    s = line.strip()
    if not s or len(s) > 200:
        return False
    head = s[:2]
    return bool((head in _PART_HEADS and _PART.match(s) and len(s) <= 120) or (head in _ITEM_HEADS and _ITEM.match(s))
                or (spanish() and _ES_SECTION.match(s)))


def looks_title(line: str) -> bool:
    """A short capitalised line without final punctuation ("Liquidity and Capital Resources")."""
    s = line.strip()
    if not s or len(s) > 80 or s.endswith((".", ",", ";", ":")) or not s[0].isupper():
        return False
    if is_num(s) or PAGE_NO.match(s) or len(s.split()) > 12:
        return False
    return sum(c.isalpha() for c in s) >= 3


def note_mark(line: str, recent: dict[str, str]) -> str | None:
    """The mark of a footnote line: a superscript always; ``(1)``, ``1``, ``*`` only when
    ``recent`` holds that mark (cited shortly before)."""
    m = NOTE_LINE.match(line)
    if not m:
        return None
    if m.group(2):
        return sup_to_digits(m.group(2))
    mark = m.group(1) or m.group(3) or m.group(4)
    return mark if mark in recent else None


def cites(text: str, marked: bool = True) -> list[str]:
    """Footnote marks ``text`` cites: superscripts and the like (``footnotes.cited_marks``),
    then ``(1)`` after a word or a closing bracket. ``marked=False``: the caller knows the
    text holds no character such a mark starts with (``footnotes.may_cite``)."""
    marks = cited_marks(text) if marked else []
    if "(" in text:
        for m in _PAREN_MARK.finditer(text):
            if m.group(1) not in marks and _paren_cite_at(text, m.start()):
                marks.append(m.group(1))
    return marks


def _paren_cite_at(text: str, p: int) -> bool:
    """_PAREN_CITE matches at the "(" at p: a letter, ")" or "]" before it, directly or
    across one whitespace character."""
    if p >= 1 and _CITE_BEFORE.match(text, p - 1):
        return True
    return p >= 2 and text[p - 1].isspace() and _CITE_BEFORE.match(text, p - 2) is not None
