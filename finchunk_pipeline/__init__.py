"""finchunk_pipeline: parse, chunk, index and evaluate financial documents.

The core packages (corpus, fetch, parse, chunking, index, evaluation, xbrl) are plain
Python; ``finchunk_pipeline.assets`` and ``finchunk_pipeline.definitions`` are the thin
Dagster shell over them.
"""

__version__ = "0.1.0"
