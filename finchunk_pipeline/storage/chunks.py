"""Chunk sets as Parquet: ``<root>/<config version name>/chunks.parquet`` plus a manifest."""
from __future__ import annotations

import pyarrow as pa

from ..types.chunks import Chunk
from .artefacts import VersionedTables
from .files import table_of

SPAN = pa.struct([("start", pa.int64()), ("end", pa.int64())])
CHUNK_SCHEMA = pa.schema([
    ("chunk_id", pa.string()),
    ("chunk_set", pa.string()),
    ("doc_id", pa.string()),
    ("kind", pa.string()),
    ("spans", pa.list_(SPAN)),
    ("view_spans", pa.list_(SPAN)),
    ("section_path", pa.list_(pa.string())),
    ("parent_id", pa.string()),
    ("source_text", pa.string()),
    ("embedding_text", pa.string()),
    ("display_text", pa.string()),
    ("n_tokens", pa.int32()),
    ("over_limit", pa.bool_()),
    ("block_ids", pa.list_(pa.string())),
])


def _span_structs(spans) -> list[dict]:
    return [{"start": s, "end": e} for s, e in spans]


def chunks_to_table(chunks: list[Chunk]) -> pa.Table:
    return table_of(chunks, CHUNK_SCHEMA, {"spans": _span_structs, "view_spans": _span_structs,
                                           "section_path": list})


class ChunkStore(VersionedTables):
    """``<root>/<config version name>/chunks.parquet`` + manifest.json (artefacts.VersionedTables);
    ``write`` takes ``chunks_to_table(chunks)``."""

    FILE = "chunks.parquet"
    WHAT = "chunk set {}"
    PRODUCER = "chunk_sets"
