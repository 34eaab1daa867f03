"""What an inline-XBRL filing's ``ix:resources`` declare: contexts (entity, period,
dimensions) and units, read from the raw HTML with regular expressions (no DOM: the
section is XML inside HTML, often with namespace prefixes bound on the ``<html>`` element).

A context is ``<xbrli:context id=…>`` with ``<xbrli:entity>`` (``<xbrli:identifier>``, an
optional ``<xbrli:segment>`` of ``<xbrldi:explicitMember dimension=…>member</…>`` and
``<xbrldi:typedMember dimension=…><x>value</x></…>``) and ``<xbrli:period>`` (``instant`` or
``startDate``/``endDate``; ``forever``). A unit is ``<xbrli:unit id=…>`` with one or more
``<xbrli:measure>`` or a ``divide`` of numerator / denominator measures. Prefixes are
matched loosely (any ``prefix:`` or none), as filings bind them differently.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_CONTEXT = re.compile(r"<(?:[\w.-]+:)?context\b([^>]*)>(.*?)</(?:[\w.-]+:)?context\s*>", re.S | re.I)
_UNIT = re.compile(r"<(?:[\w.-]+:)?unit\b([^>]*)>(.*?)</(?:[\w.-]+:)?unit\s*>", re.S | re.I)
_ID = re.compile(r"""\bid\s*=\s*["']([^"']+)["']""", re.I)
_DIMENSION = re.compile(r"""\bdimension\s*=\s*["']([^"']+)["']""", re.I)


def _element(name: str) -> re.Pattern[str]:
    return re.compile(rf"<(?:[\w.-]+:)?{name}\b([^>]*)>(.*?)</(?:[\w.-]+:)?{name}\s*>", re.S | re.I)


_IDENTIFIER = _element("identifier")
_INSTANT = _element("instant")
_START = _element("startDate")
_END = _element("endDate")
_EXPLICIT = _element("explicitMember")
_TYPED = _element("typedMember")
_MEASURE = _element("measure")
_NUMERATOR = _element("unitNumerator")
_DENOMINATOR = _element("unitDenominator")
_TAGS = re.compile(r"<[^>]*>")


def _text(s: str) -> str:
    return " ".join(_TAGS.sub(" ", s).split())


@dataclass(frozen=True)
class Context:
    """One XBRL context: who, when (an instant, or start-end; both None for 'forever') and
    in which dimensional slice (axis -> member, in document order)."""

    context_id: str
    entity: str
    instant: str | None = None
    start: str | None = None
    end: str | None = None
    dimensions: tuple[tuple[str, str], ...] = ()

    @property
    def period_end(self) -> str | None:
        return self.instant or self.end


@dataclass
class Resources:
    contexts: dict[str, Context] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)  # unit id -> "USD", "USD/shares", "shares"
    problems: list[str] = field(default_factory=list)


def _measure(s: str) -> str:
    """``iso4217:USD`` -> ``USD``; ``xbrli:shares`` -> ``shares``."""
    s = _text(s)
    return s.split(":", 1)[1] if ":" in s else s


def _unit(body: str) -> str:
    num = _NUMERATOR.search(body)
    den = _DENOMINATOR.search(body)
    if num and den:
        return ("*".join(_measure(m.group(2)) for m in _MEASURE.finditer(num.group(2))) + "/"
                + "*".join(_measure(m.group(2)) for m in _MEASURE.finditer(den.group(2))))
    return "*".join(_measure(m.group(2)) for m in _MEASURE.finditer(body))


def _context(cid: str, body: str) -> Context:
    ident = _IDENTIFIER.search(body)
    dims = [(m2.group(1), _text(m.group(2)))
            for m in _EXPLICIT.finditer(body) for m2 in [_DIMENSION.search(m.group(1))] if m2]
    dims += [(m2.group(1), _text(m.group(2)))
             for m in _TYPED.finditer(body) for m2 in [_DIMENSION.search(m.group(1))] if m2]
    inst, start, end = _INSTANT.search(body), _START.search(body), _END.search(body)
    return Context(
        context_id=cid, entity=_text(ident.group(2)) if ident else "",
        instant=_text(inst.group(2))[:10] if inst else None,
        start=_text(start.group(2))[:10] if start and not inst else None,
        end=_text(end.group(2))[:10] if end and not inst else None,
        dimensions=tuple(dims))


def read_resources(raw: str) -> Resources:
    """Every context and unit declared anywhere in the document (a filing may have several
    ``ix:resources`` sections; later declarations of an id are reported and ignored)."""
    out = Resources()
    for m in _CONTEXT.finditer(raw):
        idm = _ID.search(m.group(1))
        if not idm:
            out.problems.append(f"context without id at {m.start()}")
            continue
        cid = idm.group(1)
        if cid in out.contexts:
            out.problems.append(f"context {cid!r} declared twice; the first is used")
            continue
        out.contexts[cid] = _context(cid, m.group(2))
    for m in _UNIT.finditer(raw):
        idm = _ID.search(m.group(1))
        if idm and idm.group(1) not in out.units:
            out.units[idm.group(1)] = _unit(m.group(2))
    return out
