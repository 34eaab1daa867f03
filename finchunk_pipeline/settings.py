"""Paths and defaults in one place.

Everything the pipeline writes lives under a data root (``FINCHUNK_DATA``, default
``data/store`` in the project) and a run output folder (``FINCHUNK_OUT``, default ``out``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = PROJECT_ROOT / "data" / "corpus" / "default"
DEFAULT_CHUNKERS = PROJECT_ROOT / "data" / "chunkers.yaml"


def _env_path(name: str, default: Path) -> Path:
    value = os.environ.get(name)
    return Path(value).expanduser().resolve() if value else default


@dataclass(frozen=True)
class Settings:
    corpus_dir: Path = field(default_factory=lambda: _env_path("FINCHUNK_CORPUS", DEFAULT_CORPUS))
    data_root: Path = field(default_factory=lambda: _env_path("FINCHUNK_DATA", PROJECT_ROOT / "data" / "store"))
    out_dir: Path = field(default_factory=lambda: _env_path("FINCHUNK_OUT", PROJECT_ROOT / "out"))
    chunkers_file: Path = field(default_factory=lambda: _env_path("FINCHUNK_CHUNKERS", DEFAULT_CHUNKERS))

    def with_paths(self, corpus: str | None = None, data: str | None = None,
                   chunkers: str | None = None) -> "Settings":
        """These settings with the folders a command line gave (``--corpus``, ``--data``,
        ``--chunkers``; None keeps the setting), resolved."""
        changes = {k: Path(v).expanduser().resolve() for k, v in
                   (("corpus_dir", corpus), ("data_root", data), ("chunkers_file", chunkers)) if v}
        return replace(self, **changes)

    # storage layout (see design.md)
    @property
    def raw_dir(self) -> Path:
        return self.data_root / "raw"

    @property
    def blocks_dir(self) -> Path:
        return self.data_root / "blocks"

    @property
    def chunks_dir(self) -> Path:
        return self.data_root / "chunks"

    @property
    def indexes_dir(self) -> Path:
        return self.data_root / "indexes"

    @property
    def embeddings_dir(self) -> Path:
        return self.data_root / "embeddings"

    @property
    def evaluations_dir(self) -> Path:
        return self.data_root / "evaluations"

    @property
    def facts_db(self) -> Path:
        return self.data_root / "facts.duckdb"
