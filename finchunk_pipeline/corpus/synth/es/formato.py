"""Spanish number and date formats: "13.668,9", "1.234 millones de euros", "24,1 %", "31 de diciembre de 2024"."""
from __future__ import annotations

import datetime as dt

from ....lang.labels import MONTHS_ES as MESES


def num(tenths: int) -> str:
    """An amount held in tenths, printed the Spanish way: 136689 -> '13.668,9'."""
    return f"{tenths / 10:,.1f}".replace(",", "_").replace(".", ",").replace("_", ".")


def entero(n: int) -> str:
    """An integer with point thousands: 4210 -> '4.210'."""
    return f"{n:,}".replace(",", ".")


def decimal(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}".replace(".", ",")


def millones(tenths: int) -> str:
    return f"{num(tenths)} millones de euros"


def pct(x: float, digits: int = 1) -> str:
    return f"{decimal(x, digits)} %"


def fecha(d: dt.date) -> str:
    return f"{d.day} de {MESES[d.month - 1]} de {d.year}"
