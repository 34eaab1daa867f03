"""Process control for the long-running commands: ``finchunk run`` stops on SIGINT/SIGTERM
and marks its run, runs a killed process left STARTED are marked failed on the next start.

Notes checked against dagster 1.13.28 (dagster/_utils/interrupts.py, _cli/dev.py):
- ``materialize`` replaces the SIGINT handler while it runs (``capture_interrupts``) and
  maps SIGTERM to it; a signal during a step fails the step as interrupted and the run as
  failed, and ``materialize(raise_on_error=False)`` then *returns*. So ``finchunk run``
  learns about a signal through ``signal.set_wakeup_fd`` (written for every signal whose
  handler is a Python one, dagster's included), not through its own handler alone.
"""
from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PID_TAG, HOST_TAG, START_TAG = "finchunk/pid", "finchunk/host", "finchunk/pid_start"


# --- which process owns a run -----------------------------------------------------------------
def process_start(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/<pid>/stat field 22), which
    tells a reused pid apart; None where /proc is not available."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def process_alive(pid: int, start: str | None = None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process with that pid: not ours to judge
    if start:
        now = process_start(pid)
        return now is None or now == start
    return True


def run_tags() -> dict[str, str]:
    """Tags naming this process on the runs it executes in-process."""
    tags = {PID_TAG: str(os.getpid()), HOST_TAG: socket.gethostname()}
    start = process_start(os.getpid())
    if start:
        tags[START_TAG] = start
    return tags


def reap_orphaned_runs(instance, only_pid: int | None = None) -> list[str]:
    """Mark failed the runs a finchunk process on this host left unfinished (NOT_STARTED,
    STARTING, STARTED) and that no living process runs any more: it was killed (SIGKILL,
    power loss) before it could mark them. ``only_pid``: this process's own runs (after an
    interruption), whether or not it is alive. Returns the run ids marked."""
    from dagster import DagsterRunStatus, RunsFilter

    unfinished = [DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING, DagsterRunStatus.STARTED]
    runs = instance.get_runs(filters=RunsFilter(statuses=unfinished, tags={HOST_TAG: socket.gethostname()}))
    marked = []
    for run in runs:
        try:
            pid = int(run.tags.get(PID_TAG, ""))
        except ValueError:
            continue
        if only_pid is not None:
            if pid != only_pid:
                continue
            why = "finchunk run was interrupted by a signal before this run finished"
        elif process_alive(pid, run.tags.get(START_TAG)):
            continue
        else:
            why = (f"the finchunk process that ran it (pid {pid}) ended without finishing it "
                   "(killed?); marked failed on the next start")
        instance.report_run_failed(run, message=why)
        marked.append(run.run_id)
    return marked


# --- finchunk run: notice a signal even while Dagster handles it -------------------------------
class SignalWatch:
    """While active: SIGINT/SIGTERM/SIGHUP raise KeyboardInterrupt once (later ones are only
    recorded, so cleanup finishes), and every signal is recorded through a wakeup fd, also
    those Dagster's own handlers take during ``materialize``."""

    def __init__(self):
        self.signum: int | None = None
        self._raised = False

    def __enter__(self) -> "SignalWatch":
        self._r, self._w = os.pipe()
        os.set_blocking(self._r, False)
        os.set_blocking(self._w, False)
        self._old = {s: signal.signal(s, self._handler) for s in STOP_SIGNALS}
        self._old_fd = signal.set_wakeup_fd(self._w, warn_on_full_buffer=False)
        return self

    def _handler(self, signum, frame):
        self.signum = self.signum or signum
        if not self._raised:
            self._raised = True
            raise KeyboardInterrupt

    def received(self) -> int | None:
        """The first stop signal received so far (by any handler), or None."""
        try:
            data = os.read(self._r, 1024)
        except BlockingIOError:
            data = b""
        for b in data:
            if b in STOP_SIGNALS and self.signum is None:
                self.signum = b
        return self.signum

    def __exit__(self, *exc) -> None:
        signal.set_wakeup_fd(self._old_fd)
        for s, h in self._old.items():
            signal.signal(s, h)
        os.close(self._r)
        os.close(self._w)


def signal_name(signum: int | None) -> str:
    try:
        return signal.Signals(signum).name
    except (TypeError, ValueError):
        return "a signal"
