"""The primary financial statements: which one a question names, which one a chunk sits in.

A question that names a statement ("... from the cash flow statement", "per the balance
sheet", "statement of income") asks for the figures *in* that statement, not for the many
passages that mention it in passing (an MD&A paragraph about cash flows, a note that refers to
the balance sheet). The chunk knows where it sits: its section path carries the statement's
title as the filing prints it ("CONSOLIDATED STATEMENTS OF CASH FLOWS"). The BM25 retriever's
statement prior (bm25_retriever.py) lifts the chunks of the named statement.

Statements are bits of a small mask, so a question naming two statements ("from the statement
of income and the cash flow statement") matches the chunks of either. The bm25 index keys its
artefact on this module's code (entries/bm25.py), so editing a pattern rebuilds the indexes.
"""
from __future__ import annotations

import re
from typing import Iterable, Sequence

import numpy as np

# name -> (how a question names it, how a statement's title reads in a section path)
STATEMENTS: dict[str, tuple[str, str]] = {
    "balance_sheet": (
        r"\bbalance sheets?\b|\bstatements? of (?:consolidated )?financial (?:position|condition)\b",
        r"\bbalance sheets?\b|\bstatements? of (?:consolidated )?financial (?:position|condition)\b",
    ),
    "income_statement": (
        r"\bincome statements?\b|\bstatements? of (?:consolidated )?(?:income|operations|earnings)\b"
        r"|\bp&l\b|\bprofit and loss\b",
        r"\bincome statements?\b|\bstatements? of (?:consolidated )?(?:income|operations|earnings)\b",
    ),
    "cash_flow_statement": (
        r"\bcash ?flows? statements?\b|\bstatements? of (?:consolidated )?cash ?flows?\b|\bcash flow\b",
        r"\bcash flows? statements?\b|\bstatements? of (?:consolidated )?cash flows?\b",
    ),
}

BITS = {name: 1 << i for i, name in enumerate(STATEMENTS)}
_QUESTION = {name: re.compile(q, re.IGNORECASE) for name, (q, _) in STATEMENTS.items()}
_SECTION = {name: re.compile(s, re.IGNORECASE) for name, (_, s) in STATEMENTS.items()}


def named_statements(question: str) -> int:
    """The statements a question names, as a mask of BITS (0: none)."""
    return sum(bit for name, bit in BITS.items() if _QUESTION[name].search(question))


def section_statement(section_path: Iterable[str] | None) -> int:
    """The statement a chunk sits in, by its section path, as a mask of BITS (0: none). The
    innermost heading that names a statement decides (a note titled "Cash flows" under the
    balance sheet's heading is not the balance sheet)."""
    for heading in reversed(list(section_path if section_path is not None else ())):
        mask = sum(bit for name, bit in BITS.items() if _SECTION[name].search(str(heading)))
        if mask:
            return mask
    return 0


def row_statements(section_paths: Sequence[Iterable[str] | None]) -> np.ndarray:
    """(N,) uint8: each chunk's statement mask; a section path is read once however many
    chunks share it."""
    memo: dict[tuple[str, ...], int] = {}
    out = np.zeros(len(section_paths), dtype=np.uint8)
    for i, path in enumerate(section_paths):
        key = tuple(str(h) for h in (path if path is not None else ()))
        if key not in memo:
            memo[key] = section_statement(key)
        out[i] = memo[key]
    return out
