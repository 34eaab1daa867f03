"""Where one corpus's artefacts live under the data root.

Raw documents and parsed blocks are content-addressed and shared by every corpus; chunk
sets, indexes and evaluations belong to one corpus (folder ``corpora/<name>-<path hash>``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..hashing import stable_hash
from ..settings import Settings
from .blocks import BlockStore
from .chunks import ChunkStore
from .enrichments import EnrichmentStore
from .files import safe_name


def corpus_key(corpus_dir: Path) -> str:
    corpus_dir = Path(corpus_dir).resolve()
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", corpus_dir.name).strip("-")[:40] or "corpus"
    return f"{slug}-{stable_hash(str(corpus_dir), n=8)}"


@dataclass(frozen=True)
class Workspace:
    settings: Settings

    @property
    def corpus_dir(self) -> Path:
        return self.settings.corpus_dir

    @property
    def root(self) -> Path:
        return self.settings.data_root / "corpora" / corpus_key(self.corpus_dir)

    @property
    def blocks(self) -> BlockStore:
        return BlockStore(self.settings.blocks_dir)

    @property
    def manifest_path(self) -> Path:
        """Which parsed block file holds each document of this corpus (written by parsed_blocks)."""
        return self.root / "parsed_manifest.parquet"

    @property
    def gold_passages_path(self) -> Path:
        """The corpus's passages with every span resolved into the parsed text (pdf quotes
        included; written by parsed_blocks, read by evaluation and the spans gate)."""
        return self.root / "gold_passages.parquet"

    @property
    def generated_gold_dir(self) -> Path:
        """Questions and passages generated from the corpus's inline-XBRL facts (questions.parquet,
        passages.parquet, report.json; written by generated_gold, read by the evaluation)."""
        return self.root / "generated_gold"

    @property
    def chunks(self) -> ChunkStore:
        return ChunkStore(self.root / "chunks")

    @property
    def enrichments(self) -> EnrichmentStore:
        return EnrichmentStore(self.root / "enrichments")

    def index_dir(self, version_name: str) -> Path:
        return self.root / "indexes" / safe_name(version_name)

    @property
    def bm25_documents_dir(self) -> Path:
        """BM25's document-level indexes, built once for the chunk sets that recover the same
        document texts (index/bm25_retriever.document_index); a cache: deleting it costs a rebuild."""
        return self.root / "bm25_documents"

    @property
    def evaluations_root(self) -> Path:
        """Every chunk set's evaluation folder, and ``history/`` (storage/history.py)."""
        return self.root / "evaluations"

    def evaluation_dir(self, version_name: str) -> Path:
        return self.evaluations_root / safe_name(version_name)
