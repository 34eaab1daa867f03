"""Toy assets for bench/dagster_mechanisms.py: each records in the data folder ($TOY_DATA) when
its body runs, so an experiment can tell executed from skipped.

- source, counted: a two-asset chain with code versions ($TOY_CODE_VERSION for counted); each
  body appends a line to <data>/counts/<asset>.
- provenance_aware: reads its own last provenance from the instance and returns early when the
  code version and input data versions are unchanged (Dagster's records as the marker).
- pooled: static partitions a..d, pool "p", sleeps $TOY_SLEEP s and logs start/end/pid.
- slow: sleeps $TOY_SLEEP s, writes its pid first (the signal experiments kill it).
- folder_asset: a FAISS index + a parquet file in one folder, through a UPathIOManager.
Loaded with `-f bench/dagster_mechanisms/toys.py` by the CLI and the daemon.
"""
import os
import tempfile
import time
from pathlib import Path

from dagster import (AssetExecutionContext, AssetKey, DataVersion, Definitions, InputContext, Output,
                     OutputContext, StaticPartitionsDefinition, UPathIOManager, asset,
                     define_asset_job)

DATA = Path(os.environ.get("TOY_DATA", "/tmp/dm/data"))


def sleep_seconds() -> float:
    """<data>/sleep when present (runs launched by a daemon get its env, not the launcher's), else $TOY_SLEEP."""
    f = DATA / "sleep"
    return float(f.read_text()) if f.exists() else float(os.environ.get("TOY_SLEEP", "3"))


def _count(name: str) -> None:
    (DATA / "counts").mkdir(parents=True, exist_ok=True)
    with open(DATA / "counts" / name, "a") as fh:
        fh.write(f"{os.getpid()} {time.time():.3f}\n")


@asset(code_version="1")
def source() -> Output[str]:
    _count("source")
    (DATA / "source.txt").write_text("hello")
    return Output("hello", data_version=DataVersion("hello-1"))


def make_counted(code_version: str):
    @asset(code_version=code_version, name="counted")
    def counted(source: str) -> str:
        _count("counted")
        return source.upper()
    return counted


counted = make_counted(os.environ.get("TOY_CODE_VERSION", "1"))


@asset(code_version="1")
def provenance_aware(context: AssetExecutionContext, source: str) -> Output[str]:
    """Reuse decided from Dagster's own records: the last materialization's provenance (code
    version, input data versions) against the current code version and input data version."""
    prov = context.get_asset_provenance(context.asset_key)
    event = context.instance.get_latest_materialization_event(AssetKey("source"))
    current = event.asset_materialization.tags.get("dagster/data_version") if event else None
    if prov is not None and prov.code_version == "1" and \
            {k.to_user_string(): v.value for k, v in prov.input_data_versions.items()} == {"source": current}:
        (DATA / "counts").mkdir(parents=True, exist_ok=True)
        with open(DATA / "counts" / "provenance_aware.reused", "a") as fh:
            fh.write("reused\n")
        return Output(source.upper())
    _count("provenance_aware")
    return Output(source.upper())


PARTS = StaticPartitionsDefinition(["a", "b", "c", "d"])


@asset(partitions_def=PARTS, pool="p")
def pooled(context: AssetExecutionContext) -> None:
    t0 = time.time()
    time.sleep(sleep_seconds())
    (DATA).mkdir(parents=True, exist_ok=True)
    with open(DATA / "pooled.log", "a") as fh:
        fh.write(f"{context.partition_key} {t0:.3f} {time.time():.3f} {os.getpid()}\n")


@asset(partitions_def=PARTS)
def slow(context: AssetExecutionContext) -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    (DATA / f"slow.{context.partition_key}.pid").write_text(str(os.getpid()))
    time.sleep(sleep_seconds())
    (DATA / f"slow.{context.partition_key}.done").write_text("done")


class FolderIOManager(UPathIOManager):
    """A folder per output (an index file + a parquet table) under any fsspec base path; the
    libraries (faiss, pyarrow.parquet on a path) need local files, so the folder is written in a
    local temp dir and uploaded with fs.put, and downloaded with fs.get on load."""

    extension = ""

    def dump_to_path(self, context: OutputContext, obj, path) -> None:
        import faiss
        import pyarrow as pa
        import pyarrow.parquet as pq

        index, table = obj
        with tempfile.TemporaryDirectory() as tmp:
            faiss.write_index(index, os.path.join(tmp, "index.faiss"))
            pq.write_table(pa.table(table), os.path.join(tmp, "chunks.parquet"))
            path.fs.put(tmp + "/", path.path, recursive=True)

    def load_from_path(self, context: InputContext, path):
        import faiss
        import pyarrow.parquet as pq

        with tempfile.TemporaryDirectory() as tmp:
            path.fs.get(path.path + "/", tmp + "/", recursive=True)
            _count("folder_download")
            return faiss.read_index(os.path.join(tmp, "index.faiss")), pq.read_table(
                os.path.join(tmp, "chunks.parquet")).to_pydict()


@asset(io_manager_key="folder_io")
def folder_asset():
    import faiss
    import numpy as np

    _count("folder_asset")
    index = faiss.IndexFlatIP(4)
    index.add(np.eye(4, dtype="float32"))
    return index, {"chunk": ["a", "b", "c", "d"]}


@asset
def folder_reader(folder_asset) -> int:
    index, table = folder_asset
    return int(index.ntotal) + len(table["chunk"])


pooled_job = define_asset_job("pooled_job", selection=["pooled"], partitions_def=PARTS)
slow_job = define_asset_job("slow_job", selection=["slow"], partitions_def=PARTS)


def folder_io():
    from upath import UPath
    return FolderIOManager(base_path=UPath(os.environ.get("TOY_UPATH", "memory://toy")))


defs = Definitions(assets=[source, counted, provenance_aware, pooled, slow, folder_asset, folder_reader],
                   jobs=[pooled_job, slow_job], resources={"folder_io": folder_io()})
