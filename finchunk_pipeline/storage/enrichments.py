"""The store of enriched chunk sets: one table per chunk-set version, beside its manifest."""
from __future__ import annotations

from .artefacts import VersionedTables


class EnrichmentStore(VersionedTables):
    """``<root>/<version name>/enrichment.parquet`` + ``manifest.json`` (artefacts.VersionedTables)."""

    FILE = "enrichment.parquet"
    WHAT = "enrichment of {}"
    PRODUCER = "chunk_enrichment"
