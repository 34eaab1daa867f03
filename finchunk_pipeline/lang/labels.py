"""Words the pipeline writes into chunk text (context headers), per document language.

English is what context headers always said ("FY2024", "period ended 2024-12-31", the raw
doc_type). Other languages have their own labels; a language without a table here uses the
English labels.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Labels:
    fiscal_year: str = "FY{year}"                 # a fiscal year
    period_end: str = "period ended {date}"       # {date}: the period end as formatted below
    date_format: str = "{y}-{m}-{d}"
    doc_types: dict[str, str] = field(default_factory=dict)  # doc_type -> label (else as is)

    def year(self, year: int) -> str:
        return self.fiscal_year.format(year=year)

    def period(self, iso_date: str) -> str:
        y, m, d = iso_date[:4], iso_date[5:7], iso_date[8:10]
        return self.period_end.format(date=self.date_format.format(y=y, m=m, d=d))

    def doc_type(self, value: str) -> str:
        return self.doc_types.get(value, value)


MONTHS_ES = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
             "noviembre", "diciembre")

LABELS: dict[str, Labels] = {
    "en": Labels(),
    "es": Labels(
        fiscal_year="ejercicio {year}", period_end="periodo cerrado el {date}", date_format="{d}/{m}/{y}",
        doc_types={"annual_report": "informe anual", "prospectus": "folleto", "kid": "documento de datos fundamentales",
                   "research": "informe de análisis", "earnings_call": "conferencia de resultados",
                   "proxy": "junta general", "other": "otro"}),
}


def labels(language: str | None) -> Labels:
    return LABELS.get(language or "en", LABELS["en"])
