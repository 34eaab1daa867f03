"""The pdf parser on real filings of financebench_pdf_dev (devdata; the PDFs the tests write:
tests/integration/test_parse_pdf.py)."""
from __future__ import annotations

from finchunk_pipeline import ChunkerConfig
from finchunk_pipeline import chunk_document
from finchunk_pipeline import SPAN_JOINER
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline.parse.pdf import parse

from tests.conftest import DEVDATA, needs_devdata
from tests.integration.test_parse_pdf import SLOW


@needs_devdata
def test_real_filings_resolve_their_quotes_and_chunk_exactly():
    """Two small real filings of financebench_pdf_dev: every page + quote gold passage
    resolves exactly in our text, and every strategy's chunks are exact on their blocks."""
    import pandas as pd

    from finchunk_pipeline.evaluation.gold_resolution import EXACT, resolve_passages

    corpus = DEVDATA / "financebench_pdf_dev"
    docs = pd.read_parquet(corpus / "documents.parquet").set_index("doc_id")
    passages = pd.read_parquet(corpus / "passages.parquet")
    wanted = [d for d in docs.index if "FOOTLOCKER" in d or "AMCOR" in d]
    parsed = {d: parse(d, (corpus / docs.loc[d, "path"]).read_bytes(), {}) for d in wanted}
    mine = passages[passages["doc_id"].isin(wanted)]
    resolved = resolve_passages(mine, lambda d: parsed[d].view_text if d in parsed else None)
    assert len(resolved) >= 3 and set(resolved["resolution"]) == {EXACT}
    for doc in parsed.values():
        assert doc.counts().get("table", 0) >= 1 and all("page" in b.attrs for b in doc.blocks)
    for strategy in sorted(set(STRATEGIES) - SLOW):
        if not STRATEGIES[strategy].available():
            continue
        config = ChunkerConfig(name=f"t-{strategy}", strategy=strategy, header=True)
        for doc in parsed.values():
            for c in chunk_document(config.chunker, doc, {"title": doc.doc_id}):
                assert c.source_text == SPAN_JOINER.join(doc.view_text[s:e] for s, e in c.view_spans)
                assert c.spans == [tuple(v) for v in c.view_spans]
