"""Parsing: raw document text -> versioned blocks with character offsets into the raw text
(the types: finchunk_pipeline.types.blocks; a parser per format: registry.py)."""
