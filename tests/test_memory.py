"""Issue 16: returning freed memory to the system between a run's steps (memory.py), and a CPU
embedder that keeps triton (a GPU compiler) out of the process."""
from __future__ import annotations

import gc
import subprocess
import sys
import weakref

import numpy as np
import pytest

from finchunk_pipeline import memory


def test_release_collects_garbage_and_changes_no_value():
    """Cyclic garbage the automatic collector has not reached is gone after release()."""
    class Node:
        pass

    kept = np.arange(1_000_000, dtype=np.float64)
    gc.disable()
    try:
        node = Node()
        node.self = node  # garbage only a full collection frees
        alive = weakref.ref(node)
        del node
        assert alive() is not None  # not collected yet
        memory.release()
        assert alive() is None
    finally:
        gc.enable()
    assert np.array_equal(kept, np.arange(1_000_000, dtype=np.float64))


def test_a_cpu_embedder_keeps_triton_out_before_torch_loads():
    code = ("import sys; from finchunk_pipeline.index import embed; embed._without_gpu_compiler(); "
            "print(sys.modules.get('triton', 'absent'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "None"


def test_heap_retention_limit_is_set_where_glibc_is_the_allocator():
    if memory._glibc() is None:
        pytest.skip("the C library is not glibc: nothing to set")
    assert memory.limit_heap_retention() is True
    assert np.array_equal(np.arange(1 << 20), np.arange(1 << 20))  # 8 MB, mapped on its own
