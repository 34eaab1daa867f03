"""From a strategy's pieces to finished chunks: source, embedding and display texts.

Strategies only decide *which* view ranges form a chunk (a Piece). This module turns a piece
into a Chunk the same way for every strategy: exact source text, raw spans, the context
header for the embedding text (which never overwrites the source), a readable display text,
and the token count with the embedding model's tokenizer.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..types.blocks import Block, ParsedDocument
from ..types.chunks import SPAN_JOINER, Chunk

# Version of the piece -> chunk step shared by every strategy; part of every config hash.
# 2: block-aligned spans take the block's outer raw span (HTML element markup included).
# 3: pieces over the strategy's character bound are split (chunking/bound.py).
BUILD_VERSION = "3"
DISPLAY_MAX_CHARS = 1200
TRUNCATION_MARK = " […]"
_NON_SPACE = re.compile(r"\S")  # \s is str.isspace / str.strip's whitespace


@dataclass
class Piece:
    view_spans: list[tuple[int, int]]
    kind: str
    section_path: tuple[str, ...] = ()
    parent_id: str | None = None
    block_ids: list[str] = field(default_factory=list)
    # strategy-given context for the embedding text only (e.g. the speaker of a transcript
    # piece that does not start with the speaker's label); never part of the source
    context: str = ""
    speaker: str = ""      # shown by the "speaker" context field
    # view_spans itself (the same list) once they are known normalized (normalize_spans): the
    # size bound normalizes every piece, and build_chunks then need not again; a piece given
    # other spans (dataclasses.replace, a new list) no longer matches and is normalized
    normalized: list[tuple[int, int]] | None = field(default=None, repr=False, compare=False)


def headings_piece(headings: list[Block]) -> Piece:
    """Headings no content followed (the document ends below them): one "heading" piece."""
    return Piece([(h.vstart, h.vend) for h in headings], "heading", headings[0].section_path, None,
                 [h.block_id for h in headings])


def normalize_spans(view: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Trim whitespace at span edges, drop empty spans, and merge spans whose gap is
    whitespace only (keeps reading order; the source text stays exact). The gap is searched
    in place: it may be most of the document (a note linked from far away)."""
    out: list[tuple[int, int]] = []
    non_space = _NON_SPACE.search
    for s, e in spans:
        while s < e and view[s].isspace():
            s += 1
        while e > s and view[e - 1].isspace():
            e -= 1
        if s >= e:
            continue
        if out and out[-1][1] <= s and non_space(view, out[-1][1], s) is None:
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def context_header(meta: dict[str, Any], section_path: tuple[str, ...], fields: tuple[str, ...],
                   speaker: str = "") -> str:
    """A compact context line, e.g. ``Northwind plc — Annual report 2024 > Key figures``.

    fields: title, issuer, period (FY or period end), doc_type, section, speaker. The labels
    (period, doc_type) are in the document's language (``meta["language"]``, lang/labels.py;
    e.g. "ejercicio 2024", "periodo cerrado el 31/12/2024"), English by default."""
    from ..lang.labels import labels

    lab = labels(meta.get("language") if isinstance(meta.get("language"), str) else None)
    title = str(meta.get("title") or "").strip()
    parts: list[str] = []
    for f in fields:
        if f == "title" and title:
            parts.append(title)
        elif f == "issuer" and meta.get("issuer") and str(meta["issuer"]) not in title:
            parts.append(str(meta["issuer"]))
        elif f == "period":
            fy = meta.get("fiscal_year")
            pe = meta.get("period_end")
            if fy is not None and str(fy) not in ("", "nan", "<NA>", "None") and str(fy) not in title:
                try:
                    parts.append(lab.year(int(float(fy))))
                except (TypeError, ValueError):
                    parts.append(str(fy))
            if pe is not None and str(pe) not in ("", "nan", "NaT", "<NA>", "None"):
                parts.append(lab.period(str(pe)[:10]))
        elif f == "doc_type" and meta.get("doc_type"):
            parts.append(lab.doc_type(str(meta["doc_type"])))
        elif f == "section":
            parts.extend(p for p in section_path if p and p != title)
        elif f == "speaker" and speaker:
            parts.append(speaker)
    return " > ".join(parts)


def display_text(source: str, max_chars: int = DISPLAY_MAX_CHARS) -> str:
    if len(source) <= max_chars:
        return source
    cut = source.rfind(" ", 0, max_chars)
    cut = cut if cut > max_chars // 2 else max_chars
    return source[:cut].rstrip() + TRUNCATION_MARK


def build_chunks(doc: ParsedDocument, meta: dict[str, Any], pieces: list[Piece], *, chunk_set: str,
                 header: bool, context_fields: tuple[str, ...], counter=None) -> list[Chunk]:
    view = doc.view_text
    identity = doc.offsets.is_identity  # raw spans are the view spans (text, Markdown)
    raw_span = doc.raw_span
    heads: dict[tuple, str] = {}        # context header per (section path, speaker)
    chunks: list[Chunk] = []
    doc_id = doc.doc_id
    id_prefix = f"{doc_id}#c"
    for piece in pieces:
        vspans = piece.view_spans
        if piece.normalized is not vspans:
            vspans = normalize_spans(view, vspans)
        if not vspans:
            continue
        source = SPAN_JOINER.join([view[s:e] for s, e in vspans])  # one span: its text itself
        raw_spans = list(vspans) if identity else [raw_span(s, e) for s, e in vspans]
        embedding = source
        if header or piece.context:
            lines: list[str] = []
            if header:
                key = (tuple(piece.section_path), piece.speaker)
                head = heads.get(key)
                if head is None:
                    head = heads[key] = context_header(meta, piece.section_path, context_fields,
                                                       speaker=piece.speaker)
                if head:
                    lines.append(head)
            if piece.context and piece.context not in lines:
                lines.append(piece.context)
            # the context only ever precedes the exact source text
            if lines:
                embedding = "\n\n".join(lines + [source])
        chunks.append(Chunk(
            chunk_id=f"{id_prefix}{len(chunks):05d}", chunk_set=chunk_set, doc_id=doc_id, kind=piece.kind,
            spans=raw_spans, view_spans=vspans, section_path=tuple(piece.section_path),
            parent_id=piece.parent_id, source_text=source, embedding_text=embedding,
            display_text=display_text(source),
            block_ids=list(piece.block_ids),
        ))
    if counter is not None and chunks:
        for chunk, n in zip(chunks, counter.count_many([c.embedding_text for c in chunks])):
            chunk.n_tokens = n
            chunk.over_limit = n > counter.max_tokens
    return chunks
