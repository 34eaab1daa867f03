"""Each document's text, recovered from a chunk set: what the document-level index reads.

A chunk's ``source_text`` is the parser's view text at its ``view_spans`` joined by
``SPAN_JOINER``, so the pieces can be cut back out and laid at their view offsets. The union
over a document's chunks is its text as the chunk set covers it (overlaps counted once,
context headers left out) — the same for every chunk set that loses no text, so a
document-level score does not depend on how the document was cut.
"""
from __future__ import annotations

from typing import Iterable

import pandas as pd

from ..types.chunks import SPAN_JOINER, spans_of


def pieces(source_text: str, view_spans: Iterable[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """(view start, view end, text) of each span of one chunk."""
    out, pos = [], 0
    for s, e in view_spans:
        out.append((s, e, source_text[pos:pos + (e - s)]))
        pos += (e - s) + len(SPAN_JOINER)
    return out


def runs(chunks: pd.DataFrame) -> dict[str, list[tuple[int, str]]]:
    """{doc_id: [(view start, text), ...]}: the maximal contiguous view ranges the chunks cover,
    in reading order (overlaps counted once, context headers left out)."""
    by_doc: dict[str, list[tuple[int, int, str]]] = {}
    for doc_id, text, vs in zip(chunks["doc_id"], chunks["source_text"], chunks["view_spans"]):
        by_doc.setdefault(doc_id, []).extend(pieces(text, spans_of(vs)))
    out: dict[str, list[tuple[int, str]]] = {}
    for doc_id, ps in by_doc.items():
        doc_runs: list[list] = []  # [start, [texts]]
        end = None
        for s, e, t in sorted(ps, key=lambda p: (p[0], -p[1])):
            if end is not None and e <= end:
                continue                      # inside what is already there
            if end is not None and s < end:   # overlap: only the new tail
                t, s = t[end - s:], end
            if end is None or s > end:
                doc_runs.append([s, []])
            doc_runs[-1][1].append(t)
            end = e
        out[doc_id] = [(start, "".join(texts)) for start, texts in doc_runs]
    return out


def document_texts(chunks: pd.DataFrame) -> dict[str, str]:
    """{doc_id: text}: the union of the chunks' view pieces per document in reading order
    (``runs``); gaps between covered ranges become one blank line."""
    return {doc_id: SPAN_JOINER.join(t for _, t in doc_runs) for doc_id, doc_runs in runs(chunks).items()}
