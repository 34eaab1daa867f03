"""``finchunk run``: the whole asset graph in-process, as runs of the code location's named
jobs (documents_job, chunk_set_job per chunk set, xbrl_job, answers_job, report_job), and
``finchunk ui``.

Runs are recorded in a persistent Dagster instance (DAGSTER_HOME, default
``<project>/dagster_home``), so ``finchunk ui`` (or ``dagster dev`` with the same
DAGSTER_HOME) shows them afterwards.
"""
from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from pathlib import Path

from ..memory import limit_heap_retention, release
from ..progress import TERMINAL_ENV
from .process import (SignalWatch, reap_orphaned_runs, relay, run_tags, signal_name, supervise,
                      terminal_foreground, watch_worker_signals, worker_task)
from ..settings import PROJECT_ROOT


def dagster_home() -> Path:
    """Dagster's instance folder (DAGSTER_HOME, default ``<project>/dagster_home``), set for this
    process and its children: configuring Dagster, not one of our settings (settings.py)."""
    home = Path(os.environ.get("DAGSTER_HOME") or PROJECT_ROOT / "dagster_home").resolve()
    home.mkdir(parents=True, exist_ok=True)
    if not (home / "dagster.yaml").exists() and (PROJECT_ROOT / "dagster.yaml").exists():
        shutil.copy(PROJECT_ROOT / "dagster.yaml", home / "dagster.yaml")
    os.environ["DAGSTER_HOME"] = str(home)
    return home


def register(sub) -> None:
    p = sub.add_parser("run", help="run the whole pipeline (parse, chunk, index, evaluate) on a corpus")
    p.add_argument("--corpus", help="corpus folder (default: the embedded data/corpus/default)")
    p.add_argument("--out", help="run output folder for evaluation.json/md, parse_report.json (default: out/)")
    p.add_argument("--data", help="data root for the raw store, blocks, chunks, indexes (default: data/store)")
    p.add_argument("--data-url", help="remote data root, an fsspec URL such as s3://bucket/finchunk "
                                      "(default: FINCHUNK_DATA_URL; --data is then the local working copy)")
    p.add_argument("--chunkers", help="chunker config file (default: data/chunkers.yaml)")
    p.add_argument("--chunk-sets", help="comma-separated chunk-set names to run (default: all declared)")
    p.add_argument("--retrievers", default=None, help="comma-separated retrievers to evaluate (default: all available)")
    p.add_argument("-j", "--jobs", type=int, default=1,
                   help="chunk sets (and the xbrl branch) to run at once, each in its own process "
                        "and Dagster run (default: 1, one after the other)")
    p.add_argument("--parse-workers", type=int, default=None, metavar="N",
                   help="processes that parse the documents (default: FINCHUNK_PARSE_WORKERS, else one per "
                        "core when at least 32 MB of documents are new)")
    p.add_argument("--answers", nargs="?", const=20, type=int, default=None, metavar="N",
                   help="also materialize the optional answers asset for N questions (default 20): each chunk "
                        "set's context at the same budget side by side, answered by the model at "
                        "FINCHUNK_ANSWER_BASE_URL when set")
    p.add_argument("-v", "--verbose", action="store_true", help="Dagster's own logs and full tracebacks")
    p.set_defaults(func=run)

    u = sub.add_parser("ui", help="start the Dagster UI (dagster dev) on 127.0.0.1 with the project's DAGSTER_HOME")
    u.add_argument("--port", type=int, default=3000)
    u.set_defaults(func=ui)


def _pipeline_config(args) -> dict:
    """The pipeline resource's fields from the command line ("" = the setting's default)."""
    return dict(
        corpus_dir=str(Path(args.corpus).resolve()) if args.corpus else "",
        out_dir=str(Path(args.out).resolve()) if args.out else "",
        data_root=str(Path(args.data).resolve()) if args.data else "",
        chunkers_file=str(Path(args.chunkers).resolve()) if args.chunkers else "",
        data_url=args.data_url or "",
        retrievers=args.retrievers or "",  # "" = FINCHUNK_RETRIEVERS or all
        parse_workers="" if args.parse_workers is None else str(args.parse_workers),  # "" = FINCHUNK_PARSE_WORKERS or auto
    )


def _chosen_configs(pipeline, args) -> list:
    """The declared chunk sets --chunk-sets names (all by default); an unknown name is an error."""
    configs = pipeline.chunker_configs()
    if args.chunk_sets:
        wanted = [n.strip() for n in args.chunk_sets.split(",") if n.strip()]
        unknown = sorted(set(wanted) - {c.name for c in configs})
        if unknown:
            raise ValueError(f"unknown chunk sets {unknown}; declared in {pipeline.settings().chunkers_file}: "
                             f"{[c.name for c in configs]}")
        configs = [c for c in configs if c.name in wanted]
    return configs


def _runnable(configs: list, changes) -> list:
    """``configs`` less the chunk sets that cannot run here (a missing extra or LLM endpoint), said so."""
    configs = list(configs)
    for c in [c for c in configs if c.name in changes.skipped]:
        hint = ("see README \"Enrichment\"" if "FINCHUNK_LLM" in changes.skipped[c.name]
                else "pip install -e '.[baselines]'")
        print(f"note: chunk set {c.name!r} skipped: {changes.skipped[c.name]} ({hint})")
        configs.remove(c)
    return configs


def _definitions(pipeline_config: dict, quiet: dict | None):
    """The code location's jobs with this command's resources; quiet (no -v): Dagster's console
    logger without the failures an interrupt causes (console_log.py)."""
    from ..assets.resources import PipelineResource
    from ..definitions import resources
    from .console_log import quiet_loggers
    from .named_runs import command_definitions

    return command_definitions(resources(PipelineResource(**pipeline_config)),
                               loggers=quiet_loggers() if quiet is not None else None)


class _Steps:
    """The in-process runs of one ``finchunk run``: each step one run of a named job of the code
    location (named_runs.py: the UI lists them under the job, on the Overview timeline too); a
    failure is reported and the remaining steps still run, a stop signal ends everything
    (KeyboardInterrupt)."""

    def __init__(self, instance, definitions, quiet: dict | None, watch):
        self.instance, self.definitions, self.quiet, self.watch = instance, definitions, quiet, watch
        self.tags = run_tags()  # names this process on its runs: a later start can tell they were orphaned
        self.runs: list[str] = []
        self.failures: list[str] = []

    def __call__(self, label: str, job_name: str, partition_key: str | None = None,
                 run_config: dict | None = None) -> bool:
        from .named_runs import execute_job

        t0 = time.perf_counter()
        print(f"  {label} ...", flush=True)  # long stages print progress lines below it (stderr)
        # a stop signal outside the run (Dagster handles those inside) is held back to its end, not
        # raised into the instance's storage calls; one before the run starts stops it (named_runs.py)
        with self.watch.deferred():
            result = execute_job(self.definitions, job_name, self.instance, partition_key=partition_key,
                                 run_config=self.quiet if run_config is None else run_config, tags=self.tags,
                                 stop_requested=self.watch.received)
            self.runs.append(result.run_id)
        release()  # what the run dropped goes back to the system before the next one (memory.py)
        if self.watch.received():  # Dagster took the signal inside the run and failed it as interrupted
            raise KeyboardInterrupt
        if result.success:
            print(f"    done in {time.perf_counter() - t0:.1f}s (run {result.run_id[:8]})", flush=True)
            return True
        why = "; ".join(_failure_messages(result)) or "see the run in the UI"
        print(f"    FAILED in {time.perf_counter() - t0:.1f}s (run {result.run_id[:8]}): {why}", flush=True)
        self.failures.append(f"{label}: {why}")
        return False


def _all_steps(step: _Steps, args, configs: list, pipeline_config: dict) -> bool:
    """Documents, every chunk set (in --jobs processes or one after the other) and the xbrl
    branch, the answers if asked, the report. False: the documents stage failed."""
    if not step("documents: raw_documents, parsed_blocks, generated_gold", "documents_job"):
        print("\n".join(["", "the documents stage failed; nothing else can run:", *step.failures]), file=sys.stderr)
        return False
    xbrl_label = "xbrl: facts into DuckDB, derived quarters, point-in-time answers"
    labels = [f"chunk set {i}/{len(configs)} {c.name}: chunks, indexes, evaluation" for i, c in enumerate(configs, 1)]
    if args.jobs > 1:
        tasks = [*zip(labels, [c.name for c in configs]), (xbrl_label, None)]
        step.failures.extend(run_concurrently(tasks, pipeline_config, step.quiet, args.jobs, step.watch))
    else:
        for label, config in zip(labels, configs):
            step(label, "chunk_set_job", partition_key=config.name)
        step(xbrl_label, "xbrl_job")
    if args.answers is not None:
        answers_config = {"ops": {"answers": {"config": {"sample": args.answers}}}}
        step(f"answers: {args.answers} questions side by side", "answers_job",
             run_config={**(step.quiet or {}), **answers_config})
    step("evaluation_report", "report_job")
    return True


def _summary(settings, failures: list[str]) -> int:
    """The report's headline, where the outputs are, and the failed steps (exit 1 if any)."""
    report = settings.out_dir / "evaluation.md"
    print()
    if report.exists():
        print(headline(report.read_text(encoding="utf-8")))
    print(f"report: {settings.out_dir / 'evaluation.json'}\n        {report}\n"
          f"parse report: {settings.out_dir / 'parse_report.json'}\n"
          f"runs are in DAGSTER_HOME={os.environ['DAGSTER_HOME']} (see them with: finchunk ui)")
    if failures:
        print(f"\n{len(failures)} step(s) failed; the report covers the rest:", file=sys.stderr)
        for f in failures:
            print(f"  - {f}", file=sys.stderr)
        return 1
    return 0


def _stopped(watch, instance, runs: list[str]) -> int:
    """After a stop signal: mark what it left unfinished, say so, exit 128 + the signal."""
    signum = watch.received() or signal.SIGINT
    # a signal between Dagster's own handling points can leave this process's run
    # unfinished in the instance: mark it now rather than at the next start
    marked = reap_orphaned_runs(instance, only_pid=os.getpid())
    marked += reap_orphaned_runs(instance)  # --jobs workers, stopped by now
    failed = [r for r in runs if r not in marked and _interrupted(instance, r)] + marked
    print(f"\nfinchunk run: interrupted by {signal_name(signum)}: stopped; nothing else was started"
          + (f"; run {', '.join(r[:8] for r in failed)} marked failed" if failed else ""),
          file=sys.stderr, flush=True)
    return 128 + int(signum)


def run(args) -> int:
    if sys.argv[1:2] == ["run"] and terminal_foreground():
        # the foreground job of a terminal: the command again in its own session, this process
        # relaying Ctrl-C to it alone, so that Dagster's helper processes in its runs (compute-log
        # tail, watch_orphans.py) are not hit by the terminal's SIGINT and print no tracebacks
        return relay([sys.executable, *sys.orig_argv[1:]])
    # configuring Dagster and the child processes, not reading our settings (settings.py does):
    # the instance's home, and progress lines on the terminal for parsing, chunking, embedding
    dagster_home()
    os.environ.setdefault(TERMINAL_ENV, "1")
    limit_heap_retention()  # blocks of 4 MiB and more unmapped when freed (memory.py)
    from dagster import DagsterInstance

    from ..assets.resources import PipelineResource
    from ..assets.sensors import apply_partition_changes, partition_changes

    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    pipeline_config = _pipeline_config(args)
    pipeline = PipelineResource(**pipeline_config)
    settings = pipeline.settings()
    corpus = pipeline.corpus()  # validate before starting anything
    configs = _chosen_configs(pipeline, args)
    instance = DagsterInstance.get()
    changes = partition_changes(pipeline, instance)
    configs = _runnable(configs, changes)
    print(f"corpus   {corpus.path}  ({len(corpus.documents)} documents, "
          f"{0 if corpus.questions is None else len(corpus.questions)} questions)")
    print(f"data     {settings.data_root}\nout      {settings.out_dir}\nretrievers {pipeline.retriever_names()}"
          + (f"\njobs     {args.jobs}" if args.jobs > 1 else ""))
    _reap(instance)
    # register what runs now; retiring undeclared partitions is the sensor's job (another
    # chunker file may have registered them)
    apply_partition_changes(changes, instance, retire=False)
    quiet = None if args.verbose else {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
    # SIGINT (Ctrl-C), SIGTERM, SIGHUP: the run in progress fails as interrupted, nothing after
    # it starts, and the command exits 128 + the signal's number
    with SignalWatch() as watch:
        step = _Steps(instance, _definitions(pipeline_config, quiet), quiet, watch)
        try:
            t_all = time.perf_counter()
            if not _all_steps(step, args, configs, pipeline_config):
                return 1
            print(f"finished in {time.perf_counter() - t_all:.1f}s")
            return _summary(settings, step.failures)
        except KeyboardInterrupt:
            return _stopped(watch, instance, step.runs)


def _interrupted(instance, run_id: str) -> bool:
    """Whether Dagster failed this run because its process was interrupted (not a step error)."""
    run = instance.get_run_by_id(run_id)
    return run is not None and run.status.value == "FAILURE" and \
        run.tags.get("dagster/failure_reason") == "UNEXPECTED_TERMINATION"


def _run_task(pipeline_config: dict, partition_key: str | None, run_config: dict | None) -> dict:
    """In a worker process: one chunk set's partition of chunk_set_job (or, for None, xbrl_job)
    as its own Dagster run in the persistent instance. Returns a picklable summary."""
    from dagster import DagsterInstance

    from .named_runs import execute_job

    t0 = time.perf_counter()
    job_name = "chunk_set_job" if partition_key is not None else "xbrl_job"
    # after a stop signal this worker starts nothing (its interrupted run returned normally)
    with worker_task() as signals, DagsterInstance.get() as instance:
        result = execute_job(_definitions(pipeline_config, run_config), job_name, instance,
                             partition_key=partition_key, run_config=run_config,
                             tags=run_tags(),  # this worker's pid: its runs are reaped if it is killed
                             stop_requested=signals.received)
    return {"success": result.success, "run_id": result.run_id, "messages": _failure_messages(result),
            "seconds": time.perf_counter() - t0}


def run_concurrently(tasks: list[tuple[str, str | None]], pipeline_config: dict, run_config: dict | None,
                     jobs: int, watch: SignalWatch) -> list[str]:
    """Run ``tasks`` (label, partition key or None for the xbrl branch) in ``jobs`` worker
    processes, each task its own Dagster run. Runs that need the same artefact wait for its
    claim (claims.py), so a version is still built once. Returns the failures. ``watch`` (the
    command's SignalWatch): a stop signal while the pool starts its workers is held back until
    every task is submitted, then handled like one that comes later."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    failures = []
    print(f"  {len(tasks)} runs, {jobs} at a time:", flush=True)
    before = set(multiprocessing.active_children())
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                             initializer=watch_worker_signals) as pool:
        try:
            # the pool starts a worker inside submit and registers it only after it started: an
            # interrupt in between leaves a worker it never stops, waiting for a task forever
            with watch.deferred():
                futures = {pool.submit(_run_task, pipeline_config, key, run_config): label for label, key in tasks}
            for future in as_completed(futures):
                label = futures[future]
                try:
                    r = future.result()
                except Exception as exc:  # noqa: BLE001 - a worker that died is a failed step, not a crash
                    print(f"  {label} ... FAILED: {type(exc).__name__}: {exc}", flush=True)
                    failures.append(f"{label}: {type(exc).__name__}: {exc}")
                    continue
                if r["success"]:
                    print(f"  {label} ... done in {r['seconds']:.1f}s (run {r['run_id'][:8]})", flush=True)
                else:
                    why = "; ".join(r["messages"]) or "see the run in the UI"
                    print(f"  {label} ... FAILED in {r['seconds']:.1f}s (run {r['run_id'][:8]}): {why}", flush=True)
                    failures.append(f"{label}: {why}")
        except KeyboardInterrupt:
            # a stop signal: queued runs never start, running workers get SIGTERM (Dagster fails
            # their runs as interrupted; a worker between runs just ends), then the caller marks
            # what is left unfinished
            workers = set(multiprocessing.active_children()) - before
            for proc in workers:
                proc.terminate()
            pool.shutdown(wait=True, cancel_futures=True)
            _end_processes(workers)
            raise
    return failures


def _end_processes(procs, grace: float = 30.0) -> None:
    """Wait up to ``grace`` seconds for each process to end, then kill it: no worker outlives
    the command (the pool joins only the workers it registered)."""
    deadline = time.monotonic() + grace
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(5)


def headline(markdown: str) -> str:
    """The report's first table section (recall at context budgets, global mode) and the
    point-in-time line: what a terminal shows; the files hold everything else."""
    sections = markdown.split("\n## ")
    keep = [sections[0].split("\n")[0]] + [f"## {sec}" for sec in sections[1:] if sec.startswith("Summary")]
    tables = [sec for sec in sections[1:] if sec.startswith("Recall (%) at context budgets")]
    keep += [f"## {sec}" for sec in tables[:1]]
    keep += [f"## {sec}" for sec in sections[1:] if sec.startswith("Point-in-time")]
    return "\n\n".join(k.strip() for k in keep) + "\n"


def _failure_messages(result) -> list[str]:
    """Short reasons of a failed in-process run: failed steps and failed blocking checks."""
    out = []
    for event in result.all_events:
        if event.is_step_failure:
            err = event.step_failure_data.error
            msg = (err.cause.message if err.cause is not None else err.message).strip().splitlines()[0]
            out.append(f"{event.step_key}: {msg}")
    return out


def _reap(instance) -> None:
    marked = reap_orphaned_runs(instance)
    if marked:
        print(f"note: {len(marked)} run(s) left unfinished by a finchunk process that was killed are now "
              f"marked failed: {', '.join(r[:8] for r in marked)}", file=sys.stderr)


UI_STOP_GRACE = 30.0  # seconds dagster dev gets to stop its webserver, daemon and code servers


def ui(args) -> int:
    """dagster dev as a supervised child: SIGINT / SIGTERM / SIGHUP to this process stop it
    and every process it started (process.supervise), also when started in the background."""
    home = dagster_home()
    from dagster import DagsterInstance

    _reap(DagsterInstance.get())
    cmd = [sys.executable, "-m", "dagster", "dev", "-w", str(PROJECT_ROOT / "workspace.yaml"),
           "-h", "127.0.0.1", "-p", str(args.port)]
    print(f"DAGSTER_HOME={home}\n{' '.join(cmd)}\n(stop with Ctrl-C or kill {os.getpid()})", flush=True)
    return supervise(cmd, cwd=PROJECT_ROOT, grace=UI_STOP_GRACE, name="dagster dev")
