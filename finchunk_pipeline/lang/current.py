"""The language of the document being chunked, for code deep below a strategy.

Sentence splitting (``chunking/sentence.py``) and note references (``chunking/note_links.py``)
are called from many strategies that only pass view ranges; ``chunk_document`` sets the
document's language here around its strategy call, and those functions read it when not
given a language explicitly. Outside a document it is English: English behaviour unchanged.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

from .codes import DEFAULT

_LANGUAGE: ContextVar[str] = ContextVar("finchunk_language", default=DEFAULT)


def current_language() -> str:
    return _LANGUAGE.get()


@contextmanager
def document_language(language: str):
    token = _LANGUAGE.set(language)
    try:
        yield language
    finally:
        _LANGUAGE.reset(token)
