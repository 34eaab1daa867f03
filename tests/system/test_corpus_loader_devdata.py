"""The dev corpora load without problems (devdata; the loader's checks: tests/unit/test_corpus_loader.py)."""
from __future__ import annotations

import pytest

from finchunk_pipeline.corpus import load_corpus

from tests.conftest import DEVDATA, needs_devdata


@needs_devdata
@pytest.mark.parametrize("name", ["finqa_dev", "tatqa_dev", "sec_html_dev"])
def test_devdata_corpora_are_valid(name):
    corpus = load_corpus(DEVDATA / name)
    assert len(corpus.documents) > 0 and not corpus.document_problems
