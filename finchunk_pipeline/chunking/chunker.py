"""A chunker is its options: the strategy, its parameters, the context header and the token
bound — everything that decides the chunks, and nothing else. Chunking receives a Chunker;
what a chunk set does beyond its chunks (its enricher, whether it gets a dense index, how its
retrieved chunks are delivered) is declared above the stages, in ``chunk_sets.ChunkerConfig``,
which extends a Chunker with them (and hands chunking its ``chunker``).

``chunking_hash`` names the chunks: it covers the strategy, its parameters, the header
settings and the strategy's code version, so changing any of them yields new chunks; the
chunks are stored as ``<name>-<chunking_hash>`` (``chunks_version_name``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..hashing import stable_hash
from .context import BUILD_VERSION
from .registry import strategy_version
from .token_bound import TOKEN_BOUND_VERSION


@dataclass(frozen=True)
class Chunker:
    name: str                      # the chunk set its chunks are labelled with, e.g. "structure-h"
    strategy: str                  # a key of chunking.registry.STRATEGIES
    params: dict[str, Any] = field(default_factory=dict)  # validated by the strategy's Params
    header: bool = False           # prefix embedding_text with "Title > Section"
    context_fields: tuple[str, ...] = ("title", "section")  # what the header shows
    # no chunk over the embedding model's token limit: an over-limit chunk is split (at line
    # breaks, else whitespace) until it fits (chunking/token_bound.py)
    token_safe: bool = False

    def code_version(self) -> str:
        """The strategy's version and the shared chunk-building step's version."""
        return f"{strategy_version(self.strategy)}.{BUILD_VERSION}"

    @property
    def chunking_hash(self) -> str:
        """Hash of what decides the chunks."""
        key = {"strategy": self.strategy, "params": self.params, "header": self.header,
               "context_fields": list(self.context_fields), "code": self.code_version()}
        if self.token_safe:  # only when set: the hashes of other chunk sets stay as they were
            key["token_safe"] = TOKEN_BOUND_VERSION
        return stable_hash(key, n=8)

    @property
    def chunks_version_name(self) -> str:
        """Names the stored chunks."""
        return f"{self.name}-{self.chunking_hash}"


def require_chunker(value: Any, where: str) -> "Chunker":
    """``value`` when it is a Chunker; a TypeError naming ``where`` otherwise (a chunk-set
    declaration hands its chunker on: ``config.chunker``)."""
    if type(value) is not Chunker:  # a declared chunk set extends it: it must hand on its .chunker
        raise TypeError(f"{where} takes a Chunker (a declared chunk set's is ChunkerConfig.chunker), "
                        f"got {type(value).__name__}")
    return value
