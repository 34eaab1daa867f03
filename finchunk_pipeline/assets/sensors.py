"""Keep the chunk-set partitions equal to what the chunker config file declares and can run."""

from dataclasses import dataclass, field

from dagster import (
    DefaultSensorStatus,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from .jobs import chunk_set_job
from .partitions import chunk_set_partitions
from .resources import PipelineResource


@dataclass
class PartitionChanges:
    add: list[str] = field(default_factory=list)      # declared, runnable, not registered yet
    retire: list[str] = field(default_factory=list)   # registered, no longer declared or runnable
    skipped: dict[str, str] = field(default_factory=dict)  # declared but not runnable here: why

    def __bool__(self) -> bool:
        return bool(self.add or self.retire)


def partition_changes(pipeline: PipelineResource, instance) -> PartitionChanges:
    """What to register and retire so that the partitions are exactly the declared chunk sets
    whose strategy can run in this environment (a strategy whose optional extra is missing,
    e.g. the LangChain baseline without ``.[baselines]``, would only make failing runs)."""
    from ..chunking.registry import STRATEGIES
    from ..enrichment.client import LLMSettings

    runnable, skipped = [], {}
    llm_env = pipeline.settings().llm_env
    for config in pipeline.chunker_configs():
        strategy = STRATEGIES[config.strategy]
        if not strategy.available():
            skipped[config.name] = (f"strategy {config.strategy!r} needs the optional module "
                                    f"{strategy.requires!r}, which is not installed")
        elif config.enrich is not None and config.enrich.enricher == "llm" and not LLMSettings.configured("FINCHUNK_LLM", llm_env):
            # like a missing extra: its runs could only fail (README "Enrichment")
            skipped[config.name] = ("enrich: llm needs an OpenAI-compatible endpoint and FINCHUNK_LLM_BASE_URL "
                                    "is not set here")
        else:
            runnable.append(config.name)
    known = list(instance.get_dynamic_partitions(chunk_set_partitions.name))
    return PartitionChanges(add=[n for n in runnable if n not in known],
                            retire=[k for k in known if k not in runnable], skipped=skipped)


def apply_partition_changes(changes: PartitionChanges, instance, retire: bool = True) -> None:
    if changes.add:
        instance.add_dynamic_partitions(chunk_set_partitions.name, changes.add)
    if retire:
        for key in changes.retire:
            instance.delete_dynamic_partition(chunk_set_partitions.name, key)


@sensor(job=chunk_set_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING,
        description="Keeps one partition per chunk set declared in the chunker config file: adds new "
                    "ones, retires those no longer declared (their runs would fail), and leaves out "
                    "chunk sets whose strategy's optional extra is not installed. Backfill "
                    "chunk_set_job for a new partition to build and evaluate it.")
def chunk_set_config_sensor(context: SensorEvaluationContext, pipeline: PipelineResource):
    changes = partition_changes(pipeline, context.instance)
    for name, why in changes.skipped.items():
        context.log.warning(f"chunk set {name!r} not registered: {why}")
    if not changes:
        return SkipReason("the registered chunk sets are exactly the declared, runnable ones"
                          + (f" (not runnable here: {sorted(changes.skipped)})" if changes.skipped else ""))
    requests = []
    if changes.add:
        context.log.info(f"registering chunk sets: {changes.add}")
        requests.append(chunk_set_partitions.build_add_request(changes.add))
    if changes.retire:
        context.log.info(f"retiring chunk sets no longer declared or runnable: {changes.retire}")
        requests.append(chunk_set_partitions.build_delete_request(changes.retire))
    return SensorResult(dynamic_partitions_requests=requests)


SENSORS = [chunk_set_config_sensor]
