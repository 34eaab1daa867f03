"""Every strategy bounded by characters respects its declared bound, whatever the document:
a single-line document with no split point, a table of thousands of rows. Pieces over the
bound are cut by characters as a last resort (spans exact, no text lost), and the chunk set
reports how many were."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from finchunk_pipeline.chunking.bound import SPLIT_NOTE, piece_bound, span_chars, split_spans
from finchunk_pipeline import chunk_document
from finchunk_pipeline import ChunkerConfig
from finchunk_pipeline import SPAN_JOINER
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline import build_chunk_set
from finchunk_pipeline import ChunkStore
from finchunk_pipeline import build_report, render_markdown
from finchunk_pipeline.parse import markdown
from finchunk_pipeline import BlockStore

from tests.unit.test_chunking_strategies import _fake_embed

BOUNDED = sorted(n for n, s in STRATEGIES.items() if s.char_bound({}) is not None and s.available())

ONE_LINE = "revenue " + "x1,234y" * 30_000 + " end"  # ~210 KB, no sentence, line or word break
TABLE = ("# Segment data\n\n| Segment | 2023 | 2024 |\n|---|---:|---:|\n"
         + "".join(f"| Segment {i} | {i},000 | {i + 1},000 |\n" for i in range(5000)))  # ~150 KB


def _doc(name: str, text: str):
    return markdown.parse(name, text, {}), {"doc_id": name, "title": name, "doc_type": "annual_report"}


def _non_space(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("name", BOUNDED)
@pytest.mark.parametrize("text", [ONE_LINE, TABLE], ids=["single-line", "5000-row-table"])
def test_every_bounded_strategy_respects_its_bound(name, text, monkeypatch):
    import finchunk_pipeline.chunking.semantic as semantic

    monkeypatch.setattr(semantic, "embed", _fake_embed)
    doc, meta = _doc("big", text)
    config = ChunkerConfig(name, name)
    bound = STRATEGIES[name].char_bound({}, doc, meta)
    table_bound = STRATEGIES[name].table_char_bound({}, doc, meta)  # tables only (bound.TABLE_KINDS)
    chunks = chunk_document(config.chunker, doc, meta)
    assert chunks
    for c in chunks:
        assert span_chars(c.view_spans) <= piece_bound(c.kind, bound, table_bound), (c.kind, span_chars(c.view_spans))
    for c in chunks:  # spans exact
        assert c.source_text == SPAN_JOINER.join(doc.view_text[s:e] for s, e in c.view_spans)
    covered = np.zeros(len(doc.view_text), bool)
    for c in chunks:
        for s, e in c.view_spans:
            covered[s:e] = True
    for b in doc.blocks:  # nothing lost: every non-space character of every leaf block
        if b.kind == "table":
            continue  # a table is its rows
        lost = "".join(doc.view_text[i] for i in range(b.vstart, b.vend)
                       if not covered[i] and not doc.view_text[i].isspace())
        assert not lost, f"{name} lost text of {b.kind} {b.block_id}: {lost[:80]!r}"


def test_split_is_balanced_and_prefers_line_breaks():
    text = "word " * 217  # 1,085 characters, one span
    sizes = [span_chars(g) for g in split_spans(text, [(0, len(text.rstrip()))], 1000)]
    assert len(sizes) == 2 and min(sizes) > 400
    rows = "".join(f"row {i:03d} | 1 | 2\n" for i in range(100))
    for group in split_spans(rows, [(0, len(rows) - 1)], 300):
        for s, e in group:
            assert rows[s:e].startswith("row ")  # every cut at a line break
    hard = "y" * 2500
    assert [span_chars(g) for g in split_spans(hard, [(0, 2500)], 1000)] == [917, 871, 712]
    # spans that fit whole move to the next group instead of being cut
    spans = [(0, 400), (450, 850), (900, 1300)]
    assert split_spans("a" * 1300, spans, 850) == [[(0, 400), (450, 850)], [(900, 1300)]]


def test_chunk_set_reports_the_split_and_no_chunk_over_the_bound(tmp_path):
    blocks = BlockStore(tmp_path / "blocks")
    doc, _ = _doc("one-line", ONE_LINE)
    doc.doc_sha = "b" * 64
    blocks.write("markdown-test", doc)
    parsed = pd.DataFrame([{"doc_id": "one-line", "sha": doc.doc_sha, "parser_key": "markdown-test",
                            "title": "One line", "doc_type": "annual_report"}])
    config = ChunkerConfig("paragraph", "paragraph", {"max_chars": 1000})
    manifest = build_chunk_set(config.chunker, parsed, blocks, ChunkStore(tmp_path / "chunks"), None).manifest
    assert manifest["char_bound"] == 1000 and manifest["over_bound"] == 0
    assert manifest["max_span_chars"] <= 1000
    assert manifest["split_to_bound"] == 1
    assert manifest["notes"][SPLIT_NOTE] == {"count": 1, "examples": ["one-line"]}
    entry = {"name": "paragraph", "strategy": "paragraph", "header": False, "chunks": manifest["chunks"],
             "mean_chars": manifest["mean_chars"], **{k: manifest[k] for k in ("char_bound", "over_bound", "notes")}}
    md = render_markdown(build_report("c", 0, [entry]))
    assert "Chunking notes" in md and f"`paragraph`: {SPLIT_NOTE}: 1" in md
    md = render_markdown(build_report("c", 0, [{**entry, "over_bound": 3}]))
    assert "3 chunks over the bound of 1000 characters" in md


def test_the_bound_never_cuts_a_row_from_its_repeated_table_header():
    """Row groups of one row each repeat a long caption and header: over max_chars, within
    the structure bound (ROW_GROUP_CONTEXT_CHARS), so every chunk keeps the header."""
    from finchunk_pipeline import chunk_document
    from finchunk_pipeline import ChunkerConfig
    from finchunk_pipeline.parse import markdown

    caption = ("Consolidated statements of operations of the group and its subsidiaries for the years "
               "ended December 31, amounts in millions of US dollars except per share data and ratios:")
    header = "| Line item of the consolidated statement | Fiscal year 2019 | Fiscal year 2018 |"
    rows = "\n".join(f"| Revenue line number {i} of the segment | {1000 + i} | {900 + i} |" for i in range(12))
    text = f"# Results\n\n{caption}\n\n{header}\n|---|---:|---:|\n{rows}\n"
    doc = markdown.parse("d", text, {})
    config = ChunkerConfig("ev", "structure", {"max_chars": 300, "table_max_chars": 150, "link_notes_chars": 0})
    chunks = chunk_document(config.chunker, doc, {"title": "d"})
    row_chunks = [c for c in chunks if "Revenue line number" in c.source_text]
    assert len(row_chunks) >= 6
    for c in row_chunks:
        assert "Fiscal year 2019" in c.source_text, c.source_text[:200]
        assert len(c.source_text) > 300            # over max_chars: the repeated context is allowed


def test_token_safe_chunk_sets_have_no_chunk_over_the_model_limit():
    """Figures tokenise densely: a 700-character run of numbers is far over MiniLM's 256
    tokens although under the character bound. token_safe splits it until it fits, spans exact."""
    from finchunk_pipeline import chunk_document
    from finchunk_pipeline import ChunkerConfig
    from finchunk_pipeline import token_counter
    from finchunk_pipeline.parse import text as text_parser

    figures = "\n".join(f"Segment {i} revenue $ {1000 + 37 * i:,}.{i % 10} $ {900 + 13 * i:,}.{i % 7} ({i}.{i}%)"
                        for i in range(30))
    doc = text_parser.parse("d", "RESULTS\n\n" + figures + "\n", {})
    counter = token_counter(None)
    base = {"max_chars": 800, "table_max_chars": 0, "link_notes_chars": 0}
    loose = chunk_document(ChunkerConfig("x", "structure", base, header=True).chunker, doc, {"title": "d"}, counter)
    safe = chunk_document(ChunkerConfig("x", "structure", base, header=True, token_safe=True).chunker, doc,
                          {"title": "d"}, counter)
    assert any(c.over_limit for c in loose)
    assert safe and not any(c.over_limit for c in safe)
    assert max(c.n_tokens for c in safe) <= counter.max_tokens
    from finchunk_pipeline.index.documents import pieces

    for c in safe:
        for s, e, part in pieces(c.source_text, c.view_spans):
            assert doc.view_text[s:e] == part
    # nothing lost: every figure line is in some chunk
    joined = "\n".join(c.source_text for c in safe)
    assert all(f"Segment {i} revenue" in joined for i in range(30))
    assert ChunkerConfig("x", "structure", base, token_safe=True).config_hash != ChunkerConfig("x", "structure", base).config_hash
