"""The Chunk model.

``spans`` index the raw document text (what evaluation scores); ``view_spans`` index the
parser's text view, and ``source_text`` is the view text at those spans joined by
``SPAN_JOINER`` (for Markdown and plain text the view is the raw text, so source_text is
exactly the raw text at the spans).
"""
from __future__ import annotations

from dataclasses import dataclass, field

SPAN_JOINER = "\n\n"


@dataclass
class Chunk:
    chunk_id: str
    chunk_set: str
    doc_id: str
    kind: str                                  # text, table, table_rows, note, list, turn, mixed ...
    spans: list[tuple[int, int]]               # raw coordinates, half-open, in reading order
    view_spans: list[tuple[int, int]]          # view coordinates, same order
    section_path: tuple[str, ...]
    parent_id: str | None
    source_text: str
    embedding_text: str = ""
    display_text: str = ""
    n_tokens: int = 0
    over_limit: bool = False
    block_ids: list[str] = field(default_factory=list)

    @property
    def n_chars(self) -> int:
        return len(self.source_text)


def spans_of(value) -> list[tuple[int, int]]:
    """Spans column cell (list of {start, end}) -> list of tuples."""
    return [(int(s["start"]), int(s["end"])) for s in value]
