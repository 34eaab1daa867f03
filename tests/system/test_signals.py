"""Stopping: SIGTERM / SIGINT end `finchunk run` (the run in progress marked failed, nothing
after it started, exit 128 + signal); runs a killed process left unfinished are marked failed
on the next start; a supervised `dagster dev` (finchunk ui) stops with all its children,
even when started with SIGINT ignored as in a background job. Subprocesses and real signals;
no timing assertions (generous polling timeouts only)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from dagster import DagsterEventType, DagsterInstance, DagsterRun, DagsterRunStatus

from finchunk_pipeline import Strategy
from finchunk_pipeline.cli.process import (HOST_TAG, PID_TAG, START_TAG, process_alive, process_start,
                                           reap_orphaned_runs, run_tags)
from finchunk_pipeline import PROJECT_ROOT

TIMEOUT = 120  # generous: the machine is shared


def _env(tmp_path) -> dict:
    env = dict(os.environ)
    env.update(DAGSTER_HOME=str(tmp_path / "dagster_home"), PYTHONPATH=str(PROJECT_ROOT),
               FINCHUNK_PROGRESS="0", PYTHONUNBUFFERED="1")
    return env


def _wait_for(predicate, what: str, timeout: float = TIMEOUT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class Lines:
    """Collects a pipe's lines in a thread."""

    def __init__(self, pipe):
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe):
        for line in iter(pipe.readline, ""):
            self.lines.append(line)

    def text(self) -> str:
        return "".join(self.lines)


def _start_run(tmp_path, corpus, chunkers, *extra: str):
    cmd = [sys.executable, "-c", "import sys; from finchunk_pipeline.cli import main; sys.exit(main())",
           "run", "--corpus", str(corpus),
           "--out", str(tmp_path / "out"), "--data", str(tmp_path / "store"), "--chunkers", str(chunkers),
           "--retrievers", "bm25", *extra]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    return proc, Lines(proc.stdout), Lines(proc.stderr)


def _instance(tmp_path) -> DagsterInstance:
    """The persistent instance finchunk run used (DAGSTER_HOME)."""
    return DagsterInstance.from_config(str(tmp_path / "dagster_home"))


def _runs(tmp_path) -> list[DagsterRun]:
    if not (tmp_path / "dagster_home" / "dagster.yaml").exists():
        return []
    with _instance(tmp_path) as inst:
        return list(inst.get_runs())


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_finchunk_run_and_marks_its_run(tmp_path, default_corpus_copy, chunkers_file, sig):
    proc, out, err = _start_run(tmp_path, default_corpus_copy, chunkers_file)
    try:
        # the first chunk set's run has started (documents are done): signal it now
        _wait_for(lambda: "chunk set 1/3" in out.text() or proc.poll() is not None, "the first chunk set")
        assert proc.poll() is None, out.text() + err.text()
        proc.send_signal(sig)
        proc.wait(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    out.thread.join(5)
    err.thread.join(5)
    assert proc.returncode == 128 + sig, (proc.returncode, out.text(), err.text())
    assert f"interrupted by {signal.Signals(sig).name}" in err.text()
    assert "evaluation_report" not in out.text() and "chunk set 3/3" not in out.text()  # nothing after it started
    # whether the signal landed inside a run or between two, no run is left unfinished
    runs = _runs(tmp_path)
    assert runs and all(r.status in (DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE) for r in runs), \
        [(r.run_id[:8], r.status) for r in runs]
    assert all(r.tags.get(PID_TAG) == str(proc.pid) for r in runs)


class SignalsItself(Strategy):
    """A strategy that sends this process a signal while chunking: the signal lands inside a
    Dagster step, deterministically."""

    name = "signals_itself"

    def __init__(self, sig):
        self.sig = sig

    def pieces(self, doc, params, meta, context=None):
        os.kill(os.getpid(), self.sig)
        time.sleep(5)  # the signal interrupts this
        return []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_inside_a_step_fails_that_run_and_stops(tmp_path, default_corpus_copy, chunkers_file, monkeypatch,
                                                       capsys, sig):
    from finchunk_pipeline import STRATEGIES
    from finchunk_pipeline.cli import main

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    monkeypatch.setitem(STRATEGIES, "signals_itself", SignalsItself(sig))
    chunkers_file.write_text(chunkers_file.read_text().replace(
        "chunk_sets:\n", "chunk_sets:\n  - {name: stop-here, strategy: signals_itself, dense: false}\n"))
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    rc = main(["run", "--corpus", str(default_corpus_copy), "--out", str(tmp_path / "out"), "--data",
               str(tmp_path / "store"), "--chunkers", str(chunkers_file), "--retrievers", "bm25"])
    captured = capsys.readouterr()
    assert rc == 128 + sig, captured.err
    assert {s: signal.getsignal(s) for s in before} == before  # handlers restored
    assert "chunk set 1/4 stop-here" in captured.out and "chunk set 2/4" not in captured.out
    assert f"interrupted by {signal.Signals(sig).name}" in captured.err and "marked failed" in captured.err
    with DagsterInstance.get() as instance:
        runs = {r.tags.get("dagster/partition"): r for r in instance.get_runs()}
        assert runs["stop-here"].status == DagsterRunStatus.FAILURE
        assert len(runs) == 2  # documents, then the interrupted chunk set: nothing after it


def test_runs_a_killed_process_left_started_are_marked_failed_on_the_next_start(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = run_tags()[HOST_TAG]
    with DagsterInstance.ephemeral() as instance:
        def add(pid: int, start: str | None, status=DagsterRunStatus.STARTED, host=host) -> str:
            tags = {PID_TAG: str(pid), HOST_TAG: host}
            if start:
                tags[START_TAG] = start
            run = DagsterRun(job_name="__ASSET_JOB", run_id=f"{len(instance.get_runs()):08d}-run", status=status,
                             tags=tags)
            instance.add_run(run)
            return run.run_id

        orphan = add(dead.pid, None)
        reused_pid = add(os.getpid(), "1")  # our pid, but another process's start time: pid reused
        alive = add(os.getpid(), process_start(os.getpid()))
        elsewhere = add(dead.pid, None, host="another-host")
        finished = add(dead.pid, None, status=DagsterRunStatus.SUCCESS)
        assert sorted(reap_orphaned_runs(instance)) == sorted([orphan, reused_pid])
        status = {r.run_id: r.status for r in instance.get_runs()}
        assert status[orphan] == status[reused_pid] == DagsterRunStatus.FAILURE
        assert status[alive] == DagsterRunStatus.STARTED  # a living run is never touched
        assert status[elsewhere] == DagsterRunStatus.STARTED and status[finished] == DagsterRunStatus.SUCCESS
        assert "ended without finishing" in instance.all_logs(orphan)[-1].message


def test_sigkilled_run_is_reaped_by_the_next_start(tmp_path, default_corpus_copy, chunkers_file):
    proc, out, err = _start_run(tmp_path, default_corpus_copy, chunkers_file)
    try:
        _wait_for(lambda: any(r.status == DagsterRunStatus.STARTED for r in _runs(tmp_path))
                  or proc.poll() is not None, "a started run")
        proc.kill()
        proc.wait(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert any(r.status == DagsterRunStatus.STARTED for r in _runs(tmp_path))  # left behind by SIGKILL
    # the next start (here: the reaping finchunk run / ui do first) marks it failed
    with _instance(tmp_path) as inst:
        assert reap_orphaned_runs(inst)
    assert not any(r.status == DagsterRunStatus.STARTED for r in _runs(tmp_path))


# --- finchunk ui: a supervised dagster dev -----------------------------------------------------
FAKE_DEV = textwrap.dedent('''
    """Behaves like dagster dev: SIGTERM mapped to its SIGINT handler, a child process."""
    import os, signal, subprocess, sys, time
    signal.signal(signal.SIGTERM, signal.getsignal(signal.SIGINT))  # dagster's setup_interrupt_handlers
    stubborn = sys.argv[2] == "stubborn"
    if stubborn:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    grandchild = subprocess.Popen([sys.executable, "-c", "import time\\nwhile True: time.sleep(0.1)"])
    open(sys.argv[1], "w").write(f"{os.getpid()} {grandchild.pid}")
    try:
        while True:
            time.sleep(0.1)
    except KeyboardInterrupt:
        grandchild.terminate()
        grandchild.wait()
''')


def _start_supervisor(tmp_path, mode: str, ignore_sigint: bool):
    fake = tmp_path / "fake_dev.py"
    fake.write_text(FAKE_DEV)
    pids = tmp_path / f"pids-{mode}"
    code = (f"import sys; from finchunk_pipeline.cli.process import supervise; "
            f"sys.exit(supervise([sys.executable, {str(fake)!r}, {str(pids)!r}, {mode!r}], grace=3))")

    def background_job():  # what a shell without job control does for `cmd &`
        if ignore_sigint:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    proc = subprocess.Popen([sys.executable, "-c", code], env=_env(tmp_path), preexec_fn=background_job,
                            stderr=subprocess.PIPE, text=True)
    _wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2, "the fake dagster dev")
    return proc, [int(p) for p in pids.read_text().split()]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_supervised_dev_server_stops_with_its_children_from_a_background_job(tmp_path, sig):
    proc, (child, grandchild) = _start_supervisor(tmp_path, "normal", ignore_sigint=True)
    proc.send_signal(sig)
    assert proc.wait(timeout=TIMEOUT) == 0, proc.stderr.read()
    _wait_for(lambda: not process_alive(child) and not process_alive(grandchild), "the children to end")
    assert "stopped" in proc.stderr.read()


def test_supervisor_kills_a_child_that_ignores_sigterm(tmp_path):
    proc, (child, grandchild) = _start_supervisor(tmp_path, "stubborn", ignore_sigint=False)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=TIMEOUT) == 1
    _wait_for(lambda: not process_alive(child) and not process_alive(grandchild), "the group to be killed")
    assert "killed" in proc.stderr.read()


def test_signal_stops_finchunk_run_with_jobs_and_its_workers(tmp_path, default_corpus_copy, chunkers_file):
    proc, out, err = _start_run(tmp_path, default_corpus_copy, chunkers_file, "--jobs", "2")
    try:
        _wait_for(lambda: "2 at a time" in out.text() or proc.poll() is not None, "the concurrent runs")
        assert proc.poll() is None, out.text() + err.text()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    out.thread.join(5)
    err.thread.join(5)
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, out.text(), err.text())
    assert "interrupted by SIGTERM" in err.text() and "evaluation_report" not in out.text()
    runs = _runs(tmp_path)
    assert all(r.status in (DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE) for r in runs), \
        [(r.run_id[:8], r.status, r.tags.get(PID_TAG)) for r in runs]
    # queued runs never started: at most the two running chunk sets of the three (and no xbrl run)
    assert sum(1 for r in runs if r.tags.get("dagster/partition")) < 3
    # the workers are gone
    pids = {int(r.tags[PID_TAG]) for r in runs if PID_TAG in r.tags}
    _wait_for(lambda: not any(process_alive(p) for p in pids if p != os.getpid()), "the workers to end")


def test_signal_while_a_worker_is_spawned_leaves_no_worker_behind(tmp_path, default_corpus_copy, chunkers_file,
                                                                   monkeypatch, capsys):
    """A stop signal that lands inside the pool's ``submit``, between a worker's start and the
    pool registering it (the window CI hit: the signal came just after "2 at a time"), must not
    leave that worker running: the pool would never stop or join it, and it holds its own end
    of the task queue, so it waits for a task forever."""
    import multiprocessing.context

    from finchunk_pipeline.cli import main

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    started: list = []
    real_start = multiprocessing.context.SpawnProcess.start

    def start_then_signal(self):
        real_start(self)
        started.append(self)
        if len(started) == 1:  # the signal arrives as the first worker has just been started
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(multiprocessing.context.SpawnProcess, "start", start_then_signal)
    try:
        rc = main(["run", "--corpus", str(default_corpus_copy), "--out", str(tmp_path / "out"), "--data",
                   str(tmp_path / "store"), "--chunkers", str(chunkers_file), "--retrievers", "bm25",
                   "--jobs", "2"])
        err = capsys.readouterr().err
        assert rc == 128 + signal.SIGTERM, err
        assert "interrupted by SIGTERM" in err
        assert started, "no worker was started"
        # every worker has ended by the time finchunk run returns (nothing left to wait for)
        assert not [p.pid for p in started if p.is_alive()], err
    finally:
        for p in started:
            if p.is_alive():
                p.kill()
            p.join(5)


def test_signal_watch_defers_a_signal_to_the_end_of_a_deferred_block():
    from finchunk_pipeline.cli.process import SignalWatch

    reached = []
    with SignalWatch() as watch:
        with pytest.raises(KeyboardInterrupt):
            with watch.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)  # the handler has run by now: it must not have raised
                reached.append("after the signal")
                with watch.deferred():  # nested: raised only when the outermost ends
                    pass
                reached.append("after the nested block")
        assert reached == ["after the signal", "after the nested block"]
        assert watch.received() == signal.SIGTERM
        os.kill(os.getpid(), signal.SIGTERM)  # raised once: later signals are only recorded
        time.sleep(0.05)


def test_a_zombie_is_not_alive(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        _wait_for(lambda: (Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"),
                  "the child to end (a zombie until waited for)")
        assert not process_alive(child.pid)
        assert not process_alive(child.pid, process_start(child.pid))
    finally:
        child.wait()
    assert process_alive(os.getpid(), process_start(os.getpid()))
    assert not process_alive(os.getpid(), "1")  # our pid, another start time: a reused pid


# --- finchunk run --jobs: a worker whose run a stop signal interrupted starts nothing else -----
WAITING_RUN = textwrap.dedent('''
    """finchunk run with a strategy that marks its start and waits to be interrupted. Spawned
    workers import this file again as __mp_main__, so they register the strategy too."""
    import os, sys, time
    from pathlib import Path
    from finchunk_pipeline.chunking.registry import STRATEGIES
    from finchunk_pipeline.chunking.strategy import Strategy

    class Waits(Strategy):
        name = "waits"

        def pieces(self, doc, params, meta, context=None):
            Path(os.environ["MARKERS"], str(os.getpid())).touch()
            for _ in range(3000):  # a stop signal interrupts this (short sleeps: a signal the kernel
                time.sleep(0.1)    # hands another thread is handled when the main thread wakes)
            return []

    STRATEGIES["waits"] = Waits()

    if __name__ == "__main__":
        from finchunk_pipeline.cli import main
        sys.exit(main(sys.argv[1:]))
''')


class Terminal:
    """A command as the foreground job of a pseudo-terminal (its controlling terminal): what a
    user's shell runs, Ctrl-C and all. ``text()``: what the terminal showed."""

    def __init__(self, cmd: list[str], env: dict, cwd):
        import pty

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: a session leader with the terminal as its controlling one
            try:
                os.chdir(cwd)
                os.execve(cmd[0], cmd, env)
            finally:
                os._exit(127)
        self.data = b""
        self.returncode: int | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # the terminal closed: every process holding it ended
                return
            if not chunk:
                return
            self.data += chunk

    def text(self) -> str:
        return self.data.decode(errors="replace").replace("\r\n", "\n")

    def ctrl_c(self):
        os.write(self.fd, b"\x03")  # the line discipline sends SIGINT to the foreground group

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float) -> int:
        _wait_for(lambda: self.poll() is not None, "the command to end", timeout)
        self.thread.join(5)
        return self.returncode

    def kill(self):
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            self.wait(TIMEOUT)


@pytest.mark.parametrize("ctrl_c", [False, True], ids=["SIGTERM", "ctrl-c"])
def test_a_worker_whose_run_was_interrupted_starts_no_further_run(tmp_path, default_corpus_copy, chunkers_file,
                                                                   ctrl_c):
    """--jobs 2 with four tasks: both workers inside their first run when SIGTERM comes. Dagster
    fails each run as interrupted and returns; the pool had already queued the next tasks to the
    workers, so each worker went on to start one (the reported "a worker started a new chunk-set
    run 1.8 s after SIGTERM and finished it while the CLI printed 'nothing else was started'").
    Either way one line says it: Dagster's console logger printed the interrupted steps and runs
    with their stack traces, and Ctrl-C on a terminal also hit Dagster's helper processes of
    each step (watch_orphans.py: a KeyboardInterrupt traceback each)."""
    script, markers = tmp_path / "run_waiting.py", tmp_path / "markers"
    script.write_text(WAITING_RUN)
    markers.mkdir()
    chunkers_file.write_text(
        "chunk_sets:\n"
        "  - {name: wait-a, strategy: waits, dense: false}\n"
        "  - {name: wait-b, strategy: waits, dense: false}\n"
        "  - {name: fixed, strategy: fixed, params: {size: 500, overlap: 50}, dense: false}\n")
    env = {**_env(tmp_path), "MARKERS": str(markers)}
    cmd = [sys.executable, str(script), "run", "--corpus", str(default_corpus_copy), "--out", str(tmp_path / "out"),
           "--data", str(tmp_path / "store"), "--chunkers", str(chunkers_file), "--retrievers", "bm25",
           "--jobs", "2"]
    sig = signal.SIGINT if ctrl_c else signal.SIGTERM
    if ctrl_c:
        proc = Terminal(cmd, env, tmp_path)
        said = proc.text
    else:
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = Lines(proc.stdout), Lines(proc.stderr)
        said = err.text
    try:
        _wait_for(lambda: len(list(markers.iterdir())) >= 2 or proc.poll() is not None, "both workers in a run")
        assert proc.poll() is None, said()
        time.sleep(1)  # both inside their sleep
        if ctrl_c:
            proc.ctrl_c()
        else:
            proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=TIMEOUT)
    finally:
        proc.kill()
    if not ctrl_c:
        out.thread.join(5)
        err.thread.join(5)
    assert proc.returncode == 128 + sig, (proc.returncode, said())
    # one line says it (after the terminal's echo of ^C)
    lines = [line for line in said().split("\n") if line.strip()]
    lines = lines[next((i for i, line in enumerate(lines) if line.startswith("^C")), -1) + 1:] if ctrl_c else lines
    assert len(lines) == 1 and f"interrupted by {sig.name}: stopped; nothing else was started" in lines[0], said()
    runs = _runs(tmp_path)
    started = sorted((r.job_name, r.tags.get("dagster/partition") or "") for r in runs)
    # the documents run and the two interrupted chunk sets; neither the third chunk set nor xbrl
    assert sorted(r.tags.get("dagster/partition") for r in runs if r.tags.get("dagster/partition")) == \
        ["wait-a", "wait-b"], started
    assert len(runs) == 3, started
    assert all(r.status in (DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE) for r in runs)
    pids = {int(r.tags[PID_TAG]) for r in runs if PID_TAG in r.tags}
    _wait_for(lambda: not any(process_alive(p) for p in pids), "the workers to end")


def test_supervised_dev_server_dies_with_a_killed_supervisor(tmp_path):
    """SIGKILL of `finchunk ui` can be caught by nobody: the child must learn of it from the
    kernel (PR_SET_PDEATHSIG) and stop its own children, or they run on as orphans."""
    proc, (child, grandchild) = _start_supervisor(tmp_path, "normal", ignore_sigint=False)
    proc.kill()
    proc.wait(timeout=TIMEOUT)
    try:
        _wait_for(lambda: not process_alive(child) and not process_alive(grandchild), "the orphans to end")
    finally:
        for pid in (child, grandchild):
            if process_alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_signal_before_dagster_handles_interrupts_still_stops_that_run(tmp_path, default_corpus_copy,
                                                                        chunkers_file, monkeypatch, capsys):
    """A stop signal after the run is created but before Dagster's handler is in place is taken
    by finchunk run's own handler: held back (not raised into the instance's storage calls) and
    handed to Dagster once it handles interrupts, so the run fails as interrupted at its first
    step instead of running to its end."""
    from finchunk_pipeline.cli import main

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    real = DagsterInstance.create_run_for_job

    def create_then_signal(self, *args, **kwargs):
        run = real(self, *args, **kwargs)
        if run.job_name == "chunk_set_job":
            os.kill(os.getpid(), signal.SIGTERM)
        return run

    monkeypatch.setattr(DagsterInstance, "create_run_for_job", create_then_signal)
    rc = main(["run", "--corpus", str(default_corpus_copy), "--out", str(tmp_path / "out"), "--data",
               str(tmp_path / "store"), "--chunkers", str(chunkers_file), "--retrievers", "bm25"])
    captured = capsys.readouterr()
    assert rc == 128 + signal.SIGTERM, captured.err
    assert "chunk set 2/3" not in captured.out
    with DagsterInstance.get() as instance:
        runs = {r.job_name: r for r in instance.get_runs()}
        assert sorted(runs) == ["chunk_set_job", "documents_job"]
        assert runs["chunk_set_job"].status == DagsterRunStatus.FAILURE
        assert runs["chunk_set_job"].tags.get("dagster/failure_reason") == "UNEXPECTED_TERMINATION"
        materialized = instance.all_logs(runs["chunk_set_job"].run_id, of_type=DagsterEventType.ASSET_MATERIALIZATION)
        assert not materialized  # interrupted at its first step
