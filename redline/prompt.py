"""The prompt kit: the instructions a model needs, the schema or tool definitions in each model
API's shape, and the message that feeds refusals back for one retry.

``redline prompt [--for API]`` prints :func:`render`; the programs in ``examples/`` use
:func:`instructions`, :func:`definitions` and :func:`refusal_feedback` directly.  Everything is
built on first use (nothing at import): the schemas come from
:func:`shared_schema.json_schema`, the MCP tools from :func:`redline.tools.tool_definitions`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, get_args

import shared_schema  # its models are built on first use, by the functions that make them
from shared_schema import MEANINGS, Code, EditStatus, ToolStatus, json_schema

if TYPE_CHECKING:
    from shared_schema import Edit, EditBatch

    from .apply import Outcome
    from .report import Report

Api = Literal["json-schema", "openai", "anthropic", "gemini", "mcp"]
APIS: tuple[Api, ...] = get_args(Api)

EDITS_TOOL = "submit_edits"  # the tool an Anthropic (or OpenAI function-calling) model calls
SCHEMA_NAME = "redline_edits"  # OpenAI's json_schema.name

__all__ = [
    "APIS",
    "EDITS_TOOL",
    "SCHEMA_NAME",
    "Api",
    "definitions",
    "instructions",
    "refusal_feedback",
    "render",
    "with_retry",
]

_EDITING = """\
You propose edits to a contract. You are shown the contract's text exactly as the editing
program reads it: one paragraph per line.

How to write each edit:
- `anchor`: the exact text to change, copied character for character from the text you were
  shown -- never paraphrased, re-typed from memory, or "corrected". Quote enough surrounding
  words that the anchor occurs exactly once in the whole document; keep it within one
  paragraph.
- `replacement`: the text that takes the anchor's place. An empty string deletes the anchor.
  To insert words, quote the neighbouring words as the anchor and repeat them in the
  replacement with the new words added.
- `expected_matches`: only for a deliberate replace-all (a defined term renamed everywhere):
  the number of times the anchor occurs. The edit is applied to every occurrence only if the
  document has exactly that many; otherwise it is refused.
- `section`: when the task names a clause, name it as lawyers do ("4.2", "Clause 4.2(b)",
  "Article IV", "Schedule 2, paragraph 1") or by its heading's text. An anchor found outside
  that section is refused. The clause numbers shown before paragraphs are not the document's
  text: an anchor may start with one, and it is left out.
- `rationale`: one sentence on why; the reviewer sees it as a comment beside the change.
- `id`: optional, your own label for the edit, echoed back in the report.
Every entry replaces its anchor (an empty replacement deletes it). To strike a whole clause,
quote its whole text and send an empty replacement: the paragraph goes and the list
renumbers. A line break in a replacement starts a new paragraph (a blank line is the same
single break). To add whole clauses without touching existing text, send
`{"action": "insert_after", "anchor": <words of the paragraph>, "text": <the new paragraphs,
one per line>}` (or "insert_before"); add `"level": 1` for a sub-clause, `-1` for a clause of
the parent's level. Leave the numbers out of `text`: the document numbers new clauses.
To change formatting only, send `{"action": "format", "anchor": <the characters>, "format":
{"bold": true}}` (keys: bold, italic, strike, caps, small_caps: true/false; underline:
true/"double"/false; highlight: a colour such as "yellow", or "none" to remove; style: a
paragraph style's name, such as "Heading 1", for the whole paragraph); give only the keys to
change (null leaves a key as it is). Never mark formatting with ** or _ in a replacement.
To add a table row, send `{"action": "insert_row_after", "anchor": <text of one cell of the
row>, "cells": [<one text per cell, left to right>]}` (or "insert_row_before"); a merged cell
spanning columns takes one text, a line break starts a new paragraph in the cell. To remove
a row, send `{"action": "delete_row", "anchor": <text of one cell of it>}`. Columns cannot be
added or removed; edit cells' text with plain edits.
To move a whole clause (with its sub-clauses) elsewhere, send `{"action": "move_after",
"anchor": <the clause's first words>, "target": "9"}` (or "move_before"; `target` names the
destination clause as the document numbers it, or send `target_anchor` quoting its words): it
is written as one tracked move and automatic numbers follow it. Never delete and re-insert a
clause to move it.

When the text shows the other side's tracked changes and comments inline ({++inserted++}[r12
Name], {--deleted--}[r13 Name], {==passage==}{>>comment<<}[c4 Name]), decide them in the same
reply, one entry each: `{"action": "accept", "revision_id": "12"}` keeps change r12 (an
insertion's text stays, a deletion's text goes), `{"action": "reject", "revision_id": "13"}`
undoes it; `{"action": "accept", "author": "Name"}` decides every change of one author (add
`expected_matches` with their number). A move is decided whole from either side. Reject your
own change to withdraw it; never accept it. `{"action": "comment", "anchor": <passage>,
"text": <your comment>}` comments without changing the text; `{"action": "reply",
"comment_id": "4", "text": ...}` answers comment c4 (reply to a thread's first comment, not to
a reply); `{"action": "resolve", "comment_id": "4"}` marks its thread resolved. Do not edit
text a change you decide covers in the same reply: the later entry is refused.

Send one reply holding all your edits. The edits must not overlap: each is matched against
the document as you read it, not as the other edits of the reply leave it. Merge changes to
the same words into one edit. An empty list of edits means no change is needed.
"""

_RETRY = """\
What comes back: every edit is reported applied or refused. A refused edit carries a
`status` (the reason's code), a `message` saying what went wrong, and a `hint` saying what to
send instead; some also give the `nearest` passage or the `candidates` where the anchor
occurs. Nothing of a refused edit is written; the other edits are still applied.
{statuses}
When you are sent refusals, reply once more with corrected versions of the refused edits
only (never repeat an applied edit): quote the `nearest` passage exactly for not_found, quote
one candidate's longer text (or set expected_matches) for ambiguous, fix or drop `section`
for out_of_scope, merge overlapping edits into one, drop an edit that changes nothing; leave
out an edit you cannot place.
"""

_CHECK = """\
Before you send the reply, check what it would break: where you can run commands, run
`redline check CONTRACT.docx REPLY.json` (the contract and your reply; `--json` for the
findings as JSON). It lists findings, each with its clause, a message and, where one repair is
clear, a `fix` -- an entry ready to add to your edits: terms used but never defined (a term
your new text brings), definitions never used or given twice, defined terms written in lower
case, references to clauses the contract does not have, clauses your edits delete while other
clauses still cite them (reference_to_deleted_clause), typed references that your inserted,
deleted or moved clauses would point at another clause (renumbered_reference), clause numbers
typed out of sequence. Repair every finding your reply causes: add its `fix` to your edits,
or change the edit that causes it (cite the clause's new number, keep a cited clause, use the
defined term), then check again. A finding the contract has without your reply (run `redline
check CONTRACT.docx` alone to see them) is not yours to repair unless the task asks: point it
out in a `comment` entry or a rationale instead.
"""

_MCP = f"""\
With the tools: call read_region first (no section for the outline, then the section you
need), copy anchors from the text it returns, and call apply_edits with those edits and the
`revision` read_region returned. apply_edits changes the document at `path` in place unless
you pass `output`. Use the `revision` and `paragraphs` apply_edits returns for the next edit;
a call refused as `{ToolStatus.STALE}` means the document changed: call read_region again. A call whose
every edit was refused is returned as an error (isError) with status "{ToolStatus.UNAPPLIED}".
Before apply_edits, call check with the same `path`, `edits` and `revision`: it writes nothing
and returns the findings, each with `from_edits` -- true for what your edits would break.
Repair each of those (add its `fix` to your edits, or change the edit) and call check again
until none is left; then call apply_edits. Findings with `from_edits` false are the
document's own: leave them unless the task asks.
"""


def _statuses() -> str:
    lines = []
    for status in EditStatus:
        if status.ok:
            continue
        lines.append(f"- {status.value}: {MEANINGS[Code(status.value)]}")
    return "\n".join(lines)


def instructions(api: Api = "json-schema") -> str:
    """What a model must know to send edits, act on refusals and check its reply before it
    sends it (``redline check``: the system prompt), with the tool workflow -- the ``check``
    tool among it -- when ``api`` is ``"mcp"``."""
    text = _EDITING + "\n" + _RETRY.format(statuses=_statuses()) + "\n" + _CHECK
    if api == "mcp":
        text += "\n" + _MCP
    elif api == "anthropic":
        text += f"\nReply by calling the `{EDITS_TOOL}` tool once, with every edit.\n"
    return text


def definitions(api: Api = "json-schema") -> dict[str, Any]:
    """The schema or tool definitions to pass that API, in its shape:

    ``openai``: the ``response_format`` of Chat Completions (strict ``json_schema``; the
    Responses API takes the inner object's fields as ``text.format`` with ``type``
    ``json_schema``).  ``anthropic``: ``tools`` (one strict tool whose input is the reply) and
    the ``tool_choice`` that makes the model call it.  ``gemini``: the ``generationConfig``
    fields.  ``mcp``: the MCP tools (read_region, apply_edits, check).  ``json-schema``: the
    plain JSON Schema.
    """
    if api == "openai":
        schema = json_schema("edits", "openai")
        strict = {"name": SCHEMA_NAME, "strict": True, "schema": schema}
        return {"response_format": {"type": "json_schema", "json_schema": strict}}
    if api == "anthropic":
        tool = {
            "name": EDITS_TOOL,
            "description": "Submit every proposed edit of the contract, in one call.",
            "input_schema": json_schema("edits", "anthropic"),
            "strict": True,
        }
        return {"tools": [tool], "tool_choice": {"type": "tool", "name": EDITS_TOOL}}
    if api == "gemini":
        return {
            "generationConfig": {
                "responseMimeType": "application/json",
                "responseSchema": json_schema("edits", "gemini"),
            }
        }
    if api == "mcp":
        from .tools.definitions import tool_definitions

        return {"tools": tool_definitions()}
    if api == "json-schema":
        return {"schema": json_schema("edits")}
    raise ValueError(f"unknown API {api!r}; expected one of {', '.join(APIS)}")


def render(api: Api = "json-schema") -> str:
    """What ``redline prompt --for API`` prints: the instructions, then the definitions."""
    shape = {
        "openai": "Pass this as the request's `response_format` (strict structured output):",
        "anthropic": "Pass these as the request's `tools` and `tool_choice` (strict tool input):",
        "gemini": "Pass this as the request's `generationConfig`:",
        "mcp": "The tools (`redline mcp` serves them; tools/list returns the same):",
        "json-schema": "The reply's JSON Schema:",
    }[api]
    body = json.dumps(definitions(api), indent=2, ensure_ascii=False)
    return f"# Instructions for the model\n\n{instructions(api)}\n# Definitions\n\n{shape}\n\n{body}\n"


def refusal_feedback(report: Report) -> str | None:
    """The message that gives a model its refused edits back for one retry (the JSON of each
    refusal: index, id, anchor, status, message, hint, nearest passage, candidates), or None
    when every edit was applied."""
    refused = []
    for edit in report.edits:
        if edit.status.ok or edit.error is None:
            continue
        entry: dict[str, Any] = {
            "index": edit.index,
            "id": edit.id,
            "anchor": edit.anchor,
            "replacement": edit.replacement,
            "status": edit.status.value,
            "message": edit.error.message,
            "hint": edit.error.hint,
        }
        if edit.error.nearest:
            entry["nearest"] = edit.error.nearest
        quotes = [c.unique_quote for c in edit.error.candidates if c.unique_quote]
        if quotes:
            entry["unique_quotes"] = quotes
        refused.append({k: v for k, v in entry.items() if v is not None})
    if not refused:
        return None
    return (
        f"{len(refused)} of your {len(report.edits)} edits were refused; the others stand. "
        "Reply once more with corrected versions of these edits only, in the same format "
        "(never repeat an applied edit; leave out an edit you cannot place):\n"
        + json.dumps(refused, indent=2, ensure_ascii=False)
    )


def with_retry(first: Outcome, retry: str | bytes) -> EditBatch:
    """One batch for the final apply: the edits of the first reply that were placed (applied,
    or verified on a dry run), then every edit of the retry reply -- each matched against the
    original document, so the redlined copy is written once.  The retry's unusable entries are
    kept (reported ``invalid``) after its edits; an unparseable retry adds nothing."""
    from shared_schema import EditBatch, InvalidEntry, parse_edit_reply  # (built on first use)

    if first.batch is None:
        raise ValueError("the first outcome holds no parsed reply (its reply was refused whole)")
    placed = {e.index for e in first.report.edits if e.status.ok}
    edits = [_unplaced(e) for e in first.batch.edits if e.index in placed]
    again = parse_edit_reply(retry)
    if again is None:
        return EditBatch(edits=edits, notes=["the retry reply held no usable edits"])
    edits += [_unplaced(e) for e in again.edits]
    invalid = [
        InvalidEntry(index=len(edits) + i, reason=entry.reason, raw=entry.raw)
        for i, entry in enumerate(again.invalid)
    ]
    return EditBatch(edits=edits, invalid=invalid, notes=[f"retry: {n}" for n in again.notes])


def _unplaced(edit: Edit) -> Edit:
    """The same edit without its place in its reply (the merged batch numbers them anew)."""
    return shared_schema.Edit.model_validate(edit.model_dump())
