"""The DuckDB facts store.

Table ``facts`` keeps every filed value (append-only: rows are never updated or deleted),
deduplicated by (accession, concept, unit, period_start, period_end); ``filed_at`` is a
naive TIMESTAMP in UTC. Table ``entities`` maps a CIK to a ticker and a name (companyfacts
JSON carries no ticker: pass one when loading, or it comes from an xbrl_facts.parquet).
All SQL takes values as parameters.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Iterable

import duckdb
import pandas as pd
import pyarrow as pa

from .companyfacts import COLUMNS, companyfacts_rows, entity_of, normalise_cik, read_companyfacts

KEY = ("accession", "concept", "unit", "period_start", "period_end")

_DDL = """
CREATE TABLE IF NOT EXISTS facts (
    cik VARCHAR NOT NULL,
    ticker VARCHAR,
    concept VARCHAR NOT NULL,
    unit VARCHAR NOT NULL,
    value DOUBLE NOT NULL,
    period_start DATE,
    period_end DATE NOT NULL,
    form VARCHAR,
    accession VARCHAR NOT NULL,
    filed_at TIMESTAMP NOT NULL,
    fy BIGINT,
    fp VARCHAR,
    loaded_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS entities (
    cik VARCHAR PRIMARY KEY,
    ticker VARCHAR,
    name VARCHAR
);
"""

_ARROW = pa.schema([
    ("cik", pa.string()), ("ticker", pa.string()), ("concept", pa.string()), ("unit", pa.string()),
    ("value", pa.float64()), ("period_start", pa.date32()), ("period_end", pa.date32()),
    ("form", pa.string()), ("accession", pa.string()), ("filed_at", pa.timestamp("us")),
    ("fy", pa.int64()), ("fp", pa.string()),
])
_REQUIRED = ("cik", "concept", "unit", "value", "period_end", "accession", "filed_at")


class UnknownEntityError(LookupError):
    pass


@dataclass
class LoadResult:
    source: str
    rows: int          # rows offered
    inserted: int      # new facts
    duplicates: int    # already in the store (or repeated in the input) with the same value
    conflicts: int     # same key already stored with a different value (the stored one is kept)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def to_utc_naive(ts: Any) -> datetime:
    """A date/datetime/ISO string as a naive UTC datetime (naive input is taken as UTC)."""
    t = pd.Timestamp(ts)
    if t.tzinfo is not None:
        t = t.tz_convert("UTC").tz_localize(None)
    return t.to_pydatetime()


def normalise_frame(data: pd.DataFrame | Iterable[dict]) -> pa.Table:
    """Rows in the xbrl_facts schema (any reasonable types) -> the store's Arrow layout."""
    df = data.copy() if isinstance(data, pd.DataFrame) else pd.DataFrame(list(data))
    missing = [c for c in _REQUIRED if c not in df.columns]
    if missing and len(df):
        raise ValueError(f"xbrl facts: missing required column(s) {missing}")
    for c in COLUMNS:
        if c not in df.columns:
            df[c] = None
    df = df[list(COLUMNS)]
    if len(df) == 0:
        return _ARROW.empty_table()
    df["cik"] = df["cik"].map(normalise_cik)
    df["ticker"] = df["ticker"].map(lambda t: str(t).strip().upper() if isinstance(t, str) and t.strip() else None)
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype("float64")
    for c in ("period_start", "period_end"):
        df[c] = pd.to_datetime(df[c], errors="coerce").dt.date
        df[c] = df[c].astype(object).where(df[c].notna(), None)
    df["filed_at"] = pd.to_datetime(df["filed_at"], utc=True).dt.tz_localize(None)
    df["fy"] = pd.to_numeric(df["fy"], errors="coerce").astype("Int64")
    for c in ("concept", "unit", "form", "accession", "fp"):
        df[c] = df[c].astype(object).where(df[c].notna(), None)
    df = df[df["value"].notna() & df["period_end"].notna()]
    return pa.Table.from_pandas(df, schema=_ARROW, preserve_index=False)


class FactsStore:
    def __init__(self, path: str | Path = ":memory:", read_only: bool = False):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.con = duckdb.connect(self.path, read_only=read_only)
        if not read_only:
            self.con.execute(_DDL)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "FactsStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- loading -----------------------------------------------------------------------------
    def insert(self, rows: pd.DataFrame | Iterable[dict], source: str = "rows") -> LoadResult:
        table = normalise_frame(rows)
        n = table.num_rows
        if n == 0:
            return LoadResult(source, 0, 0, 0, 0)
        con = self.con
        con.register("incoming_facts", table)
        try:
            match = """f.accession = i.accession AND f.concept = i.concept AND f.unit = i.unit
                       AND f.period_end = i.period_end
                       AND f.period_start IS NOT DISTINCT FROM i.period_start"""
            conflicts = con.execute(f"""
                SELECT count(*) FROM incoming_facts i JOIN facts f ON {match}
                WHERE f.value <> i.value""").fetchall()[0][0]
            before = con.execute("SELECT count(*) FROM facts").fetchall()[0][0]
            con.execute("BEGIN TRANSACTION").fetchall()
            con.execute(f"""
                INSERT INTO facts
                SELECT i.*, now()::TIMESTAMP FROM (
                    SELECT * FROM incoming_facts
                    QUALIFY row_number() OVER (
                        PARTITION BY accession, concept, unit, period_start, period_end
                        ORDER BY filed_at) = 1
                ) i
                WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE {match})""").fetchall()
            con.execute("""
                INSERT INTO entities
                SELECT cik, max(ticker), NULL FROM incoming_facts GROUP BY cik
                ON CONFLICT (cik) DO UPDATE SET ticker = COALESCE(EXCLUDED.ticker, entities.ticker)""").fetchall()
            con.execute("COMMIT").fetchall()
            inserted = con.execute("SELECT count(*) FROM facts").fetchall()[0][0] - before
        except BaseException:
            try:
                con.execute("ROLLBACK").fetchall()
            except duckdb.Error:
                pass
            raise
        finally:
            con.unregister("incoming_facts")
        return LoadResult(source, n, inserted, n - inserted - conflicts, conflicts)

    def set_entity(self, cik: str, ticker: str | None = None, name: str | None = None) -> None:
        self.con.execute("""
            INSERT INTO entities VALUES (?, ?, ?)
            ON CONFLICT (cik) DO UPDATE SET ticker = COALESCE(EXCLUDED.ticker, entities.ticker),
                                            name = COALESCE(EXCLUDED.name, entities.name)""",
                         [normalise_cik(cik), ticker.upper() if ticker else None, name]).fetchall()

    def load_companyfacts(self, src: str | Path | dict, ticker: str | None = None,
                          source: str | None = None) -> LoadResult:
        """``source`` names a JSON given as a dict (its file) in errors and in the result."""
        obj = src if isinstance(src, dict) else read_companyfacts(src)
        cik, name = entity_of(obj)
        if ticker is None:  # a ticker known from an earlier load
            rows = self.con.execute("SELECT ticker FROM entities WHERE cik = ?", [cik]).fetchall()
            ticker = rows[0][0] if rows else None
        source = source or (str(src) if not isinstance(src, dict) else f"companyfacts CIK{cik}")
        result = self.insert(companyfacts_rows(obj, ticker=ticker, source=source), source=source)
        self.set_entity(cik, ticker, name)
        return result

    def load_parquet(self, path: str | Path) -> LoadResult:
        import pyarrow.parquet as pq
        return self.insert(pq.read_table(path).to_pandas(), source=str(path))

    def load_path(self, path: str | Path, ticker: str | None = None) -> LoadResult:
        """A companyfacts JSON, an xbrl_facts.parquet, or a corpus folder containing one."""
        p = Path(path)
        if p.is_dir():
            f = p / "xbrl_facts.parquet"
            if not f.exists():
                raise FileNotFoundError(f"{p}: no xbrl_facts.parquet in this corpus folder")
            result = self.load_parquet(f)
            if (p / "documents.parquet").exists():
                self.names_from_documents(p / "documents.parquet")
            return result
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such file")
        if p.suffix.lower() == ".parquet":
            return self.load_parquet(p)
        return self.load_companyfacts(p, ticker=ticker)

    def names_from_documents(self, documents: str | Path | pd.DataFrame) -> int:
        """Fill entity names from a corpus's documents (issuer per ticker), so questions that
        name the company can be resolved. Returns the number of entities named."""
        if isinstance(documents, pd.DataFrame):
            docs = documents
        else:
            import pyarrow.parquet as pq
            cols = [c for c in ("issuer", "ticker") if c in pq.read_schema(documents).names]
            if len(cols) < 2:
                return 0
            docs = pq.read_table(documents, columns=cols).to_pandas()
        pairs = docs[["ticker", "issuer"]].dropna().drop_duplicates("ticker")
        named = 0
        for ticker, issuer in pairs.itertuples(index=False):
            try:
                cik = self.resolve_entity(ticker)
            except LookupError:
                continue
            self.con.execute("UPDATE entities SET name = COALESCE(name, ?) WHERE cik = ?", [issuer, cik]).fetchall()
            named += 1
        return named

    def entity_by_name(self, name: str) -> str | None:
        """CIK of the entity whose name matches (case-insensitive, punctuation ignored)."""
        key = _name_key(name)
        rows = self.con.execute("SELECT cik, name FROM entities WHERE name IS NOT NULL").fetchall()
        hits = [c for c, n in rows if _name_key(n) == key]
        return hits[0] if len(hits) == 1 else None

    # --- look-ups ----------------------------------------------------------------------------
    def resolve_entity(self, entity: str) -> str:
        """A ticker (any case) or a CIK with or without leading zeros / 'CIK' prefix -> CIK."""
        e = str(entity).strip()
        cik = normalise_cik(e)
        found = self.con.execute(
            "SELECT cik FROM entities WHERE cik = ? UNION SELECT DISTINCT cik FROM facts WHERE cik = ?",
            [cik, cik]).fetchall()
        if found:
            return found[0][0]
        found = self.con.execute("""
            SELECT cik FROM entities WHERE upper(ticker) = upper(?)
            UNION SELECT DISTINCT cik FROM facts WHERE upper(ticker) = upper(?)""", [e, e]).fetchall()
        if len(found) == 1:
            return found[0][0]
        if len(found) > 1:
            raise UnknownEntityError(f"ticker {e!r} is ambiguous: CIKs {sorted(r[0] for r in found)}")
        known = self.con.execute(
            "SELECT cik, ticker FROM entities ORDER BY cik LIMIT 10").fetchall()
        shown = ", ".join(f"{t or '-'} ({c})" for c, t in known) or "none loaded"
        raise UnknownEntityError(f"unknown entity {e!r}; known: {shown}")

    def resolve_concept(self, concept: str, cik: str | None = None) -> str:
        """'us-gaap:Revenues' as given; a bare 'Revenues' if exactly one taxonomy has it."""
        if ":" in concept:
            return concept
        # an exact suffix match: the name is data, never a LIKE pattern ('%' and '_' are
        # ordinary characters in it)
        rows = self.con.execute(
            "SELECT DISTINCT concept FROM facts WHERE ends_with(concept, ?) AND (? IS NULL OR cik = ?)",
            [":" + concept, cik, cik]).fetchall()
        if len(rows) == 1:
            return rows[0][0]
        if not rows:
            raise KeyError(f"unknown concept {concept!r} (write it as taxonomy:Name, e.g. us-gaap:{concept})")
        raise KeyError(f"concept {concept!r} is ambiguous: {sorted(r[0] for r in rows)}")

    def ticker_of(self, cik: str) -> str | None:
        rows = self.con.execute("SELECT ticker FROM entities WHERE cik = ?", [cik]).fetchall()
        return rows[0][0] if rows else None

    # --- stats / checks ----------------------------------------------------------------------
    def count(self) -> int:
        return self.con.execute("SELECT count(*) FROM facts").fetchall()[0][0]

    def stats(self) -> dict[str, int]:
        r = self.con.execute("""
            SELECT count(*), count(DISTINCT cik), count(DISTINCT concept), count(DISTINCT accession)
            FROM facts""").fetchall()[0]
        return {"facts": r[0], "entities": r[1], "concepts": r[2], "filings": r[3]}

    def duplicate_keys(self) -> int:
        return self.con.execute("""
            SELECT count(*) FROM (
                SELECT 1 FROM facts GROUP BY accession, concept, unit, period_start, period_end
                HAVING count(*) > 1)""").fetchall()[0][0]

    def future_facts(self, now: datetime | None = None) -> int:
        now = to_utc_naive(now or datetime.now(timezone.utc))
        return self.con.execute("SELECT count(*) FROM facts WHERE filed_at > ?", [now]).fetchall()[0][0]

    def frame(self, sql: str = "SELECT * FROM facts", params: list | None = None) -> pd.DataFrame:
        return self.con.execute(sql, params or []).df()

    # summaries the Dagster assets show (assets/xbrl.py), and the derived quarters' table
    def entities_summary(self, limit: int = 50) -> pd.DataFrame:
        """Per entity: facts, concepts, filings and first/last filing date, most facts first."""
        return self.frame(f"""
            SELECT e.ticker, f.cik, count(*) AS facts, count(DISTINCT f.concept) AS concepts,
                   count(DISTINCT f.accession) AS filings,
                   min(f.filed_at)::DATE::VARCHAR AS first_filed, max(f.filed_at)::DATE::VARCHAR AS last_filed
            FROM facts f LEFT JOIN entities e USING (cik)
            GROUP BY ALL ORDER BY facts DESC LIMIT {int(limit)}""")

    def latest_facts(self, limit: int = 10) -> pd.DataFrame:
        """The most recently filed facts, with their entity's ticker (or CIK)."""
        return self.frame(f"""
            SELECT COALESCE(e.ticker, f.cik) AS entity, f.concept, f.unit, f.value,
                   f.period_start::VARCHAR AS period_start, f.period_end::VARCHAR AS period_end,
                   f.form, f.filed_at::DATE::VARCHAR AS filed
            FROM facts f LEFT JOIN entities e USING (cik)
            ORDER BY f.filed_at DESC, f.concept LIMIT {int(limit)}""")

    def latest_filed_at(self) -> str:
        return str(self.frame("SELECT max(filed_at)::VARCHAR AS m FROM facts")["m"].iat[0])

    def replace_quarters(self, quarters: pd.DataFrame) -> None:
        """Table ``quarters`` := these derived quarters (xbrl/quarters.py)."""
        self.con.register("derived_quarters", quarters)
        try:
            self.con.execute("CREATE OR REPLACE TABLE quarters AS SELECT * FROM derived_quarters").fetchall()
        finally:
            self.con.unregister("derived_quarters")

    def quarters(self) -> pd.DataFrame:
        return self.frame("SELECT * FROM quarters")


def _name_key(name: str) -> str:
    import re
    return re.sub(r"[^a-z0-9]+", " ", name.lower()).strip()


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?")


def parse_date(value: Any, what: str = "date") -> date | None:
    """A date given as a date, a datetime (its day) or exactly ``YYYY-MM-DD``; ``None``,
    "" and "-" are None. Anything else — extra characters included — is a ValueError
    naming ``what`` and the value (nothing is truncated into a valid-looking date)."""
    if value is None or (isinstance(value, str) and value.strip() in ("", "-")):
        return None
    if isinstance(value, datetime):  # pd.Timestamp included
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    if _DATE.fullmatch(text):
        try:
            return date.fromisoformat(text)
        except ValueError:
            pass
    raise ValueError(f"invalid {what} {value!r}: expected a date YYYY-MM-DD")


def parse_as_of(value: Any, what: str = "as_of") -> date | datetime:
    """``as_of`` as a date (``YYYY-MM-DD``) or a datetime (ISO ``YYYY-MM-DDTHH:MM[:SS[.f]]``
    with an optional ``Z`` / ``±HH:MM``); anything else is a ValueError naming the value."""
    if isinstance(value, (date, datetime)):
        return value
    text = str(value).strip() if isinstance(value, str) else None
    if text is not None:
        try:
            if _DATE.fullmatch(text):
                return date.fromisoformat(text)
            if _DATETIME.fullmatch(text):
                return datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            pass
        raise ValueError(f"invalid {what} {value!r}: expected a date YYYY-MM-DD or an ISO datetime "
                         "YYYY-MM-DDTHH:MM:SS[Z]")
    raise TypeError(f"{what} must be a date, datetime or ISO string, not {type(value).__name__}")


def as_of_bound(as_of: Any) -> tuple[datetime, bool]:
    """(bound, inclusive): a date (or a date-only string) is the end of that day UTC, i.e.
    filed_at < next midnight; a datetime is inclusive (naive = UTC)."""
    if isinstance(as_of, str):
        as_of = parse_as_of(as_of)
    if isinstance(as_of, pd.Timestamp):
        as_of = as_of.to_pydatetime()
    if isinstance(as_of, datetime):
        return to_utc_naive(as_of), True
    if isinstance(as_of, date):
        return datetime(as_of.year, as_of.month, as_of.day) + pd.Timedelta(days=1).to_pytimedelta(), False
    raise TypeError(f"as_of must be a date, datetime or ISO string, not {type(as_of).__name__}")
