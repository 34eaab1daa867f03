"""Dagster on Postgres by configuration only: ``deploy/dagster.yaml`` (Postgres run, event and
schedule storage; S3 compute logs) against a real PostgreSQL and a real S3 API server on
127.0.0.1. The commands of README "Scaling out" run through it: ``finchunk partitions sync``,
``dagster asset materialize`` (documents, then one chunk set's partition), ``dagster job
backfill`` of two chunk sets, whose queued runs ``dagster-daemon run`` starts, each in its
own process, with their step logs uploaded to the bucket."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

from click.testing import CliRunner
from dagster import AssetKey, AssetRecordsFilter, DagsterInstance, DagsterRunStatus, RunsFilter

from finchunk_pipeline.cli import main
from finchunk_pipeline import PROJECT_ROOT

MODULE = "finchunk_pipeline.definitions"


def dagster_cli(*args: str):
    from dagster._cli import cli

    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, f"dagster {' '.join(args)}:\n{result.output}"
    return result.output


def test_postgres_instance_runs_the_chunk_set_job_and_a_backfill(tmp_path, postgres_server, s3_server,
                                                                default_corpus_copy, chunkers_file,
                                                                monkeypatch):
    db = postgres_server.create_database()
    bucket = s3_server.create_bucket()
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(PROJECT_ROOT / "deploy" / "dagster.yaml", home / "dagster.yaml")  # as documented, unchanged
    env = {"DAGSTER_HOME": str(home), "DAGSTER_PG_HOST": postgres_server.host,
           "DAGSTER_PG_PORT": str(postgres_server.port), "DAGSTER_PG_USER": postgres_server.user,
           "DAGSTER_PG_PASSWORD": "", "DAGSTER_PG_DB": db, "DAGSTER_MAX_CONCURRENT_RUNS": "2",
           "DAGSTER_COMPUTE_LOGS_BUCKET": bucket, **s3_server.env(),
           "FINCHUNK_CORPUS": str(default_corpus_copy), "FINCHUNK_DATA": str(tmp_path / "data"),
           "FINCHUNK_OUT": str(tmp_path / "out"), "FINCHUNK_CHUNKERS": str(chunkers_file),
           "FINCHUNK_RETRIEVERS": "bm25"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)

    with DagsterInstance.get() as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert type(instance.event_log_storage).__name__ == "PostgresEventLogStorage"
        assert type(instance.schedule_storage).__name__ == "PostgresScheduleStorage"
        assert type(instance.compute_log_manager).__name__ == "S3ComputeLogManager"

    assert main(["partitions", "sync"]) == 0
    # the daemon starts queued runs (it boots while the commands below run in this process)
    daemon = subprocess.Popen([sys.executable, "-m", "dagster._daemon", "run", "-m", MODULE],
                              env={**os.environ}, cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=open(tmp_path / "daemon.log", "wb"), start_new_session=True)
    try:
        dagster_cli("asset", "materialize", "-m", MODULE, "--select", "raw_documents,parsed_blocks")
        dagster_cli("asset", "materialize", "-m", MODULE, "--select",
                    "chunk_sets,bm25_index,faiss_index,retrieval_evaluation", "--partition", "structure-h")
        out = dagster_cli("job", "backfill", "-m", MODULE, "-j", "chunk_set_job", "--partitions", "fixed,recursive",
                          "--noprompt")
        backfill_id = out.split("Launched backfill job `")[1].split("`")[0]
        with DagsterInstance.get() as instance:
            runs = instance.get_runs(RunsFilter(tags={"dagster/backfill": backfill_id}))
            assert sorted(r.tags["dagster/partition"] for r in runs) == ["fixed", "recursive"]
            deadline = time.monotonic() + 240
            while not all(r.is_finished for r in runs):
                assert time.monotonic() < deadline, f"runs not finished: {[(r.run_id, r.status) for r in runs]}"
                time.sleep(0.5)
                runs = instance.get_runs(RunsFilter(tags={"dagster/backfill": backfill_id}))
    finally:
        os.killpg(daemon.pid, signal.SIGTERM)
        daemon.wait(60)
    with DagsterInstance.get() as instance:
        assert {r.status for r in runs} == {DagsterRunStatus.SUCCESS}, \
            (tmp_path / "daemon.log").read_text()[-3000:]
        records = instance.fetch_materializations(
            AssetRecordsFilter(asset_key=AssetKey("retrieval_evaluation"),
                               asset_partitions=["fixed", "recursive", "structure-h"]), limit=10).records
        assert sorted(r.partition_key for r in records) == ["fixed", "recursive", "structure-h"]

    # it is all in Postgres, and the runs' step logs are in the bucket
    (n_runs,) = postgres_server.query(db, "SELECT count(*) FROM runs")[0]
    assert n_runs == 4  # documents, one partition, two backfill runs
    partitions = postgres_server.query(db, "SELECT partition FROM dynamic_partitions ORDER BY partition")
    assert [p for (p,) in partitions] == ["fixed", "recursive", "structure-h"]
    logs = s3_server.client().list_objects_v2(Bucket=bucket, Prefix="dagster-compute-logs/").get("Contents", [])
    assert logs, "compute logs were not uploaded to the bucket"
