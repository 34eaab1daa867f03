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
    code = ("import sys; from finchunk_pipeline.models import embed; embed._without_gpu_compiler(); "
            "print(sys.modules.get('triton', 'absent'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "None"


def test_heap_retention_limit_is_set_where_glibc_is_the_allocator():
    if memory._glibc() is None:
        pytest.skip("the C library is not glibc: nothing to set")
    assert memory.limit_heap_retention() is True
    assert np.array_equal(np.arange(1 << 20), np.arange(1 << 20))  # 8 MB, mapped on its own


_PHASES = r'''
import ctypes, resource
import numpy as np
from finchunk_pipeline import memory

class MallInfo2(ctypes.Structure):  # glibc >= 2.33
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2

def phase(n=3):
    # (whether a live 8 MB block is mapped on its own, minor page faults of allocating,
    # filling and dropping one n times after a first)
    base = libc.mallinfo2().hblkhd
    block = np.ones(1 << 20)  # 8 MB: over the 4 MiB limit
    mapped = libc.mallinfo2().hblkhd - base >= (8 << 20)
    del block
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(n):
        np.ones(1 << 20).sum()
    return int(mapped), resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

assert memory.limit_heap_retention()
limited = phase()
with memory.heap_for_activations():
    with memory.heap_for_activations():  # nested: lifted once, restored by the outermost
        lifted = phase()
    inner_done = phase()
again = phase()
print(*limited, *lifted, *inner_done, *again)
'''


def test_heap_for_activations_keeps_large_blocks_for_reuse_and_restores_the_limit():
    """Under the 4 MiB limit an 8 MB block is mapped on its own and faulted in anew each time;
    inside heap_for_activations it comes from the heap and the freed block is reused; after it
    the limit holds again."""
    if memory._glibc() is None or not hasattr(memory._glibc(), "mallinfo2"):
        pytest.skip("the C library is not glibc 2.33+: nothing to set or read")
    out = subprocess.run([sys.executable, "-c", _PHASES], capture_output=True, text=True, check=True).stdout
    (m_limited, f_limited, m_lifted, f_lifted, m_inner, f_inner, m_again, f_again) = map(int, out.split())
    assert (m_limited, m_lifted, m_inner, m_again) == (1, 0, 0, 1), out  # mapped on its own under the limit only
    assert f_limited >= 0.1 * 3 * (8 << 20) // 4096, out  # fewer faults than pages with huge pages
    assert f_lifted * 20 <= f_limited and f_inner * 20 <= f_limited, out  # reused from the heap
    assert f_again * 2 >= f_limited, out


def test_heap_for_activations_does_nothing_without_a_limit(monkeypatch):
    """Without a limit (glibc's dynamic default, as in `dagster dev`) the allocator is never
    touched; with one, the block lifts it once (nested blocks too), and sets it and trims once."""
    calls = []

    class FakeGlibc:
        def mallopt(self, param, value):
            calls.append(("mallopt", param, value))
            return 1

        def malloc_trim(self, pad):
            calls.append(("malloc_trim", pad))
            return 1

    monkeypatch.setattr(memory, "_glibc", lambda: FakeGlibc())
    monkeypatch.setattr(memory, "_limit", None)
    with memory.heap_for_activations():
        with memory.heap_for_activations():
            pass
    assert calls == [] and memory._lifted == 0
    monkeypatch.setattr(memory, "_limit", memory.MMAP_THRESHOLD)
    with memory.heap_for_activations():
        with memory.heap_for_activations():
            assert calls == [("mallopt", memory.M_MMAP_THRESHOLD, memory.ACTIVATIONS_MMAP_THRESHOLD),
                             ("mallopt", memory.M_TRIM_THRESHOLD, memory.ACTIVATIONS_TRIM_THRESHOLD)]
    assert calls[2:] == [("mallopt", memory.M_MMAP_THRESHOLD, memory.MMAP_THRESHOLD),
                         ("mallopt", memory.M_TRIM_THRESHOLD, memory.TRIM_THRESHOLD), ("malloc_trim", 0)]
    assert memory._lifted == 0
