"""The LLM enricher: a short situating context per chunk from an OpenAI-compatible endpoint.

Off unless a chunk set declares ``enrich: {enricher: llm}`` (optionally ``model:``,
``max_tokens:``, ``context_chars:``, ``temperature:``). The endpoint, key and limits come from
``FINCHUNK_LLM_*`` (client.py); the model from ``enrich.model`` or ``FINCHUNK_LLM_MODEL``.
The model, PROMPT_VERSION and the output parameters make the enricher's version: a new model
or prompt is a new chunk-set version, and cached enrichments of the old one stay valid for it.

The prompt gives the model the document's metadata and section path (the structural facts),
the text around the chunk in its parent section (at most ``context_chars``) and the chunk,
and asks for one or two sentences that situate the chunk ("contextual retrieval"). The model
never sees or writes the evidence: its text is stored apart from the chunk and only ever
searched, never delivered as a quote (evaluation/representations.py).
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Any, Sequence

from ..types.blocks import BlockKind, ParsedDocument
from .structural import ChunkRef, _known, period_text

PROMPT_VERSION = "1"

SYSTEM = ("You write short contexts for passages of financial documents. A context situates the "
          "passage within its document so that a search engine can find it: which company, which "
          "period, which statement, note or section, and what the passage's figures or statements are "
          "about. Never add facts that are not in the document excerpt.")

INSTRUCTION = ("Give a short, succinct context (one or two sentences, at most 60 words) to situate this "
               "passage within the document for the purposes of improving search retrieval of the passage. "
               "Answer only with the context and nothing else.")


def section_excerpt(doc: ParsedDocument, chunk: ChunkRef, max_chars: int) -> str:
    """Text of the chunk's parent section around the chunk, at most ``max_chars``: blocks of
    the same section path taken nearest first (after, before), in reading order."""
    path = tuple(chunk.section_path or ())
    units = [b for b in doc.blocks if b.vend > b.vstart and b.kind != BlockKind.TABLE_ROW
             and tuple(b.section_path[:len(path)]) == path]
    if not units:
        return ""
    start = chunk.view_spans[0][0] if chunk.view_spans else 0
    i = max(0, bisect_right([b.vstart for b in units], start) - 1)
    chosen, used = {i}, len(units[i].text)
    lo, hi = i - 1, i + 1
    while lo >= 0 or hi < len(units):
        grew = False
        for j in (hi, lo):
            if 0 <= j < len(units) and j not in chosen and used + len(units[j].text) + 2 <= max_chars:
                chosen.add(j)
                used += len(units[j].text) + 2
                grew = True
        hi, lo = hi + 1, lo - 1
        if not grew and (used >= max_chars or (lo < 0 and hi >= len(units))):
            break
    text = "\n\n".join(units[j].text for j in sorted(chosen))
    return text[:max_chars]


def messages_for(doc: ParsedDocument, meta: dict[str, Any], chunk: ChunkRef, context_chars: int) -> list[dict]:
    facts = []
    for label, value in (("Document", _known(meta.get("title"))), ("Type", _known(meta.get("doc_type"))),
                         ("Issuer", _known(meta.get("issuer"))), ("Period", period_text(meta)),
                         ("Section", " > ".join(p for p in (chunk.section_path or ()) if p))):
        if value:
            facts.append(f"{label}: {value}")
    excerpt = section_excerpt(doc, chunk, context_chars)
    user = ("<document>\n" + "\n".join(facts) + ("\n\n" + excerpt if excerpt else "") + "\n</document>\n\n"
            "Here is the passage we want to situate within the whole document:\n<passage>\n"
            + (chunk.source_text or "") + "\n</passage>\n\n" + INSTRUCTION)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def clean_output(text: str, max_chars: int = 1000) -> str:
    """The model's answer as an enrichment: whitespace collapsed, wrapping quotes and a
    leading "Context:" dropped, at most ``max_chars``."""
    text = " ".join((text or "").split())
    for _ in range(2):  # '"Context: ..."' as well as 'Context: "..."'
        if len(text) >= 2 and text[0] in "\"'“" and text[-1] in "\"'”":
            text = text[1:-1].strip()
        if text.lower().startswith("context:"):
            text = text[len("context:"):].strip()
    return text[:max_chars]


def enrich_jobs(doc: ParsedDocument, meta: dict[str, Any], chunks: Sequence[tuple[str, ChunkRef]],
                params: dict[str, Any]) -> list[tuple[str, list[dict]]]:
    """(cache key, messages) of each chunk of one document."""
    return [(key, messages_for(doc, meta, ref, int(params["context_chars"]))) for key, ref in chunks]
