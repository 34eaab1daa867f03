"""What ``finchunk run`` prints of Dagster's own logs: its console logger, less the events of
an interruption. A stop signal fails the step and the run in progress with
``DagsterExecutionInterruptedError``, and the console logger printed both with their stack
traces (per worker with --jobs); the command says it in one line ("interrupted by SIGINT:
stopped; ..."), and the runs keep the full events (the UI shows them)."""
from __future__ import annotations

import logging

from dagster import Field, logger

INTERRUPTIONS = frozenset({"DagsterExecutionInterruptedError", "KeyboardInterrupt"})


def is_interruption(record: logging.LogRecord) -> bool:
    """Whether a Dagster log record reports a step or run failed by an interrupt."""
    meta = getattr(record, "dagster_meta", None) or {}
    event = meta.get("dagster_event") if isinstance(meta, dict) else None
    error = getattr(getattr(event, "event_specific_data", None), "error", None)
    return error is not None and getattr(error, "cls_name", None) in INTERRUPTIONS


@logger(
    {"log_level": Field(str, is_required=False, default_value="INFO"),
     "name": Field(str, is_required=False, default_value="dagster")},
    description="Dagster's colored console logger, without the failures an interrupt causes "
                "(the command reports the stop in one line).",
)
def console_without_interruptions(init_context) -> logging.Logger:
    from dagster._utils.log import create_console_logger

    config = init_context.logger_config
    log = create_console_logger(name=config["name"], level=config["log_level"].upper())
    log.addFilter(lambda record: not is_interruption(record))
    return log


def quiet_loggers() -> dict:
    """``loggers`` for the command's Definitions: this logger in place of Dagster's console one
    (run config ``loggers: console:`` configures it as before)."""
    return {"console": console_without_interruptions}
