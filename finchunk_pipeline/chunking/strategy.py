"""The strategy interface every chunker implements.

A strategy reads a ParsedDocument (blocks + text view) and returns Pieces: which view ranges
form each chunk. It never calls a parser and never builds texts; context.build_chunks does
that uniformly. ``Params`` (a pydantic model, chunking/options.py) declares every accepted
parameter with its type, default and bounds.
"""
from __future__ import annotations

import inspect
from typing import Any, ClassVar

from pydantic import ValidationError

from ..types.blocks import ParsedDocument
from .context import Piece
from .options import StrategyParams, describe_errors
from .strategy_context import ChunkingContext


class Strategy:
    name: ClassVar[str]
    version: ClassVar[str] = "1"
    # the strategy's parameters: a StrategyParams model (types, defaults, bounds, rules)
    Params: ClassVar[type[StrategyParams]] = StrategyParams
    requires: ClassVar[str | None] = None  # an optional module the strategy imports (an extra)
    uses: ClassVar[tuple[str, ...]] = ()    # strategies it delegates to: their versions join its own
    # "plain": cuts text without reading its structure (the baselines); "evidence": cuts along
    # the document's own units (headings, tables, notes, turns); "other": neither
    family: ClassVar[str] = "other"
    # the parameter bounding a chunk's characters of document text (its spans), or None;
    # override char_bound when the bound is not one parameter
    bound_param: ClassVar[str | None] = None
    # the strategy embeds text itself (semantic): the embedding backend joins its chunk sets'
    # input key (FINCHUNK_EMBED_BACKEND changes its vectors, hence its cuts)
    embeds: ClassVar[bool] = False

    def available(self) -> bool:
        import importlib.util

        return self.requires is None or importlib.util.find_spec(self.requires) is not None

    def validate(self, params: dict[str, Any], where: str = "") -> None:
        """Raise ValueError naming ``where``, the parameter and the problem (``Params``:
        types, bounds and cross-parameter rules)."""
        try:
            self.Params.model_validate(params)
        except ValidationError as exc:
            unknown = f"unknown parameter {{field!r}} for strategy {self.name!r}; accepted: {{accepted}}"
            raise ValueError(describe_errors(exc, self.Params, where, "params", unknown)) from None

    def resolve(self, params: dict[str, Any]) -> StrategyParams:
        """The parameters as the strategy reads them: its ``Params`` model, the given values
        over the defaults, typed (``p.max_chars``) and validated (strict: an integer stays an
        integer; a ValueError for what the chunkers file would have refused)."""
        return self.Params.model_validate(params)

    def char_bound(self, params: dict[str, Any], doc: ParsedDocument | None = None,
                   meta: dict[str, Any] | None = None) -> int | None:
        """The most characters of document text one chunk may hold (the sum of its spans;
        the joiners between spans not counted), or None when the strategy is bounded by
        tokens instead (checked by the no_over_limit_chunks gate). With ``doc`` (and its
        ``meta``): the bound for that document, for a strategy whose policy depends on it;
        without: the configuration's largest bound. chunking/document.py enforces it on
        every strategy's pieces."""
        return int(getattr(self.resolve(params), self.bound_param)) if self.bound_param else None

    def table_char_bound(self, params: dict[str, Any], doc: ParsedDocument | None = None,
                         meta: dict[str, Any] | None = None) -> int | None:
        """The larger bound a table piece (kinds in bound.TABLE_KINDS) may have when the
        configuration allows whole tables or row groups over ``char_bound``, else None (tables
        held to ``char_bound`` like any piece). Never applies to text (chunking/bound.py)."""
        return None

    def prepare(self, docs, params: dict[str, Any], context: ChunkingContext | None = None) -> None:
        """Optional: work for many documents at once before ``pieces`` is called on each of
        them (``docs``: (ParsedDocument, meta) pairs), e.g. embedding all their sentences in
        one batched call. The chunks must not depend on whether it ran."""

    @classmethod
    def prepares(cls) -> bool:
        return cls.prepare is not Strategy.prepare

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        raise NotImplementedError


def context_problem(strategy: Strategy) -> str | None:
    """Why ``strategy`` cannot be called as every strategy is — ``pieces(doc, params, meta,
    context=...)`` and ``prepare(docs, params, context=...)`` — or None. Checked once, when a
    strategy is registered (chunking/registry.py), so chunking calls it directly."""
    for method in ("pieces", "prepare"):
        params = inspect.signature(getattr(strategy, method)).parameters
        if "context" not in params and not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return (f"strategy {strategy.name!r}: {method}() must take a context parameter "
                    f"(the run's ChunkingContext, None when it has none)")
    return None
