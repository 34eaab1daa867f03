"""Persistence, in one place: how things are written (``files``: atomic writes, hashes,
JSON/Parquet), the stores of each stage's output (``raw``: fetched documents by content hash;
``blocks``: parsed blocks per parser version; ``chunks``: chunk sets per version;
``enrichments``; ``text_cache``: LLM/structural outputs by text; ``shards``: append-only
Parquet shards, the embedding cache's too), where each lives under the data root
(``workspace``), whether a stored thing is whole and current (``artefacts``: markers,
verification, reuse), who builds a shared thing (``claims``) and the remote mirror of the
data root (``remote``). The stages hand it typed data; nothing here imports a stage."""
