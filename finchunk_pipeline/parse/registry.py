"""Dispatch: which parser handles a document, and the versions that name stored blocks.

A parser is a function ``parse(doc_id, content, meta) -> ParsedDocument``. ``content`` is
what the parser declares it takes (``input``): the document's text (``"text"``, the default:
the raw document decoded, stray control characters read as spaces) or the raw bytes exactly
as stored (``"bytes"``: PDF). A parser module declares it with ``INPUT = "bytes"``. Its
version string names the folder its blocks are stored under
(``blocks/parser=<name>-<version>/``): bump it whenever the parser's output changes, and
every document it handles is parsed again.

Each parser is one module under ``parse/`` (``parse(doc_id, content, meta)``, ``VERSION``, and
``FORMATS``, the corpus formats it reads, and optionally ``INPUT``, ``LANGUAGES``, ``DOC_TYPES``);
``BUILTIN`` lists them, one line each. A parser declaring ``DOC_TYPES`` reads documents of those types in its formats ahead
of the format's own parser (transcripts: earnings calls given as text or Markdown). The
corpus loader accepts every registered format (``formats()``), and a format read from
bytes is given as a file (``binary_formats()``). A built-in module that fails to
import is an error naming it, never a parser silently missing. ``register`` adds one at run
time (tests, plug-ins outside the package).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from ..types.blocks import ParsedDocument

ParseFn = Callable[[str, Any, dict[str, Any]], ParsedDocument]  # (doc_id, str or bytes, meta)
INPUTS = ("text", "bytes")


class UnsupportedDocument(ValueError):
    """No parser for this document's format / doc_type."""


@dataclass(frozen=True)
class ParserSpec:
    name: str
    version: str
    fn: ParseFn
    input: str = "text"   # what fn takes: "text" (decoded) or "bytes" (the raw file)
    # languages the parser has rules of its own for (parse/text.py, parse/transcript.py:
    # Spanish headings, turns); the same bytes parse differently in them
    languages: frozenset[str] = frozenset()
    formats: frozenset[str] = frozenset()    # the corpus formats it reads (empty: the format named like it)
    doc_types: frozenset[str] = frozenset()  # only these document types, ahead of the format's parser
    ocr: bool = False     # reads image-only pages when given an OcrConfig (parse/ocr.py, parse/ocr_keys.py)

    @property
    def reads(self) -> frozenset[str]:
        """Its formats (a parser registered without them reads the format named like it)."""
        return self.formats or frozenset({self.name})

    @property
    def takes_over(self) -> frozenset[str]:
        """The document types it reads ahead of the format's own parser (empty: any)."""
        return self.doc_types

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"

    def key_for(self, language: str | None) -> str:
        """The key naming a document's stored blocks: ``key``, plus the document's language
        when the parser reads it (``text-2-es``), so one content parsed under two languages'
        rules is stored twice, never one under the other's name. English keys unchanged."""
        from ..lang.codes import normalise

        lang = normalise(language)
        return f"{self.key}-{lang}" if lang in self.languages else self.key


# the built-in parsers: modules under parse/, each declaring VERSION, FORMATS and parse
BUILTIN = (
    "markdown",
    "html",
    "text",
    "transcript",   # DOC_TYPES: earnings calls given as text or Markdown
    "pdf",
)

_PARSERS: dict[str, ParserSpec] = {}
_builtin_loaded = False


def register(name: str, version: str, fn: ParseFn, input: str = "text",
             languages: frozenset[str] | tuple[str, ...] = (), formats: tuple[str, ...] = (),
             doc_types: tuple[str, ...] = (), ocr: bool = False) -> None:
    """Add (or replace) a parser; ``formats``: the corpus formats it reads (default: ``name``);
    ``ocr``: ``fn`` takes ``ocr=OcrConfig`` (image-only pages read by OCR)."""
    if input not in INPUTS:
        raise ValueError(f"parser {name!r}: input must be one of {INPUTS}, not {input!r}")
    _load_builtin()  # a plug-in registered first adds to the built-ins (or replaces one), never hides them
    _PARSERS[name] = ParserSpec(name, version, fn, input, frozenset(languages), frozenset(formats),
                                frozenset(doc_types), ocr)


def unregister(name: str) -> None:
    _PARSERS.pop(name, None)


def _builtin_module(name: str):
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ImportError as exc:
        raise ImportError(f"built-in parser module {__package__}.{name} failed to import: {exc}") from exc


def _register_module(name: str) -> None:
    module = _builtin_module(name)
    register(name, module.VERSION, module.parse, getattr(module, "INPUT", "text"), getattr(module, "LANGUAGES", ()),
             tuple(module.FORMATS), tuple(getattr(module, "DOC_TYPES", ())), getattr(module, "OCR", False))


def _load_builtin() -> None:
    global _builtin_loaded
    if _builtin_loaded:
        return
    _builtin_loaded = True
    for name in BUILTIN:
        _register_module(name)


def parsers() -> dict[str, ParserSpec]:
    _load_builtin()
    return dict(_PARSERS)


def select_parser(doc_type: str | None, fmt: str | None) -> ParserSpec:
    """Pick the parser for a document class: a parser declaring the document's type among
    its ``doc_types`` (transcripts) wins in its formats; otherwise the document's format decides."""
    table = parsers()
    for spec in table.values():
        if doc_type in spec.takes_over and fmt in spec.reads:
            return spec
    for spec in table.values():
        if not spec.takes_over and fmt in spec.reads:
            return spec
    raise UnsupportedDocument(f"no parser for format {fmt!r} (doc_type {doc_type!r}); known: {sorted(formats())}")


def formats() -> frozenset[str]:
    """Every corpus format a registered parser reads (the corpus loader accepts these)."""
    return frozenset(f for spec in parsers().values() if not spec.takes_over for f in spec.reads)


def binary_formats() -> frozenset[str]:
    """The formats whose parser reads the raw bytes: given as a file (``path``), never as ``text``."""
    return frozenset(f for spec in parsers().values() if not spec.takes_over and spec.input == "bytes"
                     for f in spec.reads)


def parsers_version() -> str:
    """One string naming every parser version: changes when any parser changes."""
    return ",".join(spec.key for _, spec in sorted(parsers().items()))
