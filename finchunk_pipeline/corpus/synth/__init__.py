"""Deterministic synthetic corpus of fictitious financial documents.

``generate(out_dir, seed=DEFAULT_SEED, issuers=None)`` writes documents.parquet,
passages.parquet, questions.parquet and xbrl_facts.parquet in the corpus format
(../shared/corpus-format.md). ``issuers=None`` gives the shipped default corpus
(data/corpus/default); ``issuers=N`` scales every document class with N, streaming
to disk (memory does not grow with N).

Randomness: only ``random.Random`` instances seeded with ``f"{seed}|<class>|<index>..."``
strings (string seeds are hashed with SHA-512 by ``random``, not with the salted
``hash()``), so each issuer's documents are identical whatever N is.
"""
from __future__ import annotations

from pathlib import Path

from .annual_report import annual_reports
from .common import check_answers
from .writer import CorpusWriter

DEFAULT_SEED = 2024
DEFAULT_PLAN = {"annual_report_issuers": 4}


def plan(issuers: int | None) -> dict[str, int]:
    if issuers is None:
        return dict(DEFAULT_PLAN)
    n = max(1, int(issuers))
    return {"annual_report_issuers": n}


def iter_units(seed: int, issuers: int | None = None):
    """Yield lists of documents that belong together (one issuer's documents)."""
    p = plan(issuers)
    for i in range(p["annual_report_issuers"]):
        yield list(annual_reports(seed, i)), []


def generate(out_dir: str | Path, seed: int = DEFAULT_SEED, issuers: int | None = None) -> dict[str, int]:
    """Write the corpus to out_dir; returns row counts per file."""
    w = CorpusWriter(out_dir)
    try:
        for docs, facts in iter_units(seed, issuers):
            texts = {}
            for d in docs:
                for p in d.passages:
                    texts[p.passage_id] = d.text[p.start:p.end]
            for d in docs:
                check_answers(texts.__getitem__, d.questions)
                w.add_doc(d)
            for f in facts:
                w.add_fact(f)
    finally:
        counts = w.close()
    return counts
