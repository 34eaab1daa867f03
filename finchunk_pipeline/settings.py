"""Paths, defaults and the environment, in one place.

Everything the pipeline writes lives under a data root (``FINCHUNK_DATA``, default
``data/store`` in the project) and a run output folder (``FINCHUNK_OUT``, default ``out``).

The environment is read here and nowhere else: ``Settings()`` (or ``Settings.from_env(env)``)
reads every ``FINCHUNK_*`` variable of ``ENV`` once, when it is built; the rest of the code
gets its values from a Settings it is given. A resource field or a command-line flag wins
over the variable (``Settings.override``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Mapping

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = PROJECT_ROOT / "data" / "corpus" / "default"
DEFAULT_CHUNKERS = PROJECT_ROOT / "data" / "chunkers.yaml"

# field of Settings -> the environment variable it is read from
ENV: dict[str, str] = {
    "corpus_dir": "FINCHUNK_CORPUS",
    "data_root": "FINCHUNK_DATA",
    "out_dir": "FINCHUNK_OUT",
    "chunkers_file": "FINCHUNK_CHUNKERS",
    "model_path": "FINCHUNK_MODEL",                 # embedding model / tokenizer folder ("" = the packaged one)
    "embed_backend": "FINCHUNK_EMBED_BACKEND",      # onnx-int8 (default) | onnx | torch | static
    "dense_index": "FINCHUNK_DENSE_INDEX",          # flat (exact) | hnsw (approximate)
    "dense_vectors": "FINCHUNK_DENSE_VECTORS",      # chunk (default) | pooled: from the document's units
    "retrievers": "FINCHUNK_RETRIEVERS",            # comma-separated ("" = all registered)
    "bm25_analyzer": "FINCHUNK_BM25_ANALYZER",      # "" = the default analyzer
    "bm25_language": "FINCHUNK_BM25_LANGUAGE",      # "" = each document's language column
    "doc_prior": "FINCHUNK_DOC_PRIOR",              # "" = the default weight
    "statement_prior": "FINCHUNK_STATEMENT_PRIOR",  # "" = the default weight; 0 = off
    "budgets": "FINCHUNK_BUDGETS",                  # comma-separated characters ("" = the defaults)
    "parse_workers": "FINCHUNK_PARSE_WORKERS",      # processes that parse ("" = by the work, see builders/blocks.py)
    "data_url": "FINCHUNK_DATA_URL",                # remote data root (fsspec URL)
    "data_endpoint_url": "FINCHUNK_DATA_ENDPOINT_URL",
    "data_storage_options": "FINCHUNK_DATA_STORAGE_OPTIONS",  # JSON object
    "automation": "FINCHUNK_AUTOMATION",            # on | off: declarative automation conditions
    "progress": "FINCHUNK_PROGRESS",                # "1": progress lines on the terminal
    "user_agent": "FINCHUNK_USER_AGENT",            # SEC EDGAR's required User-Agent
    "fetch_max_bytes": "FINCHUNK_FETCH_MAX_BYTES",  # finchunk fetch: largest decoded body, e.g. 512M ("" = default)
    "fetch_deadline": "FINCHUNK_FETCH_DEADLINE",    # finchunk fetch: seconds per URL ("" = default)
    "llm_model": "FINCHUNK_LLM_MODEL",              # the LLM enricher's model
    "ocr": "FINCHUNK_OCR",                          # off | on | tesseract: OCR of image-only PDF pages (docs/ocr.md)
    "ocr_dpi": "FINCHUNK_OCR_DPI",                  # "" = 200: the resolution pages are rendered at for OCR
    "ocr_timeout": "FINCHUNK_OCR_TIMEOUT",          # "" = 60: seconds of OCR per page at most
    # questions generated from inline-XBRL filings' tagged facts (evaluation/xbrl_gold)
    "generated_gold": "FINCHUNK_GENERATED_GOLD",    # auto (when filings carry tagged facts) | off
    "gold_per_filing": "FINCHUNK_GOLD_PER_FILING",  # questions per filing ("" = 150; "all")
    "gold_evidence": "FINCHUNK_GOLD_EVIDENCE",      # row+header | row ("" = row+header)
    "gold_seed": "FINCHUNK_GOLD_SEED",              # the sample's seed ("" = 0)
}
PATH_FIELDS = ("corpus_dir", "data_root", "out_dir", "chunkers_file")
# the OpenAI-compatible endpoints (enrichment/client.py): every variable with these prefixes
LLM_PREFIXES = ("FINCHUNK_LLM_", "FINCHUNK_ANSWER_")


def _path(value: str) -> Path:
    return Path(value).expanduser().resolve()


@dataclass(frozen=True)
class Settings:
    """Every setting of one pipeline instance. ``Settings()`` reads the process environment;
    ``Settings.from_env(env)`` any mapping; strings are "" when unset (the default applies)."""

    corpus_dir: Path = DEFAULT_CORPUS
    data_root: Path = PROJECT_ROOT / "data" / "store"
    out_dir: Path = PROJECT_ROOT / "out"
    chunkers_file: Path = DEFAULT_CHUNKERS
    model_path: str = ""
    embed_backend: str = ""
    dense_index: str = ""
    dense_vectors: str = ""
    retrievers: str = ""
    bm25_analyzer: str = ""
    bm25_language: str = ""
    doc_prior: str = ""
    statement_prior: str = ""
    budgets: str = ""
    parse_workers: str = ""
    data_url: str = ""
    data_endpoint_url: str = ""
    data_storage_options: str = ""
    automation: str = ""
    progress: str = ""
    user_agent: str = ""
    fetch_max_bytes: str = ""
    fetch_deadline: str = ""
    llm_model: str = ""
    ocr: str = ""
    ocr_dpi: str = ""
    ocr_timeout: str = ""
    generated_gold: str = ""
    gold_per_filing: str = ""
    gold_evidence: str = ""
    gold_seed: str = ""
    # the FINCHUNK_LLM_* / FINCHUNK_ANSWER_* variables, for the LLM clients (enrichment/client.py)
    llm_env: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    from_environment: bool = field(default=True, compare=False, repr=False)

    def __post_init__(self):
        if self.from_environment:  # Settings(): the process environment, read once, here
            object.__setattr__(self, "from_environment", False)
            env = _read(os.environ)
            for f in fields(self):
                if f.name in env and getattr(self, f.name) == f.default:
                    object.__setattr__(self, f.name, env[f.name])
            if not self.llm_env:
                object.__setattr__(self, "llm_env", env["llm_env"])
        for name in PATH_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, Path):
                object.__setattr__(self, name, _path(str(value)))

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "Settings":
        """Settings from ``env`` alone (tests, subprocesses), not the process environment."""
        return cls(from_environment=False, **_read(env))

    def override(self, **values) -> "Settings":
        """These settings with the given values where they are not None or "" (resource
        fields, command-line flags); paths resolved."""
        changes = {k: (_path(str(v)) if k in PATH_FIELDS else v) for k, v in values.items()
                   if v is not None and v != ""}
        return replace(self, from_environment=False, **changes)

    def model(self) -> str | None:
        """The embedding model folder this run uses, or None for the packaged default."""
        return self.model_path or None

    def with_paths(self, corpus: str | None = None, data: str | None = None,
                   chunkers: str | None = None) -> "Settings":
        """These settings with the folders a command line gave (``--corpus``, ``--data``,
        ``--chunkers``; None keeps the setting), resolved."""
        return self.override(corpus_dir=corpus, data_root=data, chunkers_file=chunkers)

    # storage layout shared by every corpus (see docs/storage.md); a corpus's own artefacts
    # (chunk sets, indexes, enrichments, evaluations) are laid out by workspace.Workspace
    @property
    def raw_dir(self) -> Path:
        return self.data_root / "raw"

    @property
    def blocks_dir(self) -> Path:
        return self.data_root / "blocks"

    @property
    def embeddings_dir(self) -> Path:
        return self.data_root / "embeddings"

    @property
    def facts_db(self) -> Path:
        return self.data_root / "facts.duckdb"


def _read(env: Mapping[str, str]) -> dict:
    """The fields ENV names, from ``env`` (unset or blank variables left out), and the LLM
    clients' variables."""
    out: dict = {}
    for name, var in ENV.items():
        value = str(env.get(var) or "").strip()
        if value:
            out[name] = _path(value) if name in PATH_FIELDS else value
    out["llm_env"] = {k: str(v) for k, v in env.items() if k.startswith(LLM_PREFIXES)}
    return out
