"""The shapes a model is asked for, the shapes we report with, and the tolerant reply parser.

Importing ``shared_schema`` is cheap: every name of :data:`__all__` is imported on first use, so a
command that needs only the codes never builds the pydantic models (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# cheap, and imported now: the codes, the schema names and the rules on text (json_schema
# builds nothing at import; imported here, its function `json_schema` is the package's name,
# never shadowed by the module)
from .codes import (
    MEANINGS,
    BatchOutcome,
    CallOutcome,
    ChangeStatus,
    Code,
    EditStatus,
    MatchKind,
    OurOutcome,
    PointStatus,
    QuoteStatus,
    Tolerance,
    ToolStatus,
)
from .json_schema import DIALECTS, SCHEMA_NAMES, Dialect, SchemaName, json_schema
from .rules import BIDI_CONTROLS, bidi_control, xml_unsafe_character

# the pydantic models and the parser: name -> the module that defines it, imported on first access
_EXPORTS: dict[str, str] = {
    "EDITS_RULES": "shared_schema.models",
    "SUMMARY_RULES": "shared_schema.models",
    "CodedError": "shared_schema.models",
    "Edit": "shared_schema.models",
    "EditBatch": "shared_schema.models",
    "EditRequest": "shared_schema.models",
    "EditResult": "shared_schema.models",
    "EditsRequest": "shared_schema.models",
    "FormatSpec": "shared_schema.models",
    "InvalidEntry": "shared_schema.models",
    "Location": "shared_schema.models",
    "QuoteCheck": "shared_schema.models",
    "Refusal": "shared_schema.models",
    "SummaryPoint": "shared_schema.models",
    "SummaryReply": "shared_schema.models",
    "SummaryRequest": "shared_schema.models",
    "ParseLimits": "shared_schema.parse",
    "parse_edit_reply": "shared_schema.parse",
    "parse_summary_reply": "shared_schema.parse",
}

__all__ = [
    "BIDI_CONTROLS",
    "DIALECTS",
    "EDITS_RULES",
    "MEANINGS",
    "SCHEMA_NAMES",
    "SUMMARY_RULES",
    "BatchOutcome",
    "CallOutcome",
    "ChangeStatus",
    "Code",
    "CodedError",
    "Dialect",
    "Edit",
    "EditBatch",
    "EditRequest",
    "EditResult",
    "EditStatus",
    "EditsRequest",
    "FormatSpec",
    "InvalidEntry",
    "Location",
    "MatchKind",
    "OurOutcome",
    "ParseLimits",
    "PointStatus",
    "QuoteCheck",
    "QuoteStatus",
    "Refusal",
    "SchemaName",
    "SummaryPoint",
    "SummaryReply",
    "SummaryRequest",
    "Tolerance",
    "ToolStatus",
    "bidi_control",
    "json_schema",
    "parse_edit_reply",
    "parse_summary_reply",
    "xml_unsafe_character",
]

if TYPE_CHECKING:  # what a type checker sees; at run time __getattr__ imports on first use
    from .models import (
        EDITS_RULES,
        SUMMARY_RULES,
        CodedError,
        Edit,
        EditBatch,
        EditRequest,
        EditResult,
        EditsRequest,
        FormatSpec,
        InvalidEntry,
        Location,
        QuoteCheck,
        Refusal,
        SummaryPoint,
        SummaryReply,
        SummaryRequest,
    )
    from .parse import ParseLimits, parse_edit_reply, parse_summary_reply


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'shared_schema' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
