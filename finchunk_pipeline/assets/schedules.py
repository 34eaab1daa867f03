"""Nightly re-evaluation: documents first, then every chunk set, the XBRL facts, then the
report. RUNNING by default whenever the daemon runs (see automation.py to turn them off)."""

from dagster import RunRequest, ScheduleEvaluationContext, SkipReason, schedule

from .automation import schedule_status
from .jobs import chunk_set_job, documents_job, report_job, xbrl_job
from .partitions import chunk_set_partitions


@schedule(cron_schedule="0 1 * * *", job=documents_job, execution_timezone="UTC", default_status=schedule_status(),
          description="Nightly: pick up new or changed documents (unchanged ones are not re-parsed).")
def nightly_documents(context: ScheduleEvaluationContext):
    return RunRequest(run_key=None)


@schedule(cron_schedule="0 2 * * *", job=chunk_set_job, execution_timezone="UTC", default_status=schedule_status(),
          description="Nightly: re-evaluate every registered chunk set (unchanged chunks and "
                      "indexes are reused, the evaluation runs again).")
def nightly_evaluation(context: ScheduleEvaluationContext):
    keys = chunk_set_partitions.get_partition_keys(dynamic_partitions_store=context.instance)
    if not keys:
        return SkipReason("no chunk-set partitions registered yet (the config sensor adds them)")
    return [RunRequest(run_key=f"{context.scheduled_execution_time:%Y-%m-%d}-{k}", partition_key=k) for k in keys]


@schedule(cron_schedule="0 4 * * *", job=report_job, execution_timezone="UTC", default_status=schedule_status(),
          description="Nightly: the side-by-side report after the re-evaluation.")
def nightly_report(context: ScheduleEvaluationContext):
    return RunRequest(run_key=None)


@schedule(cron_schedule="0 3 * * *", job=xbrl_job, execution_timezone="UTC", default_status=schedule_status(),
          description="Nightly: reload the XBRL facts (append-only, deduplicated), derived quarters and the "
                      "point-in-time answers, before the report.")
def nightly_xbrl(context: ScheduleEvaluationContext):
    return RunRequest(run_key=None)


SCHEDULES = [nightly_documents, nightly_evaluation, nightly_xbrl, nightly_report]
