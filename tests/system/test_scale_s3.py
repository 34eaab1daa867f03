"""The data root in a real S3 API server (moto's server mode on 127.0.0.1, authentication on),
configured only through the pipeline resource or the environment: a first machine builds, a
second machine with an empty working copy reuses everything (nothing parsed, chunked or
evaluated again; the facts store comes from the bucket) with identical evaluation.json; a
misconfigured data root fails at once with its URL; claims hold across machines."""
from __future__ import annotations

import json
import threading
import time

import pytest
from dagster import DagsterInstance, materialize

from finchunk_pipeline.assets.resources import PipelineResource
from finchunk_pipeline.storage.claims import RemoteLease, claim, supports_exclusive_create
from finchunk_pipeline.definitions import PIPELINE_ASSETS, resources, xbrl_assets
from finchunk_pipeline.storage.remote import RemoteMirror, RemoteStorageError, mirror_of
from finchunk_pipeline import Settings

from tests.servers import free_port
from tests.integration.test_pipeline_dagster import parser_calls, run_chunk_set, run_documents, run_report  # noqa: F401


@pytest.fixture(autouse=True)
def no_ambient_aws(monkeypatch):
    """Only what the test configures reaches s3fs: no endpoint or credentials from outside."""
    for k in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
              "AWS_SESSION_TOKEN", "AWS_PROFILE", "FINCHUNK_DATA_URL", "FINCHUNK_DATA_ENDPOINT_URL",
              "FINCHUNK_DATA_STORAGE_OPTIONS"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def _run_xbrl(pipeline, instance):
    return materialize(PIPELINE_ASSETS, selection=xbrl_assets(), instance=instance, resources=resources(pipeline))


def test_second_machine_reuses_an_s3_data_root(tmp_path, s3_server, default_corpus_copy, chunkers_file,
                                               parser_calls):
    import shutil

    from finchunk_pipeline import DEFAULT_CORPUS

    shutil.copy(DEFAULT_CORPUS / "xbrl_facts.parquet", default_corpus_copy / "xbrl_facts.parquet")
    bucket = s3_server.create_bucket()
    url = f"s3://{bucket}/finchunk"

    def machine(name: str) -> PipelineResource:  # resource config only: endpoint, credentials
        return PipelineResource(corpus_dir=str(default_corpus_copy), data_root=str(tmp_path / name / "data"),
                                out_dir=str(tmp_path / name / "out"), chunkers_file=str(chunkers_file),
                                retrievers="bm25", data_url=url, data_endpoint_url=s3_server.endpoint,
                                data_storage_options=json.dumps({"key": s3_server.key, "secret": s3_server.secret}))

    first, instance = machine("first"), DagsterInstance.ephemeral()
    run_documents(first, instance)
    built = run_chunk_set(first, instance, "structure-h")
    assert built.success
    assert built.asset_materializations_for_node("chunk_sets")[0].metadata["built"].value is True
    facts = _run_xbrl(first, instance)
    assert facts.success and facts.asset_materializations_for_node("xbrl_facts")[0].metadata["new_rows"].value > 0
    assert run_report(first, instance).success
    parsed = len(parser_calls)
    assert parsed > 0
    keys = {o["Key"] for o in s3_server.client().list_objects_v2(Bucket=bucket)["Contents"]}
    assert "finchunk/facts.duckdb" in keys and any(k.endswith("/chunks.parquet") for k in keys)

    second = machine("second")  # an empty working copy, the same bucket
    assert not (tmp_path / "second").exists()
    run_documents(second, instance)
    again = run_chunk_set(second, instance, "structure-h")
    assert len(parser_calls) == parsed, "blocks come from the bucket, not from parsing again"
    assert again.asset_materializations_for_node("chunk_sets")[0].metadata["built"].value is False
    assert again.asset_materializations_for_node("bm25_index")[0].metadata["built"].value is False
    assert again.asset_materializations_for_node("retrieval_evaluation")[0].metadata["reused"].value is True
    facts2 = _run_xbrl(second, instance)  # the facts store comes from the bucket: nothing new to load
    assert facts2.success
    assert facts2.asset_materializations_for_node("xbrl_facts")[0].metadata["new_rows"].value == 0
    assert (tmp_path / "second" / "data" / "facts.duckdb").exists()
    assert run_report(second, instance).success

    v = first.chunker_config("structure-h").version_name
    rel = first.workspace().evaluation_dir(v).relative_to(tmp_path / "first" / "data")
    assert (tmp_path / "first" / "data" / rel / "evaluation.json").read_bytes() == \
        (tmp_path / "second" / "data" / rel / "evaluation.json").read_bytes()
    one = json.loads((tmp_path / "first" / "out" / "evaluation.json").read_text())
    two = json.loads((tmp_path / "second" / "out" / "evaluation.json").read_text())
    assert one == two and one["chunk_sets"]


def test_misconfigured_s3_data_root_fails_loudly_with_the_url(tmp_path, s3_server, monkeypatch):
    bucket = s3_server.create_bucket()
    good = s3_server.storage_options()
    closed = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    cases = [
        ("wrong endpoint", f"s3://{bucket}/x", {**good, "endpoint_url": closed}, "cannot reach it"),
        ("missing bucket", "s3://no-such-bucket-finchunk/x", good, "bucket 'no-such-bucket-finchunk' does not exist"),
        ("bad credentials", f"s3://{bucket}/x", {**good, "secret": "wrong"}, "access refused (check the credentials)"),
    ]
    for label, url, options, expected in cases:
        with pytest.raises(RemoteStorageError) as err:
            RemoteMirror(url, tmp_path / label, {**options, "skip_instance_cache": True,
                                                 "config_kwargs": {"retries": {"max_attempts": 1}}})
        message = str(err.value)
        assert url in message and expected in message, (label, message)
        assert "wrong" not in message and s3_server.secret not in message  # no secret in messages
    # the same through the environment, as a worker would be configured, and through a run
    monkeypatch.setenv("FINCHUNK_DATA_URL", "s3://no-such-bucket-finchunk/y")
    monkeypatch.setenv("FINCHUNK_DATA_STORAGE_OPTIONS", json.dumps({**good, "skip_instance_cache": True}))
    with pytest.raises(RemoteStorageError, match="s3://no-such-bucket-finchunk/y.*does not exist"):
        mirror_of(Settings(), local_root=tmp_path / "env")
    pipeline = PipelineResource(data_root=str(tmp_path / "run"), out_dir=str(tmp_path / "out"))
    result = materialize(PIPELINE_ASSETS, selection=["raw_documents"], instance=DagsterInstance.ephemeral(),
                         resources=resources(pipeline), raise_on_error=False)
    assert not result.success
    failure = next(e for e in result.all_events if e.is_step_failure).step_failure_data.error
    assert "s3://no-such-bucket-finchunk/y" in (failure.cause or failure).message


def test_claims_hold_across_machines_and_expired_leases_recover(tmp_path, s3_server):
    bucket = s3_server.create_bucket()
    url = f"s3://{bucket}/root"
    a = RemoteMirror(url, tmp_path / "a", s3_server.storage_options())
    b = RemoteMirror(url, tmp_path / "b", s3_server.storage_options())
    assert supports_exclusive_create(a.fs, a.root)
    inside, overlaps = [], []

    def work(mirror, local):
        with claim("chunks/x", local, mirror, poll=0.05):
            inside.append(local)
            if len(inside) > 1:
                overlaps.append(list(inside))
            time.sleep(0.3)
            inside.remove(local)

    threads = [threading.Thread(target=work, args=(m, tmp_path / n)) for m, n in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == [] and not inside  # separate working copies: only the remote lease separates them
    # a holder that died: its lease expires and the next claimant takes over
    dead = RemoteLease(a.fs, a.root, "chunks/y", url, ttl=0.5)
    dead.acquire(wait=5, poll=0.05, log=None)
    dead._stop.set()  # stops renewing, never releases: as if its machine went away
    t0 = time.monotonic()
    messages = []
    with claim("chunks/y", tmp_path / "b", b, poll=0.05, ttl=5, log=messages.append):
        pass
    assert time.monotonic() - t0 < 5 and any("expired" in m for m in messages), messages
    live = RemoteLease(a.fs, a.root, "chunks/z", url, ttl=30)
    live.acquire(wait=5, poll=0.05, log=None)
    try:
        from finchunk_pipeline.storage.claims import ClaimTimeout

        with pytest.raises(ClaimTimeout, match=f"chunks/z in {url}"):
            with claim("chunks/z", tmp_path / "b", b, wait=0.5, poll=0.05):
                pass
    finally:
        live.release()
