"""A data root in object storage (fsspec URL), by configuration: here fsspec's in-memory
filesystem stands in for s3:// or gs://. A second machine with an empty working copy reuses
everything the first one stored: nothing is parsed, chunked or evaluated again."""
from __future__ import annotations

import json
import uuid

from dagster import DagsterInstance

from finchunk_pipeline.assets.resources import PipelineResource
from finchunk_pipeline.storage.remote import RemoteMirror

from tests.integration.test_pipeline_dagster import parser_calls, run_chunk_set, run_documents, run_report  # noqa: F401


def test_mirror_push_pull_refreshes_marks_and_skips_unchanged_data(tmp_path):
    url = f"memory://mirror-{uuid.uuid4().hex}"
    a, b = tmp_path / "a", tmp_path / "b"
    (a / "chunks" / "v1").mkdir(parents=True)
    (a / "chunks" / "v1" / "chunks.parquet").write_bytes(b"x" * 100)
    (a / "chunks" / "v1" / "manifest.json").write_text('{"n": 1}')
    assert RemoteMirror(url, a).push("chunks/v1") == 2
    assert RemoteMirror(url, a).push("chunks/v1") == 1  # only the JSON mark is re-sent
    m = RemoteMirror(url, a)
    assert m.fs.exists(f"{m.root}/chunks/v1/chunks.parquet") and m.fs.exists(f"{m.root}/chunks/v1/manifest.json")
    mirror_b = RemoteMirror(url, b)
    assert mirror_b.pull("chunks") == 2
    assert (b / "chunks" / "v1" / "chunks.parquet").read_bytes() == b"x" * 100
    (a / "chunks" / "v1" / "manifest.json").write_text('{"n": 22}')
    RemoteMirror(url, a).push("chunks/v1")
    assert mirror_b.pull("chunks") == 1  # data unchanged; the mark is refreshed
    assert json.loads((b / "chunks" / "v1" / "manifest.json").read_text()) == {"n": 22}
    assert mirror_b.pull("nothing/here") == 0


def test_second_machine_reuses_the_remote_data_root(tmp_path, default_corpus_copy, chunkers_file, parser_calls):
    url = f"memory://finchunk-{uuid.uuid4().hex}"

    def machine(name: str) -> PipelineResource:
        return PipelineResource(corpus_dir=str(default_corpus_copy), data_root=str(tmp_path / name / "data"),
                                out_dir=str(tmp_path / name / "out"), chunkers_file=str(chunkers_file),
                                retrievers="bm25", data_url=url)

    first = machine("first")
    instance = DagsterInstance.ephemeral()
    run_documents(first, instance)
    built = run_chunk_set(first, instance, "structure-h")
    assert built.asset_materializations_for_node("chunk_sets")[0].metadata["built"].value is True
    parsed = len(parser_calls)
    assert parsed > 0

    second = machine("second")  # an empty working copy, the same remote data root
    assert not (tmp_path / "second" / "data").exists()
    run_documents(second, instance)
    again = run_chunk_set(second, instance, "structure-h")
    assert len(parser_calls) == parsed, "blocks come from the remote data root, not from parsing again"
    assert again.asset_materializations_for_node("chunk_sets")[0].metadata["built"].value is False
    assert again.asset_materializations_for_node("retrieval_evaluation")[0].metadata["reused"].value is True
    run_report(second, instance)
    report = json.loads((tmp_path / "second" / "out" / "evaluation.json").read_text())
    assert {e["name"] for e in report["chunk_sets"]} == {"structure-h"}
