"""Research notes on three of the Spanish issuers (Markdown, doc_type "research", language "es")."""
from __future__ import annotations

import random

from ..common import BlockBuilder, Question, make_doc, sup, utc
from .cifras import cifras
from .emisores import EMISORES
from .formato import decimal, num


def nota_analisis(seed: int, index: int):
    em = EMISORES[index]
    fig = cifras(seed, index)
    rng = random.Random(f"{seed}|es-research|{index}")
    doc_id = f"es-research-{em.slug}"
    b = BlockBuilder(doc_id)
    qs: list[Question] = []
    rec = rng.choice(["Comprar", "Mantener", "Vender"])
    objetivo = decimal(rng.uniform(4, 40), 2)
    b.heading(1, f"Nota de análisis: {em.short}")
    p_rec = b.para(f"Recomendación: {rec}. Precio objetivo a doce meses: {objetivo} euros por acción. "
                   f"Analista: Sra. Elena Moreno Ruiz, Análisis Bursátil Ibérico, S.A.")
    qs.append(Question(f"¿Cuál es el precio objetivo de la nota de análisis sobre {em.short}?", "text", [doc_id],
                       [p_rec], f"{objetivo} euros"))
    b.heading(2, "Estimaciones")
    v24 = fig.anios[2024].ventas
    e25, e26 = int(v24 * rng.uniform(1.01, 1.08)), 0
    e26 = int(e25 * rng.uniform(1.01, 1.08))
    head, r_v, r_b = b.table(["Millones de euros", "2024", "2025e", "2026e" + sup(1)], [
        ["Ventas", num(v24), num(e25), num(e26)],
        ["Beneficio neto", num(fig.anios[2024].neto), num(int(fig.anios[2024].neto * 1.05)),
         num(int(fig.anios[2024].neto * 1.1))]])
    n1 = b.para(f"{sup(1)} Las estimaciones de 2026 no incluyen la posible venta del negocio de "
                f"{em.sector} en Portugal.", "note")
    qs.append(Question(f"¿Qué ventas estima para 2025 la nota de análisis sobre {em.short}?", "table", [doc_id],
                       [head, r_v], num(e25)))
    qs.append(Question(f"¿Qué excluyen las estimaciones de 2026 de la nota de análisis sobre {em.short}?",
                       "footnote", [doc_id], [head, n1], f"la posible venta del negocio de {em.sector} en Portugal"))
    b.heading(2, "Tesis de inversión")
    b.para(f"Valoramos {em.short} por descuento de flujos de caja con un coste medio ponderado del capital del "
           f"{decimal(rng.uniform(6, 10), 1)} %. Los riesgos principales son regulatorios y de tipos de interés.")
    return make_doc(b, qs, doc_id=doc_id, title=f"Nota de análisis: {em.short}", doc_type="research",
                    issuer=em.name, ticker=em.ticker, fiscal_year=2025, period_end=None,
                    filed_at=utc(2025, 3, 10 + index, 8), format="markdown", language="es",
                    source_uri=f"https://example.invalid/research/{em.slug}.md")
