"""The apply path's records (:mod:`shared_schema.records`, :mod:`redline.results`) are the public
models' shapes without pydantic: the same fields in the same order, and each record's model is
the one pydantic validates from the same values (the report a run writes is the report it was)."""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from redline import results
from redline.report import ReplyInfo, Report, Totals
from shared_schema import Code, EditStatus, MatchKind, parse_edit_reply
from shared_schema.models import Edit, EditBatch, EditResult, InvalidEntry, Location, Refusal
from shared_schema.parse import read_edit_reply
from shared_schema.parse.fields import build_edit, validation_reason
from shared_schema.records import (
    BatchRecord,
    EditRecord,
    InvalidRecord,
    LocationRecord,
    RefusalRecord,
    ResultRecord,
)

PAIRS: list[tuple[type, type[BaseModel]]] = [
    (LocationRecord, Location),
    (RefusalRecord, Refusal),
    (ResultRecord, EditResult),
    (InvalidRecord, InvalidEntry),
    (BatchRecord, EditBatch),
    (results.ReplyRecord, ReplyInfo),
    (results.TotalsRecord, Totals),
    (results.ReportRecord, Report),
]


@pytest.mark.parametrize(("record", "model"), PAIRS, ids=[m.__name__ for _, m in PAIRS])
def test_a_record_takes_its_models_fields_in_order(record: type, model: type[BaseModel]) -> None:
    params = list(inspect.signature(record).parameters)
    assert params == list(model.model_fields)
    assert set(getattr(record, "__slots__")) == set(model.model_fields)  # noqa: B009


def test_an_edit_record_has_the_edits_fields_and_defaults() -> None:
    fields = {name: info.default for name, info in Edit.model_fields.items()}
    assert {name: getattr(EditRecord, name) for name in fields} == fields
    assert EditRecord.index is None


def _same(made: BaseModel, validated: BaseModel) -> None:
    assert type(made) is type(validated)
    assert made.model_dump(mode="json") == validated.model_dump(mode="json")
    assert list(made.__dict__) == list(validated.__dict__)  # field order (repr, dumps)
    assert repr(made) == repr(validated)


def test_a_results_model_is_the_validated_model() -> None:
    near = LocationRecord("word/document.xml", 3, 10, 20, "4.2", "4.2 Rent", "…the Rent…")
    refusal = RefusalRecord(
        "ambiguous", "The anchor occurs twice.", "Quote more.", [near, LocationRecord("p", 4, 30, 40)],
        nearest="the Rent", nearest_location=near, tolerances=["quotes"], related=[2], actual_matches=2,
    )  # fmt: skip
    assert refusal.code is Code.AMBIGUOUS
    result = ResultRecord(1, "e1", "the Rent", "the rent", EditStatus.AMBIGUOUS, MatchKind.NORMALIZED,
                          ["quotes"], [near], refusal, ["a note"])  # fmt: skip
    made = result.model()
    _same(made, EditResult.model_validate(json.loads(made.model_dump_json())))
    assert RefusalRecord.of(refusal.model()) == refusal
    assert LocationRecord.of(near.model()) == near


def test_the_rules_constants_are_the_models() -> None:
    from typing import get_args

    from shared_schema.models import HIGHLIGHT_COLOURS, HighlightColour

    assert get_args(HighlightColour) == HIGHLIGHT_COLOURS


def test_a_code_outside_the_catalogue_is_refused() -> None:
    with pytest.raises(ValueError, match="not_a_code"):
        RefusalRecord("not_a_code", "x")


def test_a_report_record_is_the_report_a_run_dumps() -> None:
    batch = read_edit_reply(json.dumps([{"anchor": "a b", "replacement": "c"}, {"anchor": 3}]))
    assert batch is not None
    invalid = results.invalid_results(batch)
    made = results.ReportRecord(
        "d.docx", "sha256:x", "o.docx", results.ReplyRecord(True, batch.notes, batch.invalid), invalid,
        results.totals(invalid),
    )  # fmt: skip
    from redline.report import report_of

    report = report_of(made)
    data = report.model_dump(mode="json")
    assert data["totals"] == {"proposed": 1, "applied": 0, "unapplied": 1, "by_status": {"invalid": 1}}
    assert data["reply"]["invalid"][0]["index"] == 1
    _same(report, Report.model_validate(data))


# -- a reply's entries: the records the parser makes against pydantic's validation -------------

_CHARS = st.sampled_from(["a", "B", " ", "\t", "\n", "é", "\u202e", "\x00", "\ufffe", "1", "\u00a0"])
_TEXT = st.text(_CHARS, max_size=5)
_VALUE = st.one_of(st.none(), _TEXT, st.integers(-2, 3), st.booleans(), st.just(["a"]))
_FIELDS = st.sampled_from([
    "anchor", "replacement", "rationale", "section", "id", "text", "revision_id", "author",
    "comment_id", "expected_matches", "level", "action", "cells",
])  # fmt: skip


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_FIELDS, _VALUE, max_size=6))
def test_an_entry_built_is_the_validated_entry_or_its_error(values: dict[str, Any]) -> None:
    """The parser's entry (a record, made without pydantic when every value passes the rules)
    is the :class:`Edit` pydantic validates from the same values, or pydantic's own refusal."""
    try:
        validated: Edit | None = Edit(**values)
    except ValidationError as exc:
        validated, reason = None, validation_reason(exc)
    built = build_edit(**values)
    if validated is None:
        assert built == reason
    else:
        assert isinstance(built, EditRecord)
        made = built.model()
        assert made.__dict__ == validated.__dict__
        assert made.model_fields_set == validated.model_fields_set
        assert repr(made) == repr(validated)


def test_the_public_parse_is_the_records_model() -> None:
    reply = json.dumps([
        {"anchor": "the Term", "replacement": "the Initial Term", "rationale": "defined", "id": 7},
        {"anchor": "x\u202ey", "replacement": "z"},
        {"anchor": "rent", "action": "format", "format": {"bold": True}},
        {"action": "accept", "revision_id": "12"},
    ])  # fmt: skip
    batch, record = parse_edit_reply(reply), read_edit_reply(reply)
    assert batch is not None and record is not None
    assert [e.index for e in batch.edits] == [e.index for e in record.edits] == [0, 2, 3]
    assert batch == record.model()
    assert BatchRecord.of(batch).model() == batch
    assert [EditRecord.of(e) for e in batch.edits] == record.edits
