"""Append-only Parquet shard folders: the caches (embeddings, enrichments) write one new shard
per batch — never rewriting a file another process may be reading — and compact the folder
into one shard when it holds too many. A shard that cannot be read (damaged: truncated,
overwritten) is named in a warning and set aside as ``<shard>.damaged``; what it held is
computed again and stored in a new shard.
"""
from __future__ import annotations

import time
import uuid
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .files import write_parquet

MAX_SHARDS = 64  # compact a folder into one shard beyond this


def shards(folder: Path) -> list[Path]:
    return sorted(folder.glob("shard-*.parquet")) if folder.is_dir() else []


def read_shard(path: Path, **kwargs) -> pa.Table | None:
    """The shard's table (``kwargs``: pq.read_table's, e.g. filters), or None when it is gone
    (compacted away by another process) or damaged (warned, and set aside)."""
    try:
        return pq.read_table(path, **kwargs)
    except FileNotFoundError:  # compacted away by a concurrent writer
        return None
    except Exception as exc:  # noqa: BLE001 - whatever pyarrow raises on a damaged file
        if not path.exists():
            return None
        aside = path.with_name(path.name + ".damaged")
        from .artefacts import report_damage

        report_damage(f"{path} cannot be read ({type(exc).__name__}: {exc})",
                      f"set aside as {aside.name}; what it held is computed again")
        try:
            path.replace(aside)
        except FileNotFoundError:
            pass
        return None


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
        t = read_shard(s)
        if t is not None:
            tables.append(t)
    if not tables:
        return
    merged = pa.concat_tables(tables)
    _, first = np.unique(np.asarray(merged.column(key).to_pylist(), dtype=object), return_index=True)
    write_shard(folder, merged.take(pa.array(np.sort(first))), "-c")
    for s in found:
        s.unlink(missing_ok=True)
