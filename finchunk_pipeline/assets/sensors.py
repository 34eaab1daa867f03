"""Register chunker configurations from the config file as chunk-set partitions."""

from dagster import DefaultSensorStatus, SensorEvaluationContext, SensorResult, SkipReason, sensor

from .jobs import chunk_set_job
from .partitions import chunk_set_partitions
from .resources import PipelineResource


def new_chunk_set_names(pipeline: PipelineResource, instance) -> list[str]:
    declared = [c.name for c in pipeline.chunker_configs()]
    known = set(instance.get_dynamic_partitions(chunk_set_partitions.name))
    return [n for n in declared if n not in known]


@sensor(job=chunk_set_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING,
        description="Adds a partition for every chunk set declared in the chunker config file. "
                    "Backfill chunk_set_job for the new partition to build and evaluate it.")
def chunk_set_config_sensor(context: SensorEvaluationContext, pipeline: PipelineResource):
    new = new_chunk_set_names(pipeline, context.instance)
    if not new:
        return SkipReason("every declared chunk set is registered")
    context.log.info(f"registering chunk sets: {new}")
    return SensorResult(dynamic_partitions_requests=[chunk_set_partitions.build_add_request(new)])


SENSORS = [chunk_set_config_sensor]
