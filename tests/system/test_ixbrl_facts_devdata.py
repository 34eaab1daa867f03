"""Inline-XBRL facts located at their figure in sec_html_dev's filings (devdata; the rest:
tests/integration/test_ixbrl_facts.py)."""
from __future__ import annotations

import pytest

from finchunk_pipeline.parse import html
from finchunk_pipeline.parse.ixbrl import located_share

from tests.conftest import DEVDATA


@pytest.mark.devdata
def test_sec_html_dev_figures_located_at_their_span():
    """The issue's bar: >= 95% of tagged numeric facts located at their figure, per filing."""
    import pyarrow.parquet as pq

    path = DEVDATA / "sec_html_dev" / "documents.parquet"
    if not path.exists():
        pytest.skip("../shared/devdata/sec_html_dev not present")
    docs = pq.read_table(path).to_pandas()
    for row in docs.itertuples():
        doc = html.parse(row.doc_id, row.text)
        located, total = located_share(doc.facts)
        assert total > 500 and located / total >= 0.95, (row.doc_id, located, total)
        for f in doc.facts:
            if f.located and f.kind == "numeric":
                (vs, ve), = f.vspans
                assert doc.view_text[vs:ve] == f.display
