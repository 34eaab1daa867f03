"""The BM25 analyzer's shortcuts against its plain definitions on the real documents of the
dev corpora (devdata; the random-text and embedded-corpus checks: tests/unit/test_analyzer_fast.py)."""
from __future__ import annotations

import random

import pytest

from finchunk_pipeline import get_analyzer

from tests.conftest import DEVDATA, needs_devdata
from tests.unit.test_analyzer_fast import _document_texts, _paragraphs, plain_terms


@needs_devdata
@pytest.mark.parametrize("name", ["financebench_dev", "tatqa_dev", "finqa_dev", "sec_html_dev"])
def test_finance_terms_equal_the_plain_definitions_on_real_documents(name):
    fin = get_analyzer("finance")
    texts = _document_texts(DEVDATA / name)
    rng = random.Random(1)
    paragraphs = _paragraphs(texts, 10 ** 9)
    for text in rng.sample(paragraphs, min(400, len(paragraphs))) + [t[:20000] for t in texts[:3]]:
        assert fin.terms(text) == plain_terms(fin, text), text[:80]
