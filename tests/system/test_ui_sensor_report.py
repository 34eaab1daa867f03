"""What the UI shows after the chunk-set sensor's ticks: a tick that registers partitions says
so (Dagster logged it as "skipped: Sensor function returned an empty result"), and a tick that
retires one runs report_job, whose report leaves out every chunk set that cannot run here — the
report (evaluation_report in the UI, out/) listed a retired chunk set, green, until the next
nightly report."""
from __future__ import annotations

import json

import pytest
from dagster import AssetKey, DagsterInstance, build_sensor_context

from finchunk_pipeline.assets.partitions import chunk_set_partitions
from finchunk_pipeline.assets.resources import PipelineResource
from finchunk_pipeline.assets.sensors import RETIRED_TAG, chunk_set_config_sensor
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline.cli import main


def _tick(instance, pipeline):
    """The sensor evaluated as the daemon does: what its tick records and logs."""
    context = build_sensor_context(instance=instance, resources={"pipeline": pipeline})
    return chunk_set_config_sensor.evaluate_tick(context)


def test_a_tick_that_registers_chunk_sets_says_so(chunkers_file):
    pipeline = PipelineResource(chunkers_file=str(chunkers_file))
    tick = _tick(DagsterInstance.ephemeral(), pipeline)
    assert [r.partition_keys for r in tick.dynamic_partitions_requests] == [["fixed", "recursive", "structure-h"]]
    assert "empty result" not in (tick.skip_message or "")
    assert "registered chunk sets ['fixed', 'recursive', 'structure-h']" in tick.skip_message
    assert "backfill chunk_set_job" in tick.skip_message


def test_a_tick_that_retires_a_chunk_set_runs_report_job(chunkers_file):
    pipeline = PipelineResource(chunkers_file=str(chunkers_file))
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(chunk_set_partitions.name, ["fixed", "recursive", "structure-h", "gone"])
    tick = _tick(instance, pipeline)
    assert [(type(r).__name__, r.partition_keys) for r in tick.dynamic_partitions_requests] == \
        [("DeleteDynamicPartitionsRequest", ["gone"])]
    assert [(r.job_name, r.tags.get(RETIRED_TAG)) for r in tick.run_requests] == [("report_job", "gone")]
    assert tick.skip_message is None  # a tick with a run: "1 requested"


@pytest.mark.slow  # runs the whole graph once
def test_the_report_leaves_out_a_chunk_set_that_cannot_run_here(tmp_path, default_corpus_copy, chunkers_file,
                                                                 monkeypatch):
    """The sensor retires a declared chunk set that cannot run here: the report its tick
    requests must not show the set's last evaluation as current."""
    from finchunk_pipeline.cli.named_runs import command_definitions, execute_job
    from finchunk_pipeline.definitions import resources

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    args = ["run", "--corpus", str(default_corpus_copy), "--out", str(tmp_path / "out"), "--data",
            str(tmp_path / "store"), "--chunkers", str(chunkers_file), "--retrievers", "bm25"]
    assert main(args) == 0
    report = tmp_path / "out" / "evaluation.json"
    assert {e["name"] for e in json.loads(report.read_text())["chunk_sets"]} == {"fixed", "recursive", "structure-h"}

    # it cannot run here any more, its stored evaluation still found (as for `enrich: llm` once
    # FINCHUNK_LLM_BASE_URL is unset: the chunk set's version does not change)
    monkeypatch.setattr(STRATEGIES["fixed"], "available", lambda: False)
    pipeline = PipelineResource(corpus_dir=str(default_corpus_copy), out_dir=str(tmp_path / "out"),
                                data_root=str(tmp_path / "store"), chunkers_file=str(chunkers_file), retrievers="bm25")
    with DagsterInstance.get() as instance:
        tick = _tick(instance, pipeline)
        assert [r.job_name for r in tick.run_requests] == ["report_job"]
        result = execute_job(command_definitions(resources(pipeline)), "report_job", instance)
        assert result.success
        event = instance.get_latest_materialization_event(AssetKey("evaluation_report"))
        metadata = event.asset_materialization.metadata
    assert {e["name"] for e in json.loads(report.read_text())["chunk_sets"]} == {"recursive", "structure-h"}
    assert metadata["not_runnable"].value == ["fixed"]
    assert "| fixed |" not in (tmp_path / "out" / "evaluation.md").read_text()
