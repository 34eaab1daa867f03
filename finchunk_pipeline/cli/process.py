"""Process control for the long-running commands: ``finchunk run`` stops on SIGINT/SIGTERM
and marks its run, runs a killed process left STARTED are marked failed on the next start,
and ``finchunk ui`` supervises ``dagster dev`` so a signal stops it with all its children.

Notes checked against dagster 1.13.28 and 1.13.27 (dagster/_utils/interrupts.py, _cli/dev.py):
- ``materialize`` replaces the SIGINT handler while it runs (``capture_interrupts``) and
  maps SIGTERM to it; a signal during a step fails the step as interrupted and the run as
  failed, and ``materialize(raise_on_error=False)`` then *returns*. So ``finchunk run``
  learns about a signal through ``signal.set_wakeup_fd`` (written for every signal whose
  handler is a Python one, dagster's included), not through its own handler alone.
- ``dagster dev`` maps SIGTERM to its SIGINT handler. Started from a shell without job
  control (``finchunk ui &`` in a script), SIGINT is ignored, so SIGTERM was ignored too.
  A process started by ``supervise`` gets default dispositions (the supervisor handles both
  signals in Python, and those are reset at exec), runs in its own process group, and is
  stopped with SIGTERM, then its whole group killed after a grace period.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PID_TAG, HOST_TAG, START_TAG = "finchunk/pid", "finchunk/host", "finchunk/pid_start"


# --- which process owns a run -----------------------------------------------------------------
def _stat_fields(pid: int) -> list[str] | None:
    """/proc/<pid>/stat after the command name (field 3 on: state, ppid, ...); None where /proc
    is not available or the process is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()


def process_start(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/<pid>/stat field 22), which
    tells a reused pid apart; None where /proc is not available."""
    fields = _stat_fields(pid)
    return None if fields is None else fields[19]


def process_alive(pid: int, start: str | None = None) -> bool:
    """Whether the process runs: it exists, is not a zombie (ended, its parent not yet told),
    and, given ``start``, started then (a reused pid is another process)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process with that pid: not ours to judge
    fields = _stat_fields(pid)
    if fields is not None and fields[0] in ("Z", "X"):
        return False
    if start and fields is not None:
        return fields[19] == start
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
    those Dagster's own handlers take during ``materialize``. Inside ``deferred()`` a signal is
    recorded and raised when the block ends, for code that must not be cut half-way."""

    def __init__(self):
        self.signum: int | None = None
        self._raised = False
        self._deferring = 0
        self._pending = False

    @contextmanager
    def deferred(self):
        """Hold back the KeyboardInterrupt of a stop signal until the block ends. For steps that
        a signal must not split, e.g. a process pool's ``submit``: between a worker's start and
        the pool registering it, an interrupt leaves a worker the pool never stops or joins."""
        self._deferring += 1
        try:
            yield self
        finally:
            self._deferring -= 1
        if not self._deferring and self._pending:
            self._pending = False
            self._raised = True
            raise KeyboardInterrupt

    def __enter__(self) -> "SignalWatch":
        self._r, self._w = os.pipe()
        os.set_blocking(self._r, False)
        os.set_blocking(self._w, False)
        self._old = {s: signal.signal(s, self._handler) for s in STOP_SIGNALS}
        self._old_fd = signal.set_wakeup_fd(self._w, warn_on_full_buffer=False)
        return self

    def _handler(self, signum, frame):
        self.signum = self.signum or signum
        if self._raised:
            return
        if self._deferring:
            self._pending = True
            return
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


class WorkerSignals(SignalWatch):
    """A process pool worker's stop signals (``finchunk run --jobs``). Inside a Dagster run,
    Dagster's handler takes the signal and fails the run as interrupted; the run returns and
    the pool hands the worker its next queued task. So every signal is recorded (the wakeup fd
    sees Dagster's too), and ``task()`` refuses to start once one came: a stopped command's
    workers start nothing new. Between tasks a signal ends the worker (SystemExit: no traceback);
    inside a task but outside the run it is only recorded — the task passes ``received`` to
    named_runs.execute_job, which hands it to Dagster once Dagster handles interrupts."""

    def __init__(self):
        super().__init__()
        self.busy = False

    def _handler(self, signum, frame):
        self.signum = self.signum or signum
        if not self.busy:
            sys.exit(128 + signum)

    @contextmanager
    def task(self):
        if self.received():
            raise StopRequested(f"not started: this worker received {signal_name(self.signum)}")
        self.busy = True
        try:
            yield self
        finally:
            self.busy = False


class StopRequested(RuntimeError):
    """A task a pool worker refused because the command is stopping."""


_worker_signals: WorkerSignals | None = None


def watch_worker_signals() -> None:
    """A process pool's initializer: this worker's stop signals go through WorkerSignals."""
    global _worker_signals
    _worker_signals = WorkerSignals().__enter__()


def worker_task():
    """The context a pool worker runs each task in (``watch_worker_signals`` installed it)."""
    if _worker_signals is None:
        raise RuntimeError("watch_worker_signals() was not run in this process (the pool's initializer)")
    return _worker_signals.task()


def signal_name(signum: int | None) -> str:
    try:
        return signal.Signals(signum).name
    except (TypeError, ValueError):
        return "a signal"


# --- finchunk run on a terminal: the runs out of the terminal's reach --------------------------
def terminal_foreground() -> bool:
    """Whether this process is in the foreground process group of a terminal it writes to or
    reads from: a Ctrl-C there signals every process of the group, Dagster's helpers included
    (each step's compute-log ``tail`` and ``watch_orphans.py``, which print a KeyboardInterrupt
    traceback each)."""
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
                return True
        except OSError:  # a terminal that is not this process's controlling terminal
            continue
    return False


def relay(cmd: list[str]) -> int:
    """Run ``cmd`` in a session of its own and pass it what the terminal sends this process:
    SIGINT, SIGTERM, SIGHUP go to it alone (it stops as on a SIGTERM, its helpers quietly);
    Ctrl-Z stops it with this process and fg / bg resume it. It gets SIGTERM if this process
    dies (die_with_parent). Returns its exit code, 128 + the signal that ended it."""
    received: list[int] = []
    child: subprocess.Popen | None = None

    def stop(signum, frame):
        received.append(signum)

    def suspend(signum, frame):  # Ctrl-Z: the child's group stops, then this process
        if child is not None and child.poll() is None:
            os.killpg(child.pid, signal.SIGSTOP)
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTSTP)
        # resumed (fg / bg)
        signal.signal(signal.SIGTSTP, suspend)
        if child is not None and child.poll() is None:
            os.killpg(child.pid, signal.SIGCONT)

    old = {s: signal.signal(s, stop) for s in STOP_SIGNALS}
    old[signal.SIGTSTP] = signal.signal(signal.SIGTSTP, suspend)
    try:
        child = subprocess.Popen(cmd, start_new_session=True, preexec_fn=die_with_parent())
        forwarded = 0
        while child.poll() is None:
            while forwarded < len(received):
                child.send_signal(received[forwarded])
                forwarded += 1
            try:
                child.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
        return child.returncode if child.returncode >= 0 else 128 - child.returncode
    finally:
        for s, h in old.items():
            signal.signal(s, h)


# --- finchunk ui: a supervised child process group --------------------------------------------
def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_group(pgid: int, grace: float) -> bool:
    """SIGTERM the process group, SIGKILL what is left after ``grace`` seconds. True when
    it ended within the grace period."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return True
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not _group_alive(pgid):
            return True
        time.sleep(0.1)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return False


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(sig: int = signal.SIGTERM):
    """A ``preexec_fn``: the child gets ``sig`` when this process ends, however it ends (SIGKILL
    too), through Linux's PR_SET_PDEATHSIG; elsewhere, nothing. Given SIGTERM, dagster dev
    stops its webserver, daemon and code servers as on Ctrl-C. A parent that died between the
    fork and the prctl call is noticed by its pid (then the signal is sent at once)."""
    parent = os.getpid()
    prctl = None
    if sys.platform.startswith("linux"):
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up here: nothing imported after fork

    def preexec() -> None:
        if prctl is None or prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
            return  # not fatal: the supervisor still stops it on a signal it can catch
        if os.getppid() != parent:
            os.kill(os.getpid(), sig)

    return preexec


def supervise(cmd: list[str], cwd: str | os.PathLike | None = None, grace: float = 30.0,
              name: str | None = None) -> int:
    """Run ``cmd`` in its own process group until it exits or this process gets SIGINT,
    SIGTERM or SIGHUP; then SIGTERM it (dagster dev shuts its webserver, daemon and code
    servers down), wait up to ``grace`` seconds, and kill whatever is left of its group.
    Returns its exit code, or 0 after a clean stop on request (1 when it had to be killed)."""
    name = name or Path(cmd[0]).name
    received: list[int] = []

    def handler(signum, frame):
        received.append(signum)

    old = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        # Python handlers are reset to the default at exec: the child starts with SIGINT and
        # SIGTERM at their defaults even when this process was started with SIGINT ignored
        # and it gets SIGTERM when this process dies, also of SIGKILL (no orphaned webserver)
        child = subprocess.Popen(cmd, cwd=cwd, start_new_session=True, preexec_fn=die_with_parent())
        while child.poll() is None and not received:
            try:
                child.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
        if child.poll() is None:
            print(f"{signal_name(received[0])} received: stopping {name} and its processes "
                  f"(up to {grace:.0f}s) ...", file=sys.stderr, flush=True)
            child.send_signal(signal.SIGTERM)
            try:
                child.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        clean = child.poll() is not None
        # whatever is left of the group (its webserver, daemon, code servers): stopped too
        clean = stop_group(child.pid, grace if clean else 2.0) and clean
        if child.poll() is None:
            child.wait()
        if received:
            print(f"{name} stopped" + ("" if clean else " (killed: it did not stop in time)"),
                  file=sys.stderr, flush=True)
            return 0 if clean else 1
        return child.returncode
    finally:
        for s, h in old.items():
            signal.signal(s, h)
