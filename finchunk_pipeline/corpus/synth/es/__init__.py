"""The Spanish embedded corpus (data/corpus/es): the reference lesson's shape, deterministic.

``generate_es(out_dir, seed)``: annual reports 2023 and 2024 of four fictitious Spanish
issuers (``informe.py``), the prospectus and KID of five UCITS ETFs (``fondos.py``), three
research notes (``analisis.py``); Markdown, language "es", European number formats
("Ventas¹ | 13.668,9 | 13.378,6", "1.234,5 millones de euros"), footnote marks, CNMV as the
source; Spanish questions (table, footnote, text, text_and_note, table_and_note,
calculation, unanswerable, point_in_time) with gold passages by character offsets, checked
at generation (``questions.check_answers``), and ESEF-like facts for the point-in-time branch.
Same builders, writer and seeding rules as the English corpus (``synth/__init__.py``).
"""
from __future__ import annotations

from pathlib import Path

from ..questions import check_answers
from ..writer import CorpusWriter
from .analisis import nota_analisis
from .emisores import EMISORES, ETFS
from .fondos import fondo
from .informe import informes

RESEARCH = 3


def iter_units(seed: int):
    for i in range(len(EMISORES)):
        docs, facts = informes(seed, i)
        if i < RESEARCH:
            docs.append(nota_analisis(seed, i))
        yield docs, facts
    for i in range(len(ETFS)):
        yield fondo(seed, i), []


def generate_es(out_dir: str | Path, seed: int) -> dict[str, int]:
    w = CorpusWriter(out_dir)
    try:
        for docs, facts in iter_units(seed):
            texts = {p.passage_id: d.text[p.start:p.end] for d in docs for p in d.passages}
            for d in docs:
                check_answers(texts.__getitem__, d.questions)
                w.add_doc(d)
            for f in facts:
                w.add_fact(f)
    finally:
        counts = w.close()
    return counts
