"""The enriched set of one chunk-set version, built from its stored chunks.

``build_enrichment`` reads the chunk set's Parquet (stored under the chunking-only version,
so no strategy runs) and each document's blocks from the block store (so no parser runs),
looks every chunk up in the cache by (enricher version, chunk hash), enriches only the
chunks not found, and writes ``<corpus>/enrichments/<version name>/enrichment.parquet`` (one
row per chunk, in chunks.parquet order) and its manifest, last. The chunks are never
rewritten: ``source_text`` and ``spans`` stay exactly as chunked.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd
import pyarrow as pa

from ..hashing import stable_hash
from ..storage.blocks import BlockStore
from ..storage.chunks import ChunkStore
from ..storage.enrichments import EnrichmentStore
from ..storage.text_cache import TextCache
from ..types.chunks import spans_of
from .model import (
    ENRICHMENT_SCHEMA,
    LLM,
    META_FIELDS,
    STRUCTURAL,
    EnrichSpec,
    chunk_hash,
)
from .structural import ChunkRef, enrich_document

BUILD_VERSION = "1"
LLM_BATCH = 64        # chunks per round of requests: the cache is written after each round
STRUCTURAL_FLUSH = 5000


class EnrichmentError(RuntimeError):
    """Enrichment could not be completed (names the chunk set and what failed)."""


@dataclass
class EnrichmentResult:
    version_name: str
    built: bool
    manifest: dict
    usage: dict = field(default_factory=dict)


CHUNK_COLUMNS = ["chunk_id", "doc_id", "spans", "view_spans", "section_path", "source_text", "block_ids"]


def _ref(row) -> ChunkRef:
    return ChunkRef(row["chunk_id"], spans_of(row["view_spans"]), tuple(row["section_path"] if row["section_path"] is not None else ()),
                    row["source_text"], list(row["block_ids"] if row["block_ids"] is not None else []))


def enrichment_inputs(spec: EnrichSpec, chunks_manifest: dict) -> str:
    """Everything the enriched set is built from: the chunks (their inputs hash) and the
    enricher's version id."""
    return stable_hash({"chunks": chunks_manifest["inputs"], "enricher": spec.version_id, "build": BUILD_VERSION})


def build_enrichment(config, parsed: pd.DataFrame, blocks: BlockStore, chunks: ChunkStore, store: EnrichmentStore,
                     cache_root: str | Path, client_factory: Callable[[], object] | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     log: Callable[[str], None] | None = None) -> EnrichmentResult:
    """Build (or reuse) the enriched set of ``config`` (a ChunkerConfig with ``enrich``).

    ``parsed``: the parsed-blocks manifest (doc_id, sha, parser_key + metadata).
    ``client_factory``: makes the LLM client (enrichment/client.ChatClient) for ``llm``;
    called only when some chunk is not cached. Raises EnrichmentError when chunks could not
    be enriched (the ones that were are cached: a re-run asks only for the rest)."""
    spec: EnrichSpec = config.enrich
    if spec is None:
        raise ValueError(f"chunk set {config.name} declares no enricher")
    cm = chunks.manifest(config.chunks_version_name)
    if cm is None:
        raise EnrichmentError(f"chunk set {config.chunks_version_name} is missing: materialize chunk_sets first")
    key = enrichment_inputs(spec, cm)
    existing = store.fresh(config.version_name, key)
    if existing is not None:
        return EnrichmentResult(config.version_name, False, existing)
    t0 = time.perf_counter()
    where = {r["doc_id"]: r for r in parsed.to_dict("records")}
    df = _hashed_chunks(config, chunks, where)
    cache = TextCache(cache_root, spec.version_id)
    found = cache.get_many(set(df["chunk_hash"]))
    todo = df[~df["chunk_hash"].isin(found)].drop_duplicates("chunk_hash")
    usage: dict = {}
    new: dict[str, dict] = {}
    if len(todo):
        if spec.enricher == STRUCTURAL:
            new = _structural(spec, todo, where, blocks, cache, progress)
        elif spec.enricher == LLM:
            new, usage = _llm(config, spec, todo, where, blocks, cache, client_factory, progress, log)
        else:  # parse_enrich accepts only known enrichers
            raise ValueError(f"unknown enricher {spec.enricher!r}")
    table = _enrichment_table(spec, df, new, found)
    lengths = [len(t) for t in table.column("enrichment_text").to_pylist()]
    manifest = {
        "chunk_set": config.name, "version": config.version_name, "chunks_version": config.chunks_version_name,
        "enricher": spec.enricher, "enricher_version": spec.version_id, "enricher_params": spec.params,
        "describe": spec.describe(), "inputs": key, "chunks": len(df),
        "enriched_now": len(new), "cache_hits": int(df["chunk_hash"].isin(found).sum()),
        "empty": sum(1 for n in lengths if n == 0),
        "mean_chars": (sum(lengths) / len(lengths)) if lengths else 0.0, "max_chars": max(lengths, default=0),
        "usage": usage, "seconds": round(time.perf_counter() - t0, 3),
    }
    store.write(config.version_name, table, manifest)
    return EnrichmentResult(config.version_name, True, manifest, usage)


def _hashed_chunks(config, chunks: ChunkStore, where: dict[str, dict]) -> pd.DataFrame:
    """The chunk set's chunks with ``chunk_hash``: what an enrichment of the chunk is cached by."""
    df = chunks.read(config.chunks_version_name, columns=CHUNK_COLUMNS)
    missing_docs = sorted(set(df["doc_id"]) - set(where))
    if missing_docs:
        raise EnrichmentError(f"chunk set {config.chunks_version_name}: documents {missing_docs[:5]} are not in "
                              f"the parsed manifest; materialize parsed_blocks first")
    hashes = []
    for row in df.to_dict("records"):
        d = where[row["doc_id"]]
        hashes.append(chunk_hash(d["sha"], d["parser_key"], row["view_spans"], row["source_text"],
                                 row["section_path"], d))
    df["chunk_hash"] = hashes
    return df


def _enrichment_table(spec: EnrichSpec, df: pd.DataFrame, new: dict[str, dict], found: dict[str, dict]) -> pa.Table:
    """One row per chunk: its enrichment (made now or cached) and the tokens paid for it now."""
    texts, ptoks, ctoks = [], [], []
    for h in df["chunk_hash"]:
        rec = new.get(h) or found[h]
        texts.append(rec["text"])
        fresh = h in new
        ptoks.append(int(rec.get("prompt_tokens") or 0) if fresh else 0)
        ctoks.append(int(rec.get("completion_tokens") or 0) if fresh else 0)
    return pa.Table.from_pydict({
        "chunk_id": df["chunk_id"].tolist(), "doc_id": df["doc_id"].tolist(), "chunk_hash": df["chunk_hash"].tolist(),
        "enrichment_text": texts, "enricher": [spec.enricher] * len(df), "enricher_version": [spec.version_id] * len(df),
        "spans": [[{"start": s, "end": e} for s, e in spans_of(v)] for v in df["spans"]],
        "prompt_tokens": ptoks, "completion_tokens": ctoks,
    }, schema=ENRICHMENT_SCHEMA)


def _by_document(todo: pd.DataFrame):
    for doc_id, group in todo.groupby("doc_id", sort=False):
        yield doc_id, group.to_dict("records")


def _structural(spec, todo, where, blocks, cache, progress) -> dict[str, dict]:
    new: dict[str, dict] = {}
    pending: list[dict] = []
    done = 0
    for doc_id, rows in _by_document(todo):
        d = where[doc_id]
        doc = blocks.read(d["parser_key"], d["sha"], doc_id=doc_id)
        meta = {k: d.get(k) for k in META_FIELDS}
        texts = enrich_document(doc, meta, [_ref(r) for r in rows], int(spec.params["max_chars"]),
                                int(spec.params["key_terms"]))
        for r, text in zip(rows, texts):
            rec = {"key": r["chunk_hash"], "text": text, "prompt_tokens": 0, "completion_tokens": 0}
            new[r["chunk_hash"]] = rec
            pending.append(rec)
        if len(pending) >= STRUCTURAL_FLUSH:
            cache.put_many(pending)
            pending = []
        done += len(rows)
        if progress:
            progress(done, len(todo))
    cache.put_many(pending)
    return new


def _llm(config, spec, todo, where, blocks, cache, client_factory, progress, log) -> tuple[dict, dict]:
    from .llm import clean_output, enrich_jobs

    if client_factory is None:
        raise EnrichmentError(f"chunk set {config.name}: the llm enricher needs a client (FINCHUNK_LLM_* settings)")
    client = client_factory()
    new: dict[str, dict] = {}
    failures: dict[str, str] = {}
    chunk_of = {}
    batch: list[tuple[str, list[dict]]] = []
    done = 0

    def flush():
        nonlocal batch, done
        if not batch:
            return
        results, failed = client.complete_many(batch, max_tokens=int(spec.params["max_tokens"]),
                                               temperature=float(spec.params["temperature"]))
        recs = [{"key": k, "text": clean_output(c.text), "prompt_tokens": c.prompt_tokens,
                 "completion_tokens": c.completion_tokens} for k, c in results.items()]
        cache.put_many(recs)  # paid-for work is kept, whatever happens next
        new.update({r["key"]: r for r in recs})
        failures.update(failed)
        done += len(batch)
        batch = []
        if progress:
            progress(done, len(todo))

    for doc_id, rows in _by_document(todo):
        if client.fatal_error is not None:
            break
        d = where[doc_id]
        doc = blocks.read(d["parser_key"], d["sha"], doc_id=doc_id)
        meta = {k: d.get(k) for k in META_FIELDS}
        for r in rows:
            chunk_of[r["chunk_hash"]] = r["chunk_id"]
        for job in enrich_jobs(doc, meta, [(r["chunk_hash"], _ref(r)) for r in rows], spec.params):
            batch.append(job)
            if len(batch) >= LLM_BATCH:
                flush()
                if client.fatal_error is not None:
                    break
    if client.fatal_error is None:
        flush()
    usage = client.usage.as_dict(client.settings)
    if client.fatal_error is not None or failures:
        missing = len(todo) - len(new)
        first = next(iter(failures.items()), None)
        why = str(client.fatal_error) if client.fatal_error is not None else first[1]
        examples = [chunk_of.get(k, k) for k in list(failures)[:5]]
        raise EnrichmentError(
            f"chunk set {config.name}: llm enricher ({spec.describe()}) could not enrich {missing} of {len(todo)} "
            f"chunks; {len(new)} enriched now are cached (a re-run asks only for the rest). "
            f"First failure{f' (chunk {examples[0]})' if examples else ''}: {why}. Usage: {usage}")
    if log:
        log(f"{config.name}: {len(new)} chunks enriched by {settings_text(client)}; usage {usage}")
    return new, usage


def settings_text(client) -> str:
    s = client.settings
    return f"{s.model} at {s.url}"
