"""Each stage's artefact built over the stores: reuse what is stored with the same inputs, else
run the pure stage on data read from the stores and write what it returns. The Dagster assets
(and the command line, the tests, the bench) call these; the stages themselves read and write
nothing. ``chunks``: chunk sets. ``evaluation``: a chunk set's evaluation (``evaluation_report``: the
corpus's report; ``xbrl_gold``: the generated gold).
"""
