"""Prospectus and KID (Markdown, language "es") of each ETF: the English fund documents' shape."""
from __future__ import annotations

import datetime as dt
import random

from ..common import BlockBuilder, Question, make_doc, sup, utc
from .emisores import ETFS
from .formato import decimal, millones, num, pct


def fondo(seed: int, index: int):
    etf = ETFS[index]
    rng = random.Random(f"{seed}|es-etf|{index}")
    ter = pct(etf.ter_bp / 100, 2)
    patrimonio = rng.randint(2_000, 60_000)
    return [_folleto(etf, rng, ter, patrimonio), _kid(etf, rng, ter)]


def _folleto(etf, rng, ter, patrimonio):
    doc_id = f"es-prospectus-{etf.slug}"
    b = BlockBuilder(doc_id)
    qs: list[Question] = []
    b.heading(1, f"{etf.name} — Folleto")
    b.heading(2, "Objetivo y política de inversión")
    p_obj = b.para(f"El objetivo del fondo es replicar la rentabilidad del índice {etf.indice}, neta de comisiones. "
                   f"El fondo aplica una réplica física completa y puede prestar hasta el "
                   f"{pct(rng.randint(10, 45), 0)} de su cartera.")
    qs.append(Question(f"¿Qué índice replica el {etf.name} según su folleto?", "text", [doc_id], [p_obj], etf.indice))
    b.heading(2, "Comisiones y gastos")
    head, r_ter, r_sub, r_reemb = b.table(["Concepto", "Porcentaje"], [
        ["Gastos corrientes" + sup(1), ter], ["Comisión de suscripción", pct(0, 2)],
        ["Comisión de reembolso" + sup(2), pct(rng.choice([0.5, 1, 2]), 2)]])
    n1 = b.para(f"{sup(1)} Los gastos corrientes incluyen la comisión de gestión y la de depositaría; no incluyen "
                f"los costes de transacción de la cartera, estimados en un {pct(rng.randint(1, 9) / 100, 2)}.",
                "note")
    b.para(f"{sup(2)} Solo aplicable a reembolsos directos con el fondo en el mercado primario.", "note")
    qs.append(Question(f"¿Cuáles son los gastos corrientes del {etf.name}?", "table", [doc_id], [head, r_ter], ter))
    qs.append(Question(f"¿Qué costes no incluyen los gastos corrientes del {etf.name} según el folleto?",
                       "footnote", [doc_id], [r_ter, n1], "los costes de transacción de la cartera"))
    b.heading(2, "Información general")
    p_pat = b.para(f"El patrimonio del fondo a 31 de diciembre de 2024 era de {millones(patrimonio)}. La sociedad "
                   f"gestora es Meseta Asset Management, S.A., SGIIC, y el depositario Banco Depositario Ibérico, S.A.")
    qs.append(Question(f"¿Cuál era el patrimonio del {etf.name} a 31 de diciembre de 2024?", "text", [doc_id],
                       [p_pat], millones(patrimonio)))
    qs.append(Question(f"¿Cuál es la rentabilidad por dividendo del {etf.name} en 2030?", "unanswerable", [doc_id],
                       [], None))
    return make_doc(b, qs, doc_id=doc_id, title=f"{etf.name} — Folleto", doc_type="prospectus", issuer=etf.name,
                    ticker=None, fiscal_year=None, period_end=None, filed_at=utc(2024, 6, 3 + etf.index, 9),
                    format="markdown", language="es",
                    source_uri=f"https://example.invalid/cnmv/etf/{etf.slug}/folleto.md")


def _kid(etf, rng, ter):
    doc_id = f"es-kid-{etf.slug}"
    b = BlockBuilder(doc_id)
    qs: list[Question] = []
    b.heading(1, f"Datos fundamentales para el inversor — {etf.name}")
    b.para(f"Este documento le proporciona los datos fundamentales que todo inversor debe conocer sobre el fondo "
           f"(ISIN {etf.isin}). No se trata de material de promoción comercial.")
    b.heading(2, "Perfil de riesgo y remuneración")
    p_r = b.para(f"El fondo se clasifica en la categoría de riesgo {etf.riesgo} en una escala de 1 a 7, debido a la "
                 f"volatilidad histórica de su índice de referencia.")
    qs.append(Question(f"¿En qué categoría de riesgo se clasifica el {etf.name}?", "text", [doc_id], [p_r],
                       f"categoría de riesgo {etf.riesgo}"))
    b.heading(2, "Rentabilidad histórica")
    rent = {y: rng.uniform(-12, 24) for y in (2021, 2022, 2023, 2024)}
    head, *rows = b.table(["Año", "Fondo", "Índice"],
                          [[str(y), pct(r), pct(r + etf.ter_bp / 100)] for y, r in rent.items()])
    qs.append(Question(f"¿Qué rentabilidad obtuvo el {etf.name} en 2023?", "table", [doc_id], [head, rows[2]],
                       pct(rent[2023])))
    qs.append(Question(f"¿Cuál fue la diferencia entre la rentabilidad del índice y la del {etf.name} en 2024, en "
                       f"puntos porcentuales?", "calculation", [doc_id], [head, rows[3]],
                       decimal(etf.ter_bp / 100, 2)))
    b.heading(2, "Gastos")
    p_g = b.para(f"Los gastos corrientes del último ejercicio fueron del {ter}. Esta cifra puede variar de un año a "
                 f"otro.")
    b.heading(2, "Información práctica")
    b.para(f"El valor liquidativo se publica cada día hábil en la web de la gestora. Fecha de este documento: "
           f"{dt.date(2025, 2, 10 + etf.index).strftime('%d/%m/%Y')}.")
    return make_doc(b, qs, doc_id=doc_id, title=f"{etf.name} — Datos fundamentales para el inversor", doc_type="kid",
                    issuer=etf.name, ticker=None, fiscal_year=2024, period_end=None,
                    filed_at=utc(2025, 2, 10 + etf.index, 9), format="markdown", language="es",
                    source_uri=f"https://example.invalid/cnmv/etf/{etf.slug}/kid.md")
