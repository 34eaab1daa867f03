"""Automation defaults: nightly schedules (documents, evaluation, XBRL, report) and the
automation sensor run when the daemon runs; FINCHUNK_AUTOMATION=off stops them all; the
XBRL branch has its own job."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone

from dagster import AssetKey, DagsterInstance, DefaultScheduleStatus, DefaultSensorStatus, RunRequest, \
    build_schedule_context

from finchunk_pipeline.assets.automation import schedule_status, sensor_status
from finchunk_pipeline.definitions import defs
from finchunk_pipeline import PROJECT_ROOT

REPO = defs.get_repository_def()


def test_nightly_schedules_and_sensors_run_by_default():
    schedules = {s.name: s for s in REPO.schedule_defs}
    assert set(schedules) == {"nightly_documents", "nightly_evaluation", "nightly_xbrl", "nightly_report"}
    assert all(s.default_status == DefaultScheduleStatus.RUNNING for s in schedules.values())
    # documents, then chunk sets, then facts, then the report
    assert [schedules[n].cron_schedule for n in ("nightly_documents", "nightly_evaluation", "nightly_xbrl",
                                                 "nightly_report")] == ["0 1 * * *", "0 2 * * *", "0 3 * * *",
                                                                        "0 4 * * *"]
    sensors = {s.name: s for s in REPO.sensor_defs}
    assert sensors["automation_condition_sensor"].default_status == DefaultSensorStatus.RUNNING
    assert sensors["chunk_set_config_sensor"].default_status == DefaultSensorStatus.RUNNING
    assert "default_automation_condition_sensor" not in sensors  # Dagster's STOPPED one is not needed


def test_automation_sensor_covers_the_eager_report():
    sensor = {s.name: s for s in REPO.sensor_defs}["automation_condition_sensor"]
    keys = sensor.asset_selection.resolve(REPO.asset_graph)
    assert AssetKey("evaluation_report") in keys


def test_xbrl_branch_has_a_job_and_a_nightly_schedule(tmp_path):
    job = REPO.get_job("xbrl_job")
    assert job.asset_layer.selected_asset_keys == {AssetKey("xbrl_facts"), AssetKey("xbrl_quarterly"),
                                                   AssetKey("point_in_time_evaluation")}
    schedule = {s.name: s for s in REPO.schedule_defs}["nightly_xbrl"]
    assert schedule.job_name == "xbrl_job"
    ctx = build_schedule_context(instance=DagsterInstance.ephemeral(),
                                 scheduled_execution_time=datetime(2026, 1, 2, 3, tzinfo=timezone.utc))
    assert isinstance(schedule.evaluate_tick(ctx).run_requests[0], RunRequest)


def test_finchunk_automation_off_stops_every_default(monkeypatch):
    monkeypatch.setenv("FINCHUNK_AUTOMATION", "off")
    assert schedule_status() == DefaultScheduleStatus.STOPPED and sensor_status() == DefaultSensorStatus.STOPPED
    code = ("import json; from finchunk_pipeline.definitions import defs; r = defs.get_repository_def(); "
            "print(json.dumps({s.name: s.default_status.value for s in [*r.schedule_defs, *r.sensor_defs]}))")
    env = {**os.environ, "FINCHUNK_AUTOMATION": "off", "PYTHONPATH": str(PROJECT_ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    status = json.loads(out.strip().splitlines()[-1])
    assert {k: v for k, v in status.items() if k != "chunk_set_config_sensor"} == {
        "nightly_documents": "STOPPED", "nightly_evaluation": "STOPPED", "nightly_xbrl": "STOPPED",
        "nightly_report": "STOPPED", "automation_condition_sensor": "STOPPED"}
