"""All chunking strategies by name. Add a strategy: write a module with a Strategy
subclass and list it here; its ``version`` joins every config hash that uses it."""
from __future__ import annotations

from .auto import Auto
from .baselines import ChonkieRecursive, LangChainRecursive
from .fixed import FixedChars
from .fixed_tokens import FixedTokens
from .packer import Packed
from .paragraph import Paragraphs
from .recursive import Recursive
from .semantic import Semantic
from .sentence import Sentences
from .strategy import Strategy
from .structure import Structure
from .transcript import Transcript

STRATEGIES: dict[str, Strategy] = {s.name: s for s in (
    FixedChars(), Recursive(), Structure(), FixedTokens(), Sentences(), Paragraphs(), Semantic(),
    Transcript(), Packed(), Auto(), LangChainRecursive(), ChonkieRecursive(),
)}


def strategy_version(name: str) -> str:
    """The strategy's own version; for a strategy built on an optional library, that
    library's installed version too (its output changes with it)."""
    s = STRATEGIES[name]
    if s.requires is None:
        return s.version
    from importlib.metadata import PackageNotFoundError, version

    dist = getattr(s, "requires_dist", None) or s.requires.replace("_", "-")
    try:
        return f"{s.version}+{dist}-{version(dist)}"
    except PackageNotFoundError:
        return f"{s.version}+{dist}-missing"
