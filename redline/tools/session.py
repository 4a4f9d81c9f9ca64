"""The tools a model calls to edit a document: ``read_region`` and ``apply_edits``.

Plain Python, no MCP: :mod:`redline.tools.mcp_server` serves these same tools over MCP, and an agent
that does not speak MCP calls :meth:`DocumentTools.handle` directly::

    tools = DocumentTools(Path("contracts"), log=Path("calls.jsonl"))
    region = tools.handle("read_region", {"path": "lease.docx", "section": "4.2"})
    result = tools.handle("apply_edits", {
        "path": "lease.docx",
        "revision": region["revision"],
        "edits": [{"anchor": "<copied from region['text']>", "replacement": "..."}],
    })

What the tools design out:

* **Stale quotes.** Every ``read_region`` returns the document's ``revision``; ``apply_edits``
  requires it and refuses the whole call (status ``stale``, nothing written) when the document
  has changed since. A successful call returns the new revision and the post-edit text of the
  paragraphs it touched, so the caller's latest view is always current.
* **Re-typed anchors.** The region text is the view's exact text, with no line-number gutter
  to strip; anchors are located by the same locator and writer as ``redline apply``.
* **Lost updates.** Calls on one document (keyed by its resolved real path) run one after
  another under a per-document lock, and under an ``fcntl.flock`` on a lock file outside the
  user's folder so that two processes cannot interleave; ``apply_edits`` reads, checks the
  revision, applies and writes all under the lock. Calls on different documents run in
  parallel.
* **Escaping paths.** Only files whose resolved real path (symlinks resolved) lies under the
  root are opened or written; anything else is refused with ``outside_root``.

Every result is a JSON-ready dict; a refusal carries ``error: {code, message, hint}``. Every
call is appended to the log (when one is set) as one JSON line that ``redline stats`` groups by
error code.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shared_schema import (
    Code,
    Edit,
    EditBatch,
    EditResult,
    EditStatus,
    Refusal,
    json_schema,
    parse_edit_reply,
)

from ..apply import ApplyOptions, apply_batch
from ..opc.files import write_atomic
from ..opc.package import Package, PackageError
from ..read.annotations import read_annotations
from ..read.load import load_view
from ..read.markup import render as render_markup
from ..read.sections import Head
from ..read.view import DocumentView, Paragraph
from ..report import invalid_results
from ..write.arguments import ArgumentError, check_author
from .locks import LOCK_TIMEOUT, LockError, Locks

__all__ = [
    "APPLY_EDITS",
    "READ_REGION",
    "TOOL_NAMES",
    "DocumentTools",
    "ToolError",
    "arguments_digest",
    "refused_whole",
    "tool_definitions",
]

READ_REGION = "read_region"
APPLY_EDITS = "apply_edits"
TOOL_NAMES = (READ_REGION, APPLY_EDITS)

STALE_HINT = (
    "call read_region again, copy your anchors from the text it returns, and pass the revision it returns"
)
MAX_REGION_CHARS = 200_000
_LOG_ANCHOR_CHARS = 200

# ---------------------------------------------------------------------------------------------
# Tool definitions (names, descriptions, JSON Schemas), generated from shared_schema

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
    "text in one call: the later entry is refused 'overlap'. Edits the document cannot take "
    "are reported one by one with a code (not_found, "
    "ambiguous, count_mismatch, out_of_scope, overlap, no_change, invalid ...), a message and "
    "a hint, while the others are still applied. Returns every edit's result, for applied "
    "edits the post-edit `paragraphs` they touched, and the new `revision` to use next. A call "
    "whose every edit was refused writes nothing and comes back as an error (isError) with "
    "`status` 'unapplied': correct the edits from their hints and call again."
)


def _edit_item_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    """``json_schema("edit")`` as an array item, with any ``$defs`` split off for the root."""
    schema = json.loads(json.dumps(json_schema("edit")))  # a private deep copy
    defs = schema.pop("$defs", {})
    return schema, defs


def tool_definitions() -> list[dict[str, Any]]:
    """The two tools as MCP-style definitions: ``name``, ``description``, ``inputSchema``.

    The ``edits`` items are the shared :class:`shared_schema.Edit` schema, unchanged.
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
    read_region["outputSchema"], apply_edits["outputSchema"] = _output_schemas()
    return [read_region, apply_edits]


def refused_whole(result: Mapping[str, Any]) -> bool:
    """Whether a tool result did nothing: the call was refused (``error``), or it proposed
    edits and every one was refused (``status`` ``unapplied``).  The MCP server flags such a
    result ``isError`` -- the field every MCP client shows the model and an agent loop checks
    first -- so a loop that reads only that flag still notices a call that changed nothing."""
    return "error" in result or result.get("status") == "unapplied"


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


def _output_schemas() -> tuple[dict[str, Any], dict[str, Any]]:
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
                "enum": ["applied", "partial", "unapplied", "stale"],
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
    return read_region, apply_edits


_ARGUMENTS: dict[str, frozenset[str]] = {
    READ_REGION: frozenset(["path", "section", "paragraphs", "markup"]),
    APPLY_EDITS: frozenset(["path", "edits", "revision", "output", "author"]),
}


# ---------------------------------------------------------------------------------------------
# Refusals


class ToolError(Exception):
    """A refusal of the whole call: becomes ``{"error": {"code", "message", "hint", ...}}``.

    Raised (not returned) because the checks that refuse a call sit deep in its handling (an
    argument, a path, a lock, a section); :meth:`DocumentTools.handle` turns it into the
    result. ``extra`` holds what a :class:`Refusal` has no field for (outline candidates)."""

    def __init__(self, code: Code, message: str, hint: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.extra = extra

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "hint": self.hint, **self.extra}


_PACKAGE_HINT = (
    "The file could not be read as a Word document; check that `path` names a .docx file "
    "(not a .doc, a PDF or an encrypted file)."
)
_BUG_HINT = "This is a bug in redline, not in your call; report it."


def _document_refused(refusal: Refusal) -> ToolError:
    """The call refused because the document (or its output) was: the refusal, with a hint."""
    hint = "Check that the folder exists and is writable." if refusal.code == Code.IO_ERROR else _PACKAGE_HINT
    return ToolError(refusal.code, refusal.message, hint)


def call_error(exc: Exception) -> tuple[dict[str, Any], str | None]:
    """What a call that raised ``exc`` returns as its ``error``, and the traceback to log when
    ``exc`` is a bug of ours -- the tools' one boundary (:meth:`DocumentTools.handle`).

    A refusal (:class:`ToolError`, a refused document) keeps its code. A foreign failure maps
    to a code: the operating system's (``OSError``) to ``io_error``; a codec's (``UnicodeError``:
    an argument holding text no file name can carry, such as a lone surrogate) to
    ``invalid_arguments``. Anything else is ``internal_error``, never a code about the
    caller's document.
    """
    if isinstance(exc, ToolError):
        return exc.to_dict(), None
    if isinstance(exc, LockError):  # busy, or lock_failed
        return ToolError(exc.code, exc.message, exc.hint).to_dict(), None
    if isinstance(exc, PackageError):
        return _document_refused(Refusal.from_error(exc)).to_dict(), None
    if isinstance(exc, OSError):
        where = f" on {_show(str(exc.filename))}" if exc.filename is not None else ""
        error = ToolError(
            Code.IO_ERROR,
            f"A file could not be read or written{where}: {exc.strerror or exc}.",
            "Check that the path and its folder exist and are accessible, then try again.",
        )
        return error.to_dict(), None
    if isinstance(exc, UnicodeError):
        error = ToolError(
            Code.INVALID_ARGUMENTS,
            f"An argument holds text that cannot be used ({type(exc).__name__}: {exc}).",
            "Pass paths and texts as plain Unicode text, without lone surrogates.",
        )
        return error.to_dict(), None
    internal = {
        "code": Code.INTERNAL_ERROR,
        "message": f"The tool failed unexpectedly ({type(exc).__name__}: {exc}).",
        "hint": _BUG_HINT,
    }
    return internal, "".join(traceback.format_exception(exc))


def arguments_digest(arguments: Any) -> str:
    """``sha256:`` of the arguments as canonical JSON (sorted keys, no spaces)."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


# ---------------------------------------------------------------------------------------------
# Locks


# ---------------------------------------------------------------------------------------------
# Paragraph data


def _paragraph_dict(view: DocumentView, p: Paragraph) -> dict[str, Any]:
    return {
        "index": p.index,
        "label": p.label,
        "section": p.section,
        "story": p.story,
        "start": p.start,
        "end": p.end,
        "text": view.paragraph_text(p),
    }


def _range(first: int, last: int) -> str:
    return f"{first}-{last}"


def _head_dict(view: DocumentView, head: Head) -> dict[str, Any]:
    """One outline entry: a heading or numbered clause and the paragraphs it governs."""
    return {
        "label": view.paragraphs[head.index].label,
        "cite": head.cite,
        "title": head.title,
        "level": head.depth,
        "paragraphs": _range(head.index, head.last),
        "within": None if head.parent is None else head.parent.title,
    }


def _stories(view: DocumentView) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in view.paragraphs:
        if out and out[-1]["story"] == p.story and out[-1]["part"] == p.part:
            out[-1]["last"] = p.index
        else:
            out.append({"story": p.story, "part": p.part, "first": p.index, "last": p.index})
    return [
        {"story": s["story"], "part": s["part"], "paragraphs": _range(s["first"], s["last"])} for s in out
    ]


_RANGE = re.compile(r"^\s*(\d+)\s*(?:(?:-|–|—|\.\.|:|to)\s*(\d+)\s*)?$")


def _parse_range(value: Any, count: int) -> tuple[int, int]:
    hint = (
        f"The document's paragraphs are 0-{count - 1}: pass paragraphs as 'FIRST-LAST' "
        f"(inclusive), e.g. '{min(12, count - 1)}-{min(20, count - 1)}'; call read_region "
        "without arguments for the outline and its ranges."
    )
    first: int | None = None
    last: int | None = None
    if isinstance(value, bool):
        pass
    elif isinstance(value, int):
        first = last = value
    elif isinstance(value, str):
        m = _RANGE.match(value)
        if m:
            first = int(m.group(1))
            last = int(m.group(2)) if m.group(2) is not None else first
    elif (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        first, last = int(value[0]), int(value[1])
    if first is None or last is None:
        raise ToolError(Code.INVALID_RANGE, f"{_show(value)} is not a paragraph range.", hint)
    if count == 0:
        raise ToolError(Code.INVALID_RANGE, "The document has no paragraphs.", "Check the path.")
    if first > last or first < 0 or last >= count:
        raise ToolError(
            Code.INVALID_RANGE,
            f"The range {first}-{last} is not within the document's paragraphs 0-{count - 1}"
            + (" (the first index is after the last)." if first > last else "."),
            hint,
        )
    return first, last


def _show(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------------------------------------
# The tools


class DocumentTools:
    """``read_region`` and ``apply_edits`` on the .docx files under ``root``.

    Thread-safe: one instance serves concurrent calls (the MCP server runs each call in a worker
    thread). ``log`` receives one JSON line per call. ``lock_dir`` holds the cross-process lock
    files (default: a private folder of this user's, :func:`redline.tools.locks.private_lock_dir`),
    never the user's folder; a call that cannot have its document's locks within
    ``lock_timeout`` seconds is refused ``busy``.
    """

    def __init__(
        self,
        root: Path | str,
        log: Path | str | None = None,
        *,
        author: str = "redline",
        lock_dir: Path | str | None = None,
        max_region_chars: int = MAX_REGION_CHARS,
        lock_timeout: float = LOCK_TIMEOUT,
    ) -> None:
        real = Path(os.path.realpath(root))
        if not real.is_dir():
            raise ValueError(f"the root {str(root)!r} is not a folder")
        self.root = real
        self.log = Path(log) if log is not None else None
        self.author = author
        self.max_region_chars = max_region_chars
        self._locks = Locks(Path(lock_dir) if lock_dir is not None else None, lock_timeout)
        self._log_lock = threading.Lock()

    # -- public API ----------------------------------------------------------------------------

    def handle(self, name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Run the tool ``name`` with ``arguments`` (a JSON object) and return its JSON result.

        Never raises: an unknown tool, arguments of the wrong shape, a path outside the root, an
        unreadable document or an unexpected failure all come back as a result holding
        ``error: {"code", "message", "hint"}``. Every call is logged.

        ``read_region`` -- ``{"path", "section"?, "paragraphs"?}`` returns ``{"path",
        "revision", "region", "text", "paragraphs"}`` (or, with neither ``section`` nor
        ``paragraphs``, ``{"path", "revision", "region", "outline", "stories"}``).

        ``apply_edits`` -- ``{"path", "edits", "revision", "output"?, "author"?}`` returns
        ``{"path", "output", "status", "written", "edits", "totals", "reply", "revision",
        "previous_revision"}``; ``status`` is ``applied`` (every edit), ``partial``,
        ``unapplied`` (none) or ``stale`` (the whole call refused: nothing written).
        """
        if name == READ_REGION:
            return self._run(name, arguments, self._read_region)
        if name == APPLY_EDITS:
            return self._run(name, arguments, self._apply_edits)
        return self._run(name, arguments, None)

    def read_region(
        self, path: str, section: str | None = None, paragraphs: str | None = None, markup: bool = False
    ) -> dict[str, Any]:
        """The exact text of a section, a paragraph range, or the outline (see :meth:`handle`);
        ``markup``: with the region's tracked changes and comments inline."""
        arguments: dict[str, Any] = {"path": path}
        if markup:
            arguments["markup"] = True
        if section is not None:
            arguments["section"] = section
        if paragraphs is not None:
            arguments["paragraphs"] = paragraphs
        return self.handle(READ_REGION, arguments)

    def apply_edits(
        self,
        path: str,
        edits: Sequence[Mapping[str, Any] | Edit] | str,
        revision: str,
        output: str | None = None,
        author: str | None = None,
    ) -> dict[str, Any]:
        """Apply ``edits`` read at ``revision`` as tracked changes (see :meth:`handle`)."""
        arguments: dict[str, Any] = {
            "path": path,
            "edits": edits
            if isinstance(edits, str)
            else [e.model_dump(exclude_none=True) if isinstance(e, Edit) else e for e in edits],
            "revision": revision,
        }
        if output is not None:
            arguments["output"] = output
        if author is not None:
            arguments["author"] = author
        return self.handle(APPLY_EDITS, arguments)

    def lock_path(self, path: str) -> Path:
        """The lock file that every process holds (``flock``) while it uses the document at
        ``path``: another program can take it to keep the tools off the document meanwhile.
        Raises :class:`ToolError` (``outside_root``) for a path outside the root."""
        return self._locks.lock_file(str(self._resolve(path, "path")))

    # -- the call wrapper ------------------------------------------------------------------------

    def _run(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        impl: Callable[[dict[str, Any]], dict[str, Any]] | None,
    ) -> dict[str, Any]:
        started = time.perf_counter()
        args: dict[str, Any] = {}
        try:
            if impl is None:
                raise ToolError(
                    Code.UNKNOWN_TOOL,
                    f"There is no tool named {_show(name)}.",
                    f"The tools are {', '.join(TOOL_NAMES)}.",
                )
            if arguments is None:
                arguments = {}
            if not isinstance(arguments, Mapping):
                raise ToolError(
                    Code.INVALID_ARGUMENTS,
                    f"The arguments must be a JSON object, not {_show(arguments)}.",
                    _usage(name),
                )
            args = dict(arguments)
            unknown = sorted(set(args) - _ARGUMENTS[name])
            if unknown:
                raise ToolError(
                    Code.INVALID_ARGUMENTS,
                    f"{name} has no argument {', '.join(repr(k) for k in unknown)}.",
                    _usage(name),
                )
            result = impl(args)
        except Exception as exc:  # never let a tool call raise
            error, trace = call_error(exc)
            result = {"tool": name, "error": error}
            if trace is not None:
                print(f"redline: {name} failed (internal_error):\n{trace}", file=sys.stderr, end="")
        else:
            trace = None
        self._log_call(name, arguments, args, result, time.perf_counter() - started, trace)
        return result

    # -- paths ---------------------------------------------------------------------------------

    def _resolve(self, raw: Any, what: str) -> Path:
        if not isinstance(raw, str) or not raw.strip():
            raise ToolError(
                Code.INVALID_ARGUMENTS,
                f"`{what}` must be a non-empty string naming a file, not {_show(raw)}.",
                "Pass the document's path relative to the root folder, e.g. 'lease.docx'.",
            )
        if "\x00" in raw:
            raise ToolError(
                Code.INVALID_ARGUMENTS, f"`{what}` contains a NUL character.", "Pass a plain path."
            )
        candidate = Path(raw)  # no ~ expansion: paths are relative to the root
        if not candidate.is_absolute():
            candidate = self.root / candidate
        real = Path(os.path.realpath(candidate))
        if not real.is_relative_to(self.root):
            raise ToolError(
                Code.OUTSIDE_ROOT,
                f"{_show(raw)} is outside the folder this server may open.",
                "Only files under the server's root folder can be read or written; pass a path "
                "relative to it, without '..' and not through a link that leads out of it.",
            )
        return real

    def _document(self, raw: Any) -> Path:
        real = self._resolve(raw, "path")
        try:
            exists, is_file = real.exists(), real.is_file()
        except OSError:  # a name too long, a loop of links...
            exists = is_file = False
        if not exists:
            raise ToolError(
                Code.NOT_FOUND_FILE,
                f"There is no file {_show(raw)} under the root folder.",
                "Check the file name; paths are relative to the server's root folder.",
            )
        if not is_file:
            raise ToolError(
                Code.NOT_A_FILE,
                f"{_show(raw)} is not a file.",
                "Pass the path of a .docx file.",
            )
        return real

    def _relative(self, real: Path) -> str:
        return real.relative_to(self.root).as_posix()

    @staticmethod
    def _load(real: Path) -> tuple[Package, DocumentView]:
        loaded = load_view(real)
        if isinstance(loaded, Refusal):
            raise _document_refused(loaded)
        return loaded

    # -- read_region ---------------------------------------------------------------------------

    def _read_region(self, args: dict[str, Any]) -> dict[str, Any]:
        real = self._document(args.get("path"))
        section = args.get("section")
        span = args.get("paragraphs")
        if section is not None and (not isinstance(section, str | int) or isinstance(section, bool)):
            raise ToolError(
                Code.INVALID_ARGUMENTS,
                f"`section` must be a string such as '4.2', not {_show(section)}.",
                _usage(READ_REGION),
            )
        if isinstance(section, str) and not section.strip():
            section = None
        if section is not None and span is not None:
            raise ToolError(
                Code.INVALID_ARGUMENTS,
                "Pass either `section` or `paragraphs`, not both.",
                _usage(READ_REGION),
            )
        markup = args.get("markup", False)
        if not isinstance(markup, bool):
            raise ToolError(
                Code.INVALID_ARGUMENTS,
                f"`markup` must be true or false, not {_show(markup)}.",
                _usage(READ_REGION),
            )
        with self._locks.hold([str(real)], exclusive=False):
            package, view = self._load(real)
        out: dict[str, Any] = {"path": self._relative(real), "revision": view.revision}
        if section is not None:
            head = self._section(view, str(section))
            first, last = head.index, head.last
            region: dict[str, Any] = {
                "kind": "section",
                "label": view.paragraphs[first].label,
                "cite": head.cite,
                "title": head.title,
                "paragraphs": _range(first, last),
            }
        elif span is not None:
            first, last = _parse_range(span, len(view.paragraphs))
            region = {"kind": "paragraphs", "paragraphs": _range(first, last)}
        else:
            out["region"] = {"kind": "outline", "paragraph_count": len(view.paragraphs)}
            out["outline"] = [_head_dict(view, h) for h in view.outline.heads]
            out["stories"] = _stories(view)
            return out
        paras = view.paragraphs[first : last + 1]
        annotations = None
        if markup:
            annotations = read_annotations(package, view)
            text = render_markup(view, annotations, first, last)
        else:
            text = view.labelled(first, last)
        if len(text) > self.max_region_chars:
            raise ToolError(
                Code.REGION_TOO_LARGE,
                f"The region has {len(text)} characters, over the limit of {self.max_region_chars}.",
                "Read a smaller paragraph range, or a subsection; the outline (read_region "
                "without arguments) lists the ranges.",
            )
        region["start"] = paras[0].start
        region["end"] = paras[-1].end
        out["region"] = region
        out["text"] = text
        out["paragraphs"] = [_paragraph_dict(view, p) for p in paras]
        if annotations is not None:
            lo, hi = paras[0].start, paras[-1].end
            out["revisions"] = [
                r.to_dict()
                for r in annotations.revisions
                if r.paragraph is not None and first <= r.paragraph <= last
            ]
            out["comments"] = [
                c.to_dict() for c in annotations.comments if c.paragraph is not None and lo <= c.start <= hi
            ]
        return out

    @staticmethod
    def _section(view: DocumentView, name: str) -> Head:
        found = view.outline.named(name)
        if not found:
            key = " ".join(name.casefold().split())
            near = [_head_dict(view, h) for h in view.outline.heads if key and key in h.title.casefold()][:20]
            raise ToolError(
                Code.SECTION_NOT_FOUND,
                f"No section is numbered or headed {_show(name)}.",
                "Pass a clause as the document numbers it ('4.2', 'Clause 4.2(b)', 'Article IV', "
                "'Schedule 2') or a heading's text; call read_region without `section` for the "
                "outline, which lists every section's `cite`.",
                candidates=near,
            )
        if len(found) > 1:
            raise ToolError(
                Code.AMBIGUOUS_SECTION,
                f"{len(found)} sections match {_show(name)}: "
                + ", ".join(f"\u201c{h.title}\u201d" for h in found[:5])
                + ".",
                "Call read_region again with one candidate's `paragraphs` range, or name it in "
                "full (its container too: 'Schedule 2, paragraph 1').",
                candidates=[_head_dict(view, h) for h in found],
            )
        return found[0]

    # -- apply_edits ---------------------------------------------------------------------------

    def _apply_edits(self, args: dict[str, Any]) -> dict[str, Any]:
        real = self._document(args.get("path"))
        revision = args.get("revision")
        if not isinstance(revision, str) or not revision.strip():
            raise ToolError(
                Code.MISSING_REVISION if revision is None else Code.INVALID_ARGUMENTS,
                "`revision` is required: the revision returned by the read_region call whose "
                "text you quoted.",
                "Call read_region first, copy anchors from its text, and pass its revision.",
            )
        output_arg = args.get("output")
        out_real = real if output_arg is None else self._resolve(output_arg, "output")
        if out_real != real:
            if out_real.is_dir():
                raise ToolError(Code.NOT_A_FILE, f"{_show(output_arg)} is a folder.", "Name a .docx file.")
            if not out_real.name.lower().endswith(".docx"):
                raise ToolError(
                    Code.OUTPUT_NOT_DOCUMENT,
                    f"The output {_show(output_arg)} is not a .docx file name.",
                    "Name the output NAME.docx, a new file or a document under the root.",
                )
            if not out_real.parent.is_dir():
                raise ToolError(
                    Code.NOT_FOUND_FOLDER,
                    f"The folder of {_show(output_arg)} does not exist.",
                    "Write into an existing folder under the root.",
                )
        author = args.get("author")
        if author is not None:
            try:
                author = check_author(author)
            except ArgumentError as exc:
                raise ToolError(
                    Code.INVALID_ARGUMENTS, f"`author`: {exc.message}.", _usage(APPLY_EDITS)
                ) from None
        batch = _parse_edits(args.get("edits"))
        with self._locks.hold([str(real), str(out_real)], exclusive=True):
            package, view = self._load(real)
            if out_real != real:
                _check_overwrite(out_real, output_arg)
            base: dict[str, Any] = {
                "path": self._relative(real),
                "output": self._relative(out_real) if out_real != real else None,
            }
            if revision.strip() != view.revision:
                return {**base, **_stale(batch, revision)}
            options = ApplyOptions(author=(author or self.author).strip())
            outcome = apply_batch(package, view, batch, options, real.name, out_real.name)
            report = outcome.report
            if report.error is not None:
                raise ToolError(
                    report.error.code,
                    report.error.message,
                    report.error.hint or _PACKAGE_HINT,
                )
            applied = [e for e in report.edits if e.status.ok]
            new_view = view
            if applied and outcome.output is not None:
                assert outcome.reloaded is not None  # read back by the loader before publishing
                try:
                    write_atomic(out_real, outcome.output)
                except PackageError as exc:
                    raise _document_refused(Refusal.from_error(exc)) from None
                new_view = outcome.reloaded[1]
        # the writer numbers the paragraphs each edit touched as the written document's view does
        after = outcome.written.touched_paragraphs if outcome.written is not None else {}
        entries = []
        for e in report.edits:
            entry = e.model_dump(mode="json")
            if e.status.ok:
                entry["paragraphs"] = [
                    _paragraph_dict(new_view, new_view.paragraphs[i]) for i in after.get(e.index, [])
                ]
            entries.append(entry)
        total = report.totals
        status = "applied" if total.unapplied == 0 else ("partial" if total.applied else "unapplied")
        return {
            **base,
            "status": status,
            "written": bool(applied),
            "edits": entries,
            "totals": total.model_dump(mode="json"),
            "reply": {
                "notes": report.reply.notes,
                "invalid": [i.model_dump(mode="json", exclude={"raw"}) for i in report.reply.invalid],
            },
            "revision": new_view.revision,
            "previous_revision": view.revision,
        }

    # -- the log -------------------------------------------------------------------------------

    def _log_call(
        self,
        tool: str,
        arguments: Any,
        args: dict[str, Any],
        result: dict[str, Any],
        seconds: float,
        trace: str | None = None,
    ) -> None:
        if self.log is None:
            return
        error = result.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        path = args.get("path")
        entry: dict[str, Any] = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "tool": tool,
            "path": result.get("path") or (path[:500] if isinstance(path, str) else None),
            "arguments_digest": arguments_digest(arguments),
            "outcome": "refused" if code else result.get("status", "ok"),
            "error_code": code,
            "duration_ms": round(seconds * 1000, 1),
        }
        if trace is not None:  # a bug of ours: what the maintainers need to fix it
            entry["traceback"] = trace
        if tool == APPLY_EDITS and result.get("edits") and isinstance(result["edits"], list):
            if result.get("revision"):
                entry["revision"] = result["revision"]
            entry["edits"] = [
                {
                    "index": e.get("index"),
                    "status": e.get("status"),
                    "error": (
                        {"code": e["error"].get("code"), "message": e["error"].get("message")}
                        if e.get("error")
                        else None
                    ),
                    "anchor": (e.get("anchor") or "")[:_LOG_ANCHOR_CHARS],
                }
                for e in result["edits"]
            ]
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        data = line.encode("utf-8", "backslashreplace")
        try:
            with self._log_lock:
                fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    os.write(fd, data)
                finally:
                    os.close(fd)
        except OSError as exc:  # the log must never break a call
            print(f"redline: cannot write the call log {self.log}: {exc}", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# apply_edits helpers


def _usage(name: str) -> str:
    if name == READ_REGION:
        return (
            "read_region takes `path` and optionally one of `section` ('4.2' or a heading) or "
            "`paragraphs` ('12-20'), and `markup` (true: tracked changes and comments inline)."
        )
    return (
        "apply_edits takes `path`, `edits` (a list of {anchor, replacement, ...}), `revision` "
        "(from read_region), and optionally `output` and `author`."
    )


def _check_overwrite(out_real: Path, output_arg: Any) -> None:
    """An existing output is overwritten only when it is a document the tools would open
    (``output_not_document`` otherwise): never a file that is not one."""
    try:
        info = os.lstat(out_real)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ToolError(
            Code.OUTPUT_NOT_DOCUMENT,
            f"The output {_show(output_arg)} cannot be checked: {exc.strerror or exc}.",
            "Name a new .docx file under the root.",
        ) from None
    refusal = None
    if stat.S_ISREG(info.st_mode):
        loaded = load_view(out_real)
        refusal = loaded if isinstance(loaded, Refusal) else None
    if not stat.S_ISREG(info.st_mode) or refusal is not None:
        why = f" ({refusal.message.rstrip('.')} [{refusal.code}])" if refusal is not None else ""
        raise ToolError(
            Code.OUTPUT_NOT_DOCUMENT,
            f"The output {_show(output_arg)} exists and is not a document the tools would open{why}; "
            "it is left as it is.",
            "Name a new .docx file, or an existing document, under the root.",
        )


def _parse_edits(edits: Any) -> EditBatch:
    """The edits through the tolerant reply parser (legacy field names coerced)."""
    if isinstance(edits, str):
        text = edits  # a model that sent its edits as a JSON string
    elif isinstance(edits, list | tuple):
        items = [e.model_dump(exclude_none=True) if isinstance(e, Edit) else e for e in edits]
        text = json.dumps({"edits": items}, default=str)
    elif isinstance(edits, dict):
        text = json.dumps(edits, default=str)  # a single edit, or a container of them
    else:
        text = ""
    batch = parse_edit_reply(text) if text else None
    if batch is None:
        raise ToolError(
            Code.INVALID_EDITS,
            f"`edits` holds no usable list of edits: {_show(edits)}.",
            "Pass `edits` as a list of objects, each with 'anchor' (copied from read_region's "
            "text) and 'replacement'.",
        )
    return batch


def _stale(batch: EditBatch, revision: str) -> dict[str, Any]:
    """The whole call refused: every edit reported ``stale``; nothing is written."""
    message = (
        f"You quoted revision {revision.strip()[:80]}, but the document has changed since you "
        "read it, so your anchors may no longer match what it says. Nothing was written."
    )
    results = [
        EditResult(
            index=edit.index if edit.index is not None else i,
            id=edit.id,
            anchor=edit.anchor,
            replacement=edit.replacement,
            status=EditStatus.STALE,
            error=Refusal(code=Code.STALE, message=message, hint=STALE_HINT),
        )
        for i, edit in enumerate(batch.edits)
    ]
    results = sorted([*results, *invalid_results(batch)], key=lambda r: r.index)
    return {
        "status": "stale",
        "written": False,
        "error": {"code": Code.STALE, "message": message, "hint": STALE_HINT},
        "edits": [r.model_dump(mode="json") for r in results],
    }
