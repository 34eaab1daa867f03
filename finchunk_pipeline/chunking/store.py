"""Chunk sets as Parquet: ``<root>/<config version name>/chunks.parquet`` plus a manifest."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..storage import read_json, safe_name, table_of, write_json, write_parquet
from .model import Chunk

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


def spans_of(value) -> list[tuple[int, int]]:
    """Spans column cell (list of {start, end}) -> list of tuples."""
    return [(int(s["start"]), int(s["end"])) for s in value]


class ChunkStore:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    def dir(self, version_name: str) -> Path:
        return self.root / safe_name(version_name)

    def path(self, version_name: str) -> Path:
        return self.dir(version_name) / "chunks.parquet"

    def manifest_path(self, version_name: str) -> Path:
        return self.dir(version_name) / "manifest.json"

    def manifest(self, version_name: str) -> dict | None:
        """The manifest of a complete chunk set, else None. The manifest records the size of
        the Parquet file it describes: a data file replaced after it (a rebuild in progress,
        or one that died between the two writes) does not pass for complete."""
        p, data = self.manifest_path(version_name), self.path(version_name)
        if not (p.exists() and data.exists()):
            return None
        m = read_json(p)
        if "data_bytes" in m and m["data_bytes"] != data.stat().st_size:
            return None
        return m

    def write(self, version_name: str, table: pa.Table, manifest: dict) -> Path:
        """``table``: chunks_to_table(chunks). Nothing published is removed first: the data
        file is replaced atomically, then the manifest (the completion mark) that names its
        size. Callers hold the build's claim (claims.py), so writers never interleave."""
        path = write_parquet(self.path(version_name), table)
        write_json(self.manifest_path(version_name), {**manifest, "data_bytes": path.stat().st_size})
        return path

    def read(self, version_name: str, columns: list[str] | None = None) -> pd.DataFrame:
        return pq.read_table(self.path(version_name), columns=columns).to_pandas()
