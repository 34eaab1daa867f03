"""Deterministic synthetic corpus of fictitious financial documents.

``generate(out_dir, seed=DEFAULT_SEED, issuers=None)`` writes documents.parquet,
passages.parquet, questions.parquet and xbrl_facts.parquet in the corpus format
(../shared/corpus-format.md). ``issuers=None`` gives the shipped default corpus
(data/corpus/default); ``issuers=N`` scales every document class with N (N annual-report
issuers, N US filers each with 10-Qs, 10-Q/A, 10-K, call, proxy and research note,
ceil(N/10) fund families), about 11 documents per issuer, streaming to disk: memory
does not grow with N.

Randomness: only ``random.Random`` instances seeded with ``f"{seed}|<class>|<index>..."``
strings (string seeds are hashed with SHA-512 by ``random``, not with the salted
``hash()``), so each issuer's documents are identical whatever N is.

Modules: names (issuers, people), figures (numbers), common (builders that record
passages while writing), annual_report, filings_html (+ filing, xbrl), transcripts, funds,
proxy, research, questions (conventions, self-check), writer (streaming Parquet).
"""
from __future__ import annotations

import math
from pathlib import Path

from .annual_report import annual_reports
from .filings_html import us_filings
from .funds import fund_family
from .proxy import proxy_statement
from .questions import check_answers
from .research import research_note
from .transcripts import earnings_call
from .writer import CorpusWriter

DEFAULT_SEED = 2024
DEFAULT_PLAN = {"annual_report_issuers": 4, "us_issuers": 3, "calls": 3, "proxies": 2, "research": 3,
                "fund_families": 1}

__all__ = ["DEFAULT_SEED", "DEFAULT_PLAN", "generate", "iter_units", "plan"]


def plan(issuers: int | None) -> dict[str, int]:
    if issuers is None:
        return dict(DEFAULT_PLAN)
    n = max(1, int(issuers))
    return {"annual_report_issuers": n, "us_issuers": n, "calls": n, "proxies": n, "research": n,
            "fund_families": math.ceil(n / 10)}


def iter_units(seed: int, issuers: int | None = None):
    """Yield (documents, xbrl facts, cross-document questions), one issuer at a time."""
    p = plan(issuers)
    for i in range(max(p["annual_report_issuers"], p["us_issuers"])):
        if i < p["annual_report_issuers"]:
            yield list(annual_reports(seed, i)), [], []
        if i < p["us_issuers"]:
            docs, facts, extra, ctx = us_filings(seed, i)
            q3 = docs[2]
            if i < p["calls"]:
                docs.append(earnings_call(ctx, q3))
            if i < p["proxies"]:
                docs.append(proxy_statement(seed, ctx))
            if i < p["research"]:
                docs.append(research_note(seed, ctx))
            yield docs, facts, extra
    for i in range(p["fund_families"]):
        docs, comps = fund_family(seed, i)
        yield docs, [], comps


def generate(out_dir: str | Path, seed: int = DEFAULT_SEED, issuers: int | None = None) -> dict[str, int]:
    """Write the corpus to out_dir; returns row counts per file."""
    w = CorpusWriter(out_dir)
    try:
        for docs, facts, extra in iter_units(seed, issuers):
            texts = {}
            for d in docs:
                for p in d.passages:
                    texts[p.passage_id] = d.text[p.start:p.end]
            for d in docs:
                check_answers(texts.__getitem__, d.questions)
                w.add_doc(d)
            check_answers(texts.__getitem__, extra)
            for q in extra:
                w.add_question(q)
            for f in facts:
                w.add_fact(f)
    finally:
        counts = w.close()
    return counts
