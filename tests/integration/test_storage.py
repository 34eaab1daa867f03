"""Atomic writes: the renamed file gets the mode a normal write gives (umask respected),
and a failed write leaves neither the destination nor a temporary file."""
from __future__ import annotations

import os
import stat

import pyarrow as pa
import pytest

from finchunk_pipeline import RawStore
from finchunk_pipeline.storage.files import atomic_path, write_bytes, write_json, write_parquet, write_text


@pytest.fixture
def umask():
    def set_umask(mask: int) -> None:
        os.umask(mask)

    old = os.umask(0o022)
    os.umask(old)
    yield set_umask
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_atomic_writes_respect_the_umask(tmp_path, umask, mask):
    umask(mask)
    expected = 0o666 & ~mask
    # what a plain write gives, for reference
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    assert _mode(plain) == expected
    raw = RawStore(tmp_path / "raw")
    sha, _ = raw.put("a document", "markdown")
    written = [
        raw.path(sha, "markdown"),
        write_bytes(tmp_path / "a.bin", b"\x00\x01"),
        write_text(tmp_path / "b.txt", "text"),
        write_json(tmp_path / "c.json", {"a": 1}),
        write_parquet(tmp_path / "d.parquet", pa.table({"a": [1, 2]})),
    ]
    for path in written:
        assert _mode(path) == expected, f"{path.name}: {oct(_mode(path))} != {oct(expected)}"


def test_failed_write_leaves_no_temporary_file(tmp_path):
    dest = tmp_path / "out.json"
    with pytest.raises(RuntimeError):
        with atomic_path(dest) as tmp:
            tmp.write_text("half")
            raise RuntimeError("crash")
    assert not dest.exists()
    assert list(tmp_path.iterdir()) == []
