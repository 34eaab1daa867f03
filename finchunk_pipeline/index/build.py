"""A chunk set's index as an artefact (artefacts.py): its key, its files, built through the registry.

An index's key is computed from everything it reads: the chunk set's inputs key (and, for an
enriched representation, the enrichment's key), the settings the index declares it depends
on (``IndexSpec.config``: analyzer, languages, prior, model, kind) and the code version of
the modules that build it (``IndexSpec.modules``, artefacts.code_version). Editing a builder rebuilds what it built;
no hand-bumped constant is needed.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from ..code_versions import code_version
from ..storage.artefacts import (
    LOCAL,
    Artefact,
    Outcome,
    Transfer,
    artefact_key,
    check_files,
    read_marker,
    reuse_or_build,
)
from .registry import IndexSettings, index_files, index_spec

ReadChunks = Callable[[Sequence[str]], pd.DataFrame]  # columns -> the chunk set's rows in chunks.parquet order


def index_code_version(name: str) -> str:
    """The code version of what builds the index ``name`` (Dagster's asset code_version too)."""
    return code_version(*index_spec(name).modules)


def index_key(name: str, chunks_key: str, settings: IndexSettings, **inputs: str) -> str:
    """The key of index ``name`` over a chunk set (``inputs``: further inputs' keys, e.g. the
    enrichment's)."""
    spec = index_spec(name)
    return artefact_key(index=name, chunks=chunks_key, config=spec.config(settings),
                        code=index_code_version(name), **inputs)


def index_artefact(name: str, index_dir: str | Path) -> Artefact:
    """``<index dir>/<name>/`` with its marker ``<index dir>/<name>.json``, which records the
    size and hash of every file in the folder (artefacts.py: a damaged one rebuilds it)."""
    index_dir = Path(index_dir)
    return Artefact(index_dir / f"{name}.json", (index_dir / name,), tuple(index_files(name, index_dir)),
                    recorded=(index_dir / name,))


def index_damage(name: str, index_dir: str | Path) -> str | None:
    """Why the stored index ``name`` cannot be read as written (its marker damaged, a file
    truncated or changed), or None (intact, or written before its marker recorded its files)."""
    artefact = index_artefact(name, index_dir)
    info = read_marker(artefact.marker, "run `finchunk run` to build it again")
    if info is None:
        return f"{artefact.marker} cannot be read" if artefact.marker.exists() else None
    return check_files(info["files"], artefact.marker.parent) if isinstance(info.get("files"), dict) else None


def build_index(name: str, index_dir: str | Path, read_chunks: ReadChunks, chunks_key: str,
                settings: IndexSettings, transfer: Transfer = LOCAL, force: bool = False) -> tuple[Outcome, str]:
    """Index ``name`` of a chunk set under ``index_dir``: reused when its marker carries the
    key, else built from the chunk columns it declares. Returns (outcome, key)."""
    spec = index_spec(name)
    key = index_key(name, chunks_key, settings)

    def build() -> dict:
        return spec.build(read_chunks(list(spec.columns)), Path(index_dir), settings)

    return reuse_or_build(index_artefact(name, index_dir), key, build, transfer, force), key
