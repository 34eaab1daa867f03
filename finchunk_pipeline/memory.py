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
  the CLI's ``run``. Its price is page faults: every such block is fresh pages, faulted in
  when first touched.
* ``heap_for_activations()``: lifts that limit while the embedding model runs. A forward pass
  allocates and frees tens of MB of activations per batch, batch after batch: under the limit
  each one was a new mapping (2.5 M page faults and 5-6 s of system time per 384 texts; the
  model encoded at 0.70-0.78x its speed, README "The heap while the model encodes"). Inside,
  blocks up to 32 MiB come from the heap and stay there for the next batch (glibc's own
  dynamic default would do the same); at the end the limit is set again and the freed heap
  is trimmed back to the system.

Neither changes a computed value; all are no-ops where glibc is not the C library.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
from contextlib import contextmanager
from functools import lru_cache

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
MMAP_THRESHOLD = 4 << 20
TRIM_THRESHOLD = 128 << 10            # glibc's default; kept by glibc once the mmap threshold is fixed
ACTIVATIONS_MMAP_THRESHOLD = 32 << 20  # the largest threshold glibc takes (and its dynamic maximum)
ACTIVATIONS_TRIM_THRESHOLD = 64 << 20   # as glibc's dynamic mode would: twice the mmap threshold

_lock = threading.Lock()
_limit: int | None = None   # the threshold limit_heap_retention set (None: glibc's dynamic default)
_lifted = 0                 # heap_for_activations blocks running (nested or in threads)


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
    global _limit
    libc = _glibc()
    with _lock:
        ok = bool(libc is not None and libc.mallopt(M_MMAP_THRESHOLD, int(threshold)))
        if ok:
            _limit = int(threshold)
            if _lifted:  # set inside a lifted block: it takes effect when the block ends
                libc.mallopt(M_MMAP_THRESHOLD, ACTIVATIONS_MMAP_THRESHOLD)
    return ok


@contextmanager
def heap_for_activations():
    """While the block runs (the embedding model's forward passes), large blocks come from
    the heap and are kept there for reuse instead of being mapped and unmapped each time;
    afterwards the retention limit is set again and the free heap returned to the system.
    Does nothing when no limit was set (glibc's dynamic default already keeps them)."""
    global _lifted
    libc = _glibc()
    if libc is None or _limit is None:
        yield
        return
    with _lock:
        _lifted += 1
        if _lifted == 1:
            libc.mallopt(M_MMAP_THRESHOLD, ACTIVATIONS_MMAP_THRESHOLD)
            libc.mallopt(M_TRIM_THRESHOLD, ACTIVATIONS_TRIM_THRESHOLD)
    try:
        yield
    finally:
        with _lock:
            _lifted -= 1
            if not _lifted:
                libc.mallopt(M_MMAP_THRESHOLD, _limit)
                libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
                libc.malloc_trim(0)
