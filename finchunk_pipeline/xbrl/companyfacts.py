"""SEC companyfacts JSON -> rows of the corpus ``xbrl_facts`` schema.

The JSON is ``{"cik", "entityName", "facts": {taxonomy: {concept: {"units": {unit:
[{start?, end, val, accn, fy, fp, form, filed, frame?}, ...]}}}}}``. ``filed`` is a date
only; it becomes ``filed_at`` = midnight UTC of that day (the acceptance time is not in the
JSON). ``fy``/``fp`` describe the filing the value came from, not the value's period.
"""
from __future__ import annotations

import json
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

COLUMNS = ("cik", "ticker", "concept", "unit", "value", "period_start", "period_end", "form",
           "accession", "filed_at", "fy", "fp")


class CompanyFactsError(ValueError):
    pass


def normalise_cik(cik: Any) -> str:
    """Numeric CIKs as 10 digits ('1640147', 'CIK1640147' -> '0001640147'); others unchanged."""
    s = str(cik).strip()
    t = s.upper()[3:] if s.upper().startswith("CIK") else s
    return t.zfill(10) if t.isdigit() and len(t) <= 10 else s


def read_companyfacts(path: str | Path) -> dict:
    path = Path(path)
    try:
        obj = json.loads(path.read_bytes().decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CompanyFactsError(f"{path}: invalid or truncated companyfacts JSON ({exc})") from exc
    if not isinstance(obj, dict) or "facts" not in obj or "cik" not in obj:
        raise CompanyFactsError(f"{path}: not a companyfacts JSON (no 'cik'/'facts' keys)")
    return obj


def _date(v: Any) -> date | None:
    return date.fromisoformat(v[:10]) if v else None


def companyfacts_rows(obj: dict, ticker: str | None = None) -> list[dict]:
    """All filed values of all taxonomies as xbrl_facts rows (concept = 'taxonomy:Name')."""
    cik = normalise_cik(obj["cik"])
    rows: list[dict] = []
    for taxonomy, concepts in (obj.get("facts") or {}).items():
        for name, body in (concepts or {}).items():
            concept = f"{taxonomy}:{name}"
            for unit, values in ((body or {}).get("units") or {}).items():
                for v in values:
                    if v.get("val") is None or not v.get("end") or not v.get("accn") or not v.get("filed"):
                        continue
                    filed = _date(v["filed"])
                    rows.append({
                        "cik": cik,
                        "ticker": ticker,
                        "concept": concept,
                        "unit": unit,
                        "value": float(v["val"]),
                        "period_start": _date(v.get("start")),
                        "period_end": _date(v["end"]),
                        "form": v.get("form"),
                        "accession": v["accn"],
                        "filed_at": datetime(filed.year, filed.month, filed.day, tzinfo=timezone.utc),
                        "fy": int(v["fy"]) if v.get("fy") is not None else None,
                        "fp": v.get("fp"),
                    })
    return rows


def entity_of(obj: dict) -> tuple[str, str | None]:
    return normalise_cik(obj["cik"]), obj.get("entityName")
