"""The tools' definitions: their names, the descriptions a model reads, their input and output
JSON Schemas (generated from :mod:`shared_schema`), the arguments each takes and its usage line.

What a model is told about the tools, and nothing that runs them (:mod:`redline.tools.session`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from shared_schema import EditResult, ToolStatus, json_schema

__all__ = [
    "APPLY_EDITS",
    "ARGUMENTS",
    "CHECK",
    "MAX_REGION_CHARS",
    "READ_ONLY",
    "READ_REGION",
    "STALE_HINT",
    "TOOL_NAMES",
    "refused_whole",
    "tool_definitions",
    "usage",
]

READ_REGION = "read_region"
APPLY_EDITS = "apply_edits"
CHECK = "check"
TOOL_NAMES = (READ_REGION, APPLY_EDITS, CHECK)
READ_ONLY = frozenset([READ_REGION, CHECK])  # the tools that never change a document

STALE_HINT = (
    "call read_region again, copy your anchors from the text it returns, and pass the revision it returns"
)
MAX_REGION_CHARS = 200_000

_READ_REGION_DESCRIPTION = (
    "Read part of a Word document (.docx) exactly as the edit tools see it. Pass `section` (a "
    "clause as lawyers cite it, such as '4.2', 'Clause 4.2(b)', 'Article IV', 'Schedule 2', or "
    "a heading's text, such as 'Rent') to get that section with its subsections; or "
    "`paragraphs` ('12-20': paragraph indexes, inclusive) to get a range; or neither to get the "
    "outline (every numbered clause and heading with its label, `cite`, title and paragraph "
    "range). Returns `text` (the region as a reader sees it: each paragraph's clause number "
    "before its text, paragraphs separated by a line feed, no line numbers or other gutter), "
    "`paragraphs` (each with its index, label, section, offsets and its own text, the number "
    "beside it) and the document's "
    "`revision`. Rules for editing afterwards: copy anchors from this `text` character for "
    "character, never from memory; pass this `revision` to apply_edits; after apply_edits, "
    "quote the paragraphs it returns (or read the region again), not this older text. When "
    "several sections match `section`, the call is refused with the candidates: ask again "
    "with a candidate's `paragraphs` range or its full heading."
)

_APPLY_EDITS_DESCRIPTION = (
    "Apply proposed changes to a Word document (.docx) as native tracked changes (insertions and "
    "deletions a reviewer can accept or reject). By default the document at `path` is edited in "
    "place (replaced atomically); pass `output` to write the edited copy to another file and "
    "leave `path` as it is. Rules: (1) copy each `anchor` character for "
    "character from the `text` that read_region returned: never paraphrase or re-type it, and "
    "quote enough words that it occurs exactly once; (2) one call may carry several "
    "non-overlapping edits, and each is matched against the document as you read it (not as "
    "the earlier edits of the same call leave it); (3) for a deliberate replace-all, state "
    "`expected_matches` with the number of occurrences; (4) when the task names a clause, set "
    "the edit's `section` to it ('4.2', 'Clause 4.2(b)' or the heading text); an anchor may "
    "begin with the clause number shown before a paragraph: it is left out; (5) pass the `revision` that "
    "read_region (or the previous apply_edits) returned: if the document changed since, the "
    "whole call is refused with status 'stale' and nothing is written; call read_region "
    "again; (6) to decide the other side's redline (read it with read_region's `markup`), "
    "add entries {action: 'accept' or 'reject', revision_id: '12'} (the number of [r12 Name]; "
    "or `author` for every change of one author, `expected_matches` its count), {action: "
    "'comment', anchor, text}, {action: 'reply', comment_id: '4', text} (to a thread's first "
    "comment) and {action: 'resolve', comment_id: '4'}; decisions are not tracked; never "
    "accept your own change (reject it to withdraw it); an edit and a decision on touching "
    "text in one call: the later entry is refused 'overlap'; (7) a tracked formatting change: "
    "{action: 'format', anchor, format: {bold: true}} (keys bold, italic, underline, strike, "
    "caps, small_caps, highlight ('none' removes), style (a paragraph style's name)); (8) a "
    "table row: {action: 'insert_row_after' or 'insert_row_before', anchor: text of one cell "
    "of the row, cells: one text per cell} or {action: 'delete_row', anchor}, tracked; columns "
    "are refused; (9) to move a clause with its sub-clauses: {action: 'move_after' or "
    "'move_before', anchor: its first words, target: '9' (the destination clause as numbered; "
    "or target_anchor: a quote of it)}, one tracked move. Edits the document cannot take are "
    "reported one by one with a code (not_found, "
    "ambiguous, count_mismatch, out_of_scope, overlap, no_change, invalid ...), a message and "
    "a hint, while the others are still applied. Returns every edit's result, for applied "
    "edits the post-edit `paragraphs` they touched, and the new `revision` to use next. A call "
    "whose every edit was refused writes nothing and comes back as an error (isError) with "
    "`status` 'unapplied': correct the edits from their hints and call again."
)


_CHECK_DESCRIPTION = (
    "Proofread a Word document (.docx), and what your edits would break, before you send "
    "them: defined terms (undefined_term, unused_definition, duplicate_definition, "
    "lowercase_defined_term), cross-references (dangling_reference, broken_field_reference) "
    "and typed clause numbers (numbering_gap); with `edits` (the entries you mean to send to "
    "apply_edits, in the same shape) also reference_to_deleted_clause (a clause your edits "
    "delete is still cited), renumbered_reference (a typed reference your inserts, deletions "
    "or moves would point at another clause) and any finding your new text brings (a term it "
    "uses that nothing defines). Nothing is written. Returns `findings`, each with `kind`, "
    "`message`, `paragraph` (read_region's index), `label`, `section`, `text` (the words "
    "concerned), `related` places and `fix` (an entry to add to your edits, or null), and "
    "`totals` by kind; with `edits`, each finding's `from_edits` says whether your edits cause "
    "it (true: repair it before apply_edits, by adding its `fix` or changing the edit) or the "
    "document already has it (false: leave it unless the task asks). Pass `revision` (from "
    "read_region) to be refused 'stale' if the document changed since you read it."
)


def _edit_item_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    """``json_schema("edit")`` as an array item, with any ``$defs`` split off for the root."""
    schema = json.loads(json.dumps(json_schema("edit")))  # a private deep copy
    defs = schema.pop("$defs", {})
    return schema, defs


def tool_definitions() -> list[dict[str, Any]]:
    """The three tools as MCP-style definitions: ``name``, ``description``, ``inputSchema``,
    ``outputSchema``.

    The ``edits`` items (of ``apply_edits`` and ``check``) are the shared
    :class:`shared_schema.Edit` schema, unchanged.
    """
    path_schema = {
        "type": "string",
        "description": "The .docx file, relative to the server's root folder (or an absolute "
        "path inside it).",
    }
    read_region = {
        "name": READ_REGION,
        "description": _READ_REGION_DESCRIPTION,
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": path_schema,
                "section": {
                    "type": "string",
                    "description": "A clause number as displayed ('4.2', '7', '(a)') or a "
                    "heading's text ('Operating Expenses'). Omit for the outline.",
                },
                "paragraphs": {
                    "type": "string",
                    "pattern": r"^\s*\d+\s*(-\s*\d+\s*)?$",
                    "description": "Paragraph indexes 'FIRST-LAST' (inclusive), e.g. '12-20', "
                    "or one index '12'. Ranges are listed by the outline.",
                },
                "markup": {
                    "type": "boolean",
                    "description": "Show the region's tracked changes and comments inline, each "
                    "with its id and author ({++inserted++}[r12 Name], {--deleted--}[r13 Name], "
                    "{==passage==}{>>comment<<}[c4 Name]); the text then starts with a line on "
                    "how to read it, and `revisions` and `comments` list them. Quote anchors "
                    "without the marks: the text outside them is the document as accepted.",
                },
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    }
    item, defs = _edit_item_schema()
    apply_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": path_schema,
            "edits": {
                "type": "array",
                "items": item,
                "description": "The changes, each matched against the document as read "
                "(not one after another); they must not overlap.",
            },
            "revision": {
                "type": "string",
                "description": "The `revision` returned by the read_region call (or the last "
                "apply_edits call) whose text you quoted.",
            },
            "output": {
                "type": "string",
                "description": "Write the edited document to this file (inside the root) "
                "instead of changing `path` in place.",
            },
            "author": {
                "type": "string",
                "description": "The author name recorded on the tracked changes.",
            },
        },
        "required": ["path", "edits", "revision"],
        "additionalProperties": False,
    }
    if defs:
        apply_schema["$defs"] = defs
    apply_edits = {
        "name": APPLY_EDITS,
        "description": _APPLY_EDITS_DESCRIPTION,
        "inputSchema": apply_schema,
    }
    check_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": path_schema,
            "edits": {
                "type": "array",
                "items": item,
                "description": "The edits you mean to send to apply_edits (optional): the "
                "document is checked as they would leave it, accepted, as well.",
            },
            "revision": {
                "type": "string",
                "description": "The `revision` read_region returned (optional): the call is "
                "refused 'stale' when the document has changed since.",
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    }
    if defs:
        check_schema["$defs"] = defs
    check = {"name": CHECK, "description": _CHECK_DESCRIPTION, "inputSchema": check_schema}
    read_region["outputSchema"], apply_edits["outputSchema"], check["outputSchema"] = _output_schemas()
    return [read_region, apply_edits, check]


def refused_whole(result: Mapping[str, Any]) -> bool:
    """Whether a tool result did nothing: the call was refused (``error``), or it proposed
    edits and every one was refused (``status`` ``unapplied``).  The MCP server flags such a
    result ``isError`` -- the field every MCP client shows the model and an agent loop checks
    first -- so a loop that reads only that flag still notices a call that changed nothing."""
    return "error" in result or result.get("status") == ToolStatus.UNAPPLIED


_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Set when the call was refused whole: a code of the catalogue, a message, a hint.",
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}, "hint": {"type": "string"}},
    "required": ["code", "message"],
}
_PARAGRAPH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "index": {"type": "integer"},
        "label": {"type": ["string", "null"]},
        "section": {"type": ["string", "null"]},
        "story": {"type": "string"},
        "start": {"type": "integer"},
        "end": {"type": "integer"},
        "text": {"type": "string"},
    },
    "required": ["index", "start", "end", "text"],
}

_PLACE_PROPERTIES: dict[str, Any] = {
    "paragraph": {"type": "integer", "description": "The paragraph's index (read_region's)."},
    "label": {"type": ["string", "null"], "description": "Its clause number, as displayed."},
    "section": {"type": ["string", "null"]},
    "text": {"type": "string", "description": "The words concerned."},
}
_FINDING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string"},
        "message": {"type": "string"},
        **_PLACE_PROPERTIES,
        "related": {
            "type": "array",
            "items": {"type": "object", "properties": _PLACE_PROPERTIES},
            "description": "The other places concerned (a first definition, the citing clauses).",
        },
        "fix": {
            "type": ["object", "null"],
            "description": "An entry that repairs the finding: add it to your edits; null when "
            "no one repair is clear.",
        },
        "from_edits": {
            "type": "boolean",
            "description": "With `edits`: whether your edits cause the finding.",
        },
    },
    "required": ["kind", "message", "paragraph", "text", "related", "fix"],
}


def _output_schemas() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The tools' ``outputSchema``: what a result holds when the call ran, or ``error`` when it
    was refused whole (either is an object; further fields may be added, never removed)."""
    failed = {"required": ["error"]}
    read_region = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "revision": {"type": "string", "description": "Pass it to apply_edits."},
            "region": {"type": "object"},
            "text": {"type": "string", "description": "The region's exact text, to quote anchors from."},
            "paragraphs": {"type": "array", "items": _PARAGRAPH_SCHEMA},
            "outline": {"type": "array", "items": {"type": "object"}},
            "stories": {"type": "array", "items": {"type": "object"}},
            "revisions": {
                "type": "array",
                "items": {"type": "object"},
                "description": "With `markup`: the region's tracked changes "
                "(id, kind, author, date, text, paragraph).",
            },
            "comments": {
                "type": "array",
                "items": {"type": "object"},
                "description": "With `markup`: the region's comments "
                "(id, author, date, text, quote, parent, resolved).",
            },
            "error": _ERROR_SCHEMA,
        },
        "anyOf": [{"required": ["path", "revision", "region"]}, failed],
    }
    entry = json.loads(json.dumps(EditResult.model_json_schema()))
    defs = entry.pop("$defs", {})
    entry.pop("additionalProperties", None)
    entry["properties"]["paragraphs"] = {
        "type": "array",
        "items": _PARAGRAPH_SCHEMA,
        "description": "For an applied edit: the paragraphs it touched, as they read now.",
    }
    apply_edits = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "output": {"type": ["string", "null"]},
            "status": {
                "enum": [str(status) for status in ToolStatus],
                "description": "applied: every edit; partial: some; unapplied: none (the "
                "result is flagged isError); stale: the call was refused whole.",
            },
            "written": {"type": "boolean"},
            "edits": {"type": "array", "items": entry},
            "totals": {"type": "object"},
            "reply": {"type": "object"},
            "revision": {"type": "string", "description": "The revision to quote next."},
            "previous_revision": {"type": "string"},
            "error": _ERROR_SCHEMA,
        },
        "anyOf": [{"required": ["status", "edits"]}, failed],
        "$defs": defs,
    }
    check = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "document": {"type": "string"},
            "revision": {"type": "string", "description": "The revision checked."},
            "findings": {"type": "array", "items": _FINDING_SCHEMA},
            "totals": {
                "type": "object",
                "additionalProperties": {"type": "integer"},
                "description": "The findings counted by kind (every kind, zeros included).",
            },
            "reply": {
                "type": "object",
                "description": "With `edits`: the notes on reading them, and the entries that "
                "could not be read (left out of the check).",
            },
            "error": _ERROR_SCHEMA,
        },
        "anyOf": [{"required": ["path", "revision", "findings", "totals"]}, failed],
    }
    return read_region, apply_edits, check


#: The arguments each tool takes.
ARGUMENTS: dict[str, frozenset[str]] = {
    READ_REGION: frozenset(["path", "section", "paragraphs", "markup"]),
    APPLY_EDITS: frozenset(["path", "edits", "revision", "output", "author"]),
    CHECK: frozenset(["path", "edits", "revision"]),
}


def usage(name: str) -> str:
    """The one-line usage of the tool ``name``, the hint of a refused argument."""
    if name == READ_REGION:
        return (
            "read_region takes `path` and optionally one of `section` ('4.2' or a heading) or "
            "`paragraphs` ('12-20'), and `markup` (true: tracked changes and comments inline)."
        )
    if name == CHECK:
        return (
            "check takes `path` and optionally `edits` (the list of {anchor, replacement, ...} "
            "you mean to send to apply_edits) and `revision` (from read_region)."
        )
    return (
        "apply_edits takes `path`, `edits` (a list of {anchor, replacement, ...}), `revision` "
        "(from read_region), and optionally `output` and `author`."
    )
