"""Chunking: parsed blocks -> chunks, for one Chunker (chunker.py: a strategy and its
options). The chunk sets users declare live above the stages (finchunk_pipeline.chunk_sets);
the Chunk type in finchunk_pipeline.types.chunks."""
from .chunker import Chunker

__all__ = ["Chunker"]
