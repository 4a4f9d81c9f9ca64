"""The shapes a model is asked for, the shapes we report with, and the tolerant reply parser."""

from .codes import MEANINGS, Code, EditStatus, MatchKind, QuoteStatus, Tolerance
from .json_schema import json_schema
from .models import (
    BIDI_CONTROLS,
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
    bidi_control,
    xml_unsafe_character,
)
from .parse import ParseLimits, parse_edit_reply, parse_summary_reply

__all__ = [
    "BIDI_CONTROLS",
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
    "bidi_control",
    "json_schema",
    "parse_edit_reply",
    "parse_summary_reply",
    "xml_unsafe_character",
]
