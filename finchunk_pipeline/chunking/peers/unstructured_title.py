"""Unstructured's ``chunk_by_title`` over elements built from our own blocks.

Unstructured's partitioners (``partition_text``, ``partition_html``, ...) want spaCy and NLTK
models they download at first use — not possible offline, and not the comparison anyway: the
parsed blocks are the same for every strategy. ``chunk_by_title`` itself needs no model, so each
top-level block becomes the element a partitioner would give (a heading a ``Title``, a table a
``Table``, a list a ``ListItem``, the rest ``NarrativeText``) with its view text, and
``chunk_by_title(elements, max_characters=size)`` (its other options at their defaults: new
chunk after ``size``, small sections combined under ``size``, no overlap) cuts them: sections
start at titles, small sections are combined, an element over ``size`` is split.

Spans: Unstructured joins a chunk's elements with a blank line and writes the line breaks
inside a list or paragraph as spaces, so its text differs from the view's in whitespace. A
chunk whose words are those of whole elements spans those elements' blocks; a piece of a split
element is located, words in order with any whitespace between, inside that element's block
from a cursor (peers/spans.py ``located_words``). Either way the chunk's text is the view's own
(the words Unstructured returned, the view's whitespace); anything else is an error naming the
document.

Optional extra ``unstructured`` (``pip install -e '.[unstructured]'``), not part of
``baselines``: the package requires spaCy, numba and ``filelock<4`` (a downgrade in this
project's environment), none of which ``chunk_by_title`` uses.
"""
from __future__ import annotations

from typing import Any

from pydantic import Field

from ...types.blocks import ParsedDocument
from ..context import Piece
from ..options import StrategyParams
from ..sections import section_at
from ..strategy import Strategy
from ..strategy_context import ChunkingContext
from .spans import located_words, require

ELEMENT_OF_KIND = {"heading": "Title", "table": "Table", "list": "ListItem"}  # else NarrativeText
JOINER = "\n\n"  # how chunk_by_title joins the texts of the elements of one chunk


class TitleParams(StrategyParams):
    """``size``: chunk_by_title's ``max_characters`` (its default 500)."""

    size: int = Field(500, gt=0)


class UnstructuredTitle(Strategy):
    """unstructured.chunking.title.chunk_by_title(elements, max_characters=size)."""

    name = "unstructured_title"
    family = "plain"
    requires = "unstructured"
    Params = TitleParams
    bound_param = "size"

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        require(self.requires, self.name, extra="unstructured")
        from unstructured.chunking.title import chunk_by_title
        from unstructured.documents import elements as el

        view = doc.view_text
        blocks = [b for b in doc.blocks if b.parent_id is None and view[b.vstart:b.vend].strip()]
        elements = [getattr(el, ELEMENT_OF_KIND.get(b.kind, "NarrativeText"))(view[b.vstart:b.vend], element_id=str(i))
                    for i, b in enumerate(blocks)]
        cursors: dict[int, int] = {}  # per split element: where its next piece is searched from
        out = []
        for chunk in chunk_by_title(elements, max_characters=self.resolve(params).size):
            ids = [int(e.id) for e in (chunk.metadata.orig_elements or [])]
            if not ids:
                raise ValueError(f"{doc.doc_id}: Unstructured returned a chunk without its elements: {chunk.text[:80]!r}")
            parts = [blocks[i] for i in ids]
            if chunk.text.split() == JOINER.join(view[b.vstart:b.vend] for b in parts).split():
                spans = [(b.vstart, b.vend) for b in parts]  # whole elements
            elif len(parts) == 1:  # a piece of an element over the size
                b = parts[0]
                spans = [located_words(doc, chunk.text, "Unstructured", cursors.get(ids[0], b.vstart), b.vend)]
                cursors[ids[0]] = spans[0][1]
            else:
                raise ValueError(f"{doc.doc_id}: Unstructured returned a chunk that is neither whole elements nor "
                                 f"a piece of one (its text was changed; no exact span): {chunk.text[:80]!r}")
            if spans:
                out.append(Piece(spans, "window", section_at(doc, spans[0][0]), block_ids=[b.block_id for b in parts]))
        return out
