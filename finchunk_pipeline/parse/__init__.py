"""Parsing: raw document text -> versioned blocks with character offsets into the raw text."""
from .model import Block, BlockKind, ParsedDocument
from .offsets import OffsetMap

__all__ = ["Block", "BlockKind", "ParsedDocument", "OffsetMap"]
