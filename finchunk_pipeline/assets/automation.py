"""Automation defaults: what runs by itself when the Dagster daemon runs (``finchunk ui``
starts it; so does ``dagster dev`` or a deployed ``dagster-daemon``).

By default the nightly schedules and the automation sensor are RUNNING: nightly
re-evaluation is the point of the pipeline, so it happens without a user finding the
toggles. Turn them off
- one by one, in the UI (Automation -> the schedule or sensor -> toggle) or with
  ``dagster schedule stop NAME`` / ``dagster sensor stop NAME`` (``-w workspace.yaml``,
  same DAGSTER_HOME): the instance remembers the choice, whatever the default;
- all at once, with ``FINCHUNK_AUTOMATION=off`` in the environment of the code location
  (``finchunk ui``, ``dagster dev``): every default becomes STOPPED (a state toggled in the
  UI still wins).
"""
from __future__ import annotations

from dagster import (
    AssetSelection,
    AutomationConditionSensorDefinition,
    DefaultScheduleStatus,
    DefaultSensorStatus,
)

from ..settings import Settings

AUTOMATION_ENV = "FINCHUNK_AUTOMATION"


def automation_on() -> bool:
    value = Settings().automation.strip().lower()
    if value not in ("on", "off", "1", "0", "true", "false", ""):
        raise ValueError(f"{AUTOMATION_ENV}={value!r}: expected on or off")
    return value in ("on", "1", "true", "")


def schedule_status() -> DefaultScheduleStatus:
    return DefaultScheduleStatus.RUNNING if automation_on() else DefaultScheduleStatus.STOPPED


def sensor_status() -> DefaultSensorStatus:
    return DefaultSensorStatus.RUNNING if automation_on() else DefaultSensorStatus.STOPPED


def automation_sensor() -> AutomationConditionSensorDefinition:
    """Evaluates the assets' automation conditions (evaluation_report is eager: it follows
    new evaluations and point-in-time answers). Dagster's own default sensor for this is
    STOPPED until toggled; this one follows the defaults above."""
    return AutomationConditionSensorDefinition(
        "automation_condition_sensor", target=AssetSelection.all(), default_status=sensor_status(),
        minimum_interval_seconds=60,
        description="Materializes assets whose automation condition asks for it (evaluation_report: "
                    "eager, after new evaluations). RUNNING by default; FINCHUNK_AUTOMATION=off stops it.")
