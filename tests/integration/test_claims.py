"""Claims (claims.py): one build of one version at a time on a data root, however many runs
ask; a crashed holder never blocks the next; two concurrent builds of one chunk set build
it once and append its evaluation history once."""
from __future__ import annotations

import json
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from finchunk_pipeline.storage.claims import ClaimTimeout, claim, local_lock


def _hold(folder, key, ready, release):
    with local_lock(folder, key):
        ready.set()
        release.wait(30)


def test_local_lock_excludes_and_times_out(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    p = ctx.Process(target=_hold, args=(tmp_path, "chunks/a", ready, release))
    p.start()
    try:
        assert ready.wait(30)
        with pytest.raises(ClaimTimeout, match="chunks/a"):
            with local_lock(tmp_path, "chunks/a", wait=0.3):
                pass
        with local_lock(tmp_path, "chunks/b", wait=0.3):  # another key is free
            pass
    finally:
        release.set()
        p.join(30)
    with local_lock(tmp_path, "chunks/a", wait=5):
        pass


def _hold_and_die(folder, key, ready):
    with local_lock(folder, key):
        ready.set()
        time.sleep(60)


def test_a_killed_holder_leaves_no_stale_claim(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    p = ctx.Process(target=_hold_and_die, args=(tmp_path, "evaluation/x", ready))
    p.start()
    assert ready.wait(30)
    held = json.loads(next(tmp_path.glob("*.holder.json")).read_text())
    assert held["state"] == "held" and held["pid"] == p.pid
    os.kill(p.pid, signal.SIGKILL)
    p.join(30)
    with local_lock(tmp_path, "evaluation/x", wait=5):  # the kernel released the dead holder's lock
        pass


def test_threads_of_one_process_take_turns(tmp_path):
    inside, overlaps = [], []

    def work(i):
        with claim("k", tmp_path):
            inside.append(i)
            if len(inside) > 1:
                overlaps.append(list(inside))
            time.sleep(0.05)
            inside.remove(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == []


def _materialize_partition(conf: dict) -> dict:
    """In a worker process: materialize one chunk set end to end on the given data root."""
    from dagster import DagsterInstance

    from finchunk_pipeline.assets.resources import PipelineResource
    from tests.integration.test_pipeline_dagster import run_chunk_set

    if conf.get("start_at"):
        time.sleep(max(0.0, conf["start_at"] - time.time()))  # start both builds together
    pipeline = PipelineResource(**conf["pipeline"])
    result = run_chunk_set(pipeline, DagsterInstance.ephemeral(), conf["name"])
    meta = result.asset_materializations_for_node("chunk_sets")[0].metadata
    ev = result.asset_materializations_for_node("retrieval_evaluation")[0].metadata
    return {"success": result.success, "built": meta["built"].value, "reused": ev["reused"].value}


def concurrent_builds(pipelines: list[dict], name: str) -> list[dict]:
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=len(pipelines), mp_context=ctx) as pool:
        # warm both workers (imports) before the builds start together
        list(pool.map(time.sleep, [0.01] * len(pipelines)))
        start = time.time() + 3
        return list(pool.map(_materialize_partition,
                             [{"pipeline": p, "name": name, "start_at": start} for p in pipelines]))


def test_two_concurrent_builds_of_one_chunk_set_build_it_once(tmp_path, default_corpus_copy, chunkers_file):
    from dagster import DagsterInstance

    from finchunk_pipeline.assets.resources import PipelineResource
    from finchunk_pipeline.storage.history import read_history

    from tests.integration.test_pipeline_dagster import run_documents

    conf = dict(corpus_dir=str(default_corpus_copy), data_root=str(tmp_path / "store"),
                out_dir=str(tmp_path / "out"), chunkers_file=str(chunkers_file), retrievers="bm25")
    run_documents(PipelineResource(**conf), DagsterInstance.ephemeral())
    results = concurrent_builds([conf, conf], "structure-h")
    assert all(r["success"] for r in results), results
    assert sorted(r["built"] for r in results) == [False, True], results
    assert sorted(r["reused"] for r in results) == [False, True], results
    ws = PipelineResource(**conf).workspace()
    assert len(read_history(ws.root / "evaluations", "structure-h")) == 1
    claims = list((tmp_path / "store" / ".claims").glob("*.holder.json"))
    assert claims and all(json.loads(c.read_text())["state"] == "released" for c in claims)
