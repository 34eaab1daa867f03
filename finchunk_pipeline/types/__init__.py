"""The data types every stage passes on, below every stage: ``blocks`` (Block, BlockKind,
TaggedFact, ParsedDocument: what parsing produces), ``offsets`` (OffsetMap: the parser's
text view mapped back to the raw document) and ``chunks`` (Chunk: what chunking produces).
No stage imports another stage for them."""
