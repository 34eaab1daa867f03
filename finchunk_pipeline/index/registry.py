"""The retriever registry: which retrievers exist, the indexes they read, how each is built and loaded.

Each retriever is one module declaring a ``RETRIEVER = RetrieverSpec(...)``; the built-in ones
live under ``index/entries/`` and are listed in ``BUILTIN`` (one line each). A retriever with an
index of its own declares an ``IndexSpec``: the chunk columns it reads, how to build it into
``<index dir>/<name>/`` from a chunk set (its files in memory: index/files.py; builders/indexes.py
writes them), the files that must exist, the settings and code
modules its artefact key depends on. A retriever without one (hybrid) names the retrievers
whose indexes it reads in ``needs``.

The index assets (assets/indexes.py, assets/dense.py) build every registered index through
``IndexSpec.build``; the evaluation and ``finchunk search`` load retrievers through
``RetrieverSpec.load``. ``register`` / ``unregister`` add one at run time (tests, plug-ins
outside the package).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pandas as pd

from .files import Parts, SharedIndexes, Traversable, folder_of

# the built-in retrievers: modules under index/entries/, each declaring RETRIEVER
BUILTIN = ("bm25", "dense", "hybrid", "bm25_plain")


@dataclass(frozen=True)
class IndexSettings:
    """What an index build may read beyond the chunks: the run's settings for indexes.
    Each index keys its artefact on the fields it uses (``IndexSpec.config``)."""

    analyzer: str = ""                                # BM25 analyzer ("" = index.analyzer.DEFAULT_ANALYZER)
    doc_prior: float | None = None                    # None = bm25_retriever.DEFAULT_DOC_PRIOR
    statement_prior: float | None = None              # None = bm25_retriever.DEFAULT_STATEMENT_PRIOR
    doc_languages: dict[str, str] | None = None       # {doc_id: analysis language}
    language_override: str | None = None
    languages_key: str = ""                           # names the analyzers of the languages present
    model_path: str | None = None                     # embedding model folder (None = the packaged one)
    embeddings_dir: Path | None = None                # the shared embedding cache
    dense_kind: str = "flat"                          # flat | hnsw
    embed_backend: str | None = None                  # models/backends.py BACKENDS (None = Settings')
    dense_vectors: str = "chunk"                      # chunk | pooled (index/pooled_vectors.py)
    # the store of BM25's document-level indexes, shared by the chunk sets (bm25_retriever.document_index);
    # None: built by each. Not a key: where a copy lives changes no index
    documents: SharedIndexes | None = field(default=None, compare=False)
    progress: Any = field(default=None, compare=False)  # progress.Progress for long builds
    # {doc_id: view text} of the documents asked for: pooled dense vectors cut their units from
    # the parse (the same units for every chunk set); None: from the text the chunks cover
    views: Callable[[Sequence[str]], Mapping[str, str]] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class LoadRequest:
    """What loading a retriever may use: the chunk set's rows (to check row ids), the
    embedding model, cache and backend, retriever options (hybrid: method, rrf_k, ...) and the
    corpus's routing catalog (routing.Catalog: hybrid weighs dense per query by whether the
    query names one of its documents; None: no query does)."""

    chunks: pd.DataFrame | None = None
    model_path: str | None = None
    cache_dir: str | Path | None = None
    embed_backend: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    catalog: Any = field(default=None, compare=False)


@dataclass(frozen=True)
class BuiltIndex:
    """What an index build returns: its files (``parts``, stored under ``<index dir>/<name>/``)
    and what its marker records (``info``)."""

    parts: Parts
    info: dict


@dataclass(frozen=True)
class IndexSpec:
    """An index of its own, stored as ``<index dir>/<name>/`` with the marker ``<name>.json``."""

    columns: tuple[str, ...]                                   # chunk columns the build reads
    build: Callable[[pd.DataFrame, IndexSettings], BuiltIndex]  # the index's files and its marker record
    required: tuple[str, ...]                                  # files (relative to <index dir>/<name>/) that must exist
    config: Callable[[IndexSettings], dict] = lambda s: {}     # the settings the index depends on (its key)
    modules: tuple[str, ...] = ()                              # dotted modules whose code builds it (its key)
    embeds: bool = False                                       # needs the embedding model: built by faiss_index
    more_columns: Callable[[IndexSettings], tuple[str, ...]] = lambda s: ()  # columns some settings need too

    def read_columns(self, settings: IndexSettings) -> list[str]:
        """The chunk columns a build with ``settings`` reads."""
        return list(dict.fromkeys(self.columns + tuple(self.more_columns(settings))))


@dataclass(frozen=True)
class RetrieverSpec:
    name: str
    load: Callable[[Traversable, LoadRequest], Any]  # (index dir, request) -> a retriever (bm25_retriever.Retriever)
    index: IndexSpec | None = None             # its own index, if it has one
    needs: tuple[str, ...] = ()                # other retrievers whose indexes it reads (hybrid: bm25, dense)
    default: bool = True                       # evaluated when no retrievers are named (else only when named)
    neutral: bool = False                      # a yardstick without the project's levers (bm25-plain): the
                                               # report shows its comparisons apart, as the neutral view

    @property
    def indexes(self) -> tuple[str, ...]:
        """The names of every index it reads: its own, then those of ``needs``."""
        return ((self.name,) if self.index is not None else ()) + self.needs


_REGISTRY: dict[str, RetrieverSpec] = {}


def _load_builtin() -> None:
    for module_name in BUILTIN:
        if module_name in _REGISTRY:
            continue
        try:
            module = importlib.import_module(f"{__package__}.entries.{module_name}")
        except ImportError as exc:
            raise ImportError(f"built-in retriever module {__package__}.entries.{module_name} failed to import: "
                              f"{exc}") from exc
        _REGISTRY.setdefault(module.RETRIEVER.name, module.RETRIEVER)


def register(spec: RetrieverSpec) -> None:
    """Add (or replace) a retriever; the indexes it ``needs`` must be registered already."""
    _load_builtin()
    missing = [n for n in spec.needs if n not in _REGISTRY or _REGISTRY[n].index is None]
    if missing:
        raise ValueError(f"retriever {spec.name!r} needs indexes no registered retriever has: {missing}")
    _REGISTRY[spec.name] = spec


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def retrievers() -> dict[str, RetrieverSpec]:
    """Every registered retriever by name, built-in ones first."""
    _load_builtin()
    return dict(_REGISTRY)


def names() -> tuple[str, ...]:
    return tuple(retrievers())


def default_names() -> tuple[str, ...]:
    """The retrievers a run evaluates when none are named (``--retrievers``, FINCHUNK_RETRIEVERS)."""
    return tuple(name for name, spec in retrievers().items() if spec.default)


def is_neutral(name: str) -> bool:
    """Whether ``name`` is a registered neutral retriever (False for one not registered)."""
    spec = retrievers().get(name)
    return bool(spec is not None and spec.neutral)


def get(name: str) -> RetrieverSpec:
    table = retrievers()
    if name not in table:
        raise ValueError(f"unknown retriever {name!r}; known: {tuple(table)}")
    return table[name]


def needs() -> dict[str, tuple[str, ...]]:
    """{retriever: the indexes it reads}."""
    return {name: spec.indexes for name, spec in retrievers().items()}


def indexes_to_build(retriever_names, embeds: bool) -> list[str]:
    """The registered indexes the named retrievers read, with (``embeds``) or without the
    embedding model — BM25 always among the latter (search and the enriched representations
    read it)."""
    table = retrievers()
    wanted = {n for r in retriever_names if r in table for n in table[r].indexes}
    return [name for name, spec in table.items() if spec.index is not None and spec.index.embeds == embeds
            and (name in wanted or (name == "bm25" and not embeds))]


def index_spec(name: str) -> IndexSpec:
    spec = get(name)
    if spec.index is None:
        raise ValueError(f"retriever {name!r} has no index of its own; it reads {spec.needs}")
    return spec.index


def index_files(name: str, index_dir: str | PathLike | Traversable) -> list[Traversable]:
    """The files the index ``name`` must have under ``index_dir`` to count as built."""
    return [folder_of(index_dir) / name / f for f in index_spec(name).required]


def index_exists(name: str, index_dir: str | PathLike | Traversable) -> bool:
    """Whether every index the retriever ``name`` reads is present under ``index_dir``."""
    return all(p.is_file() for part in get(name).indexes for p in index_files(part, index_dir))


def load_retriever(name: str, index_dir: str | PathLike | Traversable, request: LoadRequest | None = None):
    """Retriever ``name`` over the indexes in ``index_dir`` (a reader of the stored folder)."""
    return get(name).load(folder_of(index_dir), request or LoadRequest())
