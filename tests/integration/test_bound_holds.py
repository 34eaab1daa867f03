"""The configured bound is the bound (issue 27, point 5).

A piece of text is held to its strategy's ``max_chars`` (structure and auto: plus the
``link_notes_chars`` of the notes it links), whatever the text: a line with no space, a
run-on paragraph with no sentence end. Only a table may be larger, and only under the
configuration's table allowance (``table_max_chars: 0``, tables whole); the manifest then
reports how many tables went over the bound and the largest.
"""
from __future__ import annotations

import pandas as pd
import pytest

from finchunk_pipeline.chunking.bound import SPLIT_NOTE, TABLE_KINDS, span_chars
from finchunk_pipeline import build_chunk_set
from finchunk_pipeline import ChunkerConfig
from finchunk_pipeline import chunk_document
from finchunk_pipeline import ChunkStore
from finchunk_pipeline.parse import markdown
from finchunk_pipeline import BlockStore

NO_SPACE = "x1,234y" * 20_000                                # 140 KB, no space, no sentence end
RUN_ON = "# Results\n\n" + ", ".join(                           # ~39 KB, words and commas, no sentence end
    f"net revenue of segment {i} rose by {i % 9 + 1} percent against the prior fiscal year"
    for i in range(500)) + "\n"
TABLE = ("# Segment data\n\nAmounts in millions of US dollars.\n\n| Segment | 2023 | 2024 |\n|---|---:|---:|\n"
         + "".join(f"| Segment number {i} of the group | {i},000 | {i + 1},000 |\n" for i in range(60)))


def _doc(name: str, text: str, doc_type: str = "annual_report"):
    return markdown.parse(name, text, {}), {"doc_id": name, "title": name, "doc_type": doc_type}


@pytest.mark.parametrize("strategy", ["structure", "auto"])
@pytest.mark.parametrize("text", [NO_SPACE, RUN_ON], ids=["no-space-line", "run-on-paragraph"])
@pytest.mark.parametrize("max_chars", [200, 800])
def test_text_chunks_stay_within_max_chars(strategy, text, max_chars):
    doc, meta = _doc("d", text)
    chunks = chunk_document(ChunkerConfig("c", strategy, {"max_chars": max_chars}).chunker, doc, meta)
    sizes = [span_chars(c.view_spans) for c in chunks]
    heading = len("Results\n\n")  # the headings above travel with the first piece
    assert max(sizes) <= max_chars + heading, (strategy, max(sizes))
    # nothing lost, spans exact and balanced cuts (no sliver)
    assert sum(sizes) >= len("".join(text.split())) - heading - 10
    assert min(sizes) > max_chars // 3


@pytest.mark.parametrize("strategy", ["structure", "auto"])
def test_the_manifest_reports_the_configured_bound_and_the_tables_over_it(tmp_path, strategy):
    blocks = BlockStore(tmp_path / "blocks")
    rows = []
    for name, text in (("line", NO_SPACE), ("runon", RUN_ON), ("table", TABLE)):
        doc, meta = _doc(name, text)
        doc.doc_sha = name[0] * 64
        blocks.write("markdown-test", doc)
        rows.append({**meta, "sha": doc.doc_sha, "parser_key": "markdown-test"})
    config = ChunkerConfig("c", strategy, {"max_chars": 200})
    result = build_chunk_set(config.chunker, pd.DataFrame(rows), blocks, ChunkStore(tmp_path / "chunks"), None)
    m = result.manifest
    table = [c for c in ChunkStore(tmp_path / "chunks").read(result.version_name).itertuples() if c.kind in TABLE_KINDS]
    table_chars = max(sum(int(s["end"]) - int(s["start"]) for s in c.view_spans) for c in table)
    assert table_chars > 1000                                # the table stays whole: the allowance
    if strategy == "structure":
        assert m["char_bound"] == 200 + 600                  # max_chars + link_notes_chars, not 8,600
    else:  # auto: the largest of its policies (transcripts at transcript_max_chars)
        assert m["char_bound"] == 1500
    assert m["over_bound"] == 0
    assert m["tables_over_char_bound"] >= 1 and m["largest_table_chars"] == table_chars
    assert m["table_char_bound"] >= table_chars
    assert m["split_to_bound"] >= 2 and m["notes"][SPLIT_NOTE]["examples"] == ["line", "runon"]
    text = [c for c in ChunkStore(tmp_path / "chunks").read(result.version_name).itertuples()
            if c.kind not in TABLE_KINDS]
    assert max(sum(int(s["end"]) - int(s["start"]) for s in c.view_spans) for c in text) <= 200 + len("Results\n\n")


def test_without_the_table_allowance_a_table_is_held_to_the_bound_too():
    """row groups (table_max_chars > 0): no whole table over the bound."""
    doc, meta = _doc("t", TABLE + "\n" + RUN_ON)
    config = ChunkerConfig("c", "structure", {"max_chars": 300, "table_max_chars": 300, "link_notes_chars": 0})
    chunks = chunk_document(config.chunker, doc, meta)
    from finchunk_pipeline import STRATEGIES

    bound = STRATEGIES["structure"].char_bound(config.params, doc, meta)
    allowance = STRATEGIES["structure"].table_char_bound(config.params, doc, meta)
    assert bound == 300 and allowance == 300 + 600       # a row group repeats its caption and header
    assert max(span_chars(c.view_spans) for c in chunks) <= allowance
    assert max(span_chars(c.view_spans) for c in chunks if c.kind not in TABLE_KINDS) <= bound
