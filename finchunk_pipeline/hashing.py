"""Content hashes and version keys: what names a stored thing (a document's bytes, a text, a
configuration) — independent of dict order, with every missing table value one value. Below
every stage and the storage layer: the stages compute their keys with it, the stores file by
them."""
from __future__ import annotations

import hashlib
import json
from typing import Any


def is_missing(value: Any) -> bool:
    """A missing table value: None, NaN, NaT or pd.NA (a list-like value is never missing)."""
    if value is None:
        return True
    try:
        import pandas as pd

        return bool(pd.isna(value))
    except (TypeError, ValueError):  # list-like: pd.isna answers per element
        return False


def meta_value(value: Any) -> str | None:
    """A metadata value as a hash sees it: every missing value is one value (None), the rest
    their text."""
    return None if is_missing(value) else str(value)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stable_hash(obj: Any, n: int = 12) -> str:
    """Hash of a JSON-serialisable object, independent of dict order."""
    payload = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:n]
