"""JSON Schema export of the request shapes, for a model API's structured output."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .models import Edit, SummaryPoint

EDITS_RULES = (
    "Propose changes to the contract as a list of edits. Rules: copy each anchor character for "
    "character from the document text you were shown; never paraphrase or re-type it. One edit "
    "per location: quote enough surrounding words that the anchor occurs exactly once. For a "
    "deliberate replace-all, state expected_matches with the number of occurrences. Name the "
    "section when the task names a clause. An empty list means no change is needed."
)
SUMMARY_RULES = (
    "Summarise the contract as points. Every point cites one or more quotes copied verbatim "
    "from the document; a point without a quote is reported as unsupported."
)


class _EditsRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid", title="EditBatch", json_schema_extra={"description": EDITS_RULES}
    )
    edits: list[Edit] = Field(description="The proposed edits; may be empty.")


class _SummaryRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid", title="SummaryReply", json_schema_extra={"description": SUMMARY_RULES}
    )
    summary: str = Field(description="A short overall summary.")
    points: list[SummaryPoint]


SchemaName = Literal["edits", "edit", "summary"]


def json_schema(name: SchemaName) -> dict[str, Any]:
    """The JSON Schema of a request shape: ``"edits"`` (a batch), ``"edit"`` or ``"summary"``."""
    if name == "edits":
        return _EditsRequest.model_json_schema()
    if name == "edit":
        return Edit.model_json_schema()
    if name == "summary":
        return _SummaryRequest.model_json_schema()
    raise ValueError(f"unknown schema {name!r}; expected 'edits', 'edit' or 'summary'")
