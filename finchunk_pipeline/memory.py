"""Returning freed memory to the system between the runs of ``finchunk run`` (issue 16).

A run holds torch, the embedding model and Dagster (~1.1 GB) and then, chunk set after chunk
set, builds and drops DataFrames, BM25 arrays, embedding batches and model activations. Left
alone the process grew 30-50 MB a chunk set (1.46 GB after the first set, 2.1 GB after the
21st in one run): cyclic garbage waiting for a full collection, and freed heap glibc keeps.

* ``release()``: a full ``gc.collect()`` and glibc's ``malloc_trim(0)`` (hands the free pages
  of every arena back to the kernel), after each run; a few tenths of a second.
* ``limit_heap_retention()``: a fixed glibc mmap threshold of 4 MiB (``M_MMAP_THRESHOLD``):
  blocks that large (model activations of long batches, score blocks, vector arrays) are
  mapped on their own and unmapped when freed, instead of fragmenting the heap once glibc's
  dynamic threshold has grown to 32 MB — ~100 MB off the floor and the peaks. Set once, by
  the CLI's ``run``. Its price is page faults: cold runs with it (and ``release``) took ~75 s
  of system time against ~29 s before, measured on a loaded machine (README "Time and memory").

Neither changes a computed value; both are no-ops where glibc is not the C library.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
from functools import lru_cache

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 4 << 20


@lru_cache(maxsize=1)
def _glibc():
    """The C library when it is glibc (has malloc_trim and mallopt), else None."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None
    except OSError:
        return None


def release() -> None:
    """Collect cyclic garbage and return the free heap pages to the system."""
    gc.collect()
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


def limit_heap_retention(threshold: int = MMAP_THRESHOLD) -> bool:
    """Map allocations of ``threshold`` bytes and more on their own (unmapped when freed).
    Whether it was set."""
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(M_MMAP_THRESHOLD, int(threshold)))
