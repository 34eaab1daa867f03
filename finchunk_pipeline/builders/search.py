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
from ..index.search import Filters, Hit, Searcher, Taken
from ..routing import Catalog
from ..storage.workspace import Workspace
from .indexes import index_damage

SEARCH_COLUMNS = ["chunk_id", "doc_id", "spans", "section_path", "display_text"]
PARENT_COLUMNS = ["view_spans", "embedding_text", "source_text"]  # what delivering a parent reads


def declared_configs(ws: Workspace) -> list:
    """The chunker config's chunk sets, or [] when it cannot be read (missing or invalid:
    stored versions are still searched by their version name)."""
    from ..chunk_sets import load_chunker_configs

    try:
        return load_chunker_configs(ws.settings.chunkers_file)
    except (OSError, ValueError):
        return []


def resolve_chunk_set(ws: Workspace, chunk_set: str, configs: list | None = None) -> str:
    """A chunk-set version name, or a name from the chunker config (-> its declared version;
    if the config cannot be read, the most recently built version of that name). ``configs``:
    the config's chunk sets when already read (declared_configs)."""
    try:
        if ws.chunks.manifest(chunk_set) is not None:
            return chunk_set
    except ValueError:  # not a safe path component
        raise ValueError(f"invalid chunk set name {chunk_set!r}") from None
    built = sorted((p for p in ws.chunks.root.glob("*") if (p / "manifest.json").exists()),
                   key=lambda p: (p / "manifest.json").stat().st_mtime) if ws.chunks.root.exists() else []
    by_name = {c.name: c for c in (declared_configs(ws) if configs is None else configs)}
    if chunk_set in by_name:
        version = by_name[chunk_set].version_name
        if ws.chunks.manifest(by_name[chunk_set].chunks_version_name) is None:
            raise ValueError(f"chunk set {chunk_set!r} ({version}) is not built under {ws.root}: run `finchunk run` first")
        return version
    same_name = [p.name for p in built if p.name.rsplit("-", 1)[0] == chunk_set]
    if same_name:
        return same_name[-1]
    raise ValueError(f"unknown chunk set {chunk_set!r}; built: {[p.name for p in built]}")


def _declared(configs: list, version: str):
    return next((c for c in configs if c.version_name == version), None)


def _chunks_version(ws: Workspace, version: str, configs: list) -> str:
    """Where a chunk-set version's chunks are stored: under the version itself, or, for an
    enriched version, under its chunking-only version (chunk_sets.py)."""
    if ws.chunks.manifest(version) is not None:
        return version
    c = _declared(configs, version)
    return c.chunks_version_name if c is not None else version


def declared_expand(ws: Workspace, version: str, configs: list | None = None) -> int:
    """The ``expand`` of the chunk set a version belongs to, as the chunker config declares it
    (0 when the config does not name that version: an older or foreign version is searched
    as chunks)."""
    c = _declared(declared_configs(ws) if configs is None else configs, version)
    return c.expand if c is not None else 0


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
    configs = declared_configs(ws)   # read once: the version, its chunks and its expand
    version = resolve_chunk_set(ws, chunk_set, configs)
    index_dir = ws.index_dir(version)
    if not index_exists(retriever, index_dir):
        raise ValueError(f"no {retriever} index for {version} under {index_dir} "
                         f"(dense: false in the chunker config, or not built yet)")
    for part in registry_get(retriever).indexes:  # read as written (artefacts.py), or said why not
        problem = index_damage(part, index_dir)
        if problem:
            raise ValueError(f"the {part} index of {version} is damaged: {problem}; "
                             "run `finchunk run` to build it again")
    expand = 0 if units else declared_expand(ws, version, configs)
    # what delivering reads (a parent's spans, a header's length) is read by every searcher:
    # a context budget charges headers whether or not the set expands
    chunks = ws.chunks.read(_chunks_version(ws, version, configs), columns=SEARCH_COLUMNS + PARENT_COLUMNS)
    # the parsed manifest, read once: hybrid's per-query weights now, filters and routing later
    manifest = pd.read_parquet(ws.manifest_path) if ws.manifest_path.exists() else None
    # the routing catalog, built once: hybrid's per-query weights and the router's routes
    catalog = Catalog.from_frame(manifest) if manifest is not None else None
    loaded = load_retriever(retriever, index_dir, LoadRequest(
        chunks, model_path, ws.settings.embeddings_dir, ws.settings.embed_backend or None, catalog=catalog))
    deliver_at = budget_delivery(ws, chunks, expand)
    return Searcher(version, retriever, loaded, chunks, _read_manifest(ws, manifest), bool(expand), deliver_at,
                    BudgetContext, catalog)


class BudgetContext:
    """A search's context of ``budget`` characters, filled by the evaluation's assembler
    (evaluation/assembler.py) one delivery at a time: what each adds, as the evaluation
    charges it — a header sent once (the text leaves it out after), evidence delivered before
    not again, the delivery that does not fit cut at the budget (its text and spans the part
    delivered)."""

    def __init__(self, budget: int):
        from ..evaluation.assembler import Assembler

        self.assembler = Assembler(budget)

    @property
    def full(self) -> bool:
        return self.assembler.full

    def take(self, d) -> Taken | None:
        from ..evaluation.assembler import subtract

        a = self.assembler
        before, used = list(a.by_doc.get(d.doc_id, [])), a.used
        sent = d.header_key is not None and d.header_key in a.sent_headers
        if not a.add(d):
            return None
        chars = a.used - used
        text = d.text[d.header_chars:] if sent else d.text
        if not a.last_cut:
            return Taken(chars, False, text, list(d.spans))
        return Taken(chars, True, text[:chars], subtract(a.by_doc[d.doc_id], before))


def budget_delivery(ws: Workspace, chunks: pd.DataFrame, expand: int) -> Callable[[int | None], Callable[[int], object]]:
    """``deliver_at(budget)``: what a retrieved row delivers in a context of ``budget``
    characters (None: no budget), as the evaluation delivers it — the chunk under its context
    header, or under ``expand`` its parent bounded to a third of the budget — one delivery
    per distinct bound, documents read once from the block store for all of them."""
    from ..evaluation.expander import parent_expander
    from ..evaluation.retrieval import delivery_at
    from .evaluation import document_reader

    expander = parent_expander(chunks, document_reader(ws.manifest_path, ws.blocks), expand) if expand else None
    return delivery_at(chunks, expander)


def search(query: str | Sequence[str], chunk_set: str, k: int | None = 5, retriever: str = "hybrid",
           filters: Filters | None = None, workspace: Workspace | None = None,
           model_path: str | None = None, route: bool = False, units: bool = False,
           budget: int | None = None) -> list[Hit] | list[list[Hit]]:
    """Top-k deliveries of ``chunk_set`` for ``query`` (a list of queries gives a list of
    lists): its chunks, or its bounded parents when it declares ``expand`` and ``units`` is
    False; ``route``: apply the query analyzer's route; ``budget``: the deliveries that fill a
    context of that many characters (index/search.py)."""
    return open_searcher(chunk_set, retriever, workspace, model_path, units).search(query, k, filters, route, budget)


def search_with_route(query: str | Sequence[str], chunk_set: str, k: int | None = 5, retriever: str = "hybrid",
                      filters: Filters | None = None, workspace: Workspace | None = None,
                      model_path: str | None = None, route: bool = True, units: bool = False,
                      budget: int | None = None):
    """(hits, route): as ``search``, with the route (None when ``route`` is False)."""
    return open_searcher(chunk_set, retriever, workspace, model_path, units).search_with_route(
        query, k, filters, route, budget)
