"""The report shows what is there: plots embedded as data: URIs in the Markdown metadata the
Dagster UI renders (bench/ui_screenshot.py checks it in a real browser) and referenced by file
names that resolve next to evaluation.md; the hybrid retriever's index size is not 0."""
from __future__ import annotations

import base64
import re

from dagster import DagsterInstance

from tests.integration.test_pipeline_dagster import make_pipeline, run_chunk_set, run_documents, run_report

IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)]+)\)")


def test_plots_are_embedded_in_the_ui_markdown_and_resolve_from_the_file(tmp_path, default_corpus_copy,
                                                                          chunkers_file):
    pipeline = make_pipeline(tmp_path, default_corpus_copy, chunkers_file)
    instance = DagsterInstance.ephemeral()
    run_documents(pipeline, instance)
    for name in ("fixed", "structure-h"):
        run_chunk_set(pipeline, instance, name)
    result = run_report(pipeline, instance)
    md = result.asset_materializations_for_node("evaluation_report")[0].metadata["report"].value
    images = IMAGE.findall(md)
    assert "recall_vs_chars" in {alt for alt, _ in images}
    for alt, src in images:
        assert src.startswith("data:image/png;base64,"), (alt, src[:60])  # no local path the browser can't open
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    # evaluation.md: image references relative to the file, and they exist
    out = tmp_path / "out"
    file_images = IMAGE.findall((out / "evaluation.md").read_text())
    assert file_images and all(not src.startswith(("/", "data:")) and (out / src).is_file() for _, src in file_images)


def test_hybrid_index_size_is_the_indexes_it_fuses(tmp_path):
    from finchunk_pipeline.builders.evaluation import retriever_index_bytes

    (tmp_path / "bm25").mkdir()
    (tmp_path / "bm25" / "bm25.npz").write_bytes(b"x" * 1000)
    (tmp_path / "bm25.json").write_bytes(b"x" * 10)
    (tmp_path / "dense").mkdir()
    (tmp_path / "dense" / "index.faiss").write_bytes(b"x" * 5000)
    (tmp_path / "dense.json").write_bytes(b"x" * 20)
    assert retriever_index_bytes("bm25", tmp_path) == 1010
    assert retriever_index_bytes("dense", tmp_path) == 5020
    assert retriever_index_bytes("hybrid", tmp_path) == 6030  # was 0: hybrid has no files of its own
