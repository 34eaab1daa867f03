"""Resources: where the corpus, the data root and the run output are, injected into assets.

Every path is configuration (UI launchpad, run config or environment variables), so the
same code serves the embedded default, a user's corpus, or a deployment whose data root
is a mounted volume.
"""

from pathlib import Path

from dagster import ConfigurableResource

from ..chunk_sets import ChunkerConfig, load_chunker_configs
from ..corpus.loader import Corpus, load_corpus
from ..settings import Settings
from ..storage.workspace import Workspace


class PipelineResource(ConfigurableResource):
    """Paths of one pipeline instance. Empty strings mean "the default from Settings"."""

    corpus_dir: str = ""
    data_root: str = ""
    out_dir: str = ""
    chunkers_file: str = ""
    model_path: str = ""
    data_url: str = ""  # remote data root (fsspec URL); "" = FINCHUNK_DATA_URL or none (local only)
    # endpoint of an S3 API server (MinIO, Ceph, ...); "" = FINCHUNK_DATA_ENDPOINT_URL or the default
    data_endpoint_url: str = ""
    # fsspec storage options as a JSON object (credentials, client_kwargs, ...), merged over
    # FINCHUNK_DATA_STORAGE_OPTIONS; use dagster.EnvVar to keep secrets out of run config
    data_storage_options: str = ""
    # comma-separated retrievers the evaluation runs; "" = FINCHUNK_RETRIEVERS or all of them
    retrievers: str = ""
    # BM25's lexical analyzer (index/analyzer.py); "" = FINCHUNK_BM25_ANALYZER or "finance"
    bm25_analyzer: str = ""
    # analyse every document and query in this language instead of the corpus's ``language``
    # column ("" = FINCHUNK_BM25_LANGUAGE or the column; e.g. "en" to measure the English
    # analyzer on a Spanish corpus)
    bm25_language: str = ""
    # weight of the document-level score in BM25 ranking (index/bm25_retriever.py); "" =
    # FINCHUNK_DOC_PRIOR or 1.0; 0 ranks chunks by their own BM25 score alone
    doc_prior: str = ""
    # lift of the chunks inside a primary statement the question names (index/statements.py,
    # bm25_retriever.py); "" = FINCHUNK_STATEMENT_PRIOR or 0.5; 0 turns it off
    statement_prior: str = ""
    # context budgets (characters) the evaluation scores, comma-separated; "" =
    # FINCHUNK_BUDGETS or evaluation.budget.DEFAULT_BUDGETS
    budgets: str = ""
    # processes that parse the documents (builders/blocks.py); "" = FINCHUNK_PARSE_WORKERS,
    # else one per core when at least 32 MB of documents are new, one otherwise
    parse_workers: str = ""

    def settings(self) -> Settings:
        """Every setting of this instance: the environment (Settings), with this resource's
        non-empty fields over it (Settings.override: "" means unset). ``data_storage_options``
        is merged over FINCHUNK_DATA_STORAGE_OPTIONS instead (remote.remote_config)."""
        return Settings().override(
            corpus_dir=self.corpus_dir, data_root=self.data_root, out_dir=self.out_dir,
            chunkers_file=self.chunkers_file, model_path=self.model_path, data_url=self.data_url,
            data_endpoint_url=self.data_endpoint_url,
            retrievers=self.retrievers, bm25_analyzer=self.bm25_analyzer, bm25_language=self.bm25_language,
            doc_prior=self.doc_prior, statement_prior=self.statement_prior, budgets=self.budgets,
            parse_workers=self.parse_workers)

    def workspace(self) -> Workspace:
        return Workspace(self.settings())

    def _mirror(self):
        from ..storage.remote import mirror_of

        return mirror_of(self.settings(), self.data_storage_options)  # merged over the variable's

    def remote(self) -> dict:
        """The remote data root settings as given to this resource (for FactsStoreResource)."""
        return {"data_url": self.data_url, "data_endpoint_url": self.data_endpoint_url,
                "data_storage_options": self.data_storage_options}

    def claim(self, key: str, log=None):
        """Hold the claim on building ``key`` (claims.py): other runs on this data root (and,
        with a remote data root, on other machines) wait, then find it built and reuse it.
        ``key`` is scoped to this corpus."""
        from ..storage.claims import claim

        ws = self.workspace()
        return claim(f"{ws.root.name}/{key}", ws.settings.data_root, self._mirror(),
                     log=getattr(log, "info", log))

    def claimed(self, context, kind: str, body, key=lambda config: config.version_name):
        """The body of a chunk-set partition: the partition's configuration, built once under
        the claim ``<kind>/<key(config)>`` however many runs ask for it."""
        config = self.chunker_config(context.partition_key)
        with self.claim(f"{kind}/{key(config)}", context.log):
            return body(context, self, config)

    def stored_chunks(self, ws, config) -> dict:
        """The chunk set's manifest (pulled first); its absence is an error naming what to run."""
        self.pull(ws.chunks.dir(config.chunks_version_name), ws.manifest_path)
        return ws.chunks.required(config.chunks_version_name)

    def stored_enrichment(self, ws, config) -> dict:
        """The enrichment's manifest (pulled first); its absence is an error naming what to run."""
        self.pull(ws.enrichments.dir(config.version_name))
        return ws.enrichments.required(config.version_name)

    def _rels(self, paths) -> list[str]:
        root = self.settings().data_root
        return [str(Path(p).relative_to(root)) for p in paths]

    def pull(self, *paths) -> None:
        """With a remote data root: fetch these artefacts (files or folders under the data
        root) into the local working copy. A no-op for a local data root."""
        mirror = self._mirror()
        if mirror is not None:
            mirror.pull(*self._rels(paths))

    def push(self, *paths) -> None:
        """With a remote data root: upload these artefacts, completion marks (JSON) last."""
        mirror = self._mirror()
        if mirror is not None:
            mirror.push(*self._rels(paths))

    def corpus(self) -> Corpus:
        return load_corpus(self.settings().corpus_dir)

    def chunker_configs(self) -> list[ChunkerConfig]:
        return load_chunker_configs(self.settings().chunkers_file)

    def chunker_config(self, name: str) -> ChunkerConfig:
        for config in self.chunker_configs():
            if config.name == name:
                return config
        raise ValueError(f"chunk set {name!r} is not declared in {self.settings().chunkers_file}")

    def retriever_names(self) -> list[str]:
        value = self.settings().retrievers
        if not value:
            from ..index.registry import default_names  # every registered retriever evaluated by default

            return list(default_names())
        return [r.strip() for r in value.split(",") if r.strip()]

    def model(self) -> str | None:
        """The embedding model / tokenizer folder (model_path or FINCHUNK_MODEL), None: the packaged one."""
        return self.settings().model()

    def bm25_settings(self) -> tuple[str, float]:
        """(analyzer name, document prior weight) for BM25 indexes."""
        from ..index.analyzer import ANALYZERS, DEFAULT_ANALYZER
        from ..index.bm25_retriever import DEFAULT_DOC_PRIOR

        settings = self.settings()
        analyzer = settings.bm25_analyzer or DEFAULT_ANALYZER
        if analyzer not in ANALYZERS:
            raise ValueError(f"bm25_analyzer / FINCHUNK_BM25_ANALYZER: unknown analyzer {analyzer!r}; "
                             f"known: {sorted(ANALYZERS)}")
        return analyzer, _weight("doc_prior", settings.doc_prior, DEFAULT_DOC_PRIOR)

    def statement_prior_weight(self) -> float:
        """The BM25 statement prior's weight (statement_prior or FINCHUNK_STATEMENT_PRIOR)."""
        from ..index.bm25_retriever import DEFAULT_STATEMENT_PRIOR

        return _weight("statement_prior", self.settings().statement_prior, DEFAULT_STATEMENT_PRIOR)

    def bm25_forced_language(self) -> str | None:
        """The language forced on every document and query of BM25, or None (the corpus's)."""
        from ..lang.codes import STEMMERS

        value = self.settings().bm25_language.strip().lower()
        if value and value not in STEMMERS:
            raise ValueError(f"bm25_language / FINCHUNK_BM25_LANGUAGE: unsupported language {value!r}; "
                             f"supported: {sorted(STEMMERS)}")
        return value or None

    def parse_worker_count(self) -> int | None:
        """The processes that parse (parse_workers or FINCHUNK_PARSE_WORKERS), None = decided
        by the work (builders/blocks.parse_workers)."""
        value = self.settings().parse_workers.strip()
        if not value or value == "auto":
            return None
        try:
            n = int(value)
        except ValueError:
            n = 0
        if n < 1:
            raise ValueError(f"parse_workers / FINCHUNK_PARSE_WORKERS: expected an integer >= 1 or "
                             f"\"auto\", got {value!r}")
        return n

    def budget_list(self) -> tuple[int, ...]:
        """The context budgets (characters) the evaluation scores."""
        from ..evaluation.budget import parse_budgets

        return parse_budgets(self.settings().budgets)


def _weight(field: str, raw: str, default: float) -> float:
    """A non-negative weight setting ("" = ``default``), or a ValueError naming the field and its variable."""
    from ..settings import ENV

    name = f"{field} / {ENV[field]}"
    try:
        value = float(raw or default)
    except ValueError as exc:
        raise ValueError(f"{name}: not a number: {raw!r}") from exc
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value
