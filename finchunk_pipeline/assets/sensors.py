"""Keep the chunk-set partitions equal to what the chunker config file declares and can run."""

from dataclasses import dataclass, field

from dagster import (
    DefaultSensorStatus,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from .jobs import chunk_set_job, report_job
from .partitions import chunk_set_partitions
from .resources import PipelineResource
from .runnable import runnable_configs


RETIRED_TAG = "finchunk/retired_chunk_sets"  # on the report_job run a retirement requests


@dataclass
class PartitionChanges:
    add: list[str] = field(default_factory=list)      # declared, runnable, not registered yet
    retire: list[str] = field(default_factory=list)   # registered, no longer declared or runnable
    skipped: dict[str, str] = field(default_factory=dict)  # declared but not runnable here: why

    def __bool__(self) -> bool:
        return bool(self.add or self.retire)


def partition_changes(pipeline: PipelineResource, instance) -> PartitionChanges:
    """What to register and retire so that the partitions are exactly the declared chunk sets
    whose strategy can run in this environment (runnable.py: one whose optional extra is
    missing would only make failing runs)."""
    runnable, skipped = runnable_configs(pipeline)
    names = [c.name for c in runnable]
    known = list(instance.get_dynamic_partitions(chunk_set_partitions.name))
    return PartitionChanges(add=[n for n in names if n not in known],
                            retire=[k for k in known if k not in names], skipped=skipped)


def apply_partition_changes(changes: PartitionChanges, instance, retire: bool = True) -> None:
    if changes.add:
        instance.add_dynamic_partitions(chunk_set_partitions.name, changes.add)
    if retire:
        for key in changes.retire:
            instance.delete_dynamic_partition(chunk_set_partitions.name, key)


@sensor(jobs=[chunk_set_job, report_job], minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING,
        description="Keeps one partition per chunk set declared in the chunker config file: adds new "
                    "ones, retires those no longer declared (their runs would fail) and runs report_job "
                    "so that the report no longer lists them, and leaves out chunk sets whose strategy's "
                    "optional extra is not installed. Backfill chunk_set_job for a new partition to build "
                    "and evaluate it.")
def chunk_set_config_sensor(context: SensorEvaluationContext, pipeline: PipelineResource):
    changes = partition_changes(pipeline, context.instance)
    for name, why in changes.skipped.items():
        context.log.warning(f"chunk set {name!r} not registered: {why}")
    if not changes:
        return SkipReason("the registered chunk sets are exactly the declared, runnable ones"
                          + (f" (not runnable here: {sorted(changes.skipped)})" if changes.skipped else ""))
    requests, done = [], []
    if changes.add:
        context.log.info(f"registering chunk sets: {changes.add}")
        requests.append(chunk_set_partitions.build_add_request(changes.add))
        done.append(f"registered chunk sets {changes.add} (backfill chunk_set_job for them to build and "
                    "evaluate them)")
    if changes.retire:
        context.log.info(f"retiring chunk sets no longer declared or runnable: {changes.retire}")
        requests.append(chunk_set_partitions.build_delete_request(changes.retire))
        # the report listed them as evaluated: it is assembled again without them (runnable.py)
        return SensorResult(dynamic_partitions_requests=requests,
                            run_requests=[RunRequest(job_name=report_job.name, tags={RETIRED_TAG: ",".join(changes.retire)})])
    # the tick's record and the daemon's log say what it did (Dagster calls a tick without run
    # requests "skipped", and without a reason "Sensor function returned an empty result")
    return SensorResult(dynamic_partitions_requests=requests, skip_reason="; ".join(done))


SENSORS = [chunk_set_config_sensor]
