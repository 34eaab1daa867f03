"""A cache of generated texts by (namespace, key), shared by chunk sets and corpora.

Enrichments are cached under ``<data root>/enrichment_cache/<enricher version id>/`` keyed by
the chunk hash (``model.chunk_hash``: everything the enricher read), so an unchanged chunk is
enriched once per enricher version, whichever chunk set or corpus it appears in; answers of
the ``answers`` asset use the same cache under ``answers-<model>-…``. Like the embedding
cache: Parquet shards written atomically (a crash keeps the shards already written, so an
interrupted LLM run resumes where it stopped), compacted into one beyond MAX_SHARDS.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from . import shards as shards_module
from .files import safe_name
from .shards import compact, read_shard, shards, write_shard

MAX_SHARDS = shards_module.MAX_SHARDS  # (a module attribute: tests lower it)
CACHE_SCHEMA = pa.schema([("key", pa.string()), ("text", pa.string()),
                          ("prompt_tokens", pa.int64()), ("completion_tokens", pa.int64())])


class TextCache:
    def __init__(self, root: str | Path, namespace: str):
        self.root = Path(root)
        self.folder = self.root / safe_name(namespace)

    def _shards(self) -> list[Path]:
        return shards(self.folder)

    def get_many(self, keys: Iterable[str]) -> dict[str, dict]:
        """{key: {"text", "prompt_tokens", "completion_tokens"}} for the keys found."""
        wanted = sorted(set(keys))
        found: dict[str, dict] = {}
        if not wanted:
            return found
        arr = pa.array(wanted, type=pa.string())
        for shard in self._shards():
            t = read_shard(shard, filters=pc.field("key").isin(arr))  # None: gone or damaged (set aside)
            if t is None:
                continue
            for row in t.to_pylist():
                found.setdefault(row["key"], {"text": row["text"], "prompt_tokens": row["prompt_tokens"] or 0,
                                              "completion_tokens": row["completion_tokens"] or 0})
        return found

    def put_many(self, records: Sequence[dict]) -> None:
        """records: {"key", "text", "prompt_tokens", "completion_tokens"} (one new shard)."""
        if not records:
            return
        table = pa.Table.from_pylist([{"key": r["key"], "text": r["text"],
                                       "prompt_tokens": int(r.get("prompt_tokens") or 0),
                                       "completion_tokens": int(r.get("completion_tokens") or 0)}
                                      for r in records], schema=CACHE_SCHEMA)
        write_shard(self.folder, table)
        compact(self.folder, "key", MAX_SHARDS)
