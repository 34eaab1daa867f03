"""Group "xbrl": xbrl_facts -> xbrl_quarterly, a branch parallel to the document graph.

Figures that exist as tagged XBRL facts come from the facts as known on the date a question
is asked (``finchunk_pipeline.xbrl``). Heavy modules (duckdb, pandas) are imported inside
the functions, so loading the code location stays light.

Wire-up (definitions.py): ``assets=[..., *XBRL_ASSETS]``, ``asset_checks=XBRL_CHECKS``,
``resources={..., "facts_store": facts_store_resource(settings)}`` (definitions.resources).
"""

from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetExecutionContext,
    ConfigurableResource,
    MaterializeResult,
    MetadataValue,
    asset,
    asset_check,
)
from pydantic import Field

from ..settings import Settings


class FactsStoreResource(ConfigurableResource):
    """Where the DuckDB facts store lives and what to load into it."""

    db_path: str
    corpus_dir: str = ""  # a corpus folder; its xbrl_facts.parquet is loaded when present
    companyfacts_paths: list[str] = Field(default_factory=list)  # SEC companyfacts JSON files
    tickers: dict[str, str] = Field(default_factory=dict)  # CIK -> ticker for companyfacts files
    as_of: str = ""  # xbrl_quarterly as known at this date/datetime; "" = now
    # remote data root (remote.py): the facts file is pulled before and pushed after each
    # write, so the xbrl branch runs on any worker; "" = FINCHUNK_DATA_URL / ... or local only
    data_url: str = ""
    data_endpoint_url: str = ""
    data_storage_options: str = ""

    @contextmanager
    def open(self, read_only: bool = False):
        """The facts store, held under the claim on the facts file: DuckDB allows one writing
        process per file, so runs on one data root (or, with a remote data root, on any
        machine) take turns; with a remote data root the file is pulled first and, after a
        write, pushed back."""
        from ..storage.claims import claim
        from ..storage.remote import mirror_of
        from ..xbrl.store import FactsStore

        db = Path(self.db_path)
        settings = Settings().override(data_url=self.data_url, data_endpoint_url=self.data_endpoint_url)
        mirror = mirror_of(settings, self.data_storage_options, local_root=db.parent)
        with claim(db.name, db.parent, mirror):
            if mirror is not None:
                mirror.pull(db.name)
            with FactsStore(db, read_only=read_only) as store:
                yield store
            if mirror is not None and not read_only:
                mirror.push(db.name)

    def as_of_value(self):
        return self.as_of or datetime.now(timezone.utc)


def _md_table(rows: list[dict], limit: int = 20) -> str:
    if not rows:
        return "_(empty)_"
    cols = list(rows[0])

    def cell(v) -> str:
        if isinstance(v, float):
            return f"{v:,.0f}" if v.is_integer() else f"{v:,.4g}"
        return "" if v is None else str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(cell(r[c]) for c in cols) + " |" for r in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"\n… {len(rows) - limit} more")
    return "\n".join(lines)


def _records(df) -> list[dict]:
    import pandas as pd
    out = []
    for r in df.to_dict("records"):
        out.append({k: (None if (not isinstance(v, (str, list)) and pd.isna(v)) else
                        (v.date().isoformat() if isinstance(v, pd.Timestamp) and k.startswith("period")
                         else str(v) if isinstance(v, pd.Timestamp) else v)) for k, v in r.items()})
    return out


@asset(
    group_name="xbrl",
    kinds={"duckdb"},
    description="Loads the corpus's xbrl_facts.parquet and the configured companyfacts JSON files "
                "into the DuckDB facts store: every filed value kept (append-only), deduplicated by "
                "(accession, concept, unit, period).",
)
def xbrl_facts(context: AssetExecutionContext, facts_store: FactsStoreResource) -> MaterializeResult:
    from ..xbrl.companyfacts import entity_of, normalise_cik, read_companyfacts

    loads = []
    tickers = {normalise_cik(k): v for k, v in facts_store.tickers.items()}
    with facts_store.open() as store:
        if facts_store.corpus_dir:
            parquet = Path(facts_store.corpus_dir) / "xbrl_facts.parquet"
            if parquet.exists():  # also names the entities from documents.parquet
                loads.append(store.load_path(facts_store.corpus_dir))
            else:
                context.log.info(f"{facts_store.corpus_dir}: no xbrl_facts.parquet (optional)")
        for path in facts_store.companyfacts_paths:
            obj = read_companyfacts(path)
            cik, _ = entity_of(obj)
            r = store.load_companyfacts(obj, ticker=tickers.get(cik), source=str(path))
            loads.append(r)
        for r in loads:
            context.log.info(f"{r.source}: {r.rows} rows, {r.inserted} new, {r.duplicates} stored before, "
                             f"{r.conflicts} conflicts")
            if r.conflicts:
                context.log.warning(f"{r.source}: {r.conflicts} facts differ from the stored value "
                                    "for the same key; the stored (first) value is kept")
        stats = store.stats()
        entities = store.entities_summary(50)
        sample = store.latest_facts(10)
    return MaterializeResult(metadata={
        "db_path": facts_store.db_path,
        "facts": stats["facts"],
        "new_rows": sum(r.inserted for r in loads),
        "rows_offered": sum(r.rows for r in loads),
        "conflicts": sum(r.conflicts for r in loads),
        "entities": stats["entities"],
        "concepts": stats["concepts"],
        "filings": stats["filings"],
        "sources": MetadataValue.json([r.as_dict() for r in loads]),
        "entities_preview": MetadataValue.md(_md_table(_records(entities))),
        "preview": MetadataValue.md(_md_table(_records(sample))),
    })


@asset(
    group_name="xbrl",
    deps=[xbrl_facts],
    kinds={"duckdb"},
    description="Fiscal quarters of every duration concept as known at the configured as_of "
                "(default: now): filed quarters as filed, the others derived (Q2 = H1 − Q1, "
                "Q3 = 9M − H1, Q4 = FY − 9M) from facts known at that date. Table `quarters`.",
)
def xbrl_quarterly(context: AssetExecutionContext, facts_store: FactsStoreResource) -> MaterializeResult:
    from ..xbrl.quarters import derive_quarters, inconsistencies

    as_of = facts_store.as_of_value()
    with facts_store.open() as store:
        q = derive_quarters(store, as_of)
        q["as_of"] = str(as_of)
        store.replace_quarters(q)
    bad = inconsistencies(q)
    if len(bad):
        context.log.warning(f"{len(bad)} filed quarters differ from their derived value")
    cols = ["ticker", "concept", "fiscal_year", "quarter", "period_end", "value", "method", "formula"]
    return MaterializeResult(metadata={
        "as_of": str(as_of),
        "quarters": len(q),
        "filed": int((q["method"] == "filed").sum()) if len(q) else 0,
        "derived": int((q["method"] == "derived").sum()) if len(q) else 0,
        "entities": int(q["cik"].nunique()) if len(q) else 0,
        "concepts": int(q["concept"].nunique()) if len(q) else 0,
        "filed_vs_derived_mismatches": len(bad),
        "preview": MetadataValue.md(_md_table(_records(
            q.sort_values(["known_at"], ascending=False)[cols] if len(q) else q))),
    })


@asset_check(asset=xbrl_facts, description="No two facts share (accession, concept, unit, period).")
def xbrl_facts_no_duplicates(facts_store: FactsStoreResource) -> AssetCheckResult:
    with facts_store.open(read_only=True) as store:
        dups = store.duplicate_keys()
    return AssetCheckResult(passed=dups == 0, metadata={"duplicate_keys": dups})


@asset_check(asset=xbrl_facts, description="No fact was filed after the check runs (filed_at in the future).")
def xbrl_facts_not_filed_in_future(facts_store: FactsStoreResource) -> AssetCheckResult:
    with facts_store.open(read_only=True) as store:
        n = store.future_facts()
        latest = store.latest_filed_at()
    return AssetCheckResult(passed=n == 0, metadata={"future_facts": n, "latest_filed_at": latest})


@asset_check(asset=xbrl_quarterly,
             description="Where a quarter was filed and can also be derived from year-to-date facts, "
                         "both agree to the rounding step of the figures. Real filings contain a few "
                         "non-additive flows, hence WARN.")
def xbrl_quarters_consistent(facts_store: FactsStoreResource) -> AssetCheckResult:
    from ..xbrl.quarters import inconsistencies
    with facts_store.open(read_only=True) as store:
        q = store.quarters()
    bad = inconsistencies(q)
    compared = int((q["filed_value"].notna() & q["derived_value"].notna()).sum()) if len(q) else 0
    cols = ["ticker", "concept", "fiscal_year", "quarter", "filed_value", "derived_value"]
    return AssetCheckResult(
        passed=len(bad) == 0,
        severity=AssetCheckSeverity.WARN,
        metadata={"compared": compared, "mismatches": len(bad),
                  "examples": MetadataValue.md(_md_table(_records(bad[cols]) if len(bad) else []))},
    )


def facts_store_resource(settings: Settings, **remote: str) -> FactsStoreResource:
    """The facts store of the instance ``settings`` describe (its data root's facts file, its
    corpus); ``remote``: the pipeline resource's remote data root fields, if any."""
    return FactsStoreResource(db_path=str(settings.facts_db), corpus_dir=str(settings.corpus_dir), **remote)


XBRL_ASSETS = [xbrl_facts, xbrl_quarterly]
XBRL_CHECKS = [xbrl_facts_no_duplicates, xbrl_facts_not_filed_in_future, xbrl_quarters_consistent]
