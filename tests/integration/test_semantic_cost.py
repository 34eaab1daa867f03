"""Semantic chunking's cost is bounded: table rows are never embedded and at most
max_sentences sentences per document are; what was skipped is counted in the chunk set's
notes. (Embedding is faked here: the point is what gets embedded.)"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from finchunk_pipeline import BlockStore, ChunkerConfig, ChunkStore, build_chunk_set
from finchunk_pipeline.chunking.bound import span_chars
from finchunk_pipeline.chunking.semantic import CAP_NOTE, TABLE_NOTE
from finchunk_pipeline.parse import markdown
from finchunk_pipeline.types.chunks import spans_of
from tests.unit.test_chunking_strategies import _fake_embed

PARAS = "".join(f"Topic {i} grew by {i} percent in the year. Margins improved as costs fell. " for i in range(30))
TABLE = "| Segment | 2024 |\n|---|---:|\n" + "".join(f"| Segment {i} | {i},000 |\n" for i in range(3000))
TEXT = f"# Report\n\n{PARAS}\n\n## Segments\n\nRevenue by segment:\n\n{TABLE}\n## Outlook\n\n{PARAS}\n"


@pytest.fixture
def embedded(monkeypatch):
    import finchunk_pipeline.chunking.semantic as semantic

    seen: list[str] = []

    def recording(texts, model_path=None):
        seen.extend(texts)
        return _fake_embed(texts)

    monkeypatch.setattr(semantic, "embed", recording)
    return seen


def _build(tmp_path, params):
    blocks = BlockStore(tmp_path / "blocks")
    doc = markdown.parse("big-table", TEXT, {})
    doc.doc_sha = "c" * 64
    blocks.write("markdown-test", doc)
    parsed = pd.DataFrame([{"doc_id": "big-table", "sha": doc.doc_sha, "parser_key": "markdown-test",
                            "title": "Report", "doc_type": "annual_report"}])
    store = ChunkStore(tmp_path / "chunks")
    config = ChunkerConfig("semantic", "semantic", params)
    result = build_chunk_set(config.chunker, parsed, blocks, store, None)
    return doc, result.manifest, store.read(config.version_name)


def test_table_rows_are_not_embedded(tmp_path, embedded):
    doc, manifest, chunks = _build(tmp_path, {})
    assert embedded and not any(t.startswith("| Segment") for t in embedded)
    assert len(embedded) < 200  # the sentences and headings, not 3,000 rows
    assert manifest["notes"][TABLE_NOTE]["count"] == 3001  # header + body rows
    assert manifest["notes"][TABLE_NOTE]["examples"] == ["big-table"]
    assert CAP_NOTE not in manifest["notes"]
    # the table is still chunked, bounded, every row once
    rows = [c for c in chunks.itertuples() if "| Segment" in c.source_text]
    assert all(span_chars(spans_of(c.view_spans)) <= 1200 for c in chunks.itertuples())
    assert sum(len(re.findall(r"\| Segment \d+ \|", c.source_text)) for c in rows) == 3000


def test_sentences_per_document_are_capped(tmp_path, embedded):
    doc, manifest, chunks = _build(tmp_path, {"max_sentences": 20})
    assert len(embedded) == 20
    n_text_units = 20 + manifest["notes"][CAP_NOTE]["count"]
    assert n_text_units > 100  # 120 sentences + headings + caption
    covered = np.zeros(len(doc.view_text), bool)
    for c in chunks.itertuples():
        for s, e in spans_of(c.view_spans):
            covered[s:e] = True
    assert all(covered[i] or doc.view_text[i].isspace() for b in doc.blocks if b.kind == "paragraph"
               for i in range(b.vstart, b.vend))
