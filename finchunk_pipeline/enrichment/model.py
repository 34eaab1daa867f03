"""The enricher declaration of a chunk set, its version, and the stored enrichment record.

In ``data/chunkers.yaml`` a chunk set declares ``enrich: {enricher: structural}`` (optionally
with parameters, e.g. ``{enricher: structural, max_chars: 400}`` or ``{enricher: llm, model:
qwen2.5-7b-instruct}``). The enricher's *version id* — its code or prompt version, model and
every parameter that changes its output — joins the chunk set's config hash, so a new
enricher (or a new prompt, model, parameter) is a new chunk-set version, while the chunks
themselves are stored under the chunking-only version and reused.

Operational settings of the LLM enricher (endpoint URL, API key, concurrency, rate, timeout,
retries) change how enrichments are fetched, not what they say: they come from the
environment and are not part of the version (see ``llm.py``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ..hashing import meta_value, stable_hash
from ..settings import Settings

STRUCTURAL = "structural"
LLM = "llm"

# every accepted parameter with its default (its type is the default's type)
DEFAULTS: dict[str, dict[str, Any]] = {
    STRUCTURAL: {"max_chars": 600, "key_terms": 8},
    # model "" = FINCHUNK_LLM_MODEL; context_chars: parent-section text shown to the model
    LLM: {"model": "", "max_tokens": 120, "context_chars": 3000, "temperature": 0.0},
}
MODEL_ENV = "FINCHUNK_LLM_MODEL"

SPAN = pa.struct([("start", pa.int64()), ("end", pa.int64())])
ENRICHMENT_SCHEMA = pa.schema([
    ("chunk_id", pa.string()),
    ("doc_id", pa.string()),
    ("chunk_hash", pa.string()),         # what the enricher read (cache key with the version)
    ("enrichment_text", pa.string()),    # never evidence: retrieval only (see evaluation/representations.py)
    ("enricher", pa.string()),           # structural | llm
    ("enricher_version", pa.string()),   # code/prompt version + model + output parameters
    ("spans", pa.list_(SPAN)),           # the chunk's raw spans: what a hit through it is scored by
    ("prompt_tokens", pa.int64()),       # LLM usage when it was produced (0: structural or cached)
    ("completion_tokens", pa.int64()),
])


def _slug(text: str, n: int = 40) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:n] or "x"


@dataclass(frozen=True)
class EnrichSpec:
    """One chunk set's enricher: its name and its parameters (defaults filled in)."""

    enricher: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def model(self) -> str:
        """The LLM's model name: declared, else FINCHUNK_LLM_MODEL ("" when neither)."""
        if self.enricher != LLM:
            return ""
        return str(self.params.get("model") or Settings().llm_model).strip()

    @property
    def code_version(self) -> str:
        if self.enricher == STRUCTURAL:
            from .structural import VERSION

            return f"structural-v{VERSION}"
        from .llm import PROMPT_VERSION

        return f"llm-prompt{PROMPT_VERSION}"

    @property
    def version_id(self) -> str:
        """Path-safe id of everything that decides the enrichment text: code or prompt
        version, model, output parameters. Names the cache folder; joins the config hash."""
        resolved = dict(self.params)
        if self.enricher == LLM:
            resolved["model"] = self.model or "unset"
            return f"{self.code_version}-{_slug(resolved['model'])}-{stable_hash(resolved, n=8)}"
        return f"{self.code_version}-{stable_hash(resolved, n=8)}"

    def describe(self) -> str:
        extra = {k: v for k, v in self.params.items() if DEFAULTS[self.enricher].get(k) != v}
        model = f" model={self.model or 'unset'}" if self.enricher == LLM else ""
        return f"{self.enricher}{model}" + (f" {extra}" if extra else "")


def parse_enrich(raw: Any, where: str) -> EnrichSpec | None:
    """``enrich:`` of one chunker entry: None / absent (no enrichment), a name
    (``enrich: structural``) or a mapping ``{enricher: NAME, <param>: value, ...}``."""
    if raw is None or raw is False:
        return None
    if isinstance(raw, str):
        raw = {"enricher": raw}
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: enrich must be a mapping such as {{enricher: structural}}, got {raw!r}")
    raw = dict(raw)
    name = raw.pop("enricher", None)
    if name not in DEFAULTS:
        raise ValueError(f"{where}: enrich.enricher {name!r} is not known; known: {sorted(DEFAULTS)}")
    defaults = DEFAULTS[name]
    for key, value in raw.items():
        if key not in defaults:
            raise ValueError(f"{where}: unknown enrich parameter {key!r} for enricher {name!r}; "
                             f"accepted: {sorted(defaults)}")
        expected = type(defaults[key])
        ok = isinstance(value, expected) or (expected is float and isinstance(value, int))
        if not ok or isinstance(value, bool) != isinstance(defaults[key], bool):
            raise ValueError(f"{where}: enrich parameter {key!r} must be {expected.__name__}, got {value!r}")
    params = {**defaults, **raw}
    for key in ("max_chars", "key_terms", "max_tokens", "context_chars"):
        if key in params and params[key] <= 0:
            raise ValueError(f"{where}: enrich parameter {key!r} must be > 0, got {params[key]!r}")
    return EnrichSpec(name, params)


META_FIELDS = ("title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end")


def chunk_hash(doc_sha: str, parser_key: str, view_spans, source_text: str, section_path,
               meta: dict[str, Any]) -> str:
    """Everything an enricher reads about one chunk: the document's content and parser (its
    blocks), the chunk's view spans and text, its section and the document metadata. The
    cache is keyed by (enricher version, this hash): an unchanged chunk is never enriched twice."""
    spans = [(int(s["start"]), int(s["end"])) if isinstance(s, dict) else (int(s[0]), int(s[1]))
             for s in view_spans]
    return stable_hash({"doc": doc_sha, "parser": parser_key, "spans": spans, "text": source_text,
                        "section": list(section_path) if section_path is not None else [],
                        "meta": {k: meta_value(meta.get(k)) for k in META_FIELDS}}, n=20)
