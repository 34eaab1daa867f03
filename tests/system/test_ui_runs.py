"""What the UI shows of `finchunk run`: its runs are runs of the code location's named jobs
(documents_job, chunk_set_job per chunk set, xbrl_job, report_job), with the remote origin the
UI groups runs by — the Overview timeline leaves out runs without one, and `materialize` named
them all `__ephemeral_asset_job__`. Checked on the instance (what GraphQL's Run.pipelineName
and Run.repositoryOrigin resolve from)."""
from __future__ import annotations

import pytest
from dagster import DagsterEventType, DagsterInstance

from finchunk_pipeline.cli import main
from finchunk_pipeline.cli.named_runs import location_name

EXPECTED = [("chunk_set_job", "fixed"), ("chunk_set_job", "recursive"), ("chunk_set_job", "structure-h"),
            ("documents_job", ""), ("report_job", ""), ("xbrl_job", "")]


def _args(tmp_path, corpus, chunkers):
    return ["run", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--data", str(tmp_path / "store"),
            "--chunkers", str(chunkers), "--retrievers", "bm25"]


@pytest.mark.parametrize("jobs", ["1", pytest.param("2", marks=pytest.mark.slow)])
def test_finchunk_run_launches_the_named_jobs_of_the_code_location(tmp_path, default_corpus_copy, chunkers_file,
                                                                    monkeypatch, jobs):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    assert main(_args(tmp_path, default_corpus_copy, chunkers_file) + ["--jobs", jobs]) == 0
    with DagsterInstance.get() as instance:
        runs = instance.get_runs()
        assert sorted((r.job_name, r.tags.get("dagster/partition") or "") for r in runs) == EXPECTED
        assert all(r.is_success for r in runs)
        for run in runs:  # the UI's Run.repositoryOrigin: the location `finchunk ui` serves, its one repository
            origin = run.remote_job_origin
            assert origin is not None, run.job_name
            assert origin.job_name == run.job_name
            assert origin.repository_origin.code_location_origin.location_name == location_name() == \
                "finchunk_pipeline.definitions"
            assert origin.repository_origin.repository_name == "__repository__"
        # the checks still run with the assets they gate (chunk_set_job: 3 per chunk set), and the
        # materializations carry the partition as before
        for run in runs:
            checks = instance.all_logs(run.run_id, of_type=DagsterEventType.ASSET_CHECK_EVALUATION)
            mats = instance.all_logs(run.run_id, of_type=DagsterEventType.ASSET_MATERIALIZATION)
            if run.job_name == "chunk_set_job":
                assert len(checks) == 3, (run.tags, [c.dagster_event.event_specific_data for c in checks])
                assert {m.dagster_event.partition for m in mats} == {run.tags["dagster/partition"]}
