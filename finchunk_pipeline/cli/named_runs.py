"""``finchunk run``'s steps as runs of the code location's named jobs (documents_job,
chunk_set_job per partition, xbrl_job, answers_job, report_job), executed in this process with
the command's resources, and recorded as runs of the code location ``finchunk ui`` serves.

Checked against dagster 1.13.27: ``materialize`` runs an ad-hoc job named
``__ephemeral_asset_job__``, and ``execute_in_process`` (``dagster job execute`` too) records a
run without a remote origin. The UI's Overview timeline drops every run without a repository
origin (ui-core useRunsForTimeline: ``if (!run.repositoryOrigin) return``), so 24 successful
runs showed as "No runs or scheduled ticks". Here the run is created as the webserver creates
a launched one — with the job's remote origin, naming workspace.yaml's code location and the
single repository of a Definitions object — and executed by Dagster's ``execute_run_iterator``
in this process, as a run worker does.
"""
from __future__ import annotations

import os
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from ..settings import PROJECT_ROOT

WORKSPACE_FILE = PROJECT_ROOT / "workspace.yaml"


@lru_cache(maxsize=1)
def location_name() -> str:
    """The code location's name as ``dagster dev -w workspace.yaml`` shows it: the entry's
    ``location_name``, else its module name (Dagster's default)."""
    import yaml

    entry = yaml.safe_load(WORKSPACE_FILE.read_text(encoding="utf-8"))["load_from"][0]["python_module"]
    return entry.get("location_name") or entry["module_name"]


def command_definitions(resources: dict, loggers: dict | None = None):
    """The code location's Definitions (its assets, checks, jobs and executor) with this
    command's resources (--data, --out, --corpus ...) and, if given, its loggers."""
    from dagster import Definitions

    from ..definitions import defs

    return Definitions(assets=defs.assets, asset_checks=defs.asset_checks, jobs=defs.jobs, resources=resources,
                       executor=defs.executor, loggers=loggers)


def job_origin(job_name: str):
    """The remote origin of ``job_name`` in the code location: what the UI groups runs by."""
    from dagster._core.definitions.repository_definition.valid_definitions import SINGLETON_REPOSITORY_NAME
    from dagster._core.remote_origin import RegisteredCodeLocationOrigin, RemoteJobOrigin, RemoteRepositoryOrigin

    repository = RemoteRepositoryOrigin(code_location_origin=RegisteredCodeLocationOrigin(location_name()),
                                        repository_name=SINGLETON_REPOSITORY_NAME)
    return RemoteJobOrigin(repository_origin=repository, job_name=job_name)


@dataclass
class RunOutcome:
    """What ``finchunk run`` needs of a finished run."""

    run_id: str
    success: bool
    all_events: list = field(default_factory=list)


def execute_job(definitions, job_name: str, instance, *, partition_key: str | None = None,
                run_config: dict | None = None, tags: dict | None = None,
                stop_requested: Callable[[], object] | None = None) -> RunOutcome:
    """Run ``job_name`` of ``definitions`` in this process as a run of the code location's job
    (one partition of it for ``partition_key``). Failures are in the outcome, not raised.

    ``stop_requested``: whether a stop signal came that Dagster's own handler did not see (this
    process's handler took it). Checked before the run is created (then KeyboardInterrupt, no
    run) and once Dagster handles interrupts (its first event): a signal that came in between is
    sent again, so Dagster fails the run as interrupted instead of running it to the end."""
    from dagster._core.definitions.job_base import InMemoryJob
    from dagster._core.execution.api import create_execution_plan, execute_run_iterator
    from dagster._core.execution.execute_in_process import merge_run_tags

    if stop_requested is not None and stop_requested():
        raise KeyboardInterrupt
    job_def = definitions.resolve_job_def(job_name)
    run_config = run_config or {}
    # the partition's tags as execute_in_process gives them (dagster/partition, ...)
    run_tags = merge_run_tags(job_def, partition_key, tags, None, instance, run_config)
    job = InMemoryJob(job_def)
    plan = create_execution_plan(job, run_config=run_config, tags=run_tags,
                                 instance_ref=instance.get_ref() if instance.is_persistent else None)
    run = instance.create_run_for_job(job_def=job_def, execution_plan=plan, run_config=run_config, tags=run_tags,
                                      remote_job_origin=job_origin(job_name))
    events = []
    for event in execute_run_iterator(job, run, instance):
        if not events and stop_requested is not None and stop_requested():
            os.kill(os.getpid(), signal.SIGINT)  # now Dagster's handler takes it (SIGTERM maps to it)
        events.append(event)
    finished = instance.get_run_by_id(run.run_id)
    return RunOutcome(run.run_id, finished is not None and finished.is_success, events)
