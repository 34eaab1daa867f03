"""Dispatch: which parser handles a document, and the versions that name stored blocks.

A parser is a function ``parse(doc_id, content, meta) -> ParsedDocument``. ``content`` is
what the parser declares it takes (``input``): the document's text (``"text"``, the default:
the raw document decoded, stray control characters read as spaces) or the raw bytes exactly
as stored (``"bytes"``: PDF). A parser module declares it with ``INPUT = "bytes"``. Its
version string names the folder its blocks are stored under
(``blocks/parser=<name>-<version>/``): bump it whenever the parser's output changes, and
every document it handles is parsed again.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .model import ParsedDocument

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


_PARSERS: dict[str, ParserSpec] = {}


def register(name: str, version: str, fn: ParseFn, input: str = "text",
             languages: frozenset[str] | tuple[str, ...] = ()) -> None:
    if input not in INPUTS:
        raise ValueError(f"parser {name!r}: input must be one of {INPUTS}, not {input!r}")
    _PARSERS[name] = ParserSpec(name, version, fn, input, frozenset(languages))


def _load_builtin() -> None:
    if _PARSERS:
        return
    from . import markdown

    register("markdown", markdown.VERSION, markdown.parse)
    for module_name in ("html", "text", "transcript", "pdf"):
        try:
            module = __import__(f"{__package__}.{module_name}", fromlist=["parse", "VERSION"])
        except ModuleNotFoundError:
            continue
        register(module_name, module.VERSION, module.parse, getattr(module, "INPUT", "text"),
                 getattr(module, "LANGUAGES", ()))


def parsers() -> dict[str, ParserSpec]:
    _load_builtin()
    return dict(_PARSERS)


def select_parser(doc_type: str | None, fmt: str | None) -> ParserSpec:
    """Pick the parser for a document class: transcripts get the transcript parser whatever
    their format; otherwise the document's format decides."""
    table = parsers()
    if doc_type == "earnings_call" and fmt in ("text", "markdown") and "transcript" in table:
        return table["transcript"]
    if fmt in table:
        return table[fmt]
    raise UnsupportedDocument(f"no parser for format {fmt!r} (doc_type {doc_type!r}); known: {sorted(table)}")


def parsers_version() -> str:
    """One string naming every parser version: changes when any parser changes."""
    return ",".join(spec.key for _, spec in sorted(parsers().items()))
