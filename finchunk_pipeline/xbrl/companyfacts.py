"""SEC companyfacts JSON -> rows of the corpus ``xbrl_facts`` schema.

The JSON is ``{"cik", "entityName", "facts": {taxonomy: {concept: {"units": {unit:
[{start?, end, val, accn, fy, fp, form, filed, frame?}, ...]}}}}}``. ``filed`` is a date
only; it becomes ``filed_at`` = midnight UTC of that day (the acceptance time is not in the
JSON). ``fy``/``fp`` describe the filing the value came from, not the value's period.
"""
from __future__ import annotations

import json
import math
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


def _strict_date(v: Any, field: str, where: str) -> date:
    """A companyfacts date is exactly YYYY-MM-DD."""
    if isinstance(v, str) and len(v) == 10:
        try:
            return date.fromisoformat(v)
        except ValueError:
            pass
    raise CompanyFactsError(f"{where}: bad {field} {v!r} (expected a date YYYY-MM-DD)")


def _number(v: Any, where: str) -> float:
    if not isinstance(v, bool):
        try:
            x = float(v)
        except (TypeError, ValueError):
            x = None
        if x is not None and math.isfinite(x):
            return x
    raise CompanyFactsError(f"{where}: bad val {v!r} (expected a finite number)")


def companyfacts_rows(obj: dict, ticker: str | None = None, source: str | None = None) -> list[dict]:
    """All filed values of all taxonomies as xbrl_facts rows (concept = 'taxonomy:Name').

    ``source`` (the file or URL the JSON came from) names every error: a bad ``end``,
    ``start``, ``filed`` or ``val``, or a part of the JSON that is not the expected shape,
    raises CompanyFactsError with the source, the concept, the unit and the value's index."""
    if not isinstance(obj, dict) or "cik" not in obj:
        raise CompanyFactsError(f"{source or 'companyfacts'}: not a companyfacts JSON (no 'cik')")
    cik = normalise_cik(obj["cik"])
    source = source or f"companyfacts CIK{cik}"
    facts = obj.get("facts")
    if facts is None:
        facts = {}
    if not isinstance(facts, dict):
        raise CompanyFactsError(f"{source}: 'facts' is a {type(facts).__name__}, expected an object")
    rows: list[dict] = []
    for taxonomy, concepts in facts.items():
        if not isinstance(concepts, dict):
            raise CompanyFactsError(f"{source}: facts.{taxonomy} is a {type(concepts).__name__}, expected an object")
        for name, body in concepts.items():
            concept = f"{taxonomy}:{name}"
            if body is None:
                continue
            units = body.get("units") if isinstance(body, dict) else None
            if not isinstance(body, dict) or not isinstance(units, (dict, type(None))):
                raise CompanyFactsError(f"{source}: {concept}: expected an object with a 'units' object")
            for unit, values in (units or {}).items():
                if not isinstance(values, list):
                    raise CompanyFactsError(f"{source}: {concept} [{unit}]: expected a list of values")
                for i, v in enumerate(values):
                    where = f"{source}: {concept} [{unit}] value #{i}"
                    if not isinstance(v, dict):
                        raise CompanyFactsError(f"{where}: expected an object, got {v!r}")
                    if v.get("val") is None or not v.get("end") or not v.get("accn") or not v.get("filed"):
                        continue
                    filed = _strict_date(v["filed"], "filed", where)
                    fy = v.get("fy")
                    if fy is not None and (isinstance(fy, bool) or not str(fy).lstrip("-").isdigit()):
                        raise CompanyFactsError(f"{where}: bad fy {fy!r} (expected a year)")
                    rows.append({
                        "cik": cik,
                        "ticker": ticker,
                        "concept": concept,
                        "unit": unit,
                        "value": _number(v["val"], where),
                        "period_start": _strict_date(v["start"], "start", where) if v.get("start") else None,
                        "period_end": _strict_date(v["end"], "end", where),
                        "form": v.get("form"),
                        "accession": v["accn"],
                        "filed_at": datetime(filed.year, filed.month, filed.day, tzinfo=timezone.utc),
                        "fy": int(fy) if fy is not None else None,
                        "fp": v.get("fp"),
                    })
    return rows


def entity_of(obj: dict) -> tuple[str, str | None]:
    return normalise_cik(obj["cik"]), obj.get("entityName")
