"""The one Definitions object of the code location: assets, checks, jobs, schedules,
sensors and resources. ``dagster dev`` (see workspace.yaml) loads this module."""
from __future__ import annotations

from dagster import Definitions

from .assets.checks import ASSET_CHECKS
from .assets.chunks import chunk_sets
from .assets.documents import parsed_blocks, raw_documents
from .assets.evaluation import evaluation_report, retrieval_evaluation
from .assets.dense import DENSE_ASSETS
from .assets.indexes import bm25_index
from .assets.jobs import chunk_set_job, documents_job, report_job
from .assets.resources import PipelineResource
from .assets.schedules import SCHEDULES
from .assets.sensors import SENSORS

PIPELINE_ASSETS = [raw_documents, parsed_blocks, chunk_sets, bm25_index, retrieval_evaluation, evaluation_report] + DENSE_ASSETS


def partitioned_assets() -> list:
    """Everything built per chunk set (chunks -> indexes -> evaluation)."""
    return [a for a in PIPELINE_ASSETS if a.partitions_def is not None]


def available_retrievers() -> list[str]:
    from .index.retrievers import KNOWN

    return list(KNOWN)


def resources() -> dict:
    return {"pipeline": PipelineResource()}


defs = Definitions(
    assets=PIPELINE_ASSETS,
    asset_checks=ASSET_CHECKS,
    jobs=[documents_job, chunk_set_job, report_job],
    schedules=SCHEDULES,
    sensors=SENSORS,
    resources=resources(),
)
