"""Each schema dialect against its provider's published strict-mode rules, and against the
provider SDK's own strict-schema converter where one exists -- offline (no API is called).

The rule checkers below are written from the providers' documentation, independently of
:mod:`shared_schema.json_schema`, so a rewrite that drifts from a provider's rules fails here:

- OpenAI, Structured Outputs ("Supported schemas"): the root is an object; every object has
  ``additionalProperties: false`` and lists every property in ``required`` (an optional field
  is nullable instead); only the listed keywords.
- Anthropic, strict tool use / structured outputs ("JSON Schema limitations"):
  ``additionalProperties: false`` on every object; no numerical bounds (``minimum``,
  ``maximum``, ``multipleOf``...), no string-length bounds, ``minItems`` only 0 or 1.
- Gemini, ``responseSchema`` (the API's ``Schema`` object, an OpenAPI 3.0 subset): no
  ``additionalProperties``, no ``$ref`` / ``$defs``, the ``Type`` enum's names.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from shared_schema import (
    DIALECTS,
    Dialect,
    EditsRequest,
    SchemaName,
    SummaryRequest,
    json_schema,
    parse_edit_reply,
    parse_summary_reply,
)

NAMES: tuple[SchemaName, ...] = ("edits", "summary")


def _nodes(node: Any, path: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema node (not the property maps themselves), with where it is."""
    if not isinstance(node, dict):
        return
    yield path, node
    for name, sub in (node.get("properties") or {}).items():
        yield from _nodes(sub, f"{path}.{name}")
    if isinstance(node.get("items"), dict):
        yield from _nodes(node["items"], f"{path}[]")
    for i, sub in enumerate(node.get("anyOf") or []):
        yield from _nodes(sub, f"{path}|{i}")
    for name, sub in (node.get("$defs") or {}).items():
        yield from _nodes(sub, f"{path}$defs.{name}")


OPENAI_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
    "description", "title", "$ref", "$defs", "pattern", "format", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
}  # fmt: skip


def openai_violations(schema: dict[str, Any]) -> list[str]:
    bad = []
    if schema.get("type") != "object" or "anyOf" in schema:
        bad.append("$: the root must be an object, not anyOf")
    for path, node in _nodes(schema):
        for key in set(node) - OPENAI_KEYWORDS:
            bad.append(f"{path}: {key} is not supported in strict mode")
        if node.get("type") == "object" or "properties" in node:
            if node.get("additionalProperties") is not False:
                bad.append(f"{path}: additionalProperties must be false")
            if set(node.get("required", [])) != set(node.get("properties", {})):
                bad.append(f"{path}: every property must be required")
        if "$ref" in node and len(node) > 1:
            bad.append(f"{path}: $ref beside other keywords")
    return bad


ANTHROPIC_REJECTED = {
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
    "maxLength", "maxItems", "minProperties", "maxProperties", "uniqueItems", "default",
    "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "patternProperties",
}  # fmt: skip


def anthropic_violations(schema: dict[str, Any]) -> list[str]:
    bad = []
    for path, node in _nodes(schema):
        for key in set(node) & ANTHROPIC_REJECTED:
            bad.append(f"{path}: {key} is not supported by strict tool input")
        if node.get("minItems") not in (None, 0, 1):
            bad.append(f"{path}: minItems beyond 0 or 1")
        if node.get("type") == "object" and node.get("additionalProperties") is not False:
            bad.append(f"{path}: additionalProperties must be false")
    return bad


GEMINI_FIELDS = {
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
    "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
    "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum",
}  # fmt: skip
GEMINI_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}


def gemini_violations(schema: dict[str, Any]) -> list[str]:
    bad = []
    for path, node in _nodes(schema):
        for key in set(node) - GEMINI_FIELDS:
            bad.append(f"{path}: {key} is not a field of responseSchema")
        if "type" in node and node["type"] not in GEMINI_TYPES:
            bad.append(f"{path}: type {node['type']!r} is not a Type name")
        if "propertyOrdering" in node and set(node["propertyOrdering"]) != set(node.get("properties", {})):
            bad.append(f"{path}: propertyOrdering must name every property")
    return bad


VIOLATIONS = {"openai": openai_violations, "anthropic": anthropic_violations, "gemini": gemini_violations}


def test_the_rule_checkers_reject_what_the_providers_reject() -> None:
    # the plain JSON Schema is what each provider refused (issue 21): the checkers must say so
    for name in NAMES:
        plain = json_schema(name)
        assert any("every property must be required" in v for v in openai_violations(plain))
        assert any("minimum" in v or "minLength" in v or "default" in v for v in anthropic_violations(plain))
        assert any("additionalProperties" in v or "$defs" in v for v in gemini_violations(plain))


@pytest.mark.parametrize("dialect", ["openai", "anthropic", "gemini"])
@pytest.mark.parametrize("name", NAMES)
def test_each_dialect_keeps_its_providers_strict_rules(name: SchemaName, dialect: Dialect) -> None:
    schema = json_schema(name, dialect)
    assert VIOLATIONS[dialect](schema) == []
    assert "$ref" not in json.dumps(schema) and "$defs" not in schema


def test_a_bound_a_dialect_cannot_carry_is_said_in_the_description() -> None:
    edit = json_schema("edit", "anthropic")
    assert "minimum" not in json.dumps(edit)
    assert "At least 1." in edit["properties"]["expected_matches"]["description"]
    assert "Never empty." in edit["properties"]["anchor"]["description"]
    assert json_schema("edit", "gemini")["properties"]["expected_matches"]["minimum"] == 1


def test_the_openai_dialect_is_what_the_openai_sdk_makes_strict() -> None:
    from openai.lib._pydantic import _ensure_strict_json_schema, to_strict_json_schema

    pairs: list[tuple[SchemaName, type[EditsRequest | SummaryRequest]]] = [
        ("edits", EditsRequest),
        ("summary", SummaryRequest),
    ]
    for name, model in pairs:
        ours = json_schema(name, "openai")
        # the SDK's strict pass (what client.chat.completions.parse applies) changes nothing
        again = copy.deepcopy(ours)
        assert _ensure_strict_json_schema(again, path=(), root=again) == ours
        # and the SDK's own conversion of the request model accepts what ours accepts
        sdk = to_strict_json_schema(model)
        for instance in _instances(name, nulls=True):
            jsonschema.validate(instance, ours)
            jsonschema.validate(instance, sdk)


def test_the_anthropic_dialect_is_a_fixed_point_of_the_anthropic_sdk_transform() -> None:
    # anthropic.transform_schema moves every keyword the API rejects into the description:
    # on our schema it has nothing left to move
    from anthropic import transform_schema

    for name in NAMES:
        ours = json_schema(name, "anthropic")
        assert transform_schema(copy.deepcopy(ours)) == ours


class _DeveloperApiClient:
    vertexai = False  # the Gemini Developer API (not Vertex AI), the stricter of the two


def test_the_gemini_dialect_is_a_valid_schema_object_the_sdk_leaves_alone() -> None:
    from google.genai import _transformers, types

    for name in NAMES:
        ours = json_schema(name, "gemini")
        types.Schema.model_validate(ours)  # extra='forbid': an unknown field fails here
        processed = copy.deepcopy(ours)
        _transformers.process_schema(processed, _DeveloperApiClient())  # type: ignore[arg-type]
        assert processed == ours


def _instances(name: SchemaName, nulls: bool) -> list[dict[str, Any]]:
    if name == "summary":
        return [
            {
                "summary": "A lease.",
                "points": [{"title": "Rent", "text": "Monthly.", "quotes": ["pay rent"]}],
            },
            {"summary": "", "points": []},
        ]
    optional = (
        dict.fromkeys(
            [
                "rationale",
                "expected_matches",
                "section",
                "id",
                "action",
                "text",
                "level",
                "revision_id",
                "author",
                "comment_id",
                "format",
                "cells",
                "target",
                "target_anchor",
            ]
        )
        if nulls
        else {}
    )
    return [
        {"edits": []},
        {"edits": [{"anchor": "ten (10) days", "replacement": "fifteen (15) days", **optional}]},
        {
            "edits": [
                {
                    **optional,
                    "anchor": "Tenant",
                    "replacement": "Lessee",
                    "rationale": "defined term",
                    "expected_matches": 3,
                    "section": "4.2",
                    "id": "e1",
                }
            ]
        },
        {
            "edits": [
                {
                    **optional,
                    "anchor": "Tenant shall pay",
                    "replacement": "",
                    "action": "insert_after",
                    "text": "Tenant shall also pay the service charge.",
                    "level": 1,
                }
            ]
        },
        {
            "edits": [
                {
                    **optional,
                    "anchor": "Silver",
                    "replacement": "",
                    "action": "insert_row_after",
                    "cells": ["Gold", "99.9%"],
                },
                {**optional, "anchor": "Audit. The", "replacement": "", "action": "move_after", "target": "9"}
            ]
        },
    ]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_what_each_dialect_allows_the_parser_reads_back_unchanged(dialect: Dialect) -> None:
    for name in NAMES:
        schema = json_schema(name, dialect)
        for instance in _instances(name, nulls=dialect == "openai"):
            if dialect != "gemini":  # gemini's upper-case types are OpenAPI's, not JSON Schema's
                jsonschema.validate(instance, schema)
            text = json.dumps(instance)
            if name == "edits":
                batch = parse_edit_reply(text)
                assert batch is not None and not batch.invalid and not batch.notes, batch
                assert [e.model_dump(exclude_none=True) for e in batch.edits] == [
                    {k: v for k, v in e.items() if v is not None} for e in instance["edits"]
                ]
            else:
                summary = parse_summary_reply(text)
                assert summary is not None and summary.model_dump(exclude={"invalid", "notes"}) == instance


@pytest.mark.parametrize("dialect", ["json-schema", "openai", "anthropic"])
def test_each_json_dialect_is_a_valid_json_schema(dialect: Dialect) -> None:
    for name in NAMES:
        jsonschema.Draft202012Validator.check_schema(json_schema(name, dialect))


def test_the_openai_dialect_refuses_a_field_the_model_may_not_invent() -> None:
    schema = json_schema("edits", "openai")
    nulls = dict.fromkeys(["rationale", "expected_matches", "section", "id"])
    entry = {"anchor": "a", "replacement": "b", **nulls}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"edits": [{**entry, "notes": "x"}]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"edits": [{"anchor": "a", "replacement": "b"}]}, schema)  # all required
