"""JSON Schemas of the request shapes, in the dialect each model API's structured output accepts.

One source, the request models (:class:`~shared_schema.models.EditsRequest`,
:class:`~shared_schema.models.EditRequest`, :class:`~shared_schema.models.SummaryRequest`), and
one generic rewrite per dialect -- so a field added to a request model reaches every dialect:

``json-schema``
    pydantic's JSON Schema (draft 2020-12), with ``$defs``, bounds and defaults.
``openai``
    Structured Outputs / strict function calling: every object ``additionalProperties: false``
    with every property ``required``; a field that may be left out is required but nullable
    (``anyOf [..., {"type": "null"}]``); only the keywords OpenAI lists as supported.
``anthropic``
    Strict tool input (``"strict": true``) and ``output_config.format``: every object
    ``additionalProperties: false``; optional fields stay optional (not nullable); no numeric or
    length bounds (``minimum``, ``minLength``...) and no ``default``, which it rejects.
``gemini``
    ``responseSchema`` (an OpenAPI 3.0 subset): no ``additionalProperties``, no ``$ref`` or
    ``$defs`` (everything inline), upper-case ``type`` names, ``propertyOrdering`` so a model
    writes ``anchor`` before ``replacement``.

Every provider dialect is inline (no ``$ref``) and drops pydantic's per-property ``title``.  A
keyword a dialect does not accept is not silently lost: it is stated in the description
("At least 1.") for the model to read, as the providers' own SDK converters do.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from pydantic import BaseModel

SchemaName = Literal["edits", "edit", "summary"]
Dialect = Literal["json-schema", "openai", "anthropic", "gemini"]
SCHEMA_NAMES: tuple[SchemaName, ...] = get_args(SchemaName)
DIALECTS: tuple[Dialect, ...] = get_args(Dialect)


def _model(name: str) -> type[BaseModel]:
    """The request model behind a schema name (the models are imported on first use: a command
    that only names the schemas, such as the command line's choices, builds none of them)."""
    from .models import EditRequest, EditsRequest, SummaryRequest

    models: dict[str, type[BaseModel]] = {
        "edits": EditsRequest,
        "edit": EditRequest,
        "summary": SummaryRequest,
    }
    return models[name]


# Keywords each provider accepts beside the structural ones every dialect uses (type,
# properties, required, items, anyOf, enum, description).  Anything else is moved into the
# description.  OpenAI: "Supported properties" of its Structured Outputs guide; Anthropic: the
# strict tool / structured output limitations (no numerical, string-length or array bounds
# beyond minItems 0 or 1); Gemini: the fields of the API's ``Schema`` object.
_STRUCTURAL = frozenset(["type", "properties", "required", "items", "anyOf", "enum", "description"])
_ACCEPTED: dict[str, frozenset[str]] = {
    "openai": _STRUCTURAL
    | {
        "additionalProperties", "const", "title", "pattern", "format", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    },
    "anthropic": _STRUCTURAL | {"additionalProperties", "const", "title", "format"},
    "gemini": _STRUCTURAL
    | {
        "title", "format", "nullable", "minimum", "maximum", "minLength", "maxLength", "pattern",
        "minItems", "maxItems", "propertyOrdering",
    },
}  # fmt: skip

_SAID = {
    "minLength": "At least {} characters.",
    "maxLength": "At most {} characters.",
    "minimum": "At least {}.",
    "maximum": "At most {}.",
    "exclusiveMinimum": "More than {}.",
    "exclusiveMaximum": "Less than {}.",
    "minItems": "At least {} items.",
    "maxItems": "At most {} items.",
    "pattern": "Matches the pattern {}.",
}


def _say(key: str, value: Any) -> str:
    """A keyword a dialect does not accept, as a sentence of the description."""
    if key == "minLength" and value == 1:
        return "Never empty."
    if key in _SAID:
        return _SAID[key].format(json.dumps(value) if key == "pattern" else value)
    return f"{key}: {json.dumps(value)}."


def json_schema(name: SchemaName, dialect: Dialect = "json-schema") -> dict[str, Any]:
    """The JSON Schema of a request shape -- ``"edits"`` (a reply: the list of edits),
    ``"edit"`` (one entry) or ``"summary"`` -- in ``dialect``: ``"json-schema"`` (the default),
    ``"openai"``, ``"anthropic"`` or ``"gemini"`` (see the module's description).  A fresh
    copy each call, built on first use."""
    if name not in SCHEMA_NAMES:
        raise ValueError(f"unknown schema {name!r}; expected one of {', '.join(SCHEMA_NAMES)}")
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {', '.join(DIALECTS)}")
    result: dict[str, Any] = json.loads(_schema_text(name, dialect))
    return result


@functools.cache
def _schema_text(name: str, dialect: str) -> str:
    schema = _model(name).model_json_schema()
    if dialect != "json-schema":
        schema = _rewrite(_inline(schema), dialect, root=True)
    return json.dumps(schema)


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every ``$ref`` replaced by a copy of its definition (the request models
    are not recursive); ``$defs`` dropped."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = defs[node["$ref"].rpartition("/")[2]]
            merged = {**copy.deepcopy(target), **{k: v for k, v in node.items() if k != "$ref"}}
            return walk(merged)
        return {k: walk(v) for k, v in node.items() if k != "$defs"}

    result: dict[str, Any] = walk(schema)
    return result


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "null"


def _rewrite(node: dict[str, Any], dialect: str, root: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    said: list[str] = []
    accepted = _ACCEPTED[dialect]
    for key, value in node.items():
        if key == "title" and not root:
            continue  # pydantic's "Anchor", "Expected Matches": noise to a model
        if key in ("default", "properties", "required", "items", "anyOf", "additionalProperties"):
            continue  # handled below; a default is what the parser assumes, not the model's to send
        if key not in accepted:
            said.append(_say(key, value))
            continue
        out[key] = value
    if "items" in node:
        out["items"] = _rewrite(node["items"], dialect)
    if "anyOf" in node:
        out["anyOf"] = [_rewrite(n, dialect) for n in node["anyOf"]]
    if node.get("type") == "object":
        _object(node, out, dialect)
    if said:
        out["description"] = " ".join([*filter(None, [out.get("description")]), *said])
    if dialect == "gemini" and isinstance(out.get("type"), str):
        out["type"] = out["type"].upper()
    return out


def _object(node: dict[str, Any], out: dict[str, Any], dialect: str) -> None:
    """An object's properties and ``required`` in ``dialect``: OpenAI requires every property
    (an optional one nullable); the others keep the model's required fields, and an optional
    field is plainly its type, left out when there is nothing to say."""
    properties = node.get("properties", {})
    required = set(node.get("required", []))
    rewritten: dict[str, Any] = {}
    for name, prop in properties.items():
        optional_none = name not in required and prop.get("default", ...) is None
        branches = prop.get("anyOf")
        if optional_none and dialect != "openai" and branches and any(_is_null(b) for b in branches):
            rest = [b for b in branches if not _is_null(b)]
            prop = {**{k: v for k, v in prop.items() if k != "anyOf"}, **rest[0]} if len(rest) == 1 else prop
        new = _rewrite(prop, dialect)
        if optional_none and dialect == "openai" and not _nullable(new):
            new = {"anyOf": [new, {"type": "null"}]}
        rewritten[name] = new
    out["properties"] = rewritten
    if dialect == "openai":
        out["required"] = list(rewritten)
    elif required:
        out["required"] = [name for name in rewritten if name in required]
    if dialect in ("openai", "anthropic"):
        out["additionalProperties"] = False
    else:
        out.pop("additionalProperties", None)
    if dialect == "gemini":
        out["propertyOrdering"] = list(rewritten)


def _nullable(node: dict[str, Any]) -> bool:
    return _is_null(node) or any(_is_null(b) for b in node.get("anyOf", []))
