"""Materialize through the Dagster webserver, as a user clicking in the UI would.

    python bench/ui_launch.py [--port 3917] [--chunk-set structure-h] [--retrievers bm25]

Starts ``dagster dev -w workspace.yaml -h 127.0.0.1`` in its own process group with a fresh
DAGSTER_HOME and data root (tmp), waits for the chunk-set config sensor to register the
partitions (the daemon runs it), launches documents_job, chunk_set_job for one partition and
report_job through the GraphQL API (runs go through the queued run coordinator and the run
launcher, in their own processes), waits for each, checks evaluation.json, and stops
dagster dev. Exits 1 when a run fails or a partition never appears. Only 127.0.0.1 is used.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def wait_http(url: str, seconds: float) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            time.sleep(1)
    return False


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=3917)
    ap.add_argument("--chunk-set", default="structure-h")
    ap.add_argument("--retrievers", default="bm25", help="FINCHUNK_RETRIEVERS for the launched runs")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="finchunk-ui-launch-"))
    env = dict(os.environ, DAGSTER_HOME=str(tmp / "dagster_home"), FINCHUNK_DATA=str(tmp / "store"),
               FINCHUNK_OUT=str(tmp / "out"), FINCHUNK_RETRIEVERS=args.retrievers)
    (tmp / "dagster_home").mkdir()
    shutil.copy(PROJECT / "dagster.yaml", tmp / "dagster_home" / "dagster.yaml")
    cmd = [str(Path(sys.executable).parent / "dagster"), "dev", "-w", "workspace.yaml", "-h", "127.0.0.1",
           "-p", str(args.port)]
    log = open(tmp / "dagster_dev.log", "w")
    proc = subprocess.Popen(cmd, cwd=PROJECT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    ok = False
    try:
        if not wait_http(f"http://127.0.0.1:{args.port}/server_info", 120):
            print(f"dagster dev did not answer; see {tmp / 'dagster_dev.log'}")
            return 1
        from dagster import DagsterInstance
        from dagster_graphql import DagsterGraphQLClient

        client = DagsterGraphQLClient("127.0.0.1", port_number=args.port)

        def run(job: str, **kw) -> str:
            run_id = client.submit_job_execution(job, **kw)
            for _ in range(900):
                status = client.get_run_status(run_id).value
                if status in ("SUCCESS", "FAILURE", "CANCELED"):
                    break
                time.sleep(1)
            print(f"{job} {kw.get('tags', '')}: {status} (run {run_id[:8]})", flush=True)
            return status

        os.environ["DAGSTER_HOME"] = env["DAGSTER_HOME"]
        instance = DagsterInstance.get()
        for _ in range(90):  # the sensor runs every 30 s under the daemon
            if args.chunk_set in instance.get_dynamic_partitions("chunk_sets"):
                break
            time.sleep(2)
        else:
            print(f"partition {args.chunk_set!r} was never registered by the sensor")
            return 1
        print(f"sensor registered partitions: {instance.get_dynamic_partitions('chunk_sets')}")
        statuses = [run("documents_job"),
                    run("chunk_set_job", tags={"dagster/partition": args.chunk_set}),
                    run("report_job")]
        report = json.loads((tmp / "out" / "evaluation.json").read_text())
        names = {e["name"] for e in report["chunk_sets"]}
        ok = all(s == "SUCCESS" for s in statuses) and args.chunk_set in names
        print(f"evaluation.json lists {sorted(names)}; {'ok' if ok else 'FAILED'}")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
