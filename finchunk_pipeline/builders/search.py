"""Search over the stores: which stored chunk set a name means, and a ``Searcher``
(index/search.py) opened over its stored chunks, parsed manifest and indexes — each index
checked as written (builders/indexes.index_damage) before it is loaded — delivering what the
evaluation scores: the chunk set's bounded parents when it declares ``expand``.
"""
from __future__ import annotations

from typing import Callable, Sequence

import pandas as pd

from ..index.registry import LoadRequest, index_exists, load_retriever
from ..index.registry import get as registry_get
from ..index.registry import names as retriever_names
from ..index.search import Filters, Hit, Searcher
from ..routing import Catalog
from ..storage.workspace import Workspace
from .indexes import index_damage

SEARCH_COLUMNS = ["chunk_id", "doc_id", "spans", "section_path", "display_text"]
PARENT_COLUMNS = ["view_spans", "embedding_text", "source_text"]  # what delivering a parent reads


def resolve_chunk_set(ws: Workspace, chunk_set: str) -> str:
    """A chunk-set version name, or a name from the chunker config (-> its declared version;
    if the config cannot be read, the most recently built version of that name)."""
    try:
        if ws.chunks.manifest(chunk_set) is not None:
            return chunk_set
    except ValueError:  # not a safe path component
        raise ValueError(f"invalid chunk set name {chunk_set!r}") from None
    built = sorted((p for p in ws.chunks.root.glob("*") if (p / "manifest.json").exists()),
                   key=lambda p: (p / "manifest.json").stat().st_mtime) if ws.chunks.root.exists() else []
    try:
        from ..chunk_sets import load_chunker_configs

        configs = {c.name: c for c in load_chunker_configs(ws.settings.chunkers_file)}
    except ValueError:
        configs = {}
    if chunk_set in configs:
        version = configs[chunk_set].version_name
        if ws.chunks.manifest(configs[chunk_set].chunks_version_name) is None:
            raise ValueError(f"chunk set {chunk_set!r} ({version}) is not built under {ws.root}: run `finchunk run` first")
        return version
    same_name = [p.name for p in built if p.name.rsplit("-", 1)[0] == chunk_set]
    if same_name:
        return same_name[-1]
    raise ValueError(f"unknown chunk set {chunk_set!r}; built: {[p.name for p in built]}")


def _chunks_version(ws: Workspace, version: str) -> str:
    """Where a chunk-set version's chunks are stored: under the version itself, or, for an
    enriched version, under its chunking-only version (chunk_sets.py)."""
    if ws.chunks.manifest(version) is not None:
        return version
    try:
        from ..chunk_sets import load_chunker_configs

        for c in load_chunker_configs(ws.settings.chunkers_file):
            if c.version_name == version:
                return c.chunks_version_name
    except ValueError:
        pass
    return version


def declared_expand(ws: Workspace, version: str) -> int:
    """The ``expand`` of the chunk set a version belongs to, as the chunker config declares it
    (0 when the config does not name that version: an older or foreign version is searched
    as chunks)."""
    from ..chunk_sets import load_chunker_configs

    try:
        configs = load_chunker_configs(ws.settings.chunkers_file)
    except (OSError, ValueError):
        return 0
    return next((c.expand for c in configs if c.version_name == version), 0)


def parent_delivery(ws: Workspace, chunks: pd.DataFrame, expand: int,
                    budget: int | None = None) -> Callable[[int], object]:
    """What a retrieved row delivers under ``expand``: the evaluation's own delivery (the
    context header and the bounded parent, chunking/expand.py), documents read from the block
    store on first use; in a context of ``budget`` characters, parents of at most a third of it
    (evaluation/expander.py), as the evaluation delivers at that budget."""
    from ..evaluation.expander import parent_expander
    from ..evaluation.retrieval import delivery
    from .evaluation import document_reader

    return delivery(chunks, parent_expander(chunks, document_reader(ws.manifest_path, ws.blocks), expand).at(budget))


def _read_manifest(ws: Workspace, read_already: pd.DataFrame | None = None) -> Callable[[str], pd.DataFrame]:
    def read(need: str) -> pd.DataFrame:
        if read_already is not None:
            return read_already
        if not ws.manifest_path.exists():
            raise ValueError(f"{ws.manifest_path} is missing: {need} the parsed manifest "
                             "(run `finchunk run`)")
        return pd.read_parquet(ws.manifest_path)
    return read


def open_searcher(chunk_set: str, retriever: str = "hybrid", workspace: Workspace | None = None,
                  model_path: str | None = None, units: bool = False) -> Searcher:
    """A Searcher over ``chunk_set`` (a version name, or a name from the chunker config) with
    the retriever ``retriever``, its indexes checked as written, then loaded once. It delivers
    the chunk set's bounded parents when the set declares ``expand`` (``units``: the chunks)."""
    from ..settings import Settings

    ws = workspace or Workspace(Settings())
    if retriever not in retriever_names():
        raise ValueError(f"unknown retriever {retriever!r}; known: {retriever_names()}")
    version = resolve_chunk_set(ws, chunk_set)
    index_dir = ws.index_dir(version)
    if not index_exists(retriever, index_dir):
        raise ValueError(f"no {retriever} index for {version} under {index_dir} "
                         f"(dense: false in the chunker config, or not built yet)")
    for part in registry_get(retriever).indexes:  # read as written (artefacts.py), or said why not
        problem = index_damage(part, index_dir)
        if problem:
            raise ValueError(f"the {part} index of {version} is damaged: {problem}; "
                             "run `finchunk run` to build it again")
    expand = 0 if units else declared_expand(ws, version)
    chunks = ws.chunks.read(_chunks_version(ws, version), columns=SEARCH_COLUMNS + (PARENT_COLUMNS if expand else []))
    # the parsed manifest, read once: hybrid's per-query weights now, filters and routing later
    manifest = pd.read_parquet(ws.manifest_path) if ws.manifest_path.exists() else None
    loaded = load_retriever(retriever, index_dir, LoadRequest(
        chunks, model_path, ws.settings.embeddings_dir, ws.settings.embed_backend or None,
        catalog=Catalog.from_frame(manifest) if manifest is not None else None))
    deliver = parent_delivery(ws, chunks, expand) if expand else None
    return Searcher(version, retriever, loaded, chunks, _read_manifest(ws, manifest), deliver)


def search(query: str | Sequence[str], chunk_set: str, k: int = 5, retriever: str = "hybrid",
           filters: Filters | None = None, workspace: Workspace | None = None,
           model_path: str | None = None, route: bool = False, units: bool = False) -> list[Hit] | list[list[Hit]]:
    """Top-k deliveries of ``chunk_set`` for ``query`` (a list of queries gives a list of
    lists): its chunks, or its bounded parents when it declares ``expand`` and ``units`` is
    False; ``route``: apply the query analyzer's route (index/search.py)."""
    return open_searcher(chunk_set, retriever, workspace, model_path, units).search(query, k, filters, route)


def search_with_route(query: str | Sequence[str], chunk_set: str, k: int = 5, retriever: str = "hybrid",
                      filters: Filters | None = None, workspace: Workspace | None = None,
                      model_path: str | None = None, route: bool = True, units: bool = False):
    """(hits, route): as ``search``, with the route (None when ``route`` is False)."""
    return open_searcher(chunk_set, retriever, workspace, model_path, units).search_with_route(query, k, filters, route)
