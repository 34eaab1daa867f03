"""Nightly re-evaluation: documents first, then every chunk set, then the report."""

from dagster import RunRequest, ScheduleEvaluationContext, SkipReason, schedule

from .jobs import chunk_set_job, documents_job, report_job
from .partitions import chunk_set_partitions


@schedule(cron_schedule="0 1 * * *", job=documents_job, execution_timezone="UTC",
          description="Nightly: pick up new or changed documents (unchanged ones are not re-parsed).")
def nightly_documents(context: ScheduleEvaluationContext):
    return RunRequest(run_key=None)


@schedule(cron_schedule="0 2 * * *", job=chunk_set_job, execution_timezone="UTC",
          description="Nightly: re-evaluate every registered chunk set (unchanged chunks and "
                      "indexes are reused, the evaluation runs again).")
def nightly_evaluation(context: ScheduleEvaluationContext):
    keys = chunk_set_partitions.get_partition_keys(dynamic_partitions_store=context.instance)
    if not keys:
        return SkipReason("no chunk-set partitions registered yet (the config sensor adds them)")
    return [RunRequest(run_key=f"{context.scheduled_execution_time:%Y-%m-%d}-{k}", partition_key=k) for k in keys]


@schedule(cron_schedule="0 4 * * *", job=report_job, execution_timezone="UTC",
          description="Nightly: the side-by-side report after the re-evaluation.")
def nightly_report(context: ScheduleEvaluationContext):
    return RunRequest(run_key=None)


SCHEDULES = [nightly_documents, nightly_evaluation, nightly_report]
