"""A chunk set's index keys: what an index is built from, hashed (builders/indexes.py stores and
reuses the index under it).

An index's key is computed from everything it reads: the chunk set's inputs key (and, for an
enriched representation, the enrichment's key), the settings the index declares it depends
on (``IndexSpec.config``: analyzer, languages, prior, model, kind) and the code version of
the modules that build it (``IndexSpec.modules``, code_versions.code_version). Editing a
builder rebuilds what it built; no hand-bumped constant is needed.
"""
from __future__ import annotations

from ..code_versions import code_version
from ..hashing import stable_hash
from .registry import IndexSettings, index_spec


def index_code_version(name: str) -> str:
    """The code version of what builds the index ``name`` (Dagster's asset code_version too)."""
    return code_version(*index_spec(name).modules)


def index_key(name: str, chunks_key: str, settings: IndexSettings, **inputs: str) -> str:
    """The key of index ``name`` over a chunk set (``inputs``: further inputs' keys, e.g. the
    enrichment's); an artefact key (storage.artefacts.artefact_key: the parts hashed, 16 hex)."""
    spec = index_spec(name)
    return stable_hash(dict(index=name, chunks=chunks_key, config=spec.config(settings),
                            code=index_code_version(name), **inputs), n=16)
