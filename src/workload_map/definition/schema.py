"""Parsing Karta documents: pydantic models derived from the plain model (``workload_map.definition.model``).

One model per dataclass of the model, with the same fields in the same order, each under its name in a
document (camelCase, :func:`~workload_map.definition.model.wire_name`), strict and refusing unknown fields;
the two rules that are more than a type (condition field names, suspend values) are the validators below.
The model stays the one description of the format: this module only says how a document is checked.

Only a definition parsed from source loads this module (and pydantic); a definition that comes from the
compiled cache is already the plain model.
"""

from __future__ import annotations

import difflib
import functools
import json
import operator
import types
import typing
from typing import Any, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, create_model, field_validator

from workload_map.base import model as base_model
from workload_map.definition import model


class _Strict(BaseModel):
    # defer_build: the validation schema (tens of ms) is built on the first validation.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, strict=True, defer_build=True)


def _empty_is_default(cls: type[BaseModel], value: Any, info: ValidationInfo) -> Any:
    # The Go type has no omitempty on these names, so objects written by Go clients carry "" for "unset";
    # the CRD default only applies to absent fields. Read "" (and null) as the default.
    if value in ("", None):
        return _DEFAULTS[model.ConditionsDefinition][str(info.field_name)]
    return value


def _value_is_json(cls: type[BaseModel], raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            json.loads(raw)
        except ValueError as exc:
            raise ValueError(f"value must be a JSON-encoded string such as 'true' or '\"x\"': {exc}") from None
    return raw


_DEFAULTS = {model.ConditionsDefinition: model.ConditionsDefinition._DEFAULTS}
# Rules on a field beyond its type; the model's fields that are not in documents.
_CONSTRAINTS: dict[tuple[type, str], dict[str, Any]] = {
    (model.SuspendDefinition, "suspend_actions"): {"min_length": 1},
    (model.SuspendDefinition, "resume_actions"): {"min_length": 1},
}
_NOT_IN_DOCUMENTS = {(model.Karta, "document")}
_VALIDATORS: dict[type, dict[str, Any]] = {
    model.ConditionsDefinition: {
        "_empty_is_default": field_validator(
            "type_field_name", "status_field_name", "message_field_name", "reason_field_name", mode="before"
        )(_empty_is_default)
    },
    model.SuspendAction: {"_value_is_json": field_validator("value")(_value_is_json)},
}
_PLAIN: dict[type[BaseModel], type] = {}


@functools.cache
def schema_of(plain: type[base_model.Model]) -> type[BaseModel]:
    """The pydantic model that checks documents of a model class."""
    # the base's own ClassVar tables are evaluated too, in the base module's names
    hints = get_type_hints(plain, {**vars(base_model), **vars(model)})
    fields: dict[str, Any] = {}
    for name, default in plain._DEFAULTS.items():
        if (plain, name) in _NOT_IN_DOCUMENTS:
            continue
        constraints = dict(_CONSTRAINTS.get((plain, name), {}))
        if isinstance(default, base_model._Factory):
            factory = default.make
            constraints["default_factory"] = schema_of(factory) if _is_model(factory) else factory
        elif default is not base_model._REQUIRED:
            constraints["default"] = default
        fields[name] = (_swap(hints[name]), Field(alias=model.wire_name(name), **constraints))
    schema: type[BaseModel] = create_model(
        plain.__name__, __base__=_Strict, __module__=__name__, __validators__=_VALIDATORS.get(plain, {}), **fields
    )
    _PLAIN[schema] = plain
    return schema


def _swap(annotation: Any) -> Any:
    """An annotation of the model with its model classes replaced by their schemas."""
    if _is_model(annotation):
        return schema_of(annotation)
    args = get_args(annotation)
    if not args:
        return annotation
    swapped = tuple(_swap(arg) for arg in args)
    origin = get_origin(annotation)
    if origin in (types.UnionType, typing.Union):
        return functools.reduce(operator.or_, swapped)
    return origin[swapped]


def _is_model(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, base_model.Model)


KARTA = schema_of(model.Karta)


def parse(data: Any) -> model.Karta:
    """A Karta document as the model; pydantic's ValidationError when it does not conform."""
    checked = KARTA.model_validate(data, by_alias=True)
    karta: model.Karta = _plain(checked)
    # Only the fields the author set: the wire form to_dict gives back.
    document = checked.model_dump_json(by_alias=True, exclude_unset=True).encode()
    replaced: model.Karta = karta.replace(document=document)
    return replaced


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return _PLAIN[type(value)](**{name: _plain(getattr(value, name)) for name in type(value).model_fields})
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _model_at(loc: tuple[str | int, ...]) -> type[BaseModel] | None:
    """The model class that holds the field named by the last element of a pydantic error loc."""
    model: type[BaseModel] | None = KARTA
    for part in loc[:-1]:
        if model is None:
            return None
        if isinstance(part, int):
            continue
        field = next((f for name, f in model.model_fields.items() if part in (f.alias or name, name)), None)
        if field is None:
            return None
        model = _inner_model(field.annotation)
    return model


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _allowed_fields(loc: tuple[str | int, ...]) -> list[str]:
    model = _model_at(loc)
    if model is None:
        return []
    return [f.alias or name for name, f in model.model_fields.items()]


def describe(error: Any) -> str:
    """One pydantic error of a document as a sentence for its author."""
    kind = error["type"]
    loc = tuple(error["loc"])
    if kind == "extra_forbidden":
        field = str(loc[-1]) if loc else "?"
        allowed = _allowed_fields(loc)
        close = difflib.get_close_matches(field, allowed, n=1, cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        listing = f" (allowed here: {', '.join(allowed)})" if allowed else ""
        return f"unknown field '{field}'{hint}{listing}"
    if kind == "missing":
        return "required field is missing"
    if kind in ("string_type", "dict_type", "list_type", "model_type", "model_attributes_type"):
        expected = {
            "string_type": "a string",
            "dict_type": "a mapping",
            "list_type": "a list",
            "model_type": "a mapping",
            "model_attributes_type": "a mapping",
        }[kind]
        got = type(error.get("input")).__name__
        got = {"NoneType": "null", "dict": "mapping", "str": "string"}.get(got, got)
        return f"must be {expected}, got {got}"
    if kind == "too_short":
        return "must not be empty"
    message = str(error.get("msg", kind))
    return message.removeprefix("Value error, ")
