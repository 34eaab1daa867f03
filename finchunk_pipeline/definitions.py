"""The one Definitions object of the code location: assets, checks, jobs, schedules,
sensors and resources. ``dagster dev`` (see workspace.yaml) loads this module."""
from __future__ import annotations

from dagster import Definitions, in_process_executor

from .assets.checks import ASSET_CHECKS
from .assets.chunks import chunk_sets
from .assets.documents import parsed_blocks, raw_documents
from .assets.answers import answers
from .assets.enrichment import chunk_enrichment
from .assets.gold import generated_gold
from .assets.evaluation import evaluation_report, retrieval_evaluation
from .assets.dense import DENSE_ASSETS
from .assets.indexes import bm25_index
from .assets.automation import automation_sensor
from .assets.jobs import answers_job, chunk_set_job, documents_job, report_job, xbrl_job
from .assets.resources import PipelineResource
from .assets.schedules import SCHEDULES
from .assets.point_in_time import point_in_time_evaluation
from .assets.sensors import SENSORS
from .assets.xbrl import XBRL_ASSETS, XBRL_CHECKS, facts_store_resource

PIPELINE_ASSETS = [raw_documents, parsed_blocks, generated_gold, chunk_sets, chunk_enrichment, bm25_index, *DENSE_ASSETS,
                   retrieval_evaluation, evaluation_report, answers, *XBRL_ASSETS, point_in_time_evaluation]
ALL_CHECKS = [*ASSET_CHECKS, *XBRL_CHECKS]


def partitioned_assets() -> list:
    """Everything built per chunk set (chunks -> indexes -> evaluation)."""
    return [a for a in PIPELINE_ASSETS if a.partitions_def is not None]


def xbrl_assets() -> list:
    """The parallel XBRL branch: facts into DuckDB, derived quarters, point-in-time answers."""
    return [*XBRL_ASSETS, point_in_time_evaluation]


def resources(pipeline: PipelineResource | None = None) -> dict:
    """The resources of one pipeline instance (default: the environment's); the facts store
    follows its data root, corpus and remote data root. The one place resources are built."""
    pipeline = pipeline or PipelineResource()
    return {"pipeline": pipeline, "facts_store": facts_store_resource(pipeline.settings(), **pipeline.remote())}


defs = Definitions(
    assets=PIPELINE_ASSETS,
    asset_checks=ALL_CHECKS,
    jobs=[documents_job, chunk_set_job, xbrl_job, report_job, answers_job],
    schedules=SCHEDULES,
    sensors=[*SENSORS, automation_sensor()],
    resources=resources(),
    # A run's steps run in its own process, one after the other: a chunk set's steps are a
    # chain (chunks -> indexes -> evaluation), and a process per step would import Dagster,
    # torch and the project again (~5 s each). Parallelism is across runs: one run per chunk
    # set (finchunk run --jobs N, a backfill under max_concurrent_runs, K8sRunLauncher);
    # deploy/k8s/definitions.py puts each step in its own pod instead.
    executor=in_process_executor,
)
