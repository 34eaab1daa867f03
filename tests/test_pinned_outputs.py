"""Speed work changes no output: every parser's blocks and every strategy's chunks (spans,
texts, token counts, notes) hash to the digests pinned in tests/pins.json, computed before
the throughput work of issue 16. A deliberate output change bumps the parser's / strategy's
version and regenerates the pins (``PYTHONPATH=. python -m tests.pins --write``; see
tests/pins.py)."""
from __future__ import annotations

import pytest

from . import pins
from .conftest import needs_devdata

PINNED = pins.load()


def _check(key: str, real_semantic: bool = False) -> None:
    want = PINNED[key]
    got = pins.compute_named(key, real_semantic=real_semantic)
    if not real_semantic:
        want = {k: v for k, v in want.items() if k != "semantic_model"}
    else:
        want = {"semantic_model": want["semantic_model"]}
        got = {"semantic_model": got["semantic_model"]}
    diff = pins.diff(want, got)
    assert not diff, (f"{key}: outputs changed (bump the version of what changed and regenerate "
                      f"tests/pins.json):\n" + "\n".join(diff))


def test_default_corpus_blocks_and_chunks_unchanged():
    _check("default")


@needs_devdata
@pytest.mark.devdata
@pytest.mark.parametrize("name", sorted(pins.SETS))
def test_devdata_blocks_and_chunks_unchanged(name):
    _check(f"{name}:small")


@needs_devdata
@pytest.mark.devdata
@pytest.mark.slow
def test_semantic_with_the_embedding_model_unchanged():
    """semantic with the real model (batched, length-sorted, cached sentence embeddings)
    cuts exactly where it did (TAT-QA: short contexts, one table each)."""
    _check("tatqa_dev:small", real_semantic=True)


def test_pins_detect_a_changed_offset(monkeypatch):
    """The digest sees a one-character change in one block (the pins can fail)."""
    from finchunk_pipeline.parse import markdown

    docs = pins.parse_all(pins.corpus_records("default")[:5])
    before = pins.block_digest(docs)
    parser, doc, meta = next(d for d in docs if d[0] == "markdown")
    doc.blocks[-1].end -= 1
    assert pins.block_digest(docs)[parser] != before[parser]
    assert markdown  # the markdown parser produced the edited block
