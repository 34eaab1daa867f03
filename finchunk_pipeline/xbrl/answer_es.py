"""Spanish point-in-time questions (the es corpus's form, corpus/synth/es/informe.py):

    A <D de mes de AAAA>, ¿cuál era el <medida> de <Emisor> de <AAAA> publicado, en millones de euros?

<medida> is one of ``MEDIDAS`` (mapped to the English measures of answer.py, hence to their
IFRS concepts); <AAAA> is the fiscal year. Expected answers are Spanish numbers ("2.235,8").
"""
from __future__ import annotations

import re
from datetime import date

from ..lang.labels import MONTHS_ES as MESES
from .pit_query import PitQuery, measure_concepts

MEDIDAS = {
    "resultado de explotación": "operating income", "ventas": "revenues",
    "importe neto de la cifra de negocios": "revenues", "beneficio neto": "net income",
    "beneficio neto atribuido": "net income", "activo total": "total assets", "patrimonio neto": "stockholders' equity",
}
_ESCALAS = {"millones de euros": 1e6, "miles de euros": 1e3, "euros": 1.0}
_MEDIDA = "|".join(sorted((re.escape(m) for m in MEDIDAS), key=len, reverse=True))
PIT_PREGUNTA = re.compile(
    rf"^\s*A (?P<d>\d{{1,2}}) de (?P<mes>{'|'.join(MESES)}) de (?P<y>\d{{4}}),\s*¿\s*cu[aá]l (?:era|fue|es) "
    rf"(?:el|la|los|las) (?P<medida>{_MEDIDA}) de (?P<entity>.+?) (?:de|del ejercicio|en) (?P<fy>\d{{4}})"
    rf"(?: publicad[oa]s?)?(?:,? en (?P<scale>millones de euros|miles de euros|euros))?\s*\?\s*$", re.I)


def parse_pregunta(text: str):
    """A PitQuery (pit_query.py) for a Spanish point-in-time question, or None."""
    m = PIT_PREGUNTA.match(text or "")
    if not m:
        return None
    concepts = measure_concepts(MEDIDAS[m["medida"].lower()])
    return PitQuery(entity=m["entity"].strip(), measure=m["medida"], concepts=concepts,
                    as_of=date(int(m["y"]), MESES.index(m["mes"].lower()) + 1, int(m["d"])),
                    fiscal_year=int(m["fy"]), duration="FY",
                    scale=_ESCALAS.get((m["scale"] or "millones de euros").lower(), 1e6), locale="es")


def spanish_number(s) -> str:
    """'2.235,8' -> '2235.8' (for answer.parse_number and answer._decimals)."""
    return str(s).replace(".", "").replace(",", ".")
