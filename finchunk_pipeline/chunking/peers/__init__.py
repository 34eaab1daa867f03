"""Peer chunkers: the splitters users run instead of ours (semchunk, semantic-text-splitter,
LlamaIndex, Unstructured), one module per library, as strategies of the family ``plain``.

Like LangChain's and chonkie's splitters (chunking/baselines.py) they run inside the pipeline
over the same parsed text view, so they are indexed, retrieved and scored exactly as our own
strategies are. Every chunk's span is exact: taken from the offsets the library reports and
checked against the view text, or — for a library that reports none — located by searching
the view from a cursor (``spans.py``); a chunk that cannot be located is an error naming the
document, never a guessed span.

Each library is in the optional extra ``baselines`` (``pip install -e '.[baselines]'``);
without it its strategies are listed as unavailable and ``finchunk run`` skips their chunk
sets with a note. The library's installed version joins the chunk set's hash
(registry.strategy_version), so an upgrade is a new chunk-set version.
"""
