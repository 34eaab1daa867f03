"""The HTML parser on real EDGAR filings (devdata; the rest: tests/unit/test_parse_html.py)."""
import pytest

from finchunk_pipeline.parse import html as H
from finchunk_pipeline import BlockKind

from tests.conftest import DEVDATA
from tests.unit.test_parse_html import check_invariants, words_in_raw

SEC = DEVDATA / "sec_html_dev" / "documents.parquet"


@pytest.mark.skipif(not SEC.exists(), reason="devdata not available")
def test_real_edgar_filings():
    import pandas as pd

    docs = pd.read_parquet(SEC)
    assert len(docs) == 4
    for r in docs.itertuples():
        doc = H.parse(r.doc_id, r.text, {"format": r.format, "doc_type": r.doc_type})
        check_invariants(doc, r.text)
        counts = doc.counts()
        assert counts.get(BlockKind.TABLE, 0) >= 20 and counts.get(BlockKind.TABLE_ROW, 0) >= 200
        items = {p.split(".")[0].title() for b in doc.blocks for p in b.section_path if p.lower().startswith("item")}
        assert "Item 1A" in items
        assert ("Item 7" if r.doc_type == "10-K" else "Item 2") in items
        assert "ix:nonNumeric" not in doc.view_text and "0000320193" not in doc.view_text[:2000]
        # spot-check the raw spans of a sample of blocks
        words_in_raw(doc, r.text, doc.blocks[:: max(1, len(doc.blocks) // 150)])
        tables = [b for b in doc.blocks if b.kind == BlockKind.TABLE]
        assert sum(1 for b in tables if b.attrs.get("header")) >= len(tables) // 2
