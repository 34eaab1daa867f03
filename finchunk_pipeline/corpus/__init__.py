"""The evaluation corpus: its format, loading and validation, and the synthetic generator.

``Corpus``, ``CorpusError`` and ``load_corpus`` (corpus/loader.py) are imported when first
read, so a module that needs only ``corpus.schema`` (a parse worker
process) does not import pandas.
"""
from __future__ import annotations

__all__ = ["Corpus", "CorpusError", "load_corpus"]


def __getattr__(name: str):
    if name in __all__:
        from . import loader

        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
