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
    """The strategy's own version, with the versions of the strategies it delegates to and,
    for a strategy built on an optional library, that library's installed version (its
    output changes with each of them)."""
    s = STRATEGIES[name]
    own = s.version + "".join(f"+{u}-{strategy_version(u)}" for u in s.uses)
    if s.requires is None:
        return own
    from importlib.metadata import PackageNotFoundError, version

    dist = getattr(s, "requires_dist", None) or s.requires.replace("_", "-")
    try:
        return f"{own}+{dist}-{version(dist)}"
    except PackageNotFoundError:
        return f"{own}+{dist}-missing"
