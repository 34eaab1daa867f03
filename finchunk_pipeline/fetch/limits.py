"""The bounds of one download: the largest body accepted (after decompression) and the total
time one URL may take (redirects, retries and their waits included).

Sizes are written as a number of bytes with an optional binary unit: ``512``, ``64K``,
``256M``, ``256MiB``, ``1 GB`` (K/M/G/T are powers of 1,024 either way)."""
from __future__ import annotations

import re

DEFAULT_MAX_BYTES = 256 << 20     # larger than any annual report or companyfacts file we know
DEFAULT_DEADLINE = 600.0          # seconds for one URL, all attempts together

_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?", re.I)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str | int, what: str = "size") -> int:
    """Bytes from ``512``, ``64K``, ``256M``, ``256MiB``, ``1 GB``; a ValueError naming
    ``what`` otherwise (zero and negative sizes included)."""
    if isinstance(text, int) and not isinstance(text, bool):
        n = text
    else:
        m = _SIZE.fullmatch(str(text).strip())
        if not m:
            raise ValueError(f"invalid {what} {text!r}: expected bytes with an optional unit, e.g. 256M or 1G")
        n = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    if n <= 0:
        raise ValueError(f"invalid {what} {text!r}: must be more than 0 bytes")
    return n


def format_size(n: int) -> str:
    """``1 MiB``, ``512 KiB``, ``1.5 GiB``, ``300 bytes``."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value.is_integer() else f"{value:.1f} {unit}"
    return f"{n} bytes"


def parse_seconds(text: str | float, what: str = "deadline") -> float:
    """A positive number of seconds; a ValueError naming ``what`` otherwise."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ValueError(f"invalid {what} {text!r}: expected a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise ValueError(f"invalid {what} {text!r}: must be a positive number of seconds")
    return value


def first_given(parse, default, *sources: tuple[object, str]):
    """The first of ``sources`` (value, its name) that is given, read by ``parse`` (which names
    it in any error), else ``default``. A flag is given when it is not None; a setting when it
    is not empty: ``first_given(parse_size, DEFAULT_MAX_BYTES, (args.max_bytes, "--max-bytes"),
    (settings.fetch_max_bytes or None, "FINCHUNK_FETCH_MAX_BYTES"))``."""
    for value, what in sources:
        if value is not None:
            return parse(value, what)
    return default


def format_seconds(s: float) -> str:
    return f"{s:g} s"
