"""The spans-sound gate on hand-made chunk sets."""
from __future__ import annotations

import pandas as pd

from finchunk_pipeline.assets.checks import uncoverable_passages, unreachable_passages


def _chunks(rows):
    return pd.DataFrame({"doc_id": [d for d, _ in rows],
                         "spans": [[{"start": s, "end": e} for s, e in spans] for _, spans in rows]})


PASSAGES = pd.DataFrame({"passage_id": ["long", "lost", "short"], "doc_id": ["d", "d", "d"],
                         "start": [0, 200, 300], "end": [100, 220, 310]})


def test_long_passage_split_in_three_is_reachable_but_not_coverable_by_one_chunk():
    chunks = _chunks([("d", [(0, 34)]), ("d", [(34, 67)]), ("d", [(67, 100)]), ("d", [(300, 310)])])
    gold = {"long", "short"}
    assert unreachable_passages(chunks, PASSAGES, gold) == []
    assert uncoverable_passages(chunks, PASSAGES, gold) == ["long"]


def test_text_no_chunk_covers_is_unreachable():
    chunks = _chunks([("d", [(0, 100)]), ("d", [(200, 209)]), ("e", [(200, 220)])])
    assert unreachable_passages(chunks, PASSAGES, {"long", "lost"}) == ["lost"]  # 9 of 20 chars, other doc ignored
