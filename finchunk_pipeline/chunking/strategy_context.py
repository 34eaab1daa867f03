"""What a chunk-set build gives every strategy: the run's model, its token counter and its
embedder.

``build_chunk_set`` (builders/chunks.py) makes one ``ChunkingContext`` per chunk set from its
own arguments (the model, the embedding cache folder, the embedding backend) and passes it to
each strategy's ``prepare`` and ``pieces``; a strategy never loads a model or reads the
environment itself. Without a context (a strategy called directly, e.g. in a test) a
strategy uses ``ChunkingContext()``: the packaged model, the default backend (models/backends.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..models.backends import DEFAULT_BACKEND
from ..models.tokens import TokenCounter, token_counter

if TYPE_CHECKING:
    from ..models.embed import Embedder

DEFAULT_EMBED_BACKEND = DEFAULT_BACKEND


@dataclass(frozen=True)
class ChunkingContext:
    model_path: str | None = None          # the embedding model's folder; None: the packaged model
    embeddings_dir: str | Path | None = None  # the embedding cache; None: Settings().embeddings_dir
    embed_backend: str = DEFAULT_EMBED_BACKEND  # how the model embeds (models/backends.py BACKENDS)

    @property
    def counter(self) -> TokenCounter:
        """The model's token counter (one per model in this process: tokens.token_counter)."""
        return token_counter(self.model_path)

    def embedder(self) -> Embedder:
        """The model's embedder over the embedding cache (one per model, cache and backend in
        this process). Imported here: the embedding stack costs seconds to import."""
        from ..models.embed import get_embedder

        return get_embedder(self.model_path, self.embeddings_dir, self.embed_backend)


def or_default(context: ChunkingContext | None) -> ChunkingContext:
    """The given context, else the default one (a strategy called without a build)."""
    return context if context is not None else ChunkingContext()
