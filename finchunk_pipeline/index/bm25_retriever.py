"""The retriever interface the evaluation and search use, and the BM25 retriever.

A retriever ranks the rows of one chunk set (row i = row i of chunks.parquet).
``allowed`` restricts ranking to a boolean row mask *before* ranking (filters, as_of).

BM25 here is two indexes over one analyzer (analyzer.py):

- the chunks' indexed text (``embedding_text``): what each chunk says;
- the documents' text (documents.py, the same for every chunk set): which document the
  question is about. A chunk's score is ``chunk / max chunk + doc_prior x document / max
  document`` over the query's scores, so a chunk that matches the question in a document
  that matches it as a whole ranks above an equally good chunk in a document that does not
  (``doc_prior`` 0 = chunk scores alone, ranked exactly as rank_bm25 ranks them). Within one
  document (filtered mode) the prior is a constant and changes nothing.

The statement prior (statements.py): when a question names a primary statement (balance
sheet, income statement, cash flow statement), the chunk part of the score of each chunk that
sits in that statement is multiplied by ``1 + statement_prior`` — in the question's best
documents only (document score at least STATEMENT_GATE of the best allowed document's), so
another issuer's statement does not rise above the named issuer's own passages. It needs the
chunks' section paths (``section_paths`` at build) and the document prior; 0 turns it off.

Languages (languages.py): each row and each document is analysed with its document's
language, each query with one language (``languages=`` per query, else detected); an
English-only index is exactly the index it was before languages existed.
"""
from __future__ import annotations

from typing import Iterator, Protocol, Sequence

import numpy as np

from ..code_versions import code_version
from ..hashing import sha256_text, stable_hash
from ..lang.numbers import COMMA_DECIMAL
from .analyzer import ANALYSIS_MODULES, DEFAULT_ANALYZER, get_analyzer
from .bm25 import BM25Index, top_k
from .files import Parts, SharedIndexes, Traversable, npy_bytes, read_json, read_npy, under
from .languages import IndexLanguages, languages_key
from .statements import named_statements, row_statements

Hits = list[tuple[int, float]]  # (row, score), best first

DEFAULT_DOC_PRIOR = 1.0
DEFAULT_STATEMENT_PRIOR = 0.5
STATEMENT_GATE = 0.9


class Retriever(Protocol):
    name: str

    def search_many(self, queries: Sequence[str], k: int,
                    allowed: Sequence[np.ndarray | None] | None = None) -> list[Hits]: ...


def document_index(analyzer: str, docs: Sequence[tuple[str, str, str]],
                   shared: SharedIndexes | None = None) -> BM25Index:
    """The document-level BM25 index of ``docs`` ((doc_id, analysis language, text) in index
    order). Every chunk set that loses no text recovers the same document texts
    (documents.py), so with ``shared`` (the store's document indexes) a corpus's documents are
    analysed once, not once per chunk set (and per enriched representation): the index is kept
    there under a key of the analysis code (the BM25 index's own modules), each document's id,
    analyzer key (name, version, language and its data version) and text hash, and later
    builds — in any process — load it. Without it, built each time."""
    def build() -> BM25Index:
        return BM25Index.build([get_analyzer(analyzer, lang).terms(text) for _, lang, text in docs])

    if shared is None:
        return build()
    key = stable_hash({"code": code_version(*ANALYSIS_MODULES, BM25Index.__module__),
                       "docs": [[d, get_analyzer(analyzer, lang).key, _terms_text_hash(text, lang)]
                                for d, lang, text in docs]}, n=16)
    name = f"{analyzer}-{key}"
    index = shared.load(name, BM25Index.from_files)
    if index is None:
        index = build()
        shared.keep(name, index.to_files())
    return index


def _terms_text_hash(text: str, language: str) -> str:
    """A hash of what a document's terms depend on. Chunk sets that cover a document alike
    recover texts that differ only where their chunks leave gaps (a blank line there,
    documents.py). Where the analysis reads no whitespace — English and the language-neutral
    analyzer: no token holds a whitespace character, and every step before the tokens maps
    character by character or within a run between them — the terms are those of the text with
    each whitespace run made one space, so that is hashed. The comma-decimal locales join digit
    groups across one space ("13 668,9"): their text is hashed as it is."""
    if language in COMMA_DECIMAL:
        return sha256_text(text)
    return "ws:" + sha256_text(" ".join(text.split()))


class BM25Retriever:
    name = "bm25"

    def __init__(self, index: BM25Index, analyzer: str = "plain", doc_index: BM25Index | None = None,
                 row_doc: np.ndarray | None = None, doc_prior: float = 0.0,
                 languages: IndexLanguages | None = None, row_statement: np.ndarray | None = None,
                 statement_prior: float = 0.0):
        self.index = index
        self.languages = languages or IndexLanguages()
        self.analyzer_name = analyzer
        self.analyzer = get_analyzer(analyzer, self.languages.main)
        self.doc_index, self.row_doc = doc_index, row_doc
        self.doc_prior = doc_prior if doc_index is not None else 0.0
        on = self.doc_prior and statement_prior and row_statement is not None and bool(row_statement.any())
        self.row_statement = row_statement if on else None
        self.statement_prior = float(statement_prior) if on else 0.0

    @classmethod
    def build(cls, texts: Sequence[str], analyzer: str = DEFAULT_ANALYZER, doc_ids: Sequence[str] | None = None,
              doc_texts: dict[str, str] | None = None, doc_prior: float = DEFAULT_DOC_PRIOR,
              doc_languages: dict[str, str] | None = None, language_override: str | None = None,
              section_paths: Sequence | None = None,
              statement_prior: float = DEFAULT_STATEMENT_PRIOR,
              documents: SharedIndexes | None = None) -> "BM25Retriever":
        """``doc_ids`` (per row) and ``doc_texts`` (per document) give the document prior;
        ``doc_languages`` ({doc_id: analysis language}, with ``doc_ids``) the analyzer of
        each row and document (English without); ``language_override`` is recorded so every
        query of an index built in one forced language is analysed in it too;
        ``section_paths`` (per row) the statement prior (with the document prior);
        ``documents``: the store's document-level indexes, shared with other chunk sets
        (``document_index``)."""
        langs = IndexLanguages.of_rows(doc_ids, doc_languages, language_override)
        row_langs = [langs.of_doc(d) for d in doc_ids] if doc_ids is not None else [langs.main] * len(texts)
        index = BM25Index.build([get_analyzer(analyzer, lang).terms(t) for t, lang in zip(texts, row_langs)])
        if not doc_prior or doc_ids is None or doc_texts is None:
            return cls(index, analyzer, languages=langs)
        docs = sorted(set(doc_ids))
        pos = {d: i for i, d in enumerate(docs)}
        doc_index = document_index(analyzer, [(d, langs.of_doc(d), doc_texts.get(d, "")) for d in docs],
                                   documents)
        statements = row_statements(section_paths) if section_paths is not None and statement_prior else None
        return cls(index, analyzer, doc_index, np.array([pos[d] for d in doc_ids], dtype=np.int64), doc_prior, langs,
                   statements, statement_prior)

    @property
    def analyzer_key(self) -> str:
        return languages_key(self.analyzer_name, self.languages.present)

    def describe(self) -> dict:
        out = {"analyzer": self.analyzer_key, "doc_prior": self.doc_prior}
        if self.statement_prior:
            out["statement_prior"] = self.statement_prior
        if self.languages.present != ("en",):
            out["languages"] = list(self.languages.present)
        return out

    def question_language(self, doc_ids) -> str | None:
        """The language of a question about ``doc_ids`` (their documents' language)."""
        return self.languages.of_question(doc_ids)

    def to_files(self) -> Parts:
        """Its chunk index's files, the document index's under ``documents/`` with the row ->
        document map, the statement rows, and ``retriever.json`` (analyzer, priors, languages)."""
        parts = self.index.to_files()
        if self.doc_index is not None:
            parts.update(under("documents", self.doc_index.to_files()))
            parts["row_doc.npy"] = npy_bytes(self.row_doc)
        meta = {"analyzer": self.analyzer_name, "analyzer_version": get_analyzer(self.analyzer_name).version,
                "doc_prior": self.doc_prior}
        if self.statement_prior:
            parts["row_statement.npy"] = npy_bytes(self.row_statement)
            meta["statement_prior"] = self.statement_prior
        if self.languages.present != ("en",) or self.languages.override:
            meta["analyzer_keys"] = {lang: get_analyzer(self.analyzer_name, lang).key for lang in self.languages.present}
            meta.update(self.languages.to_json())
        parts["retriever.json"] = meta
        return parts

    @classmethod
    def from_files(cls, folder: Traversable) -> "BM25Retriever":
        meta = read_json(folder / "retriever.json") if (folder / "retriever.json").is_file() else {}
        analyzer = meta.get("analyzer", "plain")
        if meta.get("analyzer_version", get_analyzer(analyzer).version) != get_analyzer(analyzer).version:
            raise ValueError(f"{folder}: built with analyzer {analyzer} {meta['analyzer_version']}, "
                             f"this code has {get_analyzer(analyzer).version}; rebuild the index")
        for lang, key in meta.get("analyzer_keys", {}).items():
            if get_analyzer(analyzer, lang).key != key:
                raise ValueError(f"{folder}: built with analyzer {key} for language {lang!r}, this code has "
                                 f"{get_analyzer(analyzer, lang).key}; rebuild the index")
        langs = IndexLanguages.from_json(meta)
        index = BM25Index.from_files(folder)
        if meta.get("doc_prior") and (folder / "documents").is_dir():
            row_doc = read_npy(folder / "row_doc.npy")
            statement_prior = float(meta.get("statement_prior", 0.0))
            statements = read_npy(folder / "row_statement.npy") if statement_prior else None
            return cls(index, analyzer, BM25Index.from_files(folder / "documents"), row_doc,
                       float(meta["doc_prior"]), langs, statements, statement_prior)
        return cls(index, analyzer, languages=langs)

    def query_terms(self, query: str, language: str | None = None) -> list[str]:
        """The terms of a query, analysed in its language (languages.py)."""
        return get_analyzer(self.analyzer_name, self.languages.for_query(query, language)).query_terms(query)

    def knows_any(self, query: str, language: str | None = None) -> bool:
        """Whether a term of ``query`` is in the index's vocabulary: if none is, every chunk (and
        document) scores 0 and a ranking of them is the index's order, not an answer."""
        vocab = self.index.vocab
        return any(t in vocab for t in self._terms([query], [language])[0])

    def _terms(self, queries: Sequence[str], languages: Sequence[str | None] | None) -> list[list[str]]:
        if self.languages.present == ("en",) and not self.languages.override:
            return [self.analyzer.query_terms(q) for q in queries]
        hints = languages if languages is not None else [None] * len(queries)
        return [self.query_terms(q, h) for q, h in zip(queries, hints)]

    def iter_scores(self, queries: Sequence[str], languages: Sequence[str | None] | None = None,
                    allowed: Sequence[np.ndarray | None] | None = None) -> Iterator[np.ndarray]:
        """Each query's (N,) ranking scores in turn (chunk BM25, plus the document prior when
        there is one, and the statement prior), possibly in a reused buffer: read or copy a
        row before the next. ``allowed`` (the row masks ranking will use) only sets which
        documents the statement prior's gate compares with."""
        terms = self._terms(queries, languages)
        if not self.doc_prior:
            yield from self.index.iter_scores(terms)
            return
        for i, (row, docs) in enumerate(zip(self.index.iter_scores(terms), self.doc_index.iter_scores(terms))):
            cmax = max(row.max(initial=0.0), 1e-12)
            dmax = max(docs.max(initial=0.0), 1e-12)
            chunk = row / cmax
            named = named_statements(queries[i]) if self.statement_prior else 0
            if named:
                chunk = self._lift_statement(chunk, docs, named, allowed[i] if allowed is not None else None)
            yield chunk + self.doc_prior * (docs / dmax)[self.row_doc]

    def _lift_statement(self, chunk: np.ndarray, docs: np.ndarray, named: int,
                        allowed: np.ndarray | None) -> np.ndarray:
        """The statement prior: rows of a named statement, in documents scoring at least
        STATEMENT_GATE of the best allowed document, get their chunk score x (1 + weight)."""
        best = docs[np.unique(self.row_doc[allowed])].max(initial=0.0) if allowed is not None else docs.max(initial=0.0)
        if best <= 0:
            return chunk
        lift = ((self.row_statement & named) != 0) & (docs[self.row_doc] >= STATEMENT_GATE * best)
        chunk[lift] *= 1.0 + self.statement_prior   # ``chunk`` is the caller's own array
        return chunk

    def scores_many(self, queries: Sequence[str], languages: Sequence[str | None] | None = None) -> np.ndarray:
        """(Q, N) ranking scores; ``languages``: each query's language when known (else
        detected, languages.py)."""
        out = np.empty((len(queries), self.index.size))
        for i, row in enumerate(self.iter_scores(queries, languages)):
            out[i] = row
        return out

    def search_many(self, queries, k, allowed=None, languages=None) -> list[Hits]:
        """Each query scored into one row and ranked at once (no (Q, N) matrix)."""
        out: list[Hits] = []
        for i, row in enumerate(self.iter_scores(queries, languages, allowed)):
            idx = top_k(row, k, allowed[i] if allowed is not None else None)
            out.append([(int(r), float(row[r])) for r in idx])
        return out

