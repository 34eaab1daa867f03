"""Search one chunk set: filters become row masks applied before ranking. A ``Searcher``
ranks over a loaded retriever and chunk table; opening one from the stores (which chunk set,
its indexes checked and loaded) is builders/search.py's.

Filters come from the parsed manifest (doc_id, issuer, ticker, doc_type, fiscal_year,
filed_at):

* ``doc_ids``      only these documents;
* ``issuer``       issuer name or ticker, case-insensitive; a name matches on a substring
                   ("northwind" matches "Northwind Holdings plc");
* ``doc_type``     exact document type (e.g. ``annual_report``), case-insensitive;
* ``fiscal_year``  exact fiscal year;
* ``as_of``        only documents filed on or before this date (a date includes that
                   whole day, UTC; a datetime is compared as is). Documents with no filing
                   date are excluded under as_of: nothing dated after T may leak in.

Delivery: a chunk set that declares ``expand`` (small-to-big) is evaluated on each retrieved
chunk's bounded parent (chunking/expand.py), so search delivers that parent too, as the
evaluation scores it: a hit's ``spans`` and ``display_text`` are the parent's (the context
header first, as the evaluation pays for it), ``matched`` names the chunk that matched, and a
parent delivered once is not delivered again for a lower-ranked chunk of it (the evaluation
counts repeated evidence once). ``units=True`` (``finchunk search --units``) returns the
matched chunks instead.

A context budget (``budget=N``, ``finchunk search --budget N``): hits in rank order until N
characters of context, charged as the evaluation charges them at that budget
(evaluation/assembler.py): a context header once, evidence already delivered not again, a
parent bounded to a third of the budget (evaluation/expander.py), the last hit cut at the
budget. Each hit says what it cost (``chars``) and whether it was cut (``cut``); ``k`` still
caps the number of hits when given.

Routing (``route=True``; ``finchunk search`` routes by default): the query analyzer
(``routing/``) infers from the query text which of the documents the filters allow it is
about, and the ranking applies its route — a hard filter, a boost, or nothing
(``search_with_route`` also returns the route, to show it).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date, datetime, time, timezone
from typing import Callable, Protocol, Sequence

import numpy as np
import pandas as pd

from ..types.chunks import spans_of


@dataclass
class Filters:
    doc_ids: Sequence[str] | None = None
    issuer: str | None = None
    doc_type: str | None = None
    fiscal_year: int | None = None
    as_of: str | date | datetime | None = None

    def active(self) -> bool:
        return any(v not in (None, "", []) for v in asdict(self).values())


@dataclass
class Hit:
    rank: int
    chunk_id: str
    doc_id: str
    spans: list[tuple[int, int]]
    section: str
    display_text: str
    score: float
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["spans"] = [list(s) for s in self.spans]
        d.update(d.pop("extra"))
        return d


def as_of_cutoff(value: str | date | datetime) -> pd.Timestamp:
    """The last instant (UTC) a document may be filed at to count as filed by ``value``."""
    if isinstance(value, datetime):
        ts = pd.Timestamp(value)
    elif isinstance(value, date):
        ts = pd.Timestamp(datetime.combine(value, time.max))
    else:
        text = str(value).strip()
        ts = pd.Timestamp(text)
        if len(text) <= 10:  # a bare date: the whole day counts
            ts = ts + pd.Timedelta(days=1) - pd.Timedelta(microseconds=1)
    return ts.tz_localize(timezone.utc) if ts.tzinfo is None else ts.tz_convert(timezone.utc)


def allowed_documents(manifest: pd.DataFrame, filters: Filters) -> set[str]:
    keep = pd.Series(True, index=manifest.index)
    if filters.doc_ids:
        keep &= manifest["doc_id"].isin(list(filters.doc_ids))
    if filters.issuer:
        q = filters.issuer.casefold()
        issuer = manifest["issuer"].fillna("").astype(str).str.casefold()
        match = issuer.str.contains(q, regex=False)
        if "ticker" in manifest:
            match |= manifest["ticker"].fillna("").astype(str).str.casefold() == q
        keep &= match
    if filters.doc_type:
        keep &= manifest["doc_type"].fillna("").astype(str).str.casefold() == filters.doc_type.casefold()
    if filters.fiscal_year is not None:
        keep &= pd.to_numeric(manifest["fiscal_year"], errors="coerce") == int(filters.fiscal_year)
    if filters.as_of is not None and filters.as_of != "":
        filed = pd.to_datetime(manifest["filed_at"], utc=True, errors="coerce")
        keep &= filed.notna() & (filed <= as_of_cutoff(filters.as_of))
    return set(manifest.loc[keep, "doc_id"])


def row_mask(chunk_doc_ids: Sequence[str], manifest: pd.DataFrame, filters: Filters | None) -> np.ndarray | None:
    """Boolean mask over chunk rows, or None when no filter is set."""
    if filters is None or not filters.active():
        return None
    return np.isin(np.asarray(chunk_doc_ids, dtype=object), list(allowed_documents(manifest, filters)))


PARENT_DEPTH = 5          # chunks ranked per parent asked for, at first
MAX_PARENT_DEPTH = 5000   # the deepest ranking read to find k distinct parents
BUDGET_CHUNK_CHARS = 300  # a budget asks at first for one chunk per this many characters


class Searcher:
    """One chunk set's retriever, chunks and manifest, loaded once and kept (a warm model for
    ``finchunk serve``; builders/search.open_searcher opens one); ``search`` ranks within the filters."""

    def __init__(self, version: str, retriever_name: str, retriever, chunks: pd.DataFrame,
                 read_manifest: Callable[[str], pd.DataFrame], parents: bool = False,
                 deliver_at: Callable[[int | None], Callable[[int], object]] | None = None,
                 context_at: Callable[[int], "Context"] | None = None, catalog=None):
        """``chunks``: the chunk set's chunk_id, doc_id, spans, section_path, display_text in
        row order; ``read_manifest(need)``: the parsed manifest, read when filters or routing
        first need it (``need`` says which, for the error when it is missing); ``parents``: a
        retrieved row delivers its bounded parent, not itself (a set declaring ``expand``);
        ``deliver_at(budget)``: what a row delivers in a context of ``budget`` characters, None:
        no budget (the evaluation's delivery, evaluation/retrieval.delivery_at) and
        ``context_at(budget)`` an empty such context (``Context``: the evaluation's assembler,
        builders/search.py), None when this searcher fills no budget; ``catalog``:
        the routing catalog of the manifest when already built (hybrid's), else built on first
        routing."""
        self.version, self.retriever_name, self.retriever, self.chunks = version, retriever_name, retriever, chunks
        self._read_manifest = read_manifest
        if parents and deliver_at is None:
            raise ValueError("a searcher delivering parents needs deliver_at")
        self._deliver = deliver_at(None) if parents else None   # the parent at the set's own bound
        self._deliver_at, self._context_at = deliver_at, context_at
        self._manifest: pd.DataFrame | None = None
        self._router = None      # the router over every document (routing/search.py), built on first use
        self._catalog = catalog

    def manifest(self, need: str = "filters need") -> pd.DataFrame:
        if self._manifest is None:
            self._manifest = self._read_manifest(need)
        return self._manifest

    def router(self, mask: np.ndarray | None = None):
        """A router over the documents ``mask`` allows (all of them when None)."""
        from ..routing import Catalog
        from ..routing.search import Router

        manifest = self.manifest("routing needs (or turn it off)")
        if mask is None:
            if self._router is None:
                catalog = self._catalog if self._catalog is not None else Catalog.from_frame(manifest)
                self._router = Router(catalog, self.chunks["doc_id"].tolist())
            return self._router
        allowed = set(self.chunks["doc_id"][mask])
        return Router(Catalog.from_frame(manifest[manifest["doc_id"].isin(allowed)]), self.chunks["doc_id"].tolist())

    def search(self, query: str | Sequence[str], k: int | None = 5, filters: Filters | None = None,
               route: bool = False, budget: int | None = None) -> list[Hit] | list[list[Hit]]:
        """Top-k chunks for ``query`` (a list of queries gives a list of lists); ``route``: apply
        the query analyzer's route; ``budget``: hits until that many characters of context (see
        the module docstring)."""
        return self.search_with_route(query, k, filters, route, budget)[0]

    def knows_any(self, query: str) -> bool:
        """False when the retriever ranks by words only (BM25) and no word of ``query`` is in its
        index: every chunk then scores 0, and search answers with no hits (a search engine's
        answer), not with the first chunks in index order. Retrievers that rank by meaning too
        (dense, hybrid) always answer."""
        knows = getattr(self.retriever, "knows_any", None)
        return knows is None or bool(knows(query))

    def fusion(self, query: str) -> dict | None:
        """How hybrid weighs dense for ``query`` (index/hybrid.py): ``{"dense_weight": w,
        "names_a_document": bool}``; None for a retriever that fuses nothing."""
        fusion = getattr(self.retriever, "fusion", None)
        return fusion(query) if fusion is not None else None

    def search_with_route(self, query: str | Sequence[str], k: int | None = 5, filters: Filters | None = None,
                          route: bool = True, budget: int | None = None):
        """(hits, route): as ``search``; the route is a ``routing.Route`` per query (a list for a
        list of queries), None when routing is off."""
        if budget is None and k is None:
            raise ValueError("k (a number of hits) or budget (characters of context) is required")
        if k is not None and k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        deliver = self._deliver
        if budget is not None:
            if budget < 1:
                raise ValueError(f"budget must be at least 1 character, got {budget}")
            if self._deliver_at is None or self._context_at is None:
                raise ValueError("this searcher cannot fill a context budget (opened without deliver_at, context_at)")
            deliver = self._deliver_at(budget)
        chunks = self.chunks
        mask = None
        if filters is not None and filters.active():
            mask = row_mask(chunks["doc_id"].tolist(), self.manifest(), filters)
        single = isinstance(query, str)
        queries = [query] if single else list(query)
        routes = None
        # parents: more chunks than k, as several chunks of one parent deliver it once; deeper
        # while a query has fewer than k parents and its ranking was cut at the depth
        # a budget: at first as many chunks as budget / BUDGET_CHUNK_CHARS, deeper as for parents
        wanted = k if budget is None else min(k or budget, max(1, budget // BUDGET_CHUNK_CHARS))
        depth = wanted if deliver is None else wanted * PARENT_DEPTH
        known = [self.knows_any(q) for q in queries]
        while True:
            if mask is not None and not mask.any():
                results: list[list] = [[] for _ in queries]
            elif route:
                router = self.router(mask)
                results = router.search_many(self.retriever, queries, depth, [mask] * len(queries))
                routes = router.last_routes
            else:
                results = self.retriever.search_many(queries, depth, None if mask is None else [mask] * len(queries))
            # a lexical ranking of a query none of whose words is indexed holds no answer
            results = [hits if knows else [] for knows, hits in zip(known, results)]
            out = [self._hits(hits, k, deliver, budget) for hits in results]
            if (deliver is None and budget is None) or depth >= MAX_PARENT_DEPTH or \
                    all(len(o) == k or _filled(o, budget) or len(h) < depth for o, h in zip(out, results)):
                break
            depth = min(depth * 4, MAX_PARENT_DEPTH)
        if route and routes is None:  # every document filtered out: the route of an empty catalog
            from ..routing import Catalog, analyze

            empty = Catalog.build([])
            routes = [analyze(q, empty) for q in queries]
        if single:
            return out[0], (routes[0] if routes is not None else None)
        return out, routes

    def _hits(self, ranked: Sequence[tuple[int, float]], k: int | None, deliver: Callable[[int], object] | None,
              budget: int | None = None) -> list[Hit]:
        """The top ``k`` deliveries of a ranking: chunks, or their parents (each parent once);
        with a ``budget``, those that fit in it (the last cut), each with what it cost."""
        chunks, rows, seen = self.chunks, [], set()
        context = self._context_at(budget) if budget is not None else None
        for row, score in ranked:
            if len(rows) == k or (context is not None and context.full):
                break
            c = chunks.iloc[row]
            section = c["section_path"]
            hit = Hit(rank=len(rows) + 1, chunk_id=c["chunk_id"], doc_id=c["doc_id"], spans=spans_of(c["spans"]),
                      section=" > ".join(list(section)) if section is not None else "",
                      display_text=c["display_text"], score=float(score))
            if deliver is not None:
                d = deliver(row)
                key = (d.doc_id, tuple(map(tuple, d.spans)))
                if key in seen:
                    continue
                seen.add(key)
                if context is not None:
                    taken = context.take(d)
                    if taken is None:   # evidence delivered already: costs nothing, adds nothing
                        continue
                    hit.extra = {"chars": taken.chars, "cut": taken.cut}
                    text, spans = taken.text, taken.spans
                else:
                    text, spans = d.text, d.spans
                if self._deliver is not None:   # a parent: say what matched in it
                    hit.extra = {"delivery": "parent", "matched": {"spans": [list(s) for s in hit.spans],
                                                                    "text": hit.display_text}, **hit.extra}
                hit.spans, hit.display_text = [tuple(s) for s in spans], text
            rows.append(hit)
        return rows


@dataclass
class Taken:
    """What one delivery adds to a context: its cost, whether the budget cut it, and its text
    and spans as delivered."""
    chars: int
    cut: bool
    text: str
    spans: Sequence[tuple[int, int]]


class Context(Protocol):
    """A context of a budget filled one delivery at a time (builders/search.py: the
    evaluation's assembler)."""
    full: bool

    def take(self, delivered) -> Taken | None: ...


def _filled(hits: Sequence[Hit], budget: int | None) -> bool:
    return budget is not None and sum(h.extra.get("chars", 0) for h in hits) >= budget

