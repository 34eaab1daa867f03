"""HTML parser for SEC-style and real EDGAR (inline-XBRL) filings.

One linear pass over the raw string (exact raw positions, no DOM), in three steps:
``tokenizer`` (raw string -> tag and text events with raw positions), ``blocks`` (the
state machine: element stack, paragraphs, headings, notes, lists; ``atoms`` holds a block's
text pieces with their raw positions, ``writer`` the view and the block list) and
``tables`` (cells -> TABLE / TABLE_ROW blocks). What the view and blocks are:

- view text: visible text only; ``<head>``, ``<script>``, ``<style>``, ``ix:header`` and any
  ``display:none`` subtree are dropped; inline-XBRL wrappers (``ix:nonFraction`` ...) keep
  their text. Whitespace (incl. ``&nbsp;``) collapses to one space; entities decode. Blocks
  are separated in the view by an inserted blank line, table rows by a newline and cells by
  an inserted `` | `` (inserted characters belong to no offset run).
- offsets: copied text maps run-for-run to the raw HTML. A decoded entity maps to the raw
  entity's first character, except when it is the last character of a block, where it maps
  to the entity's last character (``;``) so the block's raw span covers the whole entity.
  Every block's ``(start, end)`` is ``offsets.to_raw(vstart, vend)``.
- headings: ``h1``-``h6`` (level = tag level) and, in div-soup filings, lines that are
  ``PART I..`` (level 1), ``Item 7.`` (level 2), or short fully bold lines (level 3).
  A heading's ``section_path`` includes its own text (as the Markdown parser does).
- tables: one TABLE block + one TABLE_ROW per non-empty row. Empty spacer cells are dropped,
  ``$`` cells are joined with the following number and ``%``/``)`` cells with the preceding
  one. Rows above the first data row are header rows; ``columns`` combines multi-row headers
  per logical column (logical columns are clusters of grid positions used by data rows).
  Single-column layout tables are emitted as paragraphs, two-column "(1) | text" tables as
  notes.
- footnotes: marks are ``<sup>`` content or Workiva-style raised spans (``top:-3pt`` /
  ``vertical-align:super``); citing blocks get ``cites``. A paragraph after the citing block
  that starts with a cited mark (``(1) ...``, ``1 ...``, ``* ...``) or with a raised mark is
  a NOTE with ``mark`` (and ``refers_to`` = block_id of the citing table/block).
- lists: one LIST block per top-level ``<ul>``/``<ol>`` (items on their own view lines,
  ``attrs["items"]``); ``<li>`` outside a list is a LIST block of one item.
- ``attrs["outer"]`` = [s, e]: the raw span widened over the element tags directly around
  the block (``<p><b>PART I</b></p>``, ``<tr>...</tr>`` incl. empty spacer cells at its
  edges), present when it differs from (start, end). Labelled corpora that mark passages
  as whole elements (the synthetic SEC HTML does) match it exactly.
- inline XBRL: every tagged fact (``ix:nonFraction`` / ``ix:nonNumeric``) with its context,
  unit, value and its raw span, view span and block (``ParsedDocument.facts``; parse/ixbrl).
- bad markup never raises: unmatched close tags are ignored, unclosed tags are closed at the
  end, unterminated comments swallow the rest; counts are recorded as warnings.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...hashing import sha256_text
from ...types.blocks import ParsedDocument
from .. import ixbrl
from ..gcpause import without_gc
from .blocks import BlockBuilder
from .outer import outer_span
from .tokenizer import TokenSink, tokenize

__all__ = ["MAX_CHARS", "VERSION", "outer_span", "parse"]

# 2: inline-XBRL facts located and stored with the blocks (parse/ixbrl; blocks unchanged)
VERSION = f"2.{ixbrl.VERSION}"
FORMATS = ("html",)

MAX_CHARS = 60_000_000  # beyond this the tail is not parsed (recorded as a warning)


@without_gc
def parse(doc_id: str, text: str, meta: dict[str, Any] | None = None, *,
          tokenizer: Callable[[str, int, TokenSink], None] = tokenize) -> ParsedDocument:
    """Blocks of an HTML document. ``tokenizer`` is the event source; only
    bench/bench_html_tokenizer.py passes another one (to compare standard-library tokenizers)."""
    if text is None or not text.strip():
        raise ValueError(f"{doc_id}: HTML document has no text at all")
    p = BlockBuilder(doc_id, text)
    n = len(text)
    if n > MAX_CHARS:
        p.warnings.append(f"document has {n} chars; only the first {MAX_CHARS} were parsed")
        n = MAX_CHARS
    try:
        p.run(n, tokenizer)
    except RecursionError as exc:  # pragma: no cover - defensive
        p.warnings.append(f"parse aborted: {exc}")
    out = p.out
    view = "".join(out.view)
    if not view.strip():
        raise ValueError(f"{doc_id}: HTML document has no visible text (only markup / hidden content)")
    if "<" not in text:
        p.warnings.append("document contains no HTML markup; parsed as plain text")
    for b in out.blocks:
        if b.text != view[b.vstart:b.vend]:  # pragma: no cover - internal consistency
            p.warnings.append(f"block {b.block_id}: text re-sliced from the view")
            b.text = view[b.vstart:b.vend]
        b.start, b.end = out.offsets.to_raw(b.vstart, b.vend)
        o = outer_span(text, b.start, b.end)
        if o != (b.start, b.end):
            b.attrs["outer"] = list(o)
    facts, fact_warnings = ixbrl.extract(doc_id, text, n, out.offsets, out.blocks, view)
    return ParsedDocument(
        doc_id=doc_id, doc_sha=sha256_text(text), parser="html", parser_version=VERSION,
        view_text=view, offsets=out.offsets, blocks=out.blocks, warnings=p.warnings + fact_warnings,
        facts=facts,
    )
