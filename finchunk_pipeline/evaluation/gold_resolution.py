"""Gold passages given as page + quote (pdf documents) resolved into the pipeline's own text.

A labeller extracted the evidence of a pdf document with another tool than ours, so a
passage gives its page and the quote, not offsets. Rule (corpus-format.md):

1. exact: the quote occurs in our extracted text of that page when case, whitespace and
   punctuation are ignored (both sides reduced to their letters and digits, NFKC-folded, so
   ligatures and full-width forms compare equal); the match is mapped back to exact
   offsets into the document's text view, from its first to its last matched character;
2. whole_page: otherwise, when the page holds at least ``PAGE_FRACTION`` of the quote's
   distinct character 8-grams (same reduction), the passage is the whole page (its text,
   trimmed);
3. unresolved: otherwise (also: page beyond the document, page without text, document not
   parsed). Unresolved passages stay in the denominator: they get an empty span (start =
   end = 0), which no chunk can cover, so they count as not retrieved.

Passages with start/end are kept as they are (resolution ``offsets``).

``resolve_passages`` produces the resolved passages table that evaluation and the spans gate
read (written by the parsed_blocks asset as ``gold_passages.parquet`` in the corpus
workspace) and ``summary`` the report's ``gold_resolution``.
"""
from __future__ import annotations

from typing import Callable, Iterable

import pandas as pd
import pyarrow as pa

from ..corpus.schema import PASSAGES
from ..lang.fold import normalize
from ..parse.pdf_layout import page_ranges

NGRAM = 8
PAGE_FRACTION = 0.8
OFFSETS, EXACT, WHOLE_PAGE, UNRESOLVED = "offsets", "exact", "whole_page", "unresolved"

# the corpus's passage columns, then where each was resolved and how
RESOLVED_SCHEMA = pa.schema(list(PASSAGES) + [("page", pa.int64()), ("resolution", pa.string()),
                                              ("problem", pa.string())])


def _grams(s: str) -> set[str]:
    return {s[i:i + NGRAM] for i in range(len(s) - NGRAM + 1)}


def resolve_quote(view: str, page_span: tuple[int, int], quote: str) -> tuple[str, int, int, str | None]:
    """(resolution, start, end, problem) of one quote on the page ``view[page_span]``."""
    ps, pe = page_span
    page_norm, where = normalize(view[ps:pe], ps)
    q, _ = normalize(quote or "")
    if not q:
        return UNRESOLVED, 0, 0, "the quote has no letters or digits"
    if not page_norm:
        return UNRESOLVED, 0, 0, "the page has no text in our extraction"
    k = page_norm.find(q)
    if k >= 0:
        return EXACT, where[k], where[k + len(q) - 1] + 1, None
    grams = _grams(q)
    if grams:
        held = len(grams & _grams(page_norm)) / len(grams)
        if held >= PAGE_FRACTION:
            text = view[ps:pe]
            s = ps + len(text) - len(text.lstrip())
            e = ps + len(text.rstrip())
            return WHOLE_PAGE, s, e, None
        return UNRESOLVED, 0, 0, f"no contiguous match; the page holds {held:.0%} of the quote's {NGRAM}-grams"
    return UNRESOLVED, 0, 0, f"no contiguous match (quote shorter than {NGRAM} characters)"


def _isnull(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and v != v)


def resolve_passages(passages: pd.DataFrame, view_of: Callable[[str], str | None]) -> pd.DataFrame:
    """Every passage with start/end resolved (RESOLVED_SCHEMA columns). ``view_of(doc_id)``
    returns the document's text view (pdf: pages joined by form feeds), or None when the
    document was not parsed."""
    rows = []
    views: dict[str, str | None] = {}
    pages: dict[str, list[tuple[int, int]]] = {}
    for rec in passages.to_dict("records"):
        row = {c: rec.get(c) for c in ("passage_id", "doc_id", "section", "kind")}
        page = rec.get("page")
        row["page"] = None if _isnull(page) else int(page)
        row["problem"] = None
        if not _isnull(rec.get("start")) and not _isnull(rec.get("end")):
            row.update(start=int(rec["start"]), end=int(rec["end"]), resolution=OFFSETS)
            rows.append(row)
            continue
        doc_id = rec["doc_id"]
        if doc_id not in views:
            views[doc_id] = view_of(doc_id)
            if views[doc_id] is not None:
                pages[doc_id] = page_ranges(views[doc_id])
        view = views[doc_id]
        if view is None:
            resolution, s, e, problem = UNRESOLVED, 0, 0, "document not parsed"
        elif row["page"] is None or not 1 <= row["page"] <= len(pages[doc_id]):
            resolution, s, e, problem = UNRESOLVED, 0, 0, (
                f"page {row['page']} not in the document's {len(pages[doc_id])} pages")
        else:
            resolution, s, e, problem = resolve_quote(view, pages[doc_id][row["page"] - 1], rec.get("quote"))
        row.update(start=s, end=e, resolution=resolution, problem=problem)
        rows.append(row)
    return pd.DataFrame(rows, columns=RESOLVED_SCHEMA.names)


def summary(resolved: pd.DataFrame | None, gold_ids: Iterable[str] | None = None) -> dict:
    """gold_resolution for the report: counts over the passages given as page + quote (of
    ``gold_ids`` only, when given)."""
    if resolved is None or not len(resolved):
        return {"passages": 0, "exact": 0, "whole_page": 0, "unresolved": 0, "unresolved_ids": []}
    quoted = resolved[resolved["resolution"] != OFFSETS]
    if gold_ids is not None:
        quoted = quoted[quoted["passage_id"].isin(set(gold_ids))]
    counts = quoted["resolution"].value_counts()
    bad = quoted[quoted["resolution"] == UNRESOLVED]
    return {
        "passages": int(len(quoted)),
        "exact": int(counts.get(EXACT, 0)),
        "whole_page": int(counts.get(WHOLE_PAGE, 0)),
        "unresolved": int(counts.get(UNRESOLVED, 0)),
        "unresolved_ids": sorted(bad["passage_id"].tolist()),
        "problems": dict(zip(bad["passage_id"], bad["problem"])),
    }


def scorable(resolved: pd.DataFrame) -> pd.DataFrame:
    """The passages a chunk set can be judged on (the spans gate): not the unresolved ones."""
    return resolved[resolved["resolution"] != UNRESOLVED]


def resolve_from_blocks(passages: pd.DataFrame, parsed: pd.DataFrame, blocks) -> pd.DataFrame:
    """``resolve_passages`` with the text views read from the block store; ``parsed``: the
    parsed-blocks manifest (doc_id, sha, parser_key)."""
    where = {d: (k, sha) for d, sha, k in zip(parsed["doc_id"], parsed["sha"], parsed["parser_key"])}

    def view_of(doc_id: str) -> str | None:
        if doc_id not in where:
            return None
        key, sha = where[doc_id]
        return blocks.read(key, sha, doc_id=doc_id).view_text

    return resolve_passages(passages, view_of)


def to_table(resolved: pd.DataFrame) -> pa.Table:
    return pa.Table.from_pandas(resolved, schema=RESOLVED_SCHEMA, preserve_index=False)
