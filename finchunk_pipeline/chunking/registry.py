"""All chunking strategies by name. Add a strategy: write a module with a Strategy
subclass (its ``Params`` model, its ``pieces``) and list it here — or ``register()`` it from
elsewhere (a plug-in, a test); its ``version`` joins every config hash that uses it."""
from __future__ import annotations

from .auto import Auto
from .baselines import ChonkieRecursive, LangChainRecursive
from .fixed import FixedChars
from .fixed_tokens import FixedTokens
from .packer import Packed
from .paragraph import Paragraphs
from .peers.llamaindex import LlamaIndexMarkdown, LlamaIndexSentence
from .peers.semchunk_splitter import Semchunk
from .peers.text_splitter import MarkdownSplitter, TextSplitter
from .peers.unstructured_title import UnstructuredTitle
from .recursive import Recursive
from .semantic import Semantic
from .sentence import Sentences
from .strategy import Strategy, context_problem
from .structure import Structure
from .transcript import Transcript

STRATEGIES: dict[str, Strategy] = {s.name: s for s in (
    FixedChars(), Recursive(), Structure(), FixedTokens(), Sentences(), Paragraphs(), Semantic(),
    Transcript(), Packed(), Auto(), LangChainRecursive(), ChonkieRecursive(),
    # the peers users run (chunking/peers/): the optional extra ``baselines`` (Unstructured: ``unstructured``)
    Semchunk(), TextSplitter(), MarkdownSplitter(), LlamaIndexSentence(), LlamaIndexMarkdown(), UnstructuredTitle(),
)}


def register(strategy: Strategy, replace: bool = False) -> Strategy:
    """Make ``strategy`` known by its ``name`` to chunkers files and build_chunk_set. A name
    already taken is an error unless ``replace``."""
    if not getattr(strategy, "name", None):
        raise ValueError(f"{type(strategy).__name__}: a strategy needs a name")
    problem = context_problem(strategy)
    if problem:
        raise TypeError(problem)
    if strategy.name in STRATEGIES and not replace:
        taken = type(STRATEGIES[strategy.name]).__name__
        raise ValueError(f"strategy {strategy.name!r} is already registered ({taken})")
    STRATEGIES[strategy.name] = strategy
    return strategy


def unregister(name: str) -> None:
    """Forget a registered strategy (a test's toy one)."""
    STRATEGIES.pop(name, None)


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
