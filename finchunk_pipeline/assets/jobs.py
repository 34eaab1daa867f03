"""Asset jobs: documents (unpartitioned), one chunk set end to end (partitioned), the XBRL
branch, the report."""
from dagster import AssetSelection, define_asset_job

from .answers import answers
from .chunks import chunk_sets
from .documents import parsed_blocks, raw_documents
from .enrichment import chunk_enrichment
from .gold import generated_gold
from .evaluation import evaluation_report, retrieval_evaluation
from .indexes import bm25_index
from .point_in_time import point_in_time_evaluation
from .xbrl import XBRL_ASSETS

documents_job = define_asset_job(
    "documents_job", selection=AssetSelection.assets(raw_documents, parsed_blocks, generated_gold),
    description="Ingest the corpus into the raw store, parse what is new, and generate questions from the "
                "filings' inline-XBRL facts.",
)
chunk_set_job = define_asset_job(
    "chunk_set_job",
    selection=AssetSelection.assets(chunk_sets, chunk_enrichment, bm25_index, retrieval_evaluation)
    | AssetSelection.groups("dense_indexing"),
    description="One chunk set end to end: chunks -> enrichment -> indexes -> evaluation. Backfill it for new "
                "chunker configurations or enrichers; parsed blocks are read, never rebuilt, and a new "
                "enricher reuses the stored chunks.",
)
xbrl_job = define_asset_job(
    "xbrl_job", selection=AssetSelection.assets(*XBRL_ASSETS, point_in_time_evaluation),
    description="The XBRL branch: facts into DuckDB (append-only), derived quarters, point-in-time "
                "answers, with their checks.",
)
report_job = define_asset_job(
    "report_job", selection=AssetSelection.assets(evaluation_report),
    description="Assemble the side-by-side evaluation report.",
)
answers_job = define_asset_job(
    "answers_job", selection=AssetSelection.assets(answers),
    description="Answers side by side: each chunk set's context for a sample of questions at the same "
                "budget, and a model's answers when FINCHUNK_ANSWER_BASE_URL is set. Then run report_job.",
)
