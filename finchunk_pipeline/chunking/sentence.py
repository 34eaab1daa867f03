"""Financial-aware sentence splitting on positions, and the ``sentence`` strategy.

``split_sentences(text, start, end)`` returns view ranges (no text is copied), so every
sentence keeps its exact span. It does not split after abbreviations (``U.S.``, ``Inc.``,
``No. 5``, ``approx.``, initials), inside numbers (``$1.2 million``, ``3.5%``), before a
lower-case continuation, or inside parentheses opened in the same sentence. Pre-tokenised
text (``... respectively . the company ...``, as in FinQA) splits at a free-standing period.

Languages: ``split_sentences(..., language=...)`` (default: the language of the document
being chunked, ``lang/current.py``). English is the rule above, unchanged. Spanish adds its
abbreviations (``S.A.``, ``Sr.``, ``Dña.``, ``núm.``, ``art.``, ``pág.``, ``aprox.`` …), reads
accented words before a period, and lets a sentence open with ``¿``, ``¡`` or ``«``.
"""
from __future__ import annotations

import re
from typing import Any

from pydantic import Field, model_validator

from ..lang.current import current_language
from ..types.blocks import Block, BlockKind, ParsedDocument
from .context import Piece
from .options import StrategyParams, field_error
from .strategy import Strategy
from .strategy_context import ChunkingContext

ABBREVIATIONS = frozenset("""
inc corp co ltd llc plc lp llp bv nv sa ag gmbh no nos mr mrs ms dr prof st jr sr vs v etc approx
est dept div fig figs ref refs sec art para pp vol ed eds jan feb mar apr jun jul aug sep sept oct nov dec
mon tue wed thu fri sat sun e.g i.e u.s u.k u.n e.u a.m p.m cf al ca op yr yrs mo mos avg min max incl excl
bn mn mln bil tr pts
""".split())

ABBREVIATIONS_ES = frozenset("""
sa sau sl slu sr sra sres sras srta d dña dn don dr dra lic ing prof excmo excma ilmo ilma
núm num nº no art arts pág págs pag pags cap caps vol tomo ed apdo aprox p ej etc cía cia
vid op cit ib ibid ud uds vd vds dcha izq tel fax av avda c.p e.g i.e ee.uu ee uu
ene feb mar abr may jun jul ago sep sept oct nov dic
mill mills mll mm bn est inc corp ltd plc nv ag gmbh
""".split())
_ABBREVIATIONS = {"en": ABBREVIATIONS, "es": ABBREVIATIONS_ES}
_OPENERS = {"es": "¿¡«"}

# candidate boundary: terminal punctuation, optional closing quotes/brackets, then whitespace;
# written for speed: a first character class the regex engine scans for (a leading repeat gets
# no such prefix), the punctuation run as group 1 and the first character after the whitespace
# (None at the end of the range) as group 2 (tests/unit/test_sentence_fast.py: the plain definition)
_BOUNDARY_NEXT = re.compile(r"([.!?][.!?]*)[\"'”’)\]]*(?=\s+(\S)?)")
# the same where the text has no "!" or "?": a literal first character is scanned for fastest
_PERIOD_NEXT = re.compile(r"(\.\.*)[\"'”’)\]]*(?=\s+(\S)?)")
_BLANK_LINE = re.compile(r"\n\s*\n")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.&]*)\.$")
_WORD_BEFORE_UNICODE = re.compile(r"((?<![^\W\d_])[^\W\d_][^\W\d_.&]*(?:\.[^\W\d_]+)*)\.$")
# what _WORD_BEFORE needs right before the dot: a text without it there ends no abbreviation
_WORD_BEFORE_LAST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.&")
_DEFAULT_OPENERS = "\"'“‘([$€£"


def _is_abbreviation(text: str, dot: int, language: str = "en") -> bool:
    """``text[dot] == '.'``: does the word ending at it look like an abbreviation?"""
    lo = max(0, dot - 20)
    if language == "en":
        if dot == 0 or text[dot - 1] not in _WORD_BEFORE_LAST:
            return False
        word = text[max(lo, text.rfind(" ", lo, dot) + 1):dot]
        if word.isalpha() and word.isascii():  # the usual case: what _WORD_BEFORE would find
            word = word.lower()
            return word in ABBREVIATIONS or len(word) == 1
        m = _WORD_BEFORE.search(text, lo, dot + 1)
    else:
        m = _WORD_BEFORE_UNICODE.search(text, lo, dot + 1)
    if not m:
        return False
    word = m.group(1).lower().rstrip(".")
    if word in _ABBREVIATIONS.get(language, ABBREVIATIONS):
        return True
    if len(word) == 1:  # an initial: "J. Smith", "Class A. shares" (rare)
        return True
    if "." in word and len(word) <= 6:  # U.S, e.g, N.A
        return True
    return False


def boundary_candidates(text: str, start: int, end: int):
    """The candidate boundaries of ``text[start:end]``: matches of the boundary regex, in order."""
    plain = text.find("!", start, end) < 0 and text.find("?", start, end) < 0
    return (_PERIOD_NEXT if plain else _BOUNDARY_NEXT).finditer(text, start, end)


def candidate_passes(text: str, m: re.Match, start: int, language: str, openers: str) -> bool:
    """Is candidate ``m`` a boundary by what follows and precedes it (everything but the open
    parenthesis test, the one that depends on the previous boundary)? ``start``: the range's."""
    nxt = m.group(2)
    if nxt is None:  # only whitespace follows
        return False
    m_start = m.start()
    if text[m_start] == ".":
        if m_start > start and text[m_start - 1] == " ":  # pre-tokenised " . "
            return True
        # "No. 5", "U.S. Treasury", "Inc. reported": an abbreviation is a boundary only when
        # it closes a sentence followed by a clear new one, which we cannot tell reliably;
        # keep it together
        return not _is_abbreviation(text, m.end(1) - 1, language) and (
            nxt.isupper() or nxt.isdigit() or nxt in openers)
    return not nxt.islower()


def open_parenthesis(text: str, pos: int, m_start: int) -> bool:
    """An open parenthesis in the sentence from ``pos``: a candidate there is no boundary
    (most sentences hold none: one search instead of two counts)."""
    return text.find("(", pos, m_start) >= 0 and text.count("(", pos, m_start) > text.count(")", pos, m_start)


def sentence_openers(language: str) -> str:
    return _DEFAULT_OPENERS + _OPENERS.get(language, "")


def _boundaries(text: str, start: int, end: int, language: str) -> list[int]:
    """Where sentences end inside ``text[start:end]`` by punctuation (see the module doc)."""
    openers = sentence_openers(language)
    cuts: list[int] = []
    pos = start
    for m in boundary_candidates(text, start, end):
        if candidate_passes(text, m, start, language, openers) and not open_parenthesis(text, pos, m.start()):
            pos = m.end()
            cuts.append(pos)
    return cuts


def split_sentences(text: str, start: int = 0, end: int | None = None, min_chars: int = 1,
                    language: str | None = None) -> list[tuple[int, int]]:
    """Sentence ranges tiling ``text[start:end]`` (whitespace trimmed at edges).

    Paragraph breaks (a blank line) always end a sentence."""
    if language is None:
        language = current_language()
    end = len(text) if end is None else end
    # blank lines always split
    cuts = [m.start() for m in _BLANK_LINE.finditer(text, start, end)] + _boundaries(text, start, end, language)
    cuts = sorted(set(c for c in cuts if start < c < end))
    out: list[tuple[int, int]] = []
    prev = start
    for c in cuts + [end]:
        s, e = prev, c
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            if out and (e - s) < min_chars and out[-1][1] <= s:
                out[-1] = (out[-1][0], e)
            else:
                out.append((s, e))
        prev = c
    return out


CONTENT_KINDS = (BlockKind.PARAGRAPH, BlockKind.LIST, BlockKind.NOTE, BlockKind.TURN)


def sentence_units(doc: ParsedDocument, include_headings: bool = False) -> list[tuple[tuple[int, int], Block]]:
    """Reading-order units: sentences of text blocks, rows of tables (each with its block)."""
    units: list[tuple[tuple[int, int], Block]] = []
    view = doc.view_text
    for b in doc.blocks:
        if b.kind == BlockKind.TABLE:
            continue
        if b.kind == BlockKind.TABLE_ROW:
            units.append(((b.vstart, b.vend), b))
        elif b.kind == BlockKind.HEADING:
            if include_headings:
                units.append(((b.vstart, b.vend), b))
        elif b.attrs.get("furniture"):
            continue
        else:
            for s, e in split_sentences(view, b.vstart, b.vend):
                units.append(((s, e), b))
    return units


class SentenceParams(StrategyParams):
    n: int = Field(5, gt=0)             # sentences per chunk
    overlap: int = Field(1, ge=0)       # sentences shared with the previous chunk
    max_chars: int = Field(2000, gt=0)

    @model_validator(mode="after")
    def _overlap_below_n(self) -> "SentenceParams":
        if self.overlap >= self.n:
            raise field_error("overlap", f"expected >= 0 and < n ({self.n})", self.overlap)
        return self


class Sentences(Strategy):
    """Windows of ``n`` sentences (table rows count as sentences) with ``overlap`` sentences
    repeated; a window never crosses a section boundary; a section's heading travels with
    the section's first window."""

    name = "sentence"
    version = "1"
    Params = SentenceParams
    bound_param = "max_chars"

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        p = self.resolve(params)
        n, max_chars = p.n, p.max_chars
        units = sentence_units(doc, include_headings=True)
        # runs of units of one section
        runs: list[list[tuple[tuple[int, int], Block]]] = []
        for u in units:
            if runs and runs[-1][-1][1].section_path == u[1].section_path:
                runs[-1].append(u)
            else:
                runs.append([u])
        out: list[Piece] = []
        for run in runs:
            i = 0
            while i < len(run):
                j = i
                while j < len(run) and j - i < n and (j == i or run[j][0][1] - run[i][0][0] <= max_chars):
                    j += 1
                group = run[i:j]
                spans = [u[0] for u in group]
                kinds = {u[1].kind for u in group}
                kind = "sentences" if kinds <= set(CONTENT_KINDS) | {BlockKind.HEADING} else (
                    "table_rows" if kinds <= {BlockKind.TABLE_ROW} else "mixed")
                ids: list[str] = []
                for u in group:
                    if u[1].block_id not in ids:
                        ids.append(u[1].block_id)
                out.append(Piece(spans, kind, group[0][1].section_path, None, ids))
                if j >= len(run):
                    break
                i = j - p.overlap if j - p.overlap > i else j
        return out
