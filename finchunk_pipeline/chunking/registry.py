"""All chunking strategies by name. Add a strategy: write a module with a Strategy
subclass and list it here; its ``version`` joins every config hash that uses it."""
from __future__ import annotations

from .fixed import FixedChars
from .recursive import Recursive
from .strategy import Strategy
from .structure import Structure

STRATEGIES: dict[str, Strategy] = {s.name: s for s in (FixedChars(), Recursive(), Structure())}


def strategy_version(name: str) -> str:
    return STRATEGIES[name].version
