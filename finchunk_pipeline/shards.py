"""Append-only Parquet shard folders: the caches (embeddings, enrichments) write one new shard
per batch — never rewriting a file another process may be reading — and compact the folder
into one shard when it holds too many.
"""
from __future__ import annotations

import time
import uuid
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .storage import write_parquet

MAX_SHARDS = 64  # compact a folder into one shard beyond this


def shards(folder: Path) -> list[Path]:
    return sorted(folder.glob("shard-*.parquet")) if folder.is_dir() else []


def write_shard(folder: Path, table: pa.Table, suffix: str = "") -> Path:
    name = f"shard-{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}{suffix}.parquet"
    return write_parquet(folder / name, table)


def compact(folder: Path, key: str, max_shards: int = MAX_SHARDS) -> None:
    """Beyond ``max_shards`` shards: one shard with the first row of each ``key`` value, then
    the merged shards removed (only those: shards written meanwhile stay)."""
    found = shards(folder)
    if len(found) <= max_shards:
        return
    tables = []
    for s in found:
        try:
            tables.append(pq.read_table(s))
        except (FileNotFoundError, OSError):  # compacted away by another process
            continue
    if not tables:
        return
    merged = pa.concat_tables(tables)
    _, first = np.unique(np.asarray(merged.column(key).to_pylist(), dtype=object), return_index=True)
    write_shard(folder, merged.take(pa.array(np.sort(first))), "-c")
    for s in found:
        s.unlink(missing_ok=True)
