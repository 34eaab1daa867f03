"""Each stage's artefact built over the stores: reuse what is stored with the same inputs, else
run the pure stage on data read from the stores and write what it returns. The Dagster assets
(and the command line, the tests, the bench) call these; the stages themselves read and write
nothing.
``chunks``: chunk sets.
``blocks``: a corpus's parsed blocks (the parse stage over the raw and block stores).
``enrichment``: a chunk set's enriched set (over the chunk, block and enrichment stores).
``indexes``: a chunk set's indexes (and ``search``: a searcher opened over the stored ones).
``evaluation``: a chunk set's evaluation (``evaluation_report``: the corpus's report;
``xbrl_gold``: the generated gold).
"""
