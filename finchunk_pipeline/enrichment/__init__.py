"""Enrichment: a short context written for each chunk and indexed beside it.

An enrichment never replaces or edits a chunk: the chunk's ``source_text`` and ``spans`` stay
the evidence, the enrichment is a separate text (a second *representation* of the chunk) that
retrieval may search. Each record names what produced it (``enricher``, ``enricher_version``:
the enricher's code/prompt version, model and parameters) and carries the chunk's spans, so
retrieval through the enrichment is scored by the chunk's source spans like everything else.

- ``model``: the enricher declaration of a chunk set (``enrich:`` in chunkers.yaml), its
  version id, the chunk hash the cache is keyed by, the Parquet schema;
- ``structural``: the offline default, deterministic, from the parsed blocks;
- ``llm``: an OpenAI-compatible chat endpoint (off unless declared; URL, model and key
  from the environment), through ``client.ChatClient``;
- ``enriched_set``: the enriched set of one chunk set from its chunks, each enrichment looked
  up first in a cache by (enricher version, chunk hash) shared by chunk sets and corpora
  (storage/text_cache.py; the build over the stores: builders/enrichment.py).
"""
