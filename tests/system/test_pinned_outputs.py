"""Speed work changes no output: every parser's blocks and every strategy's chunks (spans,
texts, token counts, notes) hash to the digests pinned in tests/pins.json, computed before
the throughput work of issue 16. A deliberate output change bumps the parser's / strategy's
version and regenerates the pins (``PYTHONPATH=. python -m tests.pins --write``; see
tests/pins.py)."""
from __future__ import annotations

import pytest

from tests import pins
from tests.conftest import needs_devdata

PINNED = pins.load()


def _check(key: str, real_semantic: bool = False) -> None:
    want = PINNED[key]
    got = pins.compute_named(key, real_semantic=real_semantic)
    if not real_semantic:
        want = {k: v for k, v in want.items() if k != "semantic_model"}
        diff = pins.diff(want, got)
    else:
        diff = pins.semantic_model_diff(want["semantic_model"], got["semantic_model"])
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
    cuts exactly where it did (TAT-QA: short contexts, one table each) — in another install of
    torch / transformers / sentence-transformers, at 95% of the same places (pins.semantic_model_diff)."""
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


def test_semantic_model_pin_tolerates_drift_only_across_environments():
    """The real-model pin's tolerance: another environment may move a cut or two, the same one
    none; cuts in the wrong places fail either way."""
    env = {"torch": "2.13.0"}
    cuts = {"a": list(range(100, 2100, 100))}                       # 20 cuts
    pinned = {"digest": "x", "cuts": cuts, "environment": env}
    one_moved = {"a": cuts["a"][:-1] + [2050]}
    assert pins.semantic_model_diff(pinned, {"digest": "x", "cuts": cuts, "environment": env}) == []
    assert pins.semantic_model_diff(pinned, {"digest": "y", "cuts": one_moved, "environment": env})
    other = {"torch": "2.14.1"}
    assert pins.cut_agreement(cuts, one_moved) < pins.MIN_CUT_AGREEMENT   # 19/21
    assert pins.semantic_model_diff(pinned, {"digest": "y", "cuts": one_moved, "environment": other})
    many = {"a": cuts["a"] + [5000]}                                  # 20 of 21 agree
    assert pins.semantic_model_diff(pinned, {"digest": "y", "cuts": many, "environment": other}) == []
    shuffled = {"a": [e + 7 for e in cuts["a"]]}
    assert pins.semantic_model_diff(pinned, {"digest": "y", "cuts": shuffled, "environment": other})
