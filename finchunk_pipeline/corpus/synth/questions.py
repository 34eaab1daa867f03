"""Labelled questions: shared definitions and the generation-time self-check.

Each document module writes the questions about its own documents (annual_report,
filings_html, transcripts, funds, proxy, research); cross-document questions
(point_in_time across a 10-Q and its 10-Q/A, comparison across five ETFs, Q4
calculation across a 10-K and a 10-Q) are returned by the module that builds the
documents involved. Conventions:

* questions name the issuer (or fund) and a year/date, so retrieval is possible;
* ``gold_passages`` are all the passages needed (table questions include the header
  row(s) naming the period column); empty for "unanswerable";
* ``answer`` appears verbatim in the concatenated gold text, except for
  "calculation" (the computed number) and "point_in_time" (the value known at
  ``as_of``; in this corpus also verbatim in the gold of the filing then current);
* ``as_of`` is set only for "point_in_time".
"""
from __future__ import annotations

QUESTION_TYPES = ("text", "table", "footnote", "text_and_note", "table_and_note", "calculation", "comparison",
                  "transcript", "filing_period", "proxy_footnote", "unanswerable", "point_in_time")
NOT_VERBATIM = frozenset({"calculation", "point_in_time", "unanswerable"})


def check_answers(passage_text, questions) -> None:
    """Raise AssertionError when an answer is not verbatim in its gold passages."""
    for q in questions:
        assert q.question_type in QUESTION_TYPES, q.question_type
        if q.question_type == "unanswerable":
            assert not q.gold_passages and q.answer is None, q.question
            continue
        assert q.gold_passages and q.answer, q.question
        assert (q.as_of is not None) == (q.question_type == "point_in_time"), q.question
        if q.question_type in NOT_VERBATIM:
            continue
        gold = " ".join(passage_text(p) for p in q.gold_passages)
        assert q.answer in gold, (q.question, q.answer)
