"""Does Dagster 1.13 do the jobs of the project's home-made machinery? Small experiments, measured.

    .venv/bin/python bench/dagster_mechanisms.py [--only markers,pools,runs,upath] [--write]

Each experiment runs toy assets (bench/dagster_mechanisms/toys.py) in worker processes against
temporary persistent instances (a DAGSTER_HOME with SQLite storage under a temp folder), reads
what happened (the toys log to their data folder when a body runs; run statuses come from the
instance) and prints one observed fact per row. With --write, the table goes to
docs/benchmarks/dagster-mechanisms.md (bench/_docs.py's header: command, machine, date, commit).

Rows: mechanism | question | observed | verdict for our piece. The verdicts are written beside
the experiments below; the observed column is filled from the run.
About 4-5 minutes, mostly waiting (sleeping toy assets; a daemon and its code server).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOYS = ROOT / "bench" / "dagster_mechanisms" / "toys.py"
PY = sys.executable
BIN = Path(sys.executable).parent
PAGE = ROOT / "docs" / "benchmarks" / "dagster-mechanisms.md"
BASE_YAML = "telemetry:\n  enabled: false\nnux:\n  enabled: false\n"
POOLS_YAML = "concurrency:\n  pools:\n    default_limit: 1\n"
QUEUE_YAML = ("run_coordinator:\n  module: dagster._core.run_coordinator\n  class: QueuedRunCoordinator\n"
              "concurrency:\n  runs:\n    max_concurrent_runs: 2\n  pools:\n    default_limit: 1\n")
PROJECT_QUEUE_YAML = ("run_coordinator:\n  module: dagster._core.run_coordinator\n  class: QueuedRunCoordinator\n"
                      "  config:\n    max_concurrent_runs: 2\n")  # as the project's dagster.yaml has it
ROWS: list[tuple[str, str, str, str]] = []


def row(mechanism: str, question: str, observed: str, verdict: str) -> None:
    ROWS.append((mechanism, question, observed, verdict))
    print(f"- [{mechanism}] {question}\n    observed: {observed}", flush=True)


# --- worker side: runs in a subprocess with DAGSTER_HOME / TOY_* set ---------------------------
def _toys():
    sys.path.insert(0, str(TOYS.parent))
    import toys  # noqa: E402
    return toys


def worker(argv: list[str]) -> None:
    from dagster import DagsterInstance, materialize

    toys = _toys()
    what = argv[0]
    if what == "materialize":  # materialize NAMES [PARTITION] [ephemeral]
        names = argv[1].split(",")
        partition = argv[2] if len(argv) > 2 and argv[2] != "-" else None
        ephemeral = "ephemeral" in argv
        r, w = os.pipe()
        os.set_blocking(r, False)
        os.set_blocking(w, False)
        signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        instance = DagsterInstance.ephemeral() if ephemeral else DagsterInstance.get()
        result = materialize([getattr(toys, n) for n in names], instance=instance, partition_key=partition,
                             raise_on_error=False)
        try:
            seen = list(os.read(r, 64))
        except BlockingIOError:
            seen = []
        print(json.dumps({"returned": True, "success": result.success, "run_id": result.run_id,
                          "wakeup_fd_signals": seen}), flush=True)
    elif what == "status":  # stale status of counted under code version argv[1]
        from dagster import AssetKey, Definitions
        from dagster._core.definitions.data_version import CachingStaleStatusResolver
        from dagster._core.loader import LoadingContextForTest

        instance = DagsterInstance.get()
        defs = Definitions(assets=[toys.source, toys.make_counted(argv[1])])
        resolver = CachingStaleStatusResolver(instance, defs.resolve_asset_graph(), LoadingContextForTest(instance))
        key = AssetKey("counted")
        causes = [f"{c.category.name}: {c.reason}" for c in resolver.get_stale_causes(key)]
        event = instance.get_latest_materialization_event(key)
        print(json.dumps({"status": resolver.get_status(key).name, "causes": causes,
                          "materialized_before": event is not None}), flush=True)
    elif what == "automation":
        from dagster import AutomationCondition, evaluate_automation_conditions

        instance = DagsterInstance.get()
        out = {}
        for name, cond in (("eager", AutomationCondition.eager()),
                           ("code_version_changed", AutomationCondition.code_version_changed())):
            v1 = [toys.source, toys.make_counted("1").with_attributes(automation_condition=cond)]
            first = evaluate_automation_conditions(defs=v1, instance=instance)
            again = evaluate_automation_conditions(defs=v1, instance=instance, cursor=first.cursor)
            v2 = [toys.source, toys.make_counted("2").with_attributes(automation_condition=cond)]
            changed = evaluate_automation_conditions(defs=v2, instance=instance, cursor=again.cursor)
            out[name] = [first.total_requested, again.total_requested, changed.total_requested]
        # eager after the upstream was materialized again (same data version "hello-1")
        v1 = [toys.source, toys.make_counted("1").with_attributes(automation_condition=AutomationCondition.eager())]
        first = evaluate_automation_conditions(defs=v1, instance=instance)
        materialize([toys.source], instance=instance)
        after = evaluate_automation_conditions(defs=v1, instance=instance, cursor=first.cursor)
        out["eager_after_upstream_rerun_same_data_version"] = after.total_requested
        print(json.dumps(out), flush=True)
    elif what == "upath":
        from upath import UPath

        try:
            os.fspath(UPath("memory://toy/x"))
            fspath = "ok"
        except TypeError as exc:
            fspath = f"TypeError: {exc}"
        results = []
        for _ in range(2):
            res = materialize([toys.folder_asset, toys.folder_reader], instance=DagsterInstance.get(),
                              resources={"folder_io": toys.folder_io()})
            results.append(res.output_for_node("folder_reader"))
        fs = UPath(os.environ["TOY_UPATH"]).fs
        listing = sorted(p.rsplit("/", 1)[1] for p in fs.find(UPath(os.environ["TOY_UPATH"]).path))
        print(json.dumps({"fspath": fspath, "reader": results, "files": listing}), flush=True)


# --- driver side ------------------------------------------------------------------------------
class Home:
    """A temporary DAGSTER_HOME (SQLite) and the env that points the toys at a data folder."""

    def __init__(self, tmp: Path, name: str, yaml: str = "", data: Path | None = None, create: bool = True):
        self.path = tmp / name
        self.path.mkdir(parents=True)
        (self.path / "dagster.yaml").write_text(BASE_YAML + yaml)
        self.data = data or tmp / f"{name}-data"
        self.data.mkdir(parents=True, exist_ok=True)
        self.errs = 0
        if create:  # the storage exists before two processes use it (as for any instance in use)
            self.instance().get_runs(limit=1)

    def env(self, **extra) -> dict:
        env = {**os.environ, "DAGSTER_HOME": str(self.path), "TOY_DATA": str(self.data), "TOY_SLEEP": "3",
               "PYTHONWARNINGS": "ignore"}
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def instance(self):
        from dagster import DagsterInstance
        from dagster._core.instance.ref import InstanceRef

        return DagsterInstance.from_ref(InstanceRef.from_dir(str(self.path)))

    def count(self, name: str) -> int:
        f = self.data / "counts" / name
        return len(f.read_text().splitlines()) if f.exists() else 0

    def worker(self, *args, env: dict | None = None, **popen) -> subprocess.Popen:
        return subprocess.Popen([PY, __file__, "--worker", *args], cwd=ROOT, env=env or self.env(),
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, **popen)

    def cli(self, *args, env: dict | None = None, **popen) -> subprocess.Popen:
        self.errs += 1
        with open(self.data / f"cli-{self.errs}.log", "w") as log:
            return subprocess.Popen([str(BIN / "dagster"), *args], cwd=ROOT, env=env or self.env(),
                                    stdout=log, stderr=subprocess.STDOUT, **popen)


def _json(proc: subprocess.Popen, timeout: float = 90) -> dict:
    out, _ = proc.communicate(timeout=timeout)
    lines = [ln for ln in (out or "").splitlines() if ln.startswith("{")]
    return json.loads(lines[-1]) if lines else {"returned": False, "exit": proc.returncode}


def _wait_all(procs, timeout=90):
    for p in procs:
        p.wait(timeout=timeout)


def _intervals(home: Home) -> list[tuple[str, float, float]]:
    log = home.data / "pooled.log"
    rows = [ln.split() for ln in log.read_text().splitlines()] if log.exists() else []
    return sorted((r[0], float(r[1]), float(r[2])) for r in rows)


def _overlap(iv) -> str:
    if len(iv) < 2:
        return f"only {len(iv)} step(s) ran"
    ov = min(e for _, _, e in iv) - max(s for _, s, _ in iv)
    return (f"overlapped {ov:.1f} s (both ran at once)" if ov > 0 else
            f"serialized: second step started {-ov:.1f} s after the first ended")


def _runs(home: Home, job: str | None = None):
    from dagster import RunsFilter

    inst = home.instance()
    return inst.get_runs(filters=RunsFilter(job_name=job) if job else None)


def _wait_for(pred, timeout: float, step: float = 0.5) -> float | None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if pred():
            return time.monotonic() - t0
        time.sleep(step)
    return None


class Daemon:
    """dagster-daemon run over the toys, in its own session; stopped by its process group."""

    def __init__(self, home: Home, **env):
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen([str(BIN / "dagster-daemon"), "run", "-f", str(TOYS)], cwd=ROOT,
                                     env=home.env(**env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)

    def stop(self, grace: float = 20, group: bool = True) -> float | None:
        """SIGTERM to the daemon's process group (or to the daemon alone); the group is killed after."""
        if self.proc.poll() is not None:
            return 0.0
        t0 = time.monotonic()
        if group:
            os.killpg(self.proc.pid, signal.SIGTERM)
        else:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=grace)
            return time.monotonic() - t0
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            return None
        finally:
            if group:
                self.kill_group()

    def kill_group(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # whatever of its group is left
        except ProcessLookupError:
            pass


# --- 1. markers vs code and data versions -----------------------------------------------------
MARKERS = "storage/artefacts.py markers"


def exp_markers(tmp: Path) -> None:
    h = Home(tmp, "markers")
    for _ in range(2):
        _json(h.worker("materialize", "source,counted"))
    row("code_version + materialize()", "same code version, same inputs: does a 2nd `materialize` run the body?",
        f"body of `counted` ran {h.count('counted')} times in 2 materializations",
        "Dagster never skips a selected asset: reuse must be decided inside the body / IO manager")
    for _ in range(2):
        h.cli("asset", "materialize", "-f", str(TOYS), "--select", "source,counted").wait(90)
    row("code_version + `dagster asset materialize`", "the same from the CLI, twice",
        f"body ran {h.count('counted') - 2} more times in 2 CLI runs", "as above")
    same = json.loads(h.worker("status", "1").communicate()[0].splitlines()[-1])
    changed = json.loads(h.worker("status", "2").communicate()[0].splitlines()[-1])
    row("stale status (CachingStaleStatusResolver, what the UI shows)",
        "after materializing: status with code version unchanged / changed",
        f"unchanged: {same['status']}; changed: {changed['status']} ({'; '.join(changed['causes'])})",
        "staleness is a label for the UI and automation; it does not skip work")
    before = h.count("counted")
    _json(h.worker("materialize", "source,counted", env=h.env(TOY_CODE_VERSION="2")))
    _json(h.worker("materialize", "source,counted", env=h.env(TOY_CODE_VERSION="2")))
    row("code_version changed", "a changed code version, then the same again: body runs?",
        f"body ran {h.count('counted') - before} times in 2 materializations (the 2nd was FRESH before it ran)",
        "a FRESH asset that is selected runs all the same")
    auto = json.loads(h.worker("automation").communicate()[0].splitlines()[-1])
    row("AutomationCondition.eager() / code_version_changed()",
        "runs requested: first tick / next tick unchanged / tick after code version 1->2",
        f"eager {auto['eager']}; code_version_changed {auto['code_version_changed']}; eager after the upstream "
        f"was materialized again with the same DataVersion: {auto['eager_after_upstream_rerun_same_data_version']}",
        "conditions decide whether the daemon *launches* a run (triggering); a requested run executes "
        "the body in full. They replace `finchunk run`'s 'run everything' only if runs come from the daemon")
    h2 = Home(tmp, "markers-fresh", data=h.data)
    fresh = json.loads(h2.worker("status", "1").communicate()[0].splitlines()[-1])
    before = h.count("counted")
    _json(h2.worker("materialize", "source,counted"))
    row("a fresh instance over the same data folder (a 2nd machine)",
        "does a new DAGSTER_HOME know what was materialized?",
        f"materialized before: {fresh['materialized_before']}, status {fresh['status']}; "
        f"a materialize there ran the body {h.count('counted') - before} time(s)",
        "versions and provenance live in the instance: keep markers beside the data for "
        "cross-instance reuse (or share one instance: Postgres)")
    for _ in range(2):
        _json(h.worker("materialize", "source,provenance_aware"))
    built, reused = h.count("provenance_aware"), h.count("provenance_aware.reused")
    _json(h2.worker("materialize", "source,provenance_aware"))
    row("provenance in the body (context.get_asset_provenance)",
        "an asset that compares its last provenance (code + input data versions) and returns early: "
        "2 materializations on one instance, then 1 on the fresh instance",
        f"one instance: built {built}, reused {reused}; fresh instance: built "
        f"{h.count('provenance_aware') - built}, reused {h.count('provenance_aware.reused') - reused}",
        "Dagster's records can carry the reuse decision (no marker files) but only within one instance; "
        "the body still runs (Dagster opens the run, loads inputs, stores the output)")


# --- 2. claims vs concurrency pools ----------------------------------------------------------
def exp_pools(tmp: Path) -> None:
    h = Home(tmp, "pools", POOLS_YAML)
    procs = [h.worker("materialize", "pooled", k) for k in ("a", "b")]
    _wait_all(procs)
    row("pool 'p' limit 1, `materialize()` in 2 processes, one instance",
        "are the two steps serialized?", _overlap(_intervals(h)),
        "pools hold in-process runs too when they share the instance")
    h2 = Home(tmp, "pools-cli", POOLS_YAML)
    procs = [h2.cli("asset", "materialize", "-f", str(TOYS), "--select", "pooled", "--partition", k)
             for k in ("a", "b")]
    _wait_all(procs)
    row("pool 'p' limit 1, `dagster asset materialize` x2 at once (default run coordinator)",
        "serialized?", _overlap(_intervals(h2)), "the CLI path honours pools as well")
    h4 = Home(tmp, "pools-new", POOLS_YAML, create=False)
    procs = [h4.worker("materialize", "pooled", k) for k in ("a", "b")]
    res = [_json(p) for p in procs]
    row("pool 'p' limit 1, `materialize()` x2 on a brand-new DAGSTER_HOME (first use by both at once)",
        "serialized?", _overlap(_intervals(h4)) + f"; materialize returned success {[r.get('success') for r in res]}"
        + f", exit codes {[p.returncode for p in procs]}", "a race at the pool's first use: create the instance "
        "and the pool limit (`dagster instance concurrency set p 1`) before the first runs")
    try:
        Home(tmp, "pools-project", PROJECT_QUEUE_YAML + POOLS_YAML)
        conflict = "accepted"
    except Exception as exc:  # noqa: BLE001 - the error is the observation
        conflict = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    row("the project's dagster.yaml (run_coordinator config max_concurrent_runs) + `concurrency: pools:`",
        "can pools be added as they are?", conflict,
        "adding pools means moving max_concurrent_runs to `concurrency: runs:`")
    h3 = Home(tmp, "pools-eph", POOLS_YAML)
    procs = [h3.worker("materialize", "pooled", k, "ephemeral") for k in ("a", "b")]
    _wait_all(procs)
    row("pool 'p', `materialize()` with DagsterInstance.ephemeral() x2", "serialized?", _overlap(_intervals(h3)),
        "an ephemeral instance has its own slots: no serialization (tests, bench)")
    data = tmp / "shared-data"
    ha, hb = Home(tmp, "machine-a", POOLS_YAML, data), Home(tmp, "machine-b", POOLS_YAML, data)
    procs = [ha.worker("materialize", "pooled", "a"), hb.worker("materialize", "pooled", "b")]
    _wait_all(procs)
    row("pool 'p', two DAGSTER_HOMEs on one data folder (two machines, no shared Postgres)", "serialized?",
        _overlap(_intervals(ha)), "pools need one shared instance (Postgres); claims.py's flock/lease "
        "covers a data root used by instances that share nothing")


# --- 3. finchunk run -j / signals vs run queue, daemon and run monitoring ----------------------
def _status(home: Home, run_id: str) -> str:
    run = home.instance().get_run_by_id(run_id)
    if run is None:
        return "no run"
    reason = run.tags.get("dagster/failure_reason")
    return run.status.name + (f" ({reason})" if reason else "")


def _latest_run(home: Home):
    runs = _runs(home)
    return runs[0] if runs else None


def _children(pid: int) -> list[tuple[int, str]]:
    """(pid, short command) of the processes whose parent is ``pid``."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) != pid:
                continue
            args = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [a.decode() for a in args if a]
        name = next((Path(w).name for w in words if w.endswith(".py")), Path(words[0]).name if words else "?")
        out.append((int(d.name), name if name != "python" else " ".join(words[:3])))
    return out


def exp_dev(tmp: Path) -> None:
    """process.py: `dagster dev` maps SIGTERM to its SIGINT handler, so started with SIGINT ignored
    (a background job of a shell without job control) it ignores SIGTERM too."""
    import socket
    import urllib.request

    for ignored in (True, False):
        h = Home(tmp, f"dev-{'ignint' if ignored else 'default'}")
        with socket.socket() as sk:
            sk.bind(("127.0.0.1", 0))
            port = sk.getsockname()[1]
        pre = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignored else None
        with open(h.data / "dev.log", "w") as log:
            proc = subprocess.Popen([str(BIN / "dagster"), "dev", "-f", str(TOYS), "-h", "127.0.0.1", "-p", str(port)],
                                    cwd=tmp, env=h.env(), stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True, preexec_fn=pre)

        def up() -> bool:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=1)
                return True
            except OSError:
                return False

        served = _wait_for(up, 60, 1)
        group = [c for c, _ in _children(proc.pid)]
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
            stopped = f"exited after {time.monotonic() - t0:.1f} s"
        except subprocess.TimeoutExpired:
            stopped = "still running 20 s after SIGTERM"
        left = sum(Path(f"/proc/{c}").exists() for c in group)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        row(f"SIGTERM to `dagster dev` started with SIGINT {'ignored (no job control)' if ignored else 'at its default'}",
            "does it stop?", (f"served after {served:.0f} s; " if served is not None else "did not serve in 60 s; ")
            + f"{stopped}; {left} of its {len(group)} children still alive",
            ("process.py's claim holds: `supervise` (default dispositions, SIGTERM, then the group) stays"
             if ignored else "control case; a child still alive after dagster dev exited is why `supervise` "
             "also kills what is left of the group"))


def exp_signals(tmp: Path) -> None:
    h = Home(tmp, "signals")
    pid_file = h.data / "slow.a.pid"
    p = h.worker("materialize", "slow", "a", env=h.env(TOY_SLEEP=40))
    _wait_for(pid_file.exists, 60, 0.2)
    helpers = _children(p.pid)
    same_group = sum(os.getpgid(c) == os.getpgid(p.pid) for c, _ in helpers if Path(f"/proc/{c}").exists())
    row("helper processes of an in-process run (`materialize()`)",
        "which processes does a run start beside the step; in the caller's process group?",
        f"{len(helpers)} children: {', '.join(sorted({n for _, n in helpers}))}; {same_group} in the caller's group",
        "process.py's claim holds: a terminal's Ctrl-C reaches them too (hence `relay`)")
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    res = _json(p, 60)
    took = time.monotonic() - t0
    run = _latest_run(h)
    row("SIGTERM to a process in `materialize()` (in-process executor)",
        "does materialize return, what does the run become?",
        f"returned: {res.get('returned')}, success {res.get('success')}, exit {p.returncode} after {took:.1f} s; "
        f"run {_status(h, run.run_id)}; signals seen by set_wakeup_fd: {res.get('wakeup_fd_signals')}",
        "process.py's claim holds: SIGTERM fails the run as interrupted and materialize returns")
    # the CLI: default multiprocess executor, the step in a child process
    h2 = Home(tmp, "signals-cli")
    pid_file = h2.data / "slow.a.pid"
    p = h2.cli("asset", "materialize", "-f", str(TOYS), "--select", "slow", "--partition", "a",
               env=h2.env(TOY_SLEEP=40))
    _wait_for(pid_file.exists, 60, 0.2)
    step_pid = int(pid_file.read_text())
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    p.wait(60)
    took = time.monotonic() - t0
    time.sleep(1)
    alive = Path(f"/proc/{step_pid}").exists()
    run = _latest_run(h2)
    row("SIGTERM to `dagster asset materialize` (multiprocess executor, step in a child)",
        "does the step process stop, what does the run become?",
        f"CLI exit {p.returncode} after {took:.1f} s; step process (pid {step_pid}) alive after: {alive}; "
        f"run {_status(h2, run.run_id)}", "a clean stop on SIGTERM is Dagster's own here")
    if alive:
        os.kill(step_pid, signal.SIGKILL)


def _failure_message(home: Home, run_id: str) -> str:
    from dagster import DagsterEventType

    events = home.instance().all_logs(run_id, of_type=DagsterEventType.RUN_FAILURE)
    return events[-1].message.splitlines()[0][:90] if events else ""


def _history(home: Home, run_ids: dict[str, str], seconds: float, until=None) -> dict[str, list[tuple[float, str]]]:
    """Each run's status transitions over ``seconds`` (polled every second): [(t, status)]."""
    hist = {k: [] for k in run_ids}
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        for k, rid in run_ids.items():
            st = _status(home, rid)
            if not hist[k] or hist[k][-1][1] != st:
                hist[k].append((time.monotonic() - t0, st))
        if until is not None and until(hist):
            break
        time.sleep(1)
    return hist


def _fmt(hist: list[tuple[float, str]]) -> str:
    return " -> ".join(f"{st} @{t:.0f}s" for t, st in hist)


def exp_monitoring(tmp: Path) -> None:
    mon = "run_monitoring:\n  enabled: true\n  poll_interval_seconds: 2\n  max_runtime_seconds: 12\n"
    h = Home(tmp, "monitor", mon)
    daemon = Daemon(h)
    # a run whose process is killed -9, and a healthy run that takes longer than max_runtime_seconds
    pa = h.worker("materialize", "slow", "a", env=h.env(TOY_SLEEP=60))
    pb = h.worker("materialize", "slow", "b", env=h.env(TOY_SLEEP=30))
    _wait_for(lambda: (h.data / "slow.a.pid").exists() and (h.data / "slow.b.pid").exists(), 60, 0.2)
    pa.kill()
    pa.wait()
    runs = {r.tags.get("dagster/partition"): r.run_id for r in _runs(h)}
    ages = {k: time.time() - h.instance().get_run_record_by_id(rid).start_time for k, rid in runs.items()}
    hist = _history(h, runs, 45, until=lambda hs: all(not v[-1][1].startswith("STARTED") for v in hs.values()))
    _json(pb, 60)
    b_done = (h.data / "slow.b.done").exists()
    row("run monitoring (daemon, poll 2 s, max_runtime_seconds 12) on runs of `materialize()`",
        "a run whose process got kill -9 (A); a healthy run of 30 s (B); t = 0 at the kill",
        f"A (age {ages['a']:.0f} s at the kill): {_fmt(hist['a'])}, '{_failure_message(h, runs['a'])}'; "
        f"B (age {ages['b']:.0f} s): {_fmt(hist['b'])}, '{_failure_message(h, runs['b'])}'; B's body finished: "
        f"{b_done}; B's final status {_status(h, runs['b'])}",
        "DefaultRunLauncher has no worker health check: max_runtime_seconds is the only catch for a dead run "
        "and it stops healthy long runs alike")
    daemon.stop()


def exp_queue(tmp: Path) -> None:
    mon = "run_monitoring:\n  enabled: true\n  poll_interval_seconds: 2\n"
    h = Home(tmp, "queue", QUEUE_YAML + mon)
    env = h.env(TOY_SLEEP=2)
    t0 = time.monotonic()
    daemon = Daemon(h, TOY_SLEEP=2)
    # N = 4 partitions through the queue (max_concurrent_runs 2)
    t_launch = time.monotonic()
    h.cli("job", "backfill", "-f", str(TOYS), "-j", "slow_job", "--partitions", "a,b,c,d", "--noprompt",
          env=env).wait(120)
    launched = time.monotonic() - t_launch
    done = _wait_for(lambda: sum(r.status.name == "SUCCESS" for r in _runs(h, "slow_job")) >= 4, 120, 0.5)
    statuses = sorted(r.status.name for r in _runs(h, "slow_job"))
    pids = {(h.data / f"slow.{k}.pid").read_text() for k in "abcd" if (h.data / f"slow.{k}.pid").exists()}
    row("QueuedRunCoordinator (max_concurrent_runs 2) + dagster-daemon, 4 partitions of a 2 s asset",
        "time from `dagster job backfill` to 4 runs done; processes",
        f"CLI returned in {launched:.1f} s (daemon started {t_launch - t0:.1f} s before); all done "
        + (f"{launched + done:.1f} s after the launch" if done is not None else f"not within 120 s: {statuses}")
        + f"; {len(pids)} distinct run processes", "the queue + daemon does `-j N` (one process per run)")
    # pool "p" through the queue: two runs
    for k in ("a", "b"):
        h.cli("job", "launch", "-f", str(TOYS), "-j", "pooled_job", "--tags", json.dumps({"dagster/partition": k}), env=env).wait(90)
    _wait_for(lambda: sum(r.status.name == "SUCCESS" for r in _runs(h, "pooled_job")) >= 2, 90, 0.5)
    row("pool 'p' limit 1, 2 runs through the queue + daemon", "serialized?", _overlap(_intervals(h)),
        "pools serialize queued runs (the queue also holds a run whose pool is full)")
    # a launched run: terminate (the UI's Terminate), and kill -9 of its run worker
    for f in h.data.glob("slow.*"):
        f.unlink()
    env30 = h.env(TOY_SLEEP=30)
    (h.data / "sleep").write_text("30")  # run workers get the code server's env: the toys read this file
    for k in ("a", "b"):
        h.cli("job", "launch", "-f", str(TOYS), "-j", "slow_job", "--tags", json.dumps({"dagster/partition": k}), env=env30).wait(90)
    started = _wait_for(lambda: (h.data / "slow.a.pid").exists() and (h.data / "slow.b.pid").exists(), 60, 0.5)
    runs = {r.tags.get("dagster/partition"): r for r in _runs(h, "slow_job")[:2]}
    if started is None or set(runs) != {"a", "b"}:
        row("launched runs", "terminate / kill -9", f"runs did not start: {[_status(h, r.run_id) for r in runs.values()]}",
            "not measured")
    else:
        inst = h.instance()
        t0 = time.monotonic()
        inst.run_launcher.terminate(runs["a"].run_id)
        canceled = _wait_for(lambda: _status(h, runs["a"].run_id).startswith("CANCELED"), 30, 0.5)
        # the step runs in a child of the run worker (multiprocess executor): kill the run worker itself
        step_pid = int((h.data / "slow.b.pid").read_text())
        worker_pid = int(Path(f"/proc/{step_pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        worker_cmd = " ".join(a.decode() for a in Path(f"/proc/{worker_pid}/cmdline").read_bytes().split(b"\0")[1:5])
        os.kill(worker_pid, signal.SIGKILL)
        failed = _wait_for(lambda: not _status(h, runs["b"].run_id).startswith("STARTED"), 30, 1)
        step_alive = Path(f"/proc/{step_pid}").exists()
        row("a launched run: run_launcher.terminate (the UI's Terminate) / kill -9 of its run worker",
            "what does each run become, how fast?",
            ("terminate: CANCELED after " + (f"{canceled:.1f} s" if canceled is not None else "> 30 s: "
             + _status(h, runs['a'].run_id)))
            + f"; kill -9 of the run worker (`{worker_cmd}`): {_status(h, runs['b'].run_id)}"
            + (f" after {failed:.0f} s" if failed is not None else " 30 s later (run monitoring on, poll 2 s)")
            + f", '{_failure_message(h, runs['b'].run_id)}'; its step process (the worker's child) still alive then: {step_alive}",
            "launched runs: Dagster's own cancel, and a dead run worker is marked failed without the "
            "daemon's health check (the run monitoring row); a step child it leaves running is not stopped")
        if Path(f"/proc/{step_pid}").exists():  # the orphaned step process: ours to end
            os.kill(step_pid, signal.SIGKILL)
    # an in-process run (materialize) killed -9 in the same instance: run monitoring on, no max runtime
    (h.data / "sleep").unlink()
    p = h.worker("materialize", "slow", "d", env=h.env(TOY_SLEEP=60))
    _wait_for((h.data / "slow.d.pid").exists, 60, 0.2)
    p.kill()
    p.wait()
    run_d = [r for r in _runs(h) if r.tags.get("dagster/partition") == "d" and r.job_name == "__ephemeral_asset_job__"][0]
    changed = _wait_for(lambda: not _status(h, run_d.run_id).startswith("STARTED"), 30, 1)
    row("an in-process run (`materialize()`) killed -9, daemon with run monitoring (poll 2 s, no max runtime)",
        "is it marked failed?", f"{_status(h, run_d.run_id)} "
        + (f"after {changed:.0f} s" if changed is not None else "30 s after the kill"),
        "in-process runs have no launcher to ask: keep reap_orphaned_runs while `finchunk run` executes in-process")
    (h.data / "sleep").write_text("30")
    # SIGTERM to the daemon while a run is in flight: does the run go on?
    for f in h.data.glob("slow.*"):
        f.unlink()
    h.cli("job", "launch", "-f", str(TOYS), "-j", "slow_job", "--tags", json.dumps({"dagster/partition": "c"}), env=env30).wait(90)
    started = _wait_for((h.data / "slow.c.pid").exists, 60, 0.5)
    run_c = [r for r in _runs(h, "slow_job") if r.tags.get("dagster/partition") == "c"][0]
    stop_took = daemon.stop(group=False)
    time.sleep(1)
    worker_alive = started is not None and Path(f"/proc/{(h.data / 'slow.c.pid').read_text()}").exists()
    at_stop = _status(h, run_c.run_id)
    finished = _wait_for((h.data / "slow.c.done").exists, 40, 1)
    if finished is not None:  # the run worker reports the end a moment after the body returns
        _wait_for(lambda: not _status(h, run_c.run_id).startswith("STARTED"), 15, 0.5)
    row("SIGTERM to the dagster-daemon process while a launched run is in flight",
        "do the daemon and its runs stop; what becomes of the run?",
        (f"daemon exited {stop_took:.1f} s after SIGTERM" if stop_took is not None else
         "daemon did not exit within 20 s (killed)")
        + f"; run worker alive after: {worker_alive}, run {at_stop}; its body "
        + (f"finished {finished:.0f} s later, then run {_status(h, run_c.run_id)}" if finished is not None else
           "had not finished 40 s later"),
        "stopping the daemon is not stopping the runs: a clean stop of in-flight runs is a terminate per run "
        "(`finchunk run`'s stop-everything-on-SIGTERM would be a loop over run_launcher.terminate)")
    daemon.kill_group()  # its code server and run workers, when the daemon left them
    if worker_alive and Path(f"/proc/{(h.data / 'slow.c.pid').read_text()}").exists():
        os.kill(int((h.data / "slow.c.pid").read_text()), signal.SIGKILL)


def _pool_task(home: str, data: str, partition: str) -> bool:
    os.environ.update(DAGSTER_HOME=home, TOY_DATA=data, TOY_SLEEP="2")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # Dagster's console log: not on the bench's terminal
    from dagster import DagsterInstance, materialize

    toys = _toys()
    with DagsterInstance.get() as instance:
        return materialize([toys.slow], instance=instance, partition_key=partition, raise_on_error=False).success


def exp_pool_executor(tmp: Path) -> None:
    """The home-made `-j 2`: a spawn ProcessPoolExecutor of 2 workers, each task a materialize()."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    h = Home(tmp, "procpool")
    t0 = time.monotonic()
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        ok = list(pool.map(_pool_task, *zip(*[(str(h.path), str(h.data), k) for k in "abcd"])))
    took = time.monotonic() - t0
    row("home-made `-j 2` (spawn ProcessPoolExecutor, 2 workers, each partition a `materialize()`), "
        "4 partitions of a 2 s asset", "time to 4 runs done", f"{took:.1f} s, {sum(ok)} runs SUCCESS",
        "baseline for the queue row")


# --- 4. remote.py vs UPathIOManager ---------------------------------------------------------
def exp_upath(tmp: Path) -> None:
    h = Home(tmp, "upath")
    res = _json(h.worker("upath", env=h.env(TOY_UPATH=f"file://{tmp}/remote-root")))
    row("UPathIOManager (dagster 1.13, universal_pathlib 0.3.10), base file:// URL",
        "a folder output (FAISS index + parquet) written and read back by a subclass",
        f"reader got {res.get('reader')}; stored files {res.get('files')}; folder uploaded by fs.put, downloaded "
        f"{h.count('folder_download')} times for 2 reads; body ran {h.count('folder_asset')} times in 2 runs",
        "works when the subclass stages the folder in a local temp dir (faiss and parquet need local paths)")
    row("UPath for a non-local URL", "can a local library take it as a path (os.fspath)?",
        res.get("fspath", "?"), "no: every load copies the folder down (no persistent working copy)")


EXPERIMENTS = {"markers": [exp_markers], "pools": [exp_pools],
               "runs": [exp_signals, exp_pool_executor, exp_queue, exp_monitoring], "dev": [exp_dev],
               "upath": [exp_upath]}


INTRO = """Each row is one experiment on toy assets (`bench/dagster_mechanisms/toys.py`: each body logs to
its data folder when it runs) in its own temporary DAGSTER_HOME (SQLite storage). *observed* is
filled from this run; *verdict* is the reading written beside the experiment in the script. The
pieces compared: `storage/artefacts.py` markers (rows 1-7), `storage/claims.py` (pools),
`finchunk run -j` and `cli/process.py` (runs, signals, monitoring, `dagster dev`),
`storage/remote.py` (UPathIOManager).

"""


def table() -> str:
    lines = ["| mechanism | question | observed | verdict for our piece |", "|---|---|---|---|"]
    for r in ROWS:
        lines.append("| " + " | ".join(c.replace("|", "/").replace("\n", " ") for c in r) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        worker(argv[1:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=",".join(EXPERIMENTS), help="comma-separated: " + ",".join(EXPERIMENTS))
    ap.add_argument("--write", action="store_true", help=f"write {PAGE.relative_to(ROOT)}")
    args = ap.parse_args(argv)
    import dagster

    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dagster-mechanisms-") as tmp:
        by_name = {f.__name__: [f] for fs in EXPERIMENTS.values() for f in fs}
        for name in args.only.split(","):
            for exp in EXPERIMENTS.get(name) or by_name[name]:
                t = time.monotonic()
                try:
                    exp(Path(tmp) / exp.__name__)
                except Exception as exc:  # noqa: BLE001 - one failed experiment is a row, not the end
                    row(exp.__name__, "(experiment failed)", f"{type(exc).__name__}: {exc}", "not measured")
                print(f"  ({exp.__name__}: {time.monotonic() - t:.0f} s)", flush=True)
    print(f"total {time.monotonic() - t0:.0f} s")
    if args.write:
        sys.path.insert(0, str(ROOT / "bench"))
        from _docs import command, section, write_page

        note = f"dagster {dagster.__version__}; SQLite instances in a temp folder; total {time.monotonic() - t0:.0f} s"
        write_page(PAGE, "Dagster's mechanisms against the home-made machinery (generated by "
                   "bench/dagster_mechanisms.py)", section(command("dagster_mechanisms.py", argv), INTRO + table(), note=note))
        print(f"wrote {PAGE}")
    else:
        print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
