"""Spanish documents in chunking: sentences with Spanish abbreviations, "Nota N" headings and
references, context headers in Spanish; English unchanged."""
from __future__ import annotations

from finchunk_pipeline.chunking.context import context_header
from finchunk_pipeline.chunking.note_links import note_patterns
from finchunk_pipeline.chunking.sentence import split_sentences
from finchunk_pipeline.lang.current import current_language, document_language

ES_TEXT = ("Iberia Energía, S.A. presentó sus cuentas. El Sr. García y Dña. López firmaron el informe "
           "(véase la pág. 12). Según el art. 5 y el núm. 3, el dividendo sube. ¿Qué cambia en 2024? "
           "Las ventas crecen un 2,2 %.")


def _sentences(text, **kw):
    return [text[s:e] for s, e in split_sentences(text, **kw)]


def test_spanish_abbreviations_do_not_end_sentences():
    assert _sentences(ES_TEXT, language="es") == [
        "Iberia Energía, S.A. presentó sus cuentas.",
        "El Sr. García y Dña. López firmaron el informe (véase la pág. 12).",
        "Según el art. 5 y el núm. 3, el dividendo sube.",
        "¿Qué cambia en 2024?",
        "Las ventas crecen un 2,2 %."]
    # the English rules do not open a sentence at "¿"
    assert "¿Qué cambia en 2024?" not in _sentences(ES_TEXT, language="en")


def test_the_document_language_reaches_the_splitter():
    assert current_language() == "en"
    with document_language("es"):
        assert len(_sentences(ES_TEXT)) == 5
    assert len(_sentences(ES_TEXT)) == 4


def test_english_sentences_unchanged():
    text = "Revenue rose 5% in the U.S. Inc. reported $1.2 million. Margins fell. See Note 7."
    assert _sentences(text) == _sentences(text, language="en") == [
        "Revenue rose 5% in the U.S. Inc. reported $1.2 million.", "Margins fell.", "See Note 7."]


def test_spanish_note_headings_and_references():
    heading, ref = note_patterns("es")
    m = heading.match("## Nota 7 — Impuesto sobre beneficios")
    assert m and m.group(1) == "7" and m.group(2) == "Impuesto sobre beneficios"
    assert [x.group(1) for x in ref.finditer("según se detalla en la Nota 4 y en las notas 12")] == ["4", "12"]
    assert note_patterns("en")[0].match("Nota 7 — Impuesto") is None
    with document_language("es"):
        assert note_patterns()[0] is heading


def test_spanish_context_header():
    meta = {"title": "Iberia Energía — Informe anual", "fiscal_year": 2024, "period_end": "2024-12-31",
            "doc_type": "annual_report", "language": "es"}
    head = context_header(meta, ("Cuentas anuales", "Nota 7"), ("title", "period", "doc_type", "section"))
    assert head == ("Iberia Energía — Informe anual > ejercicio 2024 > periodo cerrado el 31/12/2024 > "
                    "informe anual > Cuentas anuales > Nota 7")
    english = context_header({**meta, "language": "en"}, ("Key figures",), ("title", "period", "doc_type", "section"))
    assert english == context_header({k: v for k, v in meta.items() if k != "language"}, ("Key figures",),
                                     ("title", "period", "doc_type", "section"))
    assert "FY2024 > period ended 2024-12-31 > annual_report" in english


ES_REPORT = """IBERIA ENERGÍA, S.A.

Informe de gestión
El ejercicio 2024 cerró con unas ventas de 13.668,9 millones de euros.
Cuentas anuales consolidadas
Las cuentas se han formulado conforme a las NIIF-UE.

Nota 7 — Impuesto sobre beneficios

El tipo impositivo efectivo fue del 24,1 %.

Datos fundamentales para el inversor
Este documento le proporciona los datos fundamentales.
"""


def test_spanish_headings_in_text_documents():
    from finchunk_pipeline.parse.text import parse

    def headings(meta):
        return [(b.attrs.get("level"), b.text) for b in parse("d", ES_REPORT, meta).blocks if b.kind == "heading"]

    es = headings({"language": "es"})
    assert (2, "Informe de gestión") in es and (2, "Cuentas anuales consolidadas") in es
    assert (3, "Nota 7 — Impuesto sobre beneficios") in es and (2, "Datos fundamentales para el inversor") in es
    en = headings({"language": "en"})
    assert en == headings(None) and (2, "Informe de gestión") not in en


ES_CALL = """Iberia Energía — Conferencia de resultados del cuarto trimestre de 2024

Presentación

Operador: Buenos días y bienvenidos a la conferencia de resultados de Iberia Energía.

Javier Ruiz Díaz -- Consejero Delegado: Gracias. Las ventas crecieron un 2,2 % en el ejercicio.

Turno de preguntas

Operador: La primera pregunta es de Marta López, de Análisis Bursátil Ibérico.

Marta López -- Analista, Análisis Bursátil Ibérico: ¿Qué esperan para el margen en 2025?

Javier Ruiz Díaz -- Consejero Delegado: Esperamos un margen estable.
"""


def test_spanish_transcript_roles_and_sections():
    from finchunk_pipeline.parse.transcript import parse

    turns = [b for b in parse("c", ES_CALL, {"language": "es"}).blocks if b.kind == "turn"]
    roles = [(b.attrs["speaker"], b.attrs["role"]) for b in turns]
    assert roles == [("Operador", "operator"), ("Javier Ruiz Díaz", "executive"), ("Operador", "operator"),
                     ("Marta López", "analyst"), ("Javier Ruiz Díaz", "executive")]
    assert turns[3].section_path[-1] == "Turno de preguntas"


def test_one_text_parsed_under_two_languages_is_stored_twice(tmp_path):
    """The text parser reads the document's language (Spanish headings): the same bytes
    declared es and en are two parses, stored under two keys — an English parse is never
    reused for a Spanish document or the other way round. English keys are unchanged."""
    import pandas as pd

    from finchunk_pipeline import RawStore
    from finchunk_pipeline.parse.registry import parsers
    from finchunk_pipeline import parse_documents
    from finchunk_pipeline import BlockStore

    raw, blocks = RawStore(tmp_path / "raw"), BlockStore(tmp_path / "blocks")
    sha, _ = raw.put_bytes(ES_REPORT.encode(), "text")
    docs = pd.DataFrame([{"doc_id": "d-es", "doc_type": "annual_report", "format": "text", "sha": sha, "language": "es"},
                         {"doc_id": "d-en", "doc_type": "annual_report", "format": "text", "sha": sha, "language": "en"},
                         {"doc_id": "d-none", "doc_type": "annual_report", "format": "text", "sha": sha, "language": None}])
    report = parse_documents(docs, raw, blocks)
    rows = {r["doc_id"]: r for r in report.rows}
    text = parsers()["text"]
    assert rows["d-en"]["parser_key"] == rows["d-none"]["parser_key"] == text.key  # English: as before
    assert rows["d-es"]["parser_key"] == f"{text.key}-es"
    assert report.parsed == 2 and report.reused == 1
    es_heads = [b.text for b in blocks.read(rows["d-es"]["parser_key"], sha).blocks if b.kind == "heading"]
    en_heads = [b.text for b in blocks.read(rows["d-en"]["parser_key"], sha).blocks if b.kind == "heading"]
    assert "Informe de gestión" in es_heads and "Informe de gestión" not in en_heads
    assert parsers()["markdown"].key_for("es") == parsers()["markdown"].key  # no Spanish rules: one parse
