"""Typed options: the base of every strategy's parameter model, and validation messages
that name the file, the entry and the field.

A strategy declares its parameters as a pydantic model (``class Params(StrategyParams)``
in its own module): one field per parameter, its default, its bounds (``Field(gt=0)``) and
any cross-field rule (a ``model_validator`` raising ``field_error``). Types are strict (a
``true`` is no integer, ``"800"`` no number; an integer is a number) and unknown
parameters are refused, so a typo in data/chunkers.yaml fails the load instead of being
silently ignored. ``describe_errors`` turns pydantic's errors into one line each, e.g.
``data/chunkers.yaml: chunk set 'structure-h': params.max_chars: expected an integer > 0, got 'abc'``.
"""
from __future__ import annotations

from typing import Any, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.fields import FieldInfo

_TYPE_WORDS = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
# a bound in a field's metadata (pydantic's Field(gt=0) gives an annotated_types.Gt with .gt, ...)
_BOUNDS = (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<="))
_VALUE_ERROR = "Value error, "


class StrategyParams(BaseModel):
    """A strategy's parameters: subclass it with one field per parameter (with its default)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def field_error(field: str, problem: str, value: Any) -> ValueError:
    """A cross-field rule's failure, attributed to ``field`` (raise it from a model validator)."""
    return ValueError(f"{field}: {problem}, got {value!r}")


def expected(info: FieldInfo) -> str:
    """What a field accepts, in words: its type and its bounds (``an integer > 0``)."""
    kind = info.annotation
    if get_origin(kind) is list:
        item = get_args(kind)[0] if get_args(kind) else Any
        words = f"a list of {_TYPE_WORDS.get(item, 'values').split(' ', 1)[-1]}s"
    else:
        words = _TYPE_WORDS.get(kind, getattr(kind, "__name__", str(kind)))
    bounds = [f"{sign} {getattr(meta, attr)}" for meta in info.metadata
              for attr, sign in _BOUNDS if getattr(meta, attr, None) is not None]
    return " ".join([words, " and ".join(bounds)]) if bounds else words


def describe_errors(exc: ValidationError, model: type[BaseModel], where: str, prefix: str = "",
                    unknown: str = "") -> str:
    """One line per error: ``where: prefix.field: problem, got value``. ``unknown``: the
    message for a field the model does not know (``{field}`` and ``{accepted}`` filled in)."""
    lines = []
    for err in exc.errors():
        loc = ".".join(str(part) for part in err["loc"])
        name = f"{prefix}.{loc}" if prefix and loc else (prefix or loc)
        field = model.model_fields.get(str(err["loc"][0])) if err["loc"] else None
        if err["type"] == "extra_forbidden":
            accepted = sorted(model.model_fields)
            problem = (unknown or "unknown field {field!r}; accepted: {accepted}").format(field=loc, accepted=accepted)
            lines.append(f"{where}: {prefix + ': ' if prefix else ''}{problem}")
        elif err["type"] == "missing":
            lines.append(f"{where}: {name}: required")
        elif err["type"] == "value_error":
            msg = err["msg"].removeprefix(_VALUE_ERROR)
            lines.append(f"{where}: {prefix + '.' if prefix and not loc else name + ': '}{msg}")
        elif err["type"] == "string_pattern_mismatch":
            lines.append(f"{where}: {name}: expected a string matching {err['ctx']['pattern']}, got {err['input']!r}")
        elif field is not None and len(err["loc"]) == 1:
            lines.append(f"{where}: {name}: expected {expected(field)}, got {err['input']!r}")
        else:
            lines.append(f"{where}: {name}: {err['msg'][:1].lower()}{err['msg'][1:]}, got {err.get('input')!r}")
    return "\n".join(lines)
