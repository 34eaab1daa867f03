"""Gold passages given as page + quote, resolved into our extracted text (corpus-format.md)."""
from __future__ import annotations

import pandas as pd

from finchunk_pipeline.evaluation.coverage import is_retrieved
from finchunk_pipeline.evaluation.gold_resolution import (EXACT, OFFSETS, UNRESOLVED, WHOLE_PAGE,
                                                          resolve_passages, resolve_quote, summary)
from finchunk_pipeline.lang.fold import normalize

PAGE1 = "Annual Report 2024\n\nRevenue grew   in every\nregion during the year.\n"
PAGE2 = ("Consolidated balance sheet\n\nCash and cash equivalents     $ 5,794     $ 4,225\n"
         "Accounts receivable, net     848     1,035\nInventories     32     43\n")
VIEW = PAGE1 + "\n\f" + PAGE2 + "\n\f" + "  \n"
P2 = (len(PAGE1) + 2, len(PAGE1) + 2 + len(PAGE2))


def test_normalize_maps_back_to_offsets():
    norm, where = normalize("A ﬁne, Day!", base=10)
    assert norm == "afineday"
    assert [where[i] for i in (0, 1, 2, 5)] == [10, 12, 12, 17]   # the ligature is two letters of one character


def test_exact_match_ignores_case_whitespace_and_punctuation():
    quote = "REVENUE grew in every region-during the year"
    res, s, e, problem = resolve_quote(VIEW, (0, len(PAGE1)), quote)
    assert res == EXACT and problem is None
    assert VIEW[s:e] == "Revenue grew   in every\nregion during the year"


def test_cells_on_separate_lines_still_match_exactly():
    quote = "Cash and cash equivalents\n$\n5,794\n $\n4,225\nAccounts receivable, net\n848"
    res, s, e, _ = resolve_quote(VIEW, P2, quote)
    assert res == EXACT and VIEW[s:e].startswith("Cash and cash") and VIEW[s:e].endswith("848")


def test_whole_page_when_most_8grams_are_there_but_not_contiguous():
    # the same cells in another order (another extractor's reading order)
    quote = "Accounts receivable, net 848 1,035 Cash and cash equivalents $ 5,794 $ 4,225 Inventories 32 43"
    res, s, e, _ = resolve_quote(VIEW, P2, quote)
    assert res == WHOLE_PAGE and VIEW[s:e] == PAGE2.strip()


def test_unresolved_when_the_text_is_not_there():
    res, s, e, problem = resolve_quote(VIEW, P2, "Goodwill impairment charges of the prior year were reversed")
    assert res == UNRESOLVED and (s, e) == (0, 0) and "8-grams" in problem


def test_resolve_passages_table_and_summary():
    passages = pd.DataFrame([
        {"passage_id": "a", "doc_id": "d", "section": "p1", "kind": "text", "start": None, "end": None,
         "page": 1, "quote": "revenue grew in every region"},
        {"passage_id": "b", "doc_id": "d", "section": "p2", "kind": "table", "start": None, "end": None,
         "page": 2, "quote": "Accounts receivable, net 848 1,035 Cash and cash equivalents $ 5,794 $ 4,225"},
        {"passage_id": "c", "doc_id": "d", "section": "p2", "kind": "text", "start": None, "end": None,
         "page": 2, "quote": "Something the extractor lost entirely here"},
        {"passage_id": "d", "doc_id": "d", "section": "p9", "kind": "text", "start": None, "end": None,
         "page": 9, "quote": "beyond the end"},
        {"passage_id": "e", "doc_id": "d", "section": "p3", "kind": "text", "start": None, "end": None,
         "page": 3, "quote": "an empty page"},
        {"passage_id": "f", "doc_id": "gone", "section": "", "kind": "text", "start": None, "end": None,
         "page": 1, "quote": "not parsed"},
        {"passage_id": "g", "doc_id": "t", "section": "", "kind": "text", "start": 3, "end": 9,
         "page": None, "quote": None},
    ])
    out = resolve_passages(passages, {"d": VIEW, "t": "x" * 20}.get).set_index("passage_id")
    assert list(out["resolution"]) == [EXACT, WHOLE_PAGE, UNRESOLVED, UNRESOLVED, UNRESOLVED, UNRESOLVED, OFFSETS]
    assert "page 9 not in the document's 3 pages" == out.loc["d", "problem"]
    assert out.loc["e", "problem"] == "the page has no text in our extraction"
    assert out.loc["f", "problem"] == "document not parsed"
    assert (out.loc["g", "start"], out.loc["g", "end"]) == (3, 9)
    s = summary(out.reset_index())
    assert {k: s[k] for k in ("passages", "exact", "whole_page", "unresolved")} == \
        {"passages": 6, "exact": 1, "whole_page": 1, "unresolved": 4}
    assert s["unresolved_ids"] == ["c", "d", "e", "f"]
    assert summary(out.reset_index(), gold_ids={"a", "c"})["unresolved_ids"] == ["c"]
    # an unresolved passage has an empty span: never retrieved, whatever is delivered
    assert not is_retrieved(int(out.loc["c", "start"]), int(out.loc["c", "end"]), [(0, len(VIEW))])
