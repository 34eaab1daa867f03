"""The languages of one BM25 index: which analyzer reads each document and each query.

Design. One index, one vocabulary, and every document analysed with its own language
(the corpus ``language`` column): a Spanish chunk contributes Spanish stems ("vent" for
"ventas"), an English chunk English ones. A query is analysed with *one* language — the
question's: given by the caller (the language of the question's documents, as the
evaluation passes it), else the only language of the index, else detected from the query's
stop words among the index's languages (``lang/detect.py``), else the index's main language
(the language of most rows). Terms that mean the same across languages meet anyway:
numbers are normalised to one spelling by each locale ("13.668,9" and "13,668.9" are both
"13668.9"), names fold to the same tokens ("Iberdrola", "Energía"/"energia"), and
accounting concepts are language-neutral terms ("§revenue" for "ventas" and "revenue").

Why not analyse a query with every language present and sum? A Spanish question read as
English keeps "de", "la", "del" (not English stop words) and unstemmed plurals, which match
only noise in English chunks and, through idf, inflate scores of chunks in the minority
language; per-language streams (terms prefixed by language) would keep the languages apart
but make a number or a name in a question miss every document in the other language. One
consistent analysis per query keeps BM25's scores comparable across rows.

The index records the analyzer key of every language it holds (retriever.json), and its
input key names them (``languages_key``), so a change to any language's rules rebuilds it.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from ..lang.codes import DEFAULT, normalise
from ..lang.detect import detect_language


def document_languages(doc_ids: Iterable[str], languages: Iterable, override: str | None = None) -> dict[str, str]:
    """{doc_id: analysis language} from the documents' ``language`` values (an unsupported
    code warns with the document's id and is analysed language-neutrally); ``override``
    (e.g. FINCHUNK_BM25_LANGUAGE) analyses every document in that language."""
    if override:
        forced = normalise(override, "FINCHUNK_BM25_LANGUAGE")
        return {d: forced for d in doc_ids}
    return {d: normalise(l, f"document {d}") for d, l in zip(doc_ids, languages)}


def languages_key(analyzer: str, languages: Iterable[str]) -> str:
    """The analyzer keys of ``languages`` joined: the English key alone for an English index
    (as before languages existed), e.g. ``finance-es-1.1.1`` or ``finance-1.1+finance-es-1.1.1``."""
    from .analyzer import get_analyzer

    langs = sorted(set(languages) or {DEFAULT})
    return "+".join(get_analyzer(analyzer, lang).key for lang in langs)


@dataclass
class IndexLanguages:
    """Languages of the rows of an index: the main one and the documents in another."""
    main: str = DEFAULT
    other_docs: dict[str, str] = field(default_factory=dict)   # doc_id -> language, when not main
    present: tuple[str, ...] = (DEFAULT,)
    override: str | None = None    # every query in this language (an index built with one)

    @classmethod
    def of_rows(cls, row_doc_ids: Sequence[str] | None, doc_languages: Mapping[str, str] | None,
                override: str | None = None) -> "IndexLanguages":
        if not doc_languages or row_doc_ids is None:
            return cls(override=override)
        counts = Counter(doc_languages.get(d, DEFAULT) for d in row_doc_ids)
        main = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] if counts else DEFAULT
        docs = {d for d in row_doc_ids}
        other = {d: doc_languages.get(d, DEFAULT) for d in docs if doc_languages.get(d, DEFAULT) != main}
        return cls(main, other, tuple(sorted(counts)), override)

    def of_doc(self, doc_id: str) -> str:
        return self.other_docs.get(doc_id, self.main)

    def of_question(self, doc_ids: Iterable[str] | None) -> str | None:
        """The language of a question's documents (the first one's), None without documents."""
        for d in doc_ids or ():
            return self.of_doc(d)
        return None

    def for_query(self, text: str, hint: str | None = None) -> str:
        if self.override:
            return self.override
        if hint is not None:
            hint = normalise(hint)
            if hint in self.present or len(self.present) > 1:
                return hint
        if len(self.present) == 1:
            return self.present[0]
        return detect_language(text, self.present) or self.main

    def to_json(self) -> dict:
        return {"main_language": self.main, "languages_present": list(self.present),
                "doc_languages": self.other_docs, **({"language_override": self.override} if self.override else {})}

    @classmethod
    def from_json(cls, meta: dict) -> "IndexLanguages":
        return cls(meta.get("main_language", DEFAULT), dict(meta.get("doc_languages", {})),
                   tuple(meta.get("languages_present", [meta.get("main_language", DEFAULT)])),
                   meta.get("language_override"))
