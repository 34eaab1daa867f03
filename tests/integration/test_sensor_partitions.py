"""The chunk-set partitions follow the chunker config file: the sensor (and ``finchunk
partitions sync``) registers declared chunk sets whose strategy can run here, leaves out those
whose optional extra is missing, and retires partitions no longer declared."""
from __future__ import annotations

from dagster import DagsterInstance, SensorResult, SkipReason, build_sensor_context

from finchunk_pipeline.assets.partitions import chunk_set_partitions
from finchunk_pipeline.assets.resources import PipelineResource
from finchunk_pipeline.assets.sensors import chunk_set_config_sensor
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline import Strategy
from finchunk_pipeline.cli import main


class NeedsExtra(Strategy):
    name = "needs_extra"
    requires = "finchunk_no_such_optional_module"
    defaults = {}


def _setup(tmp_path, chunkers_file, monkeypatch):
    monkeypatch.setitem(STRATEGIES, "needs_extra", NeedsExtra())
    chunkers_file.write_text(chunkers_file.read_text() + "  - {name: extra-only, strategy: needs_extra, dense: false}\n")
    return PipelineResource(chunkers_file=str(chunkers_file))


def test_sensor_registers_runnable_chunk_sets_and_retires_undeclared(tmp_path, chunkers_file, monkeypatch):
    pipeline = _setup(tmp_path, chunkers_file, monkeypatch)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(chunk_set_partitions.name, ["fixed", "removed-from-file", "extra-only"])
    result = chunk_set_config_sensor(build_sensor_context(instance=instance, resources={"pipeline": pipeline}))
    assert isinstance(result, SensorResult)
    requests = {type(r).__name__: r for r in result.dynamic_partitions_requests}
    assert requests["AddDynamicPartitionsRequest"].partition_keys == ["recursive", "structure-h"]
    assert sorted(requests["DeleteDynamicPartitionsRequest"].partition_keys) == ["extra-only", "removed-from-file"]
    for r in result.dynamic_partitions_requests:  # what the sensor daemon does with them
        if type(r).__name__ == "AddDynamicPartitionsRequest":
            instance.add_dynamic_partitions(r.partitions_def_name, r.partition_keys)
        else:
            for key in r.partition_keys:
                instance.delete_dynamic_partition(r.partitions_def_name, key)
    assert sorted(instance.get_dynamic_partitions(chunk_set_partitions.name)) == ["fixed", "recursive", "structure-h"]
    again = chunk_set_config_sensor(build_sensor_context(instance=instance, resources={"pipeline": pipeline}))
    assert isinstance(again, SkipReason) and "extra-only" in again.skip_message


def test_partitions_sync_command_does_what_the_sensor_does(tmp_path, chunkers_file, monkeypatch, capsys):
    _setup(tmp_path, chunkers_file, monkeypatch)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    with DagsterInstance.from_config(str(_home(tmp_path))) as instance:
        instance.add_dynamic_partitions(chunk_set_partitions.name, ["gone"])
    assert main(["partitions", "sync", "--chunkers", str(chunkers_file)]) == 0
    out = capsys.readouterr().out
    assert "retired:    gone" in out and "not registered: extra-only" in out
    with DagsterInstance.from_config(str(tmp_path / "home")) as instance:
        assert sorted(instance.get_dynamic_partitions(chunk_set_partitions.name)) == ["fixed", "recursive", "structure-h"]


def _home(tmp_path):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    return home


def test_llm_enriched_chunk_set_is_registered_only_with_an_endpoint(tmp_path, chunkers_file, monkeypatch):
    """Like a missing extra: without FINCHUNK_LLM_BASE_URL its runs could only fail."""
    from finchunk_pipeline.assets.sensors import partition_changes

    chunkers_file.write_text(chunkers_file.read_text() + "  - {name: llm-e, strategy: fixed, dense: false, "
                                                         "enrich: {enricher: llm, model: m}}\n")
    pipeline = PipelineResource(chunkers_file=str(chunkers_file))
    monkeypatch.delenv("FINCHUNK_LLM_BASE_URL", raising=False)
    changes = partition_changes(pipeline, DagsterInstance.ephemeral())
    assert "llm-e" not in changes.add and "FINCHUNK_LLM_BASE_URL" in changes.skipped["llm-e"]
    monkeypatch.setenv("FINCHUNK_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    changes = partition_changes(pipeline, DagsterInstance.ephemeral())
    assert "llm-e" in changes.add and "llm-e" not in changes.skipped
