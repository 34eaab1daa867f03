"""Metadata routing: which documents a question is about, from its text and the corpus's
document metadata only (issuer, ticker, title, doc_type, fiscal_year, period_end).

* ``catalog``  the corpus's documents as routing sees them, and the names they answer to
               (issuer, the name without its legal suffix, ticker, leading words, ``J&J``
               forms, names from titles);
* ``periods``  fiscal years, quarters, halves, dates and document types in a question;
* ``analyzer`` ``analyze(question, catalog) -> Route``: the filter, the spans that led to
               it, their confidence, and why (``VERSION`` joins the evaluation's inputs);
* ``search``   ``Router``: a retriever's ranking with the route applied (hard filter,
               boost or nothing) and the routing accuracy against the questions' documents.

Nothing from the labels (gold documents, passages, answers) reaches ``analyze``: the
analyzer takes a string and a ``Catalog``, and a ``Catalog`` keeps only
``catalog.METADATA_COLUMNS``.
"""
from .analyzer import HARD_THRESHOLD, VERSION, Mention, Route, analyze
from .catalog import METADATA_COLUMNS, Catalog

__all__ = ["VERSION", "HARD_THRESHOLD", "Mention", "Route", "analyze", "Catalog", "METADATA_COLUMNS"]
