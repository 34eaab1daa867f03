"""Operations: partitioned asset checks, the nightly schedule, the config sensor, and backfilling a
new chunker configuration without re-parsing (tmp corpus copy + tmp data root + tmp instance)."""
import dataclasses
import shutil
from datetime import datetime, timezone

import pytest
import yaml
from dagster import (AssetKey, DagsterInstance, RunRequest, SensorResult, SkipReason, build_schedule_context,
                     build_sensor_context, materialize)

from finchunk_pipeline.assets.checks import ASSET_CHECKS, recall_drops, token_packed
from finchunk_pipeline.assets.chunks import chunk_sets
from finchunk_pipeline.assets.documents import parsed_blocks, raw_documents
from finchunk_pipeline.assets.evaluation import retrieval_evaluation
from finchunk_pipeline.assets.indexes import bm25_index
from finchunk_pipeline.assets.partitions import chunk_set_partitions
from finchunk_pipeline.assets.resources import PipelineResource
from finchunk_pipeline.assets.schedules import nightly_evaluation
from finchunk_pipeline.assets.sensors import chunk_set_config_sensor
from finchunk_pipeline import ChunkerConfig
from finchunk_pipeline import DEFAULT_CORPUS

PARTITIONED = [chunk_sets, bm25_index, retrieval_evaluation]
CONFIGS = {
    "fixed": {"name": "fixed", "strategy": "fixed", "params": {"size": 500, "overlap": 50}, "dense": False},
    "structure-h": {"name": "structure-h", "strategy": "structure", "params": {"max_chars": 800},
                    "header": True, "dense": False},
}
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def _write_chunkers(path, names):
    path.write_text(yaml.safe_dump({"chunk_sets": [CONFIGS[n] for n in names]}))


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("ops")
    corpus = root / "corpus"
    shutil.copytree(DEFAULT_CORPUS, corpus)
    chunkers = root / "chunkers.yaml"
    _write_chunkers(chunkers, ["fixed"])
    pipeline = PipelineResource(corpus_dir=str(corpus), data_root=str(root / "data"), out_dir=str(root / "out"),
                                chunkers_file=str(chunkers), retrievers="bm25")
    (root / "dagster_home").mkdir()
    instance = DagsterInstance.local_temp(str(root / "dagster_home"))  # schedules need an instance ref
    return {"root": root, "chunkers": chunkers, "pipeline": pipeline, "instance": instance}


@pytest.fixture(scope="module")
def parse_calls(env):
    """Counts calls of every registered parser function (parsing runs in process)."""
    from finchunk_pipeline.parse import registry

    registry.parsers_version()  # make sure the registry is populated
    calls = {"n": 0}
    originals = dict(registry._PARSERS)

    def counting(fn):
        def wrapper(*a, **kw):
            calls["n"] += 1
            return fn(*a, **kw)
        return wrapper

    for name, spec in originals.items():
        registry._PARSERS[name] = dataclasses.replace(spec, fn=counting(spec.fn))
    yield calls
    registry._PARSERS.clear()
    registry._PARSERS.update(originals)


def _materialize(env, assets, **kw):
    return materialize(assets, instance=env["instance"], resources={"pipeline": env["pipeline"]},
                       run_config=QUIET, **kw)


def test_sensor_registers_new_configuration_and_backfill_builds_it_alone(env, parse_calls):
    inst, pipeline = env["instance"], env["pipeline"]
    # documents once, then the first configuration registered by the sensor
    assert _materialize(env, [raw_documents, parsed_blocks]).success
    parsed_once = parse_calls["n"]
    assert parsed_once > 0
    result = chunk_set_config_sensor(build_sensor_context(instance=inst, resources={"pipeline": pipeline}))
    assert isinstance(result, SensorResult)
    (request,) = result.dynamic_partitions_requests
    assert request.partition_keys == ["fixed"]
    inst.add_dynamic_partitions(chunk_set_partitions.name, list(request.partition_keys))
    r = _materialize(env, PARTITIONED + ASSET_CHECKS, partition_key="fixed")
    assert r.success
    # checks ran per partition
    evals = r.get_asset_check_evaluations()
    assert {e.check_name for e in evals} == {"gold_passages_coverable", "no_over_limit_chunks", "recall_not_regressed"}
    assert all(e.partition == "fixed" for e in evals), [e.partition for e in evals]
    by = {e.check_name: e for e in evals}
    assert by["no_over_limit_chunks"].passed and by["recall_not_regressed"].passed
    assert "uncoverable" in by["gold_passages_coverable"].metadata

    # a new configuration appears in the config file: the sensor adds its partition ...
    _write_chunkers(env["chunkers"], ["fixed", "structure-h"])
    ctx = build_sensor_context(instance=inst, resources={"pipeline": pipeline})
    result = chunk_set_config_sensor(ctx)
    assert [list(q.partition_keys) for q in result.dynamic_partitions_requests] == [["structure-h"]]
    inst.add_dynamic_partitions(chunk_set_partitions.name, ["structure-h"])
    assert isinstance(chunk_set_config_sensor(build_sensor_context(instance=inst, resources={"pipeline": pipeline})),
                      SkipReason)
    # ... and backfilling it builds chunks -> indexes -> evaluation for it alone, without re-parsing
    ws = pipeline.workspace()
    fixed_eval = ws.evaluation_dir(pipeline.chunker_config("fixed").version_name) / "evaluation.json"
    before = fixed_eval.stat().st_mtime_ns
    r = _materialize(env, PARTITIONED, partition_key="structure-h")
    assert r.success
    assert parse_calls["n"] == parsed_once
    keys = {e.asset_key for e in r.get_asset_materialization_events()}
    assert keys == {AssetKey("chunk_sets"), AssetKey("bm25_index"), AssetKey("retrieval_evaluation")}
    assert all(e.partition == "structure-h" for e in r.get_asset_materialization_events())
    assert (ws.evaluation_dir(pipeline.chunker_config("structure-h").version_name) / "evaluation.json").exists()
    assert fixed_eval.stat().st_mtime_ns == before

    # the nightly schedule re-evaluates every registered partition
    # as a context manager: the context enters the instance it builds and exits it here (left
    # open, Dagster's current defs-state storage outlives the instance and a later test's
    # materialize fails with "undefined DagsterInstance weakref")
    with build_schedule_context(instance=inst,
                                scheduled_execution_time=datetime(2026, 1, 2, 2, tzinfo=timezone.utc)) as ctx:
        requests = nightly_evaluation(ctx)
    assert all(isinstance(q, RunRequest) for q in requests)
    assert sorted(q.partition_key for q in requests) == ["fixed", "structure-h"]
    assert len({q.run_key for q in requests}) == 2

    # re-materializing: the regression gate compares against the previous materialization
    r = _materialize(env, [retrieval_evaluation] + ASSET_CHECKS[2:], partition_key="fixed")
    (ev,) = r.get_asset_check_evaluations()
    assert ev.passed and ev.metadata["source"].value == "instance" and ev.metadata["drops"].value == {}


def test_schedule_skips_without_partitions(tmp_path):
    with build_schedule_context(instance=DagsterInstance.local_temp(str(tmp_path)),
                                scheduled_execution_time=datetime(2026, 1, 2, 2, tzinfo=timezone.utc)) as ctx:
        assert isinstance(nightly_evaluation(ctx), SkipReason)


def test_recall_drops_and_token_packed_rules():
    assert recall_drops({"bm25/global": 0.80}, {"bm25/global": 0.76}) == {}
    d = recall_drops({"bm25/global": 0.80, "bm25/filtered": 0.9}, {"bm25/global": 0.70, "bm25/filtered": 0.9})
    assert list(d) == ["bm25/global"] and d["bm25/global"]["drop"] == pytest.approx(0.10)
    assert token_packed(ChunkerConfig("p", "packed")) and token_packed(ChunkerConfig("f", "fixed_tokens"))
    assert token_packed(ChunkerConfig("x", "structure", {"budget": 256}))
    assert not token_packed(ChunkerConfig("x", "structure", {"max_chars": 800}))
