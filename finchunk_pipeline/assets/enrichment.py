"""Group "chunking": the enrichment of each chunk set that declares an enricher.

A thin shell over finchunk_pipeline/builders/enrichment.py, between chunk_sets and the indexes,
partitioned like them. A chunk set without ``enrich:`` materializes as skipped.
"""

import pyarrow.parquet as pq
from dagster import (
    AssetExecutionContext,
    DataVersion,
    MaterializeResult,
    MetadataValue,
    asset,
)

from ..builders.enrichment import build_enrichment
from ..enrichment.enriched_set import BUILD_VERSION
from ..enrichment.llm import PROMPT_VERSION
from ..enrichment.structural import VERSION as STRUCTURAL_VERSION
from ..progress import Progress
from ..storage.enrichments import EnrichmentStore
from .chunks import chunk_sets
from .partitions import chunk_set_partitions
from .resources import PipelineResource

ENRICHMENT_CODE = f"{BUILD_VERSION}.s{STRUCTURAL_VERSION}.p{PROMPT_VERSION}"


def enrichment_store(ws) -> EnrichmentStore:
    return ws.enrichments


def enrichment_cache_dir(settings):
    """Shared by every corpus: enrichments are keyed by what the enricher read."""
    return settings.data_root / "enrichment_cache"


def _client_factory(config, env):
    """The LLM client of ``config``'s enricher, from the FINCHUNK_LLM_* variables in ``env``
    (Settings.llm_env), made when first needed."""
    def make():
        from ..enrichment.client import ChatClient, LLMSettings

        settings = LLMSettings.from_env("FINCHUNK_LLM", model=config.enrich.model,
                                        what=f"chunk set {config.name!r} (enrich: llm)", env=env)
        return ChatClient(settings)
    return make


def _chunk_enrichment(context: AssetExecutionContext, pipeline: PipelineResource, config) -> MaterializeResult:
    ws = pipeline.workspace()
    store = enrichment_store(ws)
    cache_dir = enrichment_cache_dir(ws.settings)
    own_cache = cache_dir / config.enrich.version_id
    pipeline.pull(ws.manifest_path, ws.settings.blocks_dir, ws.chunks.dir(config.chunks_version_name),
                  store.dir(config.version_name), own_cache)
    parsed = pq.read_table(ws.manifest_path).to_pandas()
    progress = Progress(f"chunk set {config.name}", "chunks enriched", context.log.info)
    try:
        result = build_enrichment(config, parsed, ws.blocks, ws.chunks, store, cache_dir,
                                  client_factory=_client_factory(config, ws.settings.llm_env),
                                  progress=progress, log=context.log.info)
    finally:  # enrichments paid for are kept remotely too, also when the build failed part-way
        if own_cache.exists():
            pipeline.push(own_cache)
    if result.built:
        pipeline.push(store.dir(config.version_name))
    m = result.manifest
    context.log.info(f"{config.version_name}: enrichment {'built' if result.built else 'unchanged, reused'} "
                     f"({m['enriched_now'] if result.built else 0} enriched now, {m['cache_hits']} from the cache)")
    preview = store.read(config.version_name, columns=["chunk_id", "enrichment_text"]).head(6)
    preview["enrichment_text"] = (preview["enrichment_text"].str.slice(0, 200).str.replace("\n", " · ")
                                  .str.replace("|", "\\|"))
    usage = m.get("usage") or {}
    return MaterializeResult(
        metadata={
            "version": config.version_name, "chunks_version": config.chunks_version_name,
            "enricher": m["enricher"], "enricher_version": m["enricher_version"], "built": result.built,
            "chunks": m["chunks"], "enriched_now": m["enriched_now"] if result.built else 0,
            "cache_hits": m["cache_hits"], "empty": m["empty"], "mean_chars": round(m["mean_chars"], 1),
            "max_chars": m["max_chars"],
            # LLM usage of this build (requests, retries, 429s, timeouts, tokens, cost if priced)
            "requests": usage.get("requests", 0), "retries": usage.get("retries", 0),
            "rate_limited": usage.get("rate_limited", 0), "timeouts": usage.get("timeouts", 0),
            "prompt_tokens": usage.get("prompt_tokens", 0), "completion_tokens": usage.get("completion_tokens", 0),
            "cost_usd": usage.get("cost_usd") if usage.get("cost_usd") is not None else "not priced",
            "usage": MetadataValue.json(usage),
            "path": MetadataValue.path(str(store.path(config.version_name))),
            "preview": MetadataValue.md(preview.to_markdown(index=False)),
        },
        data_version=DataVersion(m["inputs"]),
    )


@asset(
    group_name="chunking",
    deps=[chunk_sets],
    partitions_def=chunk_set_partitions,
    code_version=ENRICHMENT_CODE,
    description="Per chunk an enrichment_text (a second, searchable representation: never evidence), "
                "with enricher, enricher_version and the chunk's spans, for chunk sets that declare "
                "`enrich:` in the chunker config (structural: offline context from the parsed blocks; "
                "llm: an OpenAI-compatible endpoint). Built from the stored chunks (no re-parse, no "
                "re-chunk); enrichments cached by enricher version + chunk hash.",
    kinds={"parquet"},
)
def chunk_enrichment(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    config = pipeline.chunker_config(context.partition_key)
    if config.enrich is None:
        return MaterializeResult(metadata={"version": config.version_name, "skipped": True,
                                           "reason": "no enrich: in the chunker config"},
                                 data_version=DataVersion(f"none:{config.version_name}"))
    return pipeline.claimed(context, "enrichment", _chunk_enrichment)
