"""The shapes a model is asked for, the shapes we report with, and the tolerant reply parser."""

from .codes import MEANINGS, Code, EditStatus, MatchKind, QuoteStatus, Tolerance
from .json_schema import json_schema
from .models import (
    CodedError,
    Edit,
    EditBatch,
    EditResult,
    InvalidEntry,
    Location,
    QuoteCheck,
    Refusal,
    SummaryPoint,
    SummaryReply,
    xml_unsafe_character,
)
from .parse import ParseLimits, parse_edit_reply, parse_summary_reply

__all__ = [
    "MEANINGS",
    "Code",
    "CodedError",
    "Edit",
    "EditBatch",
    "EditResult",
    "EditStatus",
    "InvalidEntry",
    "Location",
    "MatchKind",
    "ParseLimits",
    "QuoteCheck",
    "QuoteStatus",
    "Refusal",
    "SummaryPoint",
    "SummaryReply",
    "Tolerance",
    "json_schema",
    "parse_edit_reply",
    "parse_summary_reply",
    "xml_unsafe_character",
]
