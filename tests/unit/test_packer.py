"""The token-budget packer: never truncates, refuses what does not fit, pays for the header."""
from __future__ import annotations

import pytest

from finchunk_pipeline import SPAN_JOINER
from finchunk_pipeline.chunking.packer import Packer, Unit, UnitTooLarge, default_budget
from finchunk_pipeline import token_counter


def _units(view: str, paras: list[str]) -> list[Unit]:
    out, pos = [], 0
    for p in paras:
        s = view.index(p, pos)
        out.append(Unit([(s, s + len(p))]))
        pos = s + len(p)
    return out


def test_default_budget():
    assert default_budget(256) == 240 and default_budget(512) == 480


def test_packs_under_budget_and_refuses_oversized_unit():
    counter = token_counter()
    packer = Packer(counter.count, 60, count_many=counter.count_many)
    paras = [f"Revenue in segment {i} grew by {i}.5 percent to $1{i}.2 million." for i in range(10)]
    big = " ".join(["The group reported a very long paragraph about its operations."] * 20)
    paras.insert(4, big)
    view = "\n\n".join(paras)
    units = _units(view, paras)
    res = packer.pack(units, view)
    assert [u for u in res.refused] == [units[4]]          # refused, not cut
    packed_units = [u for g in res.groups for u in g]
    assert units[4] not in packed_units and len(packed_units) == 10
    for g in res.groups:
        text = SPAN_JOINER.join(view[s:e] for u in g for s, e in u.spans)
        assert counter.count(text) <= 60
        for u in g:  # units whole
            assert u.spans[0][1] - u.spans[0][0] == len(view[u.spans[0][0]:u.spans[0][1]])
    with pytest.raises(UnitTooLarge):
        packer.pack(units, view, strict=True)


def test_header_reduces_the_source_budget():
    counter = token_counter()
    packer = Packer(counter.count, 60, count_many=counter.count_many)
    header = "Northwind Holdings plc — Annual report 2024 > Business review > Operations"
    assert packer.source_budget(header) == 60 - (counter.count(header) - 2)
    paras = [f"Revenue in segment {i} grew by {i}.5 percent." for i in range(12)]
    view = "\n\n".join(paras)
    res = packer.pack(_units(view, paras), view, header)
    for g in res.groups:
        text = header + "\n\n" + SPAN_JOINER.join(view[s:e] for u in g for s, e in u.spans)
        assert counter.count(text) <= 60
    with pytest.raises(ValueError, match="no room"):
        Packer(counter.count, 10).source_budget(header)
