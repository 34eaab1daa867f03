"""Build one chunk set over the stores: reuse it when stored with the same inputs, copy it
from a stored twin, else chunk the parsed documents read from the block store (never the
parser) and write the Parquet and its manifest. The chunking itself is the pure stage
chunking/chunk_set.py.

Chunks are stored under the chunker's version (``chunks_version_name``): a chunk set that
differs from a stored one only by its enricher reuses its chunks. A chunk set whose chunking
equals a stored chunk set of another name (same strategy, parameters, header, code and
inputs: e.g. ``structure-h-e`` declared beside ``structure-h`` with an enricher added) is
copied from that set's Parquet instead of being chunked again.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import pandas as pd
import pyarrow as pa

from ..chunking.chunk_set import META_FIELDS, chunk_set, inputs_hash, manifest
from ..chunking.chunker import Chunker, require_chunker
from ..chunking.strategy_context import DEFAULT_EMBED_BACKEND, ChunkingContext
from ..storage.blocks import BlockStore
from ..storage.chunks import ChunkStore, chunks_to_table
from ..types.blocks import ParsedDocument


@dataclass
class ChunkSetResult:
    version_name: str
    built: bool          # False: an identical chunk set existed and was reused
    manifest: dict
    derived_from: str | None = None  # copied from this stored chunk set (same chunking), not chunked


def build_chunk_set(chunker: Chunker, parsed: pd.DataFrame, blocks: BlockStore, store: ChunkStore,
                    model_path: str | None = None, progress: Callable[[int, int], None] | None = None,
                    force: bool = False, embeddings_dir: str | Path | None = None,
                    embed_backend: str = DEFAULT_EMBED_BACKEND) -> ChunkSetResult:
    """``parsed``: the parsed-blocks manifest (document metadata + sha + parser_key);
    ``model_path``, ``embeddings_dir``, ``embed_backend``: the run's model (None: the
    packaged one), embedding cache and embedding backend, handed to the strategy in a
    ChunkingContext. A stored chunk set with the same inputs is reused (unless ``force``),
    one of another name with the same chunking is copied."""
    require_chunker(chunker, "build_chunk_set")
    key = inputs_hash(chunker, parsed, model_path, embed_backend)
    version = chunker.chunks_version_name
    existing = None if force else store.fresh(version, key, adopt=True)
    if existing is not None:
        return ChunkSetResult(version, False, existing)
    if not force:
        twin = stored_twin(chunker, parsed, store, model_path, embed_backend)
        if twin is not None:
            return _copy_twin(chunker, twin, key, store)
    context = ChunkingContext(model_path, embeddings_dir, embed_backend)
    built = chunk_set(chunker, _documents(parsed, blocks), len(parsed), context, progress)
    table = chunks_to_table(built.chunks)
    stored = manifest(chunker, built, key, context.counter.max_tokens)
    store.write(version, table, stored)
    return ChunkSetResult(version, True, stored)


def _documents(parsed: pd.DataFrame, blocks: BlockStore) -> Iterator[tuple[ParsedDocument, dict[str, Any]]]:
    """Each parsed document of the manifest read from the block store when asked for, with the
    metadata strategies and headers read."""
    for rec in parsed.to_dict("records"):
        yield (blocks.read(rec["parser_key"], rec["sha"], doc_id=rec["doc_id"]),
               {k: rec.get(k) for k in META_FIELDS})


def stored_twin(chunker: Chunker, parsed: pd.DataFrame, store: ChunkStore,
                model_path: str | None = None, embed_backend: str = DEFAULT_EMBED_BACKEND) -> str | None:
    """The version name of a complete stored chunk set of another name whose chunks this
    configuration would reproduce exactly: same chunking hash (strategy, parameters, header,
    code) and same inputs (documents, metadata, tokenizer). None when there is none."""
    suffix = f"-{chunker.chunking_hash}"
    if not store.root.is_dir():
        return None
    for folder in sorted(store.root.glob(f"*{suffix}")):
        name = folder.name[:-len(suffix)]
        if name == chunker.name or not folder.is_dir():
            continue
        twin = dataclasses.replace(chunker, name=name)
        if store.fresh(folder.name, inputs_hash(twin, parsed, model_path, embed_backend)) is not None:
            return folder.name
    return None


def _copy_twin(chunker: Chunker, twin: str, key: str, store: ChunkStore) -> ChunkSetResult:
    """This configuration's chunk set from the stored Parquet of ``twin`` (no parsing, no
    chunking): the same rows, ``chunk_set`` renamed."""
    import pyarrow.parquet as pq

    table = pq.read_table(store.path(twin))
    i = table.schema.get_field_index("chunk_set")
    table = table.set_column(i, table.schema.field(i), pa.array([chunker.name] * table.num_rows, pa.string()))
    copied = {k: v for k, v in (store.manifest(twin) or {}).items() if k != "data_bytes"}
    copied.update({"chunk_set": chunker.name, "version": chunker.chunks_version_name, "inputs": key,
                   "derived_from": twin})
    store.write(chunker.chunks_version_name, table, copied)
    return ChunkSetResult(chunker.chunks_version_name, True, copied, derived_from=twin)
