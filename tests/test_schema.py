"""The shared schema: one definition of the request shapes, exported for structured output."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

import redline.match.verify
import redline.report
import summarize.check
from shared_schema import (
    DIALECTS,
    Edit,
    EditBatch,
    EditRequest,
    EditResult,
    EditsRequest,
    Location,
    QuoteCheck,
    Refusal,
    SummaryReply,
    SummaryRequest,
    json_schema,
    parse_edit_reply,
    parse_summary_reply,
)
from shared_schema.records import ResultRecord


def test_the_edits_schema_states_the_rules_a_model_must_follow() -> None:
    schema = json_schema("edits")
    text = json.dumps(schema).lower()
    for rule in ("character for character", "one edit per location", "expected_matches", "section"):
        assert rule in text, rule
    edit = schema["$defs"]["EditRequest"]
    assert set(edit["properties"]) == set(Edit.model_fields) == set(EditRequest.model_fields)
    # accept / reject / reply / resolve quote no text: anchor and replacement are optional in
    # the request, and the parser refuses a plain edit without them
    assert not edit.get("required")
    assert "required except for accept" in edit["properties"]["anchor"]["description"].lower()
    assert edit["additionalProperties"] is False


def test_the_request_shapes_ask_for_no_parser_field() -> None:
    # what a model is asked for is not what the parser reports: invalid / notes / raw / the
    # entry's index belong to the parsed result alone
    for dialect in DIALECTS:
        text = json.dumps(json_schema("edits", dialect)) + json.dumps(json_schema("summary", dialect))
        for parser_field in ('"invalid"', '"notes"', '"raw"', '"index"', '"revision"'):
            assert parser_field not in text, (dialect, parser_field)
    assert set(EditsRequest.model_fields) == {"edits"}
    assert set(SummaryRequest.model_fields) == {"summary", "points"}
    assert {"invalid", "notes"} <= set(EditBatch.model_fields) - set(EditsRequest.model_fields)


def test_every_exported_shape_round_trips_through_the_tolerant_parser() -> None:
    batch = EditBatch(
        edits=[
            Edit(anchor="Tenant shall pay rent", replacement="Tenant shall pay all rent", id="e1"),
            Edit(anchor="“Premises”", replacement="", rationale="duplicate", expected_matches=2),
        ]
    )
    parsed = parse_edit_reply(json.dumps({"edits": [e.model_dump() for e in batch.edits]}))
    assert parsed is not None and parsed.edits == batch.edits
    summary = json_schema("summary")
    assert set(summary["properties"]) == {"summary", "points"}
    reply = SummaryReply(summary="s")
    assert parse_summary_reply(json.dumps({"summary": "s", "points": []})) == reply
    assert json_schema("edit")["title"] == "EditRequest"
    with pytest.raises(ValueError):
        json_schema("nonsense")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        json_schema("edits", "cobol")  # type: ignore[arg-type]


def test_an_anchor_a_word_document_cannot_hold_is_refused_at_parse_time() -> None:
    with pytest.raises(ValidationError):
        Edit(anchor="a\x00b", replacement="x")
    with pytest.raises(ValidationError):
        Edit(anchor="   ", replacement="x")


def test_both_flows_report_with_the_same_classes() -> None:
    # each module's own binding (not a declared export) must be the shared class
    # (the apply path carries the records of these very classes: shared_schema.records,
    # held field for field to the models by tests/test_records.py)
    assert redline.match.verify.ResultRecord is ResultRecord  # type: ignore[attr-defined]
    assert redline.report.EditResult is EditResult  # type: ignore[attr-defined]
    assert summarize.check.QuoteCheck is QuoteCheck  # type: ignore[attr-defined]
    for shape in (EditResult, QuoteCheck):
        assert shape.model_fields["locations"].annotation == list[Location]
        assert shape.model_fields["error"].annotation == (Refusal | None)
