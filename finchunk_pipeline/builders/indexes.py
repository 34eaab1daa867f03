"""A chunk set's indexes built over the stores: each reused when its marker carries its key
(index/keys.py) and its files are intact, else built by the pure index stage from the chunk
columns it declares (index/registry.py) and its files written (storage/indexes.py). Also the
indexes over an enriched chunk set's representations (index/representations.py), and
``index_damage``: why a stored index cannot be read as written (search checks it).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from ..code_versions import code_version
from ..index.documents import document_texts
from ..index.keys import index_key
from ..index.registry import IndexSettings, index_files, index_spec
from ..index.representations import INDEXED, rep_dir, representation_bm25, representation_dense
from ..storage.artefacts import LOCAL, Artefact, Outcome, Transfer, check_files, read_marker, reuse_or_build
from ..storage.indexes import save_index, write_index_files

ReadChunks = Callable[[Sequence[str]], pd.DataFrame]  # columns -> the chunk set's rows in chunks.parquet order
ReadEnrichment = Callable[[], pd.DataFrame]            # the enrichment's chunk_id, enrichment_text


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
    key, else built from the chunk columns it declares and written to ``<index dir>/<name>/``.
    Returns (outcome, key)."""
    spec = index_spec(name)
    key = index_key(name, chunks_key, settings)

    def build() -> dict:
        built = spec.build(read_chunks(spec.read_columns(settings)), settings)
        write_index_files(Path(index_dir) / name, built.parts)
        return built.info

    return reuse_or_build(index_artefact(name, index_dir), key, build, transfer, force), key


def representation_artefact(index: str, folder: str | Path, chunks_key: str, enrichment_key: str,
                            settings: IndexSettings, required: str) -> tuple[str, Artefact]:
    """(the key, the artefact) of the ``index`` over an enriched chunk set's representations
    (index/representations.py): keyed by the chunks, the enrichment, the index's settings and
    code, and the representations' code; ``required``: the file each representation's index
    must have."""
    folder = Path(folder)
    key = index_key(index, chunks_key, settings, enrichment=enrichment_key,
                    representations=code_version("finchunk_pipeline.index.representations"))
    artefact = Artefact(folder / f"rep-{index}.json", tuple(rep_dir(folder, r) / index for r in INDEXED),
                        tuple(rep_dir(folder, r) / index / required for r in INDEXED),
                        recorded=tuple(rep_dir(folder, r) / index for r in INDEXED))
    return key, artefact


def build_representations_bm25(folder: str | Path, read_chunks: ReadChunks, read_enrichment: ReadEnrichment,
                               chunks_key: str, enrichment: dict, settings: IndexSettings,
                               transfer: Transfer = LOCAL, log: Callable[[str], None] = print) -> Outcome:
    """BM25 over the enrichment and concat representations of an enriched chunk set
    (``enrichment``: its stored manifest), rebuilt when the chunks, the enrichment or their
    code change."""
    key, artefact = representation_artefact("bm25", folder, chunks_key, enrichment["inputs"], settings, "bm25.npz")

    def build() -> dict:
        from ..index.representations import representation_texts

        chunks = read_chunks(["chunk_id", "doc_id", "embedding_text", "source_text", "view_spans"])
        texts = representation_texts(chunks, read_enrichment())
        prior = settings.doc_prior
        vocab = {}
        for rep, retriever in representation_bm25(texts, settings.analyzer, chunks["doc_id"].tolist(),
                                                  document_texts(chunks) if prior else None, prior,
                                                  settings.doc_languages, settings.language_override,
                                                  settings.documents):
            save_index(retriever, rep_dir(folder, rep) / "bm25")
            vocab[rep] = len(retriever.index.vocab)
        log(f"BM25 over the representations {list(vocab)} built")
        return {"enricher_version": enrichment["enricher_version"], "vocabulary": vocab}

    return reuse_or_build(artefact, key, build, transfer)


def build_representations_dense(folder: str | Path, read_chunks: ReadChunks, read_enrichment: ReadEnrichment,
                                chunks_key: str, enrichment: dict, settings: IndexSettings,
                                transfer: Transfer = LOCAL, progress=None) -> Outcome:
    """FAISS indexes over the enrichment and concat representations of an enriched chunk set;
    embeddings through the shared cache (pulled before, pushed after a build)."""
    key, artefact = representation_artefact("dense", folder, chunks_key, enrichment["inputs"], settings,
                                            "index.faiss")

    def build() -> dict:
        from ..index.representations import representation_texts

        transfer.pull(settings.embeddings_dir)
        from ..index.entries.dense import views_for

        chunks = read_chunks(index_spec("dense").read_columns(settings))
        texts = representation_texts(chunks, read_enrichment())
        views = views_for(chunks, settings)
        stats = {}
        for rep, parts, embed in representation_dense(texts, chunks["chunk_id"].tolist(), settings.model_path,
                                                      settings.embeddings_dir, settings.dense_kind, progress,
                                                      settings.embed_backend, settings.dense_vectors, chunks, views):
            write_index_files(rep_dir(folder, rep) / "dense", parts)
            stats[rep] = embed
        transfer.push(settings.embeddings_dir)
        return {"enricher_version": enrichment["enricher_version"], "embed": stats}

    return reuse_or_build(artefact, key, build, transfer)
