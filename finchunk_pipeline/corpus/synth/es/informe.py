"""Annual reports of the Spanish issuers (Markdown, doc_type "annual_report", language "es").

Layout (the English annual report's, in Spanish, with European number formats)::

    # <Emisor> — Informe anual <año>
    ## Carta del presidente          2 paragraphs (people with Spanish abbreviations: D., Dña., S.A.)
    ## Informe de gestión
    ### Principales magnitudes       pipe table "Millones de euros | 2024 | 2023", row labels with
                                     footnote marks ("Ventas¹"), footnotes below ("¹ Las ventas ...")
    ### Evolución del negocio        plants opened, acquisition referring to "Nota 6"
    ### Principales riesgos          list
    ## Cuentas anuales consolidadas  ### Nota 1 … Nota 7; Nota 4 qualifies the operating profit
                                     (one-off gain in 2023; restatement of 2023 in 2024)
"""
from __future__ import annotations

import datetime as dt
import random

from ..common import BlockBuilder, Question, make_doc, sup, utc
from .cifras import YEARS, cifras
from .emisores import EMISORES, persona
from .formato import decimal, entero, fecha, millones, num, pct


def informes(seed: int, index: int):
    """(documents, facts) of issuer ``index``: one report per year in YEARS."""
    em = EMISORES[index]
    fig = cifras(seed, index)
    docs, facts = [], []
    for year in YEARS:
        doc, f = _informe(seed, em, fig, year)
        docs.append(doc)
        facts.extend(f)
    docs[-1].questions.extend(_point_in_time(em, fig, docs))
    return docs, facts


def _informe(seed, em, fig, year):
    """One Spanish annual report, section by section; the sections draw from one random
    stream in document order."""
    r = _Informe(seed, em, fig, year)
    r.b.heading(1, f"{em.name} — Informe anual {year}")
    _carta(r)
    clave = _magnitudes(r)
    adquirida, p_acq = _evolucion_y_riesgos(r)
    _cuentas(r, clave, adquirida, p_acq)
    _sin_respuesta(r)
    filed = utc(year + 1, 2, r.rng.randint(20, 28), 17, 30)
    doc = make_doc(r.b, r.qs, doc_id=r.doc_id, title=f"{em.short} — Informe anual {year}", doc_type="annual_report",
                   issuer=em.name, ticker=em.ticker, fiscal_year=year, period_end=dt.date(year, 12, 31),
                   filed_at=filed, format="markdown", language="es",
                   source_uri=f"https://example.invalid/cnmv/{em.slug}/informe-anual-{year}.md")
    return doc, _facts(em, fig, year, filed, r.ultimo)


class _Informe:
    """What every section of one report reads: the issuer, its figures for the year and the
    prior year, the block builder, the questions so far and the report's random stream."""

    def __init__(self, seed, em, fig, year):
        self.rng = random.Random(f"{seed}|es-informe|{em.index}|{year}")
        self.doc_id = f"es-ar-{em.slug}-{year}"
        self.em, self.fig, self.year = em, fig, year
        self.cur, self.prev = fig.anios[year], fig.anios[year - 1]
        self.ultimo = year == YEARS[-1]
        self.prev_expl = fig.reexpresado_2023 if self.ultimo else self.prev.explotacion
        self.b = BlockBuilder(self.doc_id)
        self.qs: list[Question] = []

    def Q(self, qtype, text, gold, answer):
        self.qs.append(Question(text, qtype, [self.doc_id], gold, answer))


def _carta(r: _Informe) -> None:
    """The chairman's letter (it names the management, drawn first from the random stream)."""
    b, rng, Q, em, cur, year, short = r.b, r.rng, r.Q, r.em, r.cur, r.year, r.em.short
    presidente, _ = persona(rng, mujer=False)
    ceo, _ = persona(rng, mujer=False)
    cfo_t, cfo = persona(rng, mujer=True)
    b.heading(2, "Carta del presidente")
    b.para(f"Estimados accionistas: en {year} {short} ha mantenido su disciplina financiera. Las ventas "
           f"alcanzaron {millones(cur.ventas)} y el Consejo propone un dividendo de "
           f"{decimal(cur.dividendo_cent / 100)} euros por acción. Este informe se ha registrado en la CNMV.")
    p_dir = b.para(f"El consejero delegado, {ceo}, y la directora financiera, {cfo_t}, han liderado el "
                   f"plan estratégico del grupo en el sector de {em.sector}. En nombre del Consejo, {presidente}, "
                   f"presidente.")
    Q("text", f"¿Quién era la directora financiera de {short} según su informe anual {year}?", [p_dir], cfo)


def _magnitudes(r: _Informe) -> tuple:
    """The key-figures table, its footnotes and questions; returns the (header, sales row,
    operating profit row) passages Note 4 cites."""
    b, Q, cur, prev, prev_expl, year, short = r.b, r.Q, r.cur, r.prev, r.prev_expl, r.year, r.em.short
    b.heading(2, "Informe de gestión")
    b.para("La tabla siguiente resume las principales magnitudes del grupo en el ejercicio y en el anterior. "
           "Las cifras se expresan en millones de euros salvo indicación en contrario.")
    b.heading(3, "Principales magnitudes")
    rows = [
        ["Ventas" + sup(1), num(cur.ventas), num(prev.ventas)],
        ["EBITDA", num(cur.ebitda), num(prev.ebitda)],
        ["Resultado de explotación" + sup(2), num(cur.explotacion), num(prev_expl)],
        ["Beneficio neto atribuido", num(cur.neto), num(prev.neto)],
        ["Deuda financiera neta" + sup(3), num(cur.deuda), num(prev.deuda)],
        ["Dividendo por acción (euros)", decimal(cur.dividendo_cent / 100), decimal(prev.dividendo_cent / 100)],
        ["Plantilla media (personas)", entero(cur.plantilla), entero(prev.plantilla)],
    ]
    head, r_v, r_ebitda, r_ex, r_neto, r_deuda, r_div, r_pl = b.table(["Millones de euros", str(year), str(year - 1)],
                                                                    rows)
    n1 = b.para(f"{sup(1)} Las ventas excluyen {millones(cur.discontinuadas)} procedentes de actividades "
                f"interrumpidas.", "note")
    b.para(f"{sup(2)} El resultado de explotación se presenta antes de la amortización de intangibles "
           f"adquiridos (véase la Nota 4).", "note")
    n3 = b.para(f"{sup(3)} La deuda financiera neta no incluye pasivos por arrendamiento por "
                f"{millones(cur.arrendamientos)}.", "note")

    Q("table", f"¿Cuáles fueron las ventas de {short} en {year}, en millones de euros, según su informe anual "
      f"{year}?", [head, r_v], num(cur.ventas))
    Q("table", f"¿Qué beneficio neto atribuido declaró {short} para {year - 1} en su informe anual {year}?",
      [head, r_neto], num(prev.neto))
    Q("table", f"¿Cuál era la plantilla media de {short} en {year}?", [head, r_pl], entero(cur.plantilla))
    Q("footnote", f"¿Qué importe de actividades interrumpidas se excluye de las ventas de {short} en {year}?",
      [r_v, n1], millones(cur.discontinuadas))
    Q("footnote", f"¿Qué pasivos por arrendamiento no se incluyen en la deuda financiera neta de {short} en {year}?",
      [r_deuda, n3], millones(cur.arrendamientos))
    Q("calculation", f"¿En qué porcentaje variaron las ventas de {short} de {year - 1} a {year}? Redondee a un "
      f"decimal.", [head, r_v], pct((cur.ventas / prev.ventas - 1) * 100))
    Q("calculation", f"¿Cuál fue el margen EBITDA (EBITDA / ventas) de {short} en {year}, en porcentaje con un "
      f"decimal?", [head, r_v, r_ebitda], pct(cur.ebitda / cur.ventas * 100))
    return head, r_v, r_ex


def _evolucion_y_riesgos(r: _Informe) -> tuple:
    """Business review and risks; returns the acquired company and the paragraph naming it (Note 6)."""
    b, rng, Q, cur, year, short = r.b, r.rng, r.Q, r.cur, r.year, r.em.short
    b.heading(3, "Evolución del negocio")
    p_pl = b.para(f"Durante el ejercicio el grupo puso en marcha {cur.plantas} nuevas instalaciones y cerró el "
                  f"año con una cartera de pedidos sólida. La demanda fue "
                  f"{rng.choice(['resistente', 'desigual', 'robusta', 'más débil de lo previsto'])} en sus "
                  f"principales mercados.")
    Q("text", f"¿Cuántas nuevas instalaciones puso en marcha {short} en {year}?", [p_pl],
      f"{cur.plantas} nuevas instalaciones")
    adquirida = rng.choice(["Servicios Técnicos del Ebro, S.L.", "Renovables Duero, S.L.U.", "Redes Galaicas, S.A.",
                            "Ingeniería Turia, S.L."])
    p_acq = b.para(f"En {year} el grupo adquirió {adquirida}, que refuerza su posición en mercados adyacentes. "
                   f"La contraprestación y los valores razonables adquiridos se detallan en la Nota 6.")
    b.heading(3, "Principales riesgos")
    b.para("Los principales riesgos que podrían afectar a la evolución del grupo son:")
    b.bullets(rng.sample(["Concentración de clientes en el mercado nacional", "Volatilidad de los precios de la "
                          "energía y de las materias primas", "Incidentes de ciberseguridad", "Cambios en la "
                          "regulación fiscal", "Evolución de los tipos de interés", "Integración de negocios "
                          "adquiridos"], 4))
    return adquirida, p_acq


def _cuentas(r: _Informe, clave: tuple, adquirida: str, p_acq) -> None:
    """The notes to the consolidated accounts."""
    b, rng, Q, fig, cur, prev, year, short, ultimo = r.b, r.rng, r.Q, r.fig, r.cur, r.prev, r.year, r.em.short, r.ultimo
    head, r_v, r_ex = clave
    b.heading(2, "Cuentas anuales consolidadas")
    b.heading(3, "Nota 1 — Bases de presentación")
    b.para("Las cuentas anuales consolidadas se han formulado conforme a las Normas Internacionales de "
           "Información Financiera adoptadas por la Unión Europea (NIIF-UE).")
    b.heading(3, "Nota 4 — Resultado de explotación")
    if ultimo:
        n_ex = b.para(f"El resultado de explotación de {year - 1} se ha reexpresado desde {millones(prev.explotacion)}, "
                      f"importe publicado originalmente, hasta {millones(fig.reexpresado_2023)} como consecuencia de "
                      f"{fig.motivo}.")
        Q("table_and_note", f"¿Cuál fue el resultado de explotación de {short} en {year - 1} según el informe "
          f"anual {year}, y fue reexpresado?", [head, r_ex, n_ex], num(fig.reexpresado_2023))
        Q("text_and_note", f"¿Por qué se reexpresó el resultado de explotación de {year - 1} de {short}?",
          [r_ex, n_ex], fig.motivo)
    else:
        n_ex = b.para(f"El resultado de explotación de {year} incluye una plusvalía extraordinaria de "
                      f"{millones(cur.extraordinario)} por la venta de un inmueble no estratégico.")
        Q("table_and_note", f"¿Qué plusvalía extraordinaria incluye el resultado de explotación de {short} en "
          f"{year}?", [r_ex, n_ex], millones(cur.extraordinario))
    b.heading(3, "Nota 5 — Impuesto sobre beneficios")
    n_tax = b.para(f"El tipo impositivo efectivo del ejercicio fue del {pct(cur.tipo)}.")
    Q("text", f"¿Cuál fue el tipo impositivo efectivo de {short} en {year}?", [n_tax], pct(cur.tipo))
    b.heading(3, "Nota 6 — Combinaciones de negocios")
    n_acq = b.para(f"La contraprestación por {adquirida} ascendió a {millones(cur.contraprestacion)}, "
                   f"pagada en efectivo en la fecha de cierre.")
    Q("text_and_note", f"¿Cuánto pagó {short} por la sociedad que adquirió en {year}?", [p_acq, n_acq],
      millones(cur.contraprestacion))
    b.heading(3, "Nota 7 — Deuda financiera")
    b.para(f"La línea de crédito sindicada de {millones(rng.randint(5_000, 30_000))} no estaba dispuesta al "
           f"cierre del ejercicio.")


def _sin_respuesta(r: _Informe) -> None:
    short, year, em, qs, doc_id = r.em.short, r.year, r.em, r.qs, r.doc_id
    unans = [f"¿Cuánto invirtió {short} en investigación y desarrollo en {year}?",
             f"¿Cuáles fueron las ventas de {short} en Japón en {year}?",
             f"¿Cuál era la cotización de {short} el último día hábil de {year}?"]
    qs.append(Question(unans[(em.index + year) % len(unans)], "unanswerable", [doc_id], [], None))


CONCEPTS = {"ventas": "ifrs-full:Revenue", "explotacion": "ifrs-full:ProfitLossFromOperatingActivities",
            "neto": "ifrs-full:ProfitLossAttributableToOwnersOfParent"}


def _facts(em, fig, year, filed, ultimo) -> list[dict]:
    """ESEF-like tagged facts of one report (EUR), under a 10-K-like form so the point-in-time
    branch reads them as annual filings; the 2024 report also tags the restated 2023 figure."""
    base = {"cik": em.cik, "ticker": em.ticker, "form": "10-K", "accession": f"ES-{em.ticker}-{year}",
            "filed_at": filed, "fy": year, "fp": "FY", "unit": "EUR"}
    out = []
    cur = fig.anios[year]
    for key, concept in CONCEPTS.items():
        out.append({**base, "concept": concept, "value": getattr(cur, key) * 100_000.0,
                    "period_start": dt.date(year, 1, 1), "period_end": dt.date(year, 12, 31)})
    if ultimo:
        out.append({**base, "concept": CONCEPTS["explotacion"], "value": fig.reexpresado_2023 * 100_000.0,
                    "period_start": dt.date(year - 1, 1, 1), "period_end": dt.date(year - 1, 12, 31)})
    return out


def _point_in_time(em, fig, docs) -> list[Question]:
    """The 2023 operating profit known at a date: as first published, then as restated."""
    first, second = docs
    before = (first.row["filed_at"] + dt.timedelta(days=30)).date()
    after = (second.row["filed_at"] + dt.timedelta(days=30)).date()
    out = []
    for as_of, doc, value in ((before, first, fig.anios[2023].explotacion), (after, second, fig.reexpresado_2023)):
        gold = [p.passage_id for p in doc.passages if doc.passage_text(p.passage_id).startswith(
            ("| Millones de euros", "| Resultado de explotación"))]
        out.append(Question(f"A {fecha(as_of)}, ¿cuál era el resultado de explotación de {em.short} de 2023 "
                            f"publicado, en millones de euros?", "point_in_time", [first.doc_id, second.doc_id],
                            gold, num(value), as_of))
    return out
