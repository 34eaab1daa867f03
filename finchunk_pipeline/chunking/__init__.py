"""Chunking: parsed blocks -> chunk sets, one per chunker configuration (the Chunk type:
finchunk_pipeline.types.chunks)."""
from .config import ChunkerConfig, load_chunker_configs

__all__ = ["ChunkerConfig", "load_chunker_configs"]
