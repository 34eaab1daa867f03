"""Pause Python's cyclic garbage collector while a parser or chunker builds its objects.

Parsing allocates hundreds of thousands of small containers (blocks, attribute dicts, text
atoms) and frees almost none of them: each automatic collection then scans everything alive,
so the collector's work grows with the document — a 4x larger HTML filing took 4.9x longer
(bench/bench_parse_html.py), 3.9x with collection paused. Nothing these steps build forms
reference cycles, so reference counting frees what they drop; whatever else makes cycles
meanwhile is collected once the collector runs again. Nesting is fine (only the outermost
pause re-enables it).

A parser's pause (``without_gc``) also spares the collection that re-enabling would start:
what was built meanwhile sits in the youngest generation, so the first allocation after
``gc.enable()`` would scan all of it and, in cascade, the older generations (on
financebench_dev about a tenth of the text parser's time, every object found alive). The
young generations (what was built, and whatever young objects were there before) are moved
to the oldest first (``gc.freeze()`` + ``gc.unfreeze()``: list splices, no scan): a full
collection scans them (moved so, they do not count towards starting one; cyclic garbage
among them waits for it). Skipped when objects were frozen on purpose
(``gc.get_freeze_count()``), which ``unfreeze`` would release."""
from __future__ import annotations

import functools
import gc
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

F = TypeVar("F", bound=Callable)


@contextmanager
def gc_paused(age_on_resume: bool = False) -> Iterator[None]:
    """Collector paused inside; ``age_on_resume``: what was built joins the oldest
    generation unscanned as the outermost pause ends (see the module docstring)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if age_on_resume and not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def without_gc(fn: F) -> F:
    """Decorator for a parser: run ``fn`` with the cyclic collector paused, its objects
    aged on resume."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with gc_paused(age_on_resume=True):
            return fn(*args, **kwargs)
    return wrapper  # type: ignore[return-value]
