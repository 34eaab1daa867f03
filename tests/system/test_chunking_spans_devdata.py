"""Every strategy's chunks are exact on real documents of the dev corpora (devdata; the
synthetic checks: tests/unit/test_chunking_spans.py)."""
from __future__ import annotations

import pytest

from finchunk_pipeline import ChunkerConfig
from finchunk_pipeline import STRATEGIES

from tests.conftest import DEVDATA, needs_devdata
from tests.unit.test_chunking_spans import SLOW, _check, _docs, _skip_unavailable


@needs_devdata
@pytest.mark.parametrize("strategy", sorted(set(STRATEGIES) - SLOW))
@pytest.mark.parametrize("corpus", ["finqa_dev", "tatqa_dev"])
def test_spans_exact_on_real_documents(strategy, corpus):
    _skip_unavailable(strategy)
    config = ChunkerConfig(name=f"t-{strategy}", strategy=strategy)
    for rec in _docs(DEVDATA / corpus, per_type=6):
        _check(config, rec)
