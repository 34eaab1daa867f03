"""Exact spans for chunks a library returns as text: checked at a reported offset, or located.

``checked``: the library reports where a chunk starts; the view text there must be the
chunk's text. ``located``: the library reports no offsets; each chunk is searched in the view
from a cursor that only moves forward (from the previous chunk's end, or — for a splitter
that repeats an overlap — from the previous chunk's start: an overlap may repeat all of a short
chunk, so the next one can start where it did), so a repeated phrase is found where the
library took it, not earlier. Either way a chunk that is not where it should be is
an error naming the document and the library: a span is never guessed.
"""
from __future__ import annotations

import importlib.util
import re
from typing import Iterable

from ...types.blocks import ParsedDocument
from ..context import Piece
from ..sections import section_at

EXTRA_HINT = "pip install -e '.[baselines]'"


def installed(module: str) -> bool:
    """Whether ``module`` (possibly dotted: ``llama_index.core``) can be imported."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is missing
        return False


def require(module: str, strategy: str, extra: str = "baselines") -> None:
    """ImportError naming the strategy, the module and the extra when ``module`` is missing."""
    if not installed(module):
        hint = EXTRA_HINT if extra == "baselines" else f"pip install -e '.[{extra}]'"
        raise ImportError(f"strategy {strategy!r} needs {module!r}, from the optional extra {extra!r}: {hint}")


def checked(doc: ParsedDocument, start: int, text: str, who: str) -> tuple[int, int]:
    """(start, end) of a chunk the library says starts at ``start``; ValueError when the view
    text there is not the chunk's text."""
    end = start + len(text)
    if start < 0 or doc.view_text[start:end] != text:
        raise ValueError(f"{doc.doc_id}: {who} returned a chunk whose start index does not match the text")
    return start, end


def located(doc: ParsedDocument, texts: Iterable[str], who: str, overlapping: bool,
            start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The (start, end) of each chunk text in ``doc.view_text[start:end]``, in order.
    ``overlapping``: the splitter repeats the end of a chunk at the start of the next, so the
    next is searched from the previous chunk's start (else from its end).
    Whitespace-only chunks are left out. ValueError naming the document when a chunk is not
    in the view text after the cursor (the library changed the text: no exact span exists)."""
    view = doc.view_text
    limit = len(view) if end is None else end
    cursor, out = start, []
    for text in texts:
        if not text.strip():
            continue
        s = view.find(text, cursor, limit)
        if s < 0:
            raise ValueError(f"{doc.doc_id}: {who} returned a chunk that is not in the document's text after "
                             f"position {cursor} (its text was changed; no exact span): {text[:80]!r}")
        e = s + len(text)
        out.append((s, e))
        cursor = s if overlapping else e
    return out


def located_words(doc: ParsedDocument, text: str, who: str, start: int, end: int) -> tuple[int, int]:
    """The span of ``doc.view_text[start:end]`` holding ``text``'s words in order with any
    whitespace between them (for a library that rewrites line breaks as spaces: the span's
    characters are the view's own, they differ from the library's text in whitespace only).
    ValueError naming the document when the words are not there."""
    words = text.split()
    found = re.compile(r"\s+".join(map(re.escape, words))).search(doc.view_text, start, end) if words else None
    if found is None:
        raise ValueError(f"{doc.doc_id}: {who} returned a chunk that is not in the document's text after "
                         f"position {start} (its words were changed; no exact span): {text[:80]!r}")
    return found.start(), found.end()


def window_pieces(doc: ParsedDocument, spans: Iterable[tuple[int, int]]) -> list[Piece]:
    """One "window" piece per span, with the section it starts in."""
    return [Piece([(s, e)], "window", section_at(doc, s)) for s, e in spans if e > s]
