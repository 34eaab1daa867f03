"""Chunking: parsed blocks -> chunk sets, one per chunker configuration."""
from .config import ChunkerConfig, load_chunker_configs
from .model import Chunk

__all__ = ["Chunk", "ChunkerConfig", "load_chunker_configs"]
