"""Group "chunking": one chunk set per chunker configuration (a dynamic partition each)."""

import pyarrow.parquet as pq
from dagster import (
    AssetExecutionContext,
    DataVersion,
    MaterializeResult,
    MetadataValue,
    asset,
)

from ..builders.chunks import build_chunk_set
from ..chunking.registry import STRATEGIES
from ..hashing import stable_hash
from ..models.backends import check_backend
from ..progress import Progress
from .documents import parsed_blocks
from .partitions import chunk_set_partitions
from .resources import PipelineResource


def _chunk_sets(context: AssetExecutionContext, pipeline: PipelineResource, config) -> MaterializeResult:
    ws = pipeline.workspace()
    version = config.chunks_version_name  # the chunking-only version: every enricher shares it
    pipeline.pull(ws.manifest_path, ws.settings.blocks_dir, ws.chunks.dir(version))
    parsed = pq.read_table(ws.manifest_path).to_pandas()

    progress = Progress(f"chunk set {config.name}", "documents chunked", context.log.info)
    # the run's model (model_path / FINCHUNK_MODEL, Settings) reaches every strategy through here
    result = build_chunk_set(config.chunker, parsed, ws.blocks, ws.chunks, ws.settings.model(), progress,
                             embeddings_dir=ws.settings.embeddings_dir,
                             embed_backend=check_backend(ws.settings.embed_backend))
    pipeline.push(ws.chunks.dir(version))
    m = result.manifest
    how = (f"copied from the stored chunk set {result.derived_from} (same chunking: nothing chunked)"
           if result.derived_from else "built" if result.built else "unchanged, reused")
    context.log.info(f"{version}: {how}")
    for key, value in (m.get("notes") or {}).items():
        context.log.warning(f"{config.name}: {key}: {value['count']} (e.g. {', '.join(value['examples'])})")
    if m.get("over_bound"):
        context.log.error(f"{config.name}: {m['over_bound']} chunks over the bound of {m['char_bound']} characters, "
                          f"e.g. {m['over_bound_examples'][:5]}")
    if m.get("tables_over_char_bound"):  # let through by the configuration's table allowance, never text
        context.log.info(f"{config.name}: {m['tables_over_char_bound']} table chunks over the bound of "
                         f"{m['char_bound']} characters (largest {m['largest_table_chars']}), within the "
                         f"table allowance of {m['table_char_bound']}")
    preview = ws.chunks.read(version, columns=["chunk_id", "kind", "n_tokens", "display_text"]).head(8)
    preview["display_text"] = preview["display_text"].str.slice(0, 120).str.replace("\n", " ").str.replace("|", "\\|")
    return MaterializeResult(
        metadata={
            "version": version,
            "strategy": config.strategy,
            "params": MetadataValue.json(config.params),
            "header": config.header,
            "built": result.built,
            "derived_from": result.derived_from or "",
            "chunks": m["chunks"],
            "mean_chars": round(m["mean_chars"], 1),
            "mean_tokens": round(m["mean_tokens"], 1),
            "max_tokens": m["max_tokens"],
            "over_limit_fraction": round(m["over_limit_fraction"], 4),
            "duplication": round(m["duplication"], 3),
            # the strategy's bound on a chunk's characters of document text (None: token-bounded)
            "char_bound": m.get("char_bound"),
            "max_span_chars": m.get("max_span_chars"),
            "split_to_bound": m.get("split_to_bound", 0),
            "over_bound": m.get("over_bound", 0),
            # tables the table allowance lets over char_bound (structure's table_max_chars): how
            # many, the largest (None: a chunk set built before they were counted)
            "table_char_bound": m.get("table_char_bound"),
            "tables_over_char_bound": m.get("tables_over_char_bound"),
            "largest_table_chars": m.get("largest_table_chars"),
            "notes": MetadataValue.json(m.get("notes") or {}),
            "path": MetadataValue.path(str(ws.chunks.path(version))),
            "preview": MetadataValue.md(preview.to_markdown(index=False)),
        },
        data_version=DataVersion(m["inputs"]),
    )


@asset(
    group_name="chunking",
    deps=[parsed_blocks],
    partitions_def=chunk_set_partitions,
    code_version=stable_hash({n: s.version for n, s in STRATEGIES.items()}, n=8),
    description="Chunks of one chunker configuration (partition = its name in the chunker config "
                "file), built from persisted parsed blocks only. Stored under the configuration's "
                "version name (name + config hash); an identical existing set is reused for free.",
    kinds={"parquet"},
)
def chunk_sets(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    # keyed by the chunking-only version: a set differing only by its enricher shares the build
    return pipeline.claimed(context, "chunks", _chunk_sets, key=lambda config: config.chunks_version_name)
