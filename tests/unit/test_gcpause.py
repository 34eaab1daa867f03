"""The parsers' collector pause (parse/gcpause.py): the collector runs again afterwards,
what was built joins the oldest generation without a collection, objects frozen on purpose
stay frozen, and cyclic garbage made meanwhile is still collected by a full collection."""
from __future__ import annotations

import gc
import weakref

from finchunk_pipeline.parse.gcpause import gc_paused, without_gc


class _Node:
    pass


@without_gc
def _build(n: int) -> list[list[int]]:
    return [[i] for i in range(n)]


def _in_generation(obj: object, generation: int) -> bool:
    return any(o is obj for o in gc.get_objects(generation=generation))


def test_a_parser_pause_ages_what_it_built_and_runs_no_collection():
    assert gc.isenabled()
    collections = []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    try:
        built = _build(50_000)
        after = [[0]]  # an allocation: re-enabling would have started a collection here
    finally:
        gc.callbacks.remove(count)
    assert gc.isenabled()
    assert collections == []
    assert _in_generation(built[0], 2) and _in_generation(built, 2)
    assert after


def test_nested_pauses_resume_once_and_plain_pauses_do_not_age():
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused(age_on_resume=True):
            inner = [1]
        assert not gc.isenabled()  # only the outermost pause re-enables
        assert _in_generation(inner, 0)  # nor did the inner one age anything
    assert gc.isenabled()
    plain = _plain_build()
    assert not _in_generation(plain, 2)


def _plain_build() -> list[int]:
    with gc_paused():
        return [2]


def test_objects_frozen_on_purpose_stay_frozen():
    # Watch one object frozen on purpose rather than the freeze count: the count also drops
    # when a frozen object is freed by reference counting (another thread of the test worker
    # can do that at any time), which says nothing about the pause.
    held = [_Node()]
    gc.collect()
    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        assert not any(_in_generation(held, g) for g in range(3))  # frozen: in no generation
        _build(1000)
        assert gc.get_freeze_count() > 0
        assert not any(_in_generation(held, g) for g in range(3)), "the pause unfroze it"
    finally:
        gc.unfreeze()
    assert _in_generation(held, 2)  # the test's own unfreeze releases it to the oldest


def test_cyclic_garbage_made_during_a_pause_is_still_collected():
    @without_gc
    def make_cycle():
        node = _Node()
        node.self = node
        return weakref.ref(node)

    alive = make_cycle()
    assert alive() is not None  # aged, not collected yet
    gc.collect()
    assert alive() is None
