"""corpus/filing_metadata.html_metadata on real EDGAR filings (devdata; the rest:
tests/unit/test_html_metadata.py)."""
import pytest

from finchunk_pipeline.corpus.filing_metadata import html_metadata
from tests.conftest import DEVDATA


@pytest.mark.skipif(not (DEVDATA / "sec_html_dev").is_dir(), reason="../shared/devdata is not present")
def test_real_edgar_filings_get_their_period_end():
    import pyarrow.parquet as pq

    docs = pq.read_table(DEVDATA / "sec_html_dev" / "documents.parquet").to_pandas()
    for raw, period in zip(docs["text"], docs["period_end"]):
        meta = html_metadata(raw)
        assert meta["period_end"] == period, meta   # 10-Ks too: their period end is a nested fact
