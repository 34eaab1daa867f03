"""The retrievers by name, for callers that predate the registry (registry.py).

``KNOWN`` (every registered retriever) and ``NEEDS`` ({retriever: the indexes it reads}) are
read from the registry each time they are asked for, so a retriever registered at run time
is among them. New code imports from ``registry`` and ``entries/``.

Layout under a chunk set's index folder: one folder per index (``bm25/``, ``dense/``, ...)
next to its marker (``bm25.json``, ...); ``hybrid`` has no files of its own: it fuses two.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import registry
from .entries.bm25 import build_retriever as build_bm25  # noqa: F401  (re-exported)
from .entries.dense import build_retriever as build_dense  # noqa: F401  (re-exported)
from .registry import LoadRequest, index_exists  # noqa: F401  (re-exported)


def __getattr__(name: str):
    if name == "KNOWN":
        return registry.names()
    if name == "NEEDS":
        return registry.needs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_retriever(name: str, index_dir: str | Path, chunks: pd.DataFrame | None = None,
                   model_path: str | None = None, cache_dir: str | Path | None = None,
                   backend: str | None = None, **options):
    """The retriever ``name`` over the indexes under ``index_dir``; ``options`` go to the
    retriever (hybrid: method, rrf_k, depth, weight)."""
    request = LoadRequest(chunks, model_path, cache_dir, backend, options)
    return registry.load_retriever(name, index_dir, request)
