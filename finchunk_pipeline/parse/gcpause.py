"""Pause Python's cyclic garbage collector while a parser or chunker builds its objects.

Parsing allocates hundreds of thousands of small containers (blocks, attribute dicts, text
atoms) and frees almost none of them: each automatic collection then scans everything alive,
so the collector's work grows with the document — a 4x larger HTML filing took 4.9x longer
(bench/bench_parse_html.py), 3.9x with collection paused. Nothing these steps build forms
reference cycles, so reference counting frees what they drop; whatever else makes cycles
meanwhile is collected once the collector runs again. Nesting is fine (only the outermost
pause re-enables it)."""
from __future__ import annotations

import functools
import gc
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

F = TypeVar("F", bound=Callable)


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def without_gc(fn: F) -> F:
    """Decorator: run ``fn`` with the cyclic collector paused."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with gc_paused():
            return fn(*args, **kwargs)
    return wrapper  # type: ignore[return-value]
