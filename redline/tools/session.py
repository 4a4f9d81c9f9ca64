"""The tools a model calls to edit a document: ``read_region``, ``apply_edits`` and ``check``.

Plain Python, no MCP: :mod:`redline.tools.mcp_server` serves these same tools over MCP, and an agent
that does not speak MCP calls :meth:`DocumentTools.handle` directly::

    tools = DocumentTools(Path("contracts"), log=Path("calls.jsonl"))
    region = tools.handle("read_region", {"path": "lease.docx", "section": "4.2"})
    edits = [{"anchor": "<copied from region['text']>", "replacement": "..."}]
    # what the edits would break (findings marked from_edits), nothing written
    checked = tools.handle("check", {"path": "lease.docx", "edits": edits, "revision": region["revision"]})
    result = tools.handle("apply_edits", {
        "path": "lease.docx",
        "revision": region["revision"],
        "edits": edits,
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
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shared_schema import (
    CallOutcome,
    Code,
    Edit,
    EditBatch,
    EditResult,
    EditStatus,
    Refusal,
    ToolStatus,
    parse_edit_reply,
)

from ..apply import ApplyOptions, apply_batch
from ..opc.files import write_atomic
from ..opc.package import Package, PackageError
from ..proofread.check import Checked, check_parts, sort_findings
from ..read.annotations import read_annotations
from ..read.headings import sections_named
from ..read.load import load_view
from ..read.markup import render as render_markup
from ..read.outline import Head
from ..read.shapes import outline_entry, paragraph_range, region_paragraph, story_ranges
from ..read.view import DocumentView
from ..report import invalid_results
from ..write.arguments import ArgumentError, check_author
from .definitions import (
    APPLY_EDITS,
    ARGUMENTS,
    CHECK,
    MAX_REGION_CHARS,
    READ_REGION,
    STALE_HINT,
    TOOL_NAMES,
    usage,
)
from .errors import PACKAGE_HINT, ToolError, call_error, document_refused, show
from .locks import LOCK_TIMEOUT
from .sandbox import Sandbox, check_overwrite

__all__ = ["DocumentTools", "arguments_digest"]

_LOG_ANCHOR_CHARS = 200


def arguments_digest(arguments: Any) -> str:
    """``sha256:`` of the arguments as canonical JSON (sorted keys, no spaces)."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


# ---------------------------------------------------------------------------------------------
# Paragraph data


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
        raise ToolError(Code.INVALID_RANGE, f"{show(value)} is not a paragraph range.", hint)
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


# ---------------------------------------------------------------------------------------------
# The tools


class DocumentTools:
    """``read_region``, ``apply_edits`` and ``check`` on the .docx files under ``root``.

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
        self.sandbox = Sandbox(root, Path(lock_dir) if lock_dir is not None else None, lock_timeout)
        self.root = self.sandbox.root
        self.log = Path(log) if log is not None else None
        self.author = author
        self.max_region_chars = max_region_chars
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

        ``check`` -- ``{"path", "edits"?, "revision"?}`` returns ``{"path", "document",
        "revision", "findings", "totals"}`` (``redline check --json``'s, with ``path``); with
        ``edits``, the document is also checked as the edits would leave it, each finding says
        ``from_edits``, and ``reply`` holds the notes and unreadable entries of the edits.
        Nothing is written; a ``revision`` that is not the document's is refused ``stale``.
        """
        if name == READ_REGION:
            return self._run(name, arguments, self._read_region)
        if name == APPLY_EDITS:
            return self._run(name, arguments, self._apply_edits)
        if name == CHECK:
            return self._run(name, arguments, self._check)
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

    def check(
        self,
        path: str,
        edits: Sequence[Mapping[str, Any] | Edit] | str | None = None,
        revision: str | None = None,
    ) -> dict[str, Any]:
        """The findings of the document at ``path`` and of what ``edits`` would break (see
        :meth:`handle`)."""
        arguments: dict[str, Any] = {"path": path}
        if edits is not None:
            arguments["edits"] = (
                edits
                if isinstance(edits, str)
                else [e.model_dump(exclude_none=True) if isinstance(e, Edit) else e for e in edits]
            )
        if revision is not None:
            arguments["revision"] = revision
        return self.handle(CHECK, arguments)

    def lock_path(self, path: str) -> Path:
        """The lock file that every process holds (``flock``) while it uses the document at
        ``path``: another program can take it to keep the tools off the document meanwhile.
        Raises :class:`ToolError` (``outside_root``) for a path outside the root."""
        return self.sandbox.lock_file(path)

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
                    f"There is no tool named {show(name)}.",
                    f"The tools are {', '.join(TOOL_NAMES)}.",
                )
            if arguments is None:
                arguments = {}
            if not isinstance(arguments, Mapping):
                raise ToolError(
                    Code.INVALID_ARGUMENTS,
                    f"The arguments must be a JSON object, not {show(arguments)}.",
                    usage(name),
                )
            args = dict(arguments)
            unknown = sorted(set(args) - ARGUMENTS[name])
            if unknown:
                raise ToolError(
                    Code.INVALID_ARGUMENTS,
                    f"{name} has no argument {', '.join(repr(k) for k in unknown)}.",
                    usage(name),
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

    @staticmethod
    def _load(real: Path) -> tuple[Package, DocumentView]:
        loaded = load_view(real)
        if isinstance(loaded, Refusal):
            raise document_refused(loaded)
        return loaded

    # -- read_region ---------------------------------------------------------------------------

    def _read_region(self, args: dict[str, Any]) -> dict[str, Any]:
        real = self.sandbox.document(args.get("path"))
        section = args.get("section")
        span = args.get("paragraphs")
        if section is not None and (not isinstance(section, str | int) or isinstance(section, bool)):
            raise ToolError(
                Code.INVALID_ARGUMENTS,
                f"`section` must be a string such as '4.2', not {show(section)}.",
                usage(READ_REGION),
            )
        if isinstance(section, str) and not section.strip():
            section = None
        if section is not None and span is not None:
            raise ToolError(
                Code.INVALID_ARGUMENTS,
                "Pass either `section` or `paragraphs`, not both.",
                usage(READ_REGION),
            )
        markup = args.get("markup", False)
        if not isinstance(markup, bool):
            raise ToolError(
                Code.INVALID_ARGUMENTS,
                f"`markup` must be true or false, not {show(markup)}.",
                usage(READ_REGION),
            )
        with self.sandbox.hold([str(real)], exclusive=False):
            package, view = self._load(real)
        out: dict[str, Any] = {"path": self.sandbox.relative(real), "revision": view.revision}
        if section is not None:
            head = self._section(view, str(section))
            first, last = head.index, head.last
            region: dict[str, Any] = {
                "kind": "section",
                "label": view.paragraphs[first].label,
                "cite": head.cite,
                "title": head.title,
                "paragraphs": paragraph_range(first, last),
            }
        elif span is not None:
            first, last = _parse_range(span, len(view.paragraphs))
            region = {"kind": "paragraphs", "paragraphs": paragraph_range(first, last)}
        else:
            out["region"] = {"kind": "outline", "paragraph_count": len(view.paragraphs)}
            out["outline"] = [outline_entry(view, h) for h in view.outline.heads]
            out["stories"] = story_ranges(view)
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
        out["paragraphs"] = [region_paragraph(view, p) for p in paras]
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
        found = sections_named(view, name)
        if not found:
            key = " ".join(name.casefold().split())
            heads = view.outline.heads
            near = [outline_entry(view, h) for h in heads if key and key in h.title.casefold()][:20]
            raise ToolError(
                Code.SECTION_NOT_FOUND,
                f"No section is numbered or headed {show(name)}.",
                "Pass a clause as the document numbers it ('4.2', 'Clause 4.2(b)', 'Article IV', "
                "'Schedule 2') or a heading's text; call read_region without `section` for the "
                "outline, which lists every section's `cite`.",
                candidates=near,
            )
        if len(found) > 1:
            cites = [(h, view.outline.unique_cite(h, avoid=name)) for h in found[:5]]
            each = "; ".join(f"\u201c{c}\u201d for paragraph {h.index}" for h, c in cites if c is not None)
            raise ToolError(
                Code.AMBIGUOUS_SECTION,
                f"{len(found)} sections match {show(name)}: "
                + ", ".join(f"\u201c{h.title}\u201d" for h in found[:5])
                + ".",
                (f"Name one by a citation that names it alone: {each}; or call" if each else "Call")
                + " read_region again with one candidate's `paragraphs` range.",
                candidates=[outline_entry(view, h) for h in found],
            )
        return found[0]

    # -- apply_edits ---------------------------------------------------------------------------

    def _apply_edits(self, args: dict[str, Any]) -> dict[str, Any]:
        real = self.sandbox.document(args.get("path"))
        revision = args.get("revision")
        if not isinstance(revision, str) or not revision.strip():
            raise ToolError(
                Code.MISSING_REVISION if revision is None else Code.INVALID_ARGUMENTS,
                "`revision` is required: the revision returned by the read_region call whose "
                "text you quoted.",
                "Call read_region first, copy anchors from its text, and pass its revision.",
            )
        output_arg = args.get("output")
        out_real = self.sandbox.output(output_arg, real)
        author = args.get("author")
        if author is not None:
            try:
                author = check_author(author)
            except ArgumentError as exc:
                raise ToolError(
                    Code.INVALID_ARGUMENTS, f"`author`: {exc.message}.", usage(APPLY_EDITS)
                ) from None
        batch = _parse_edits(args.get("edits"))
        with self.sandbox.hold([str(real), str(out_real)], exclusive=True):
            package, view = self._load(real)
            if out_real != real:
                check_overwrite(out_real, output_arg)
            base: dict[str, Any] = {
                "path": self.sandbox.relative(real),
                "output": self.sandbox.relative(out_real) if out_real != real else None,
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
                    report.error.hint or PACKAGE_HINT,
                )
            applied = [e for e in report.edits if e.status.ok]
            new_view = view
            if applied and outcome.output is not None:
                assert outcome.reloaded is not None  # read back by the loader before publishing
                try:
                    write_atomic(out_real, outcome.output)
                except PackageError as exc:
                    raise document_refused(Refusal.from_error(exc)) from None
                new_view = outcome.reloaded[1]
        # the writer numbers the paragraphs each edit touched as the written document's view does
        after = outcome.written.touched_paragraphs if outcome.written is not None else {}
        entries = []
        for e in report.edits:
            entry = e.model_dump(mode="json")
            if e.status.ok:
                entry["paragraphs"] = [
                    region_paragraph(new_view, new_view.paragraphs[i]) for i in after.get(e.index, [])
                ]
            entries.append(entry)
        total = report.totals
        if total.unapplied == 0:
            status = ToolStatus.APPLIED
        else:
            status = ToolStatus.PARTIAL if total.applied else ToolStatus.UNAPPLIED
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

    # -- check -------------------------------------------------------------------------------

    def _check(self, args: dict[str, Any]) -> dict[str, Any]:
        real = self.sandbox.document(args.get("path"))
        revision = args.get("revision")
        if revision is not None and (not isinstance(revision, str) or not revision.strip()):
            raise ToolError(
                Code.INVALID_ARGUMENTS,
                f"`revision` must be the revision read_region returned, not {show(revision)}.",
                usage(CHECK),
            )
        edits = args.get("edits")
        batch = _parse_edits(edits) if edits is not None else None
        with self.sandbox.hold([str(real)], exclusive=False):
            data = real.read_bytes()
        loaded = load_view(data)
        if isinstance(loaded, Refusal):
            raise document_refused(loaded)
        package, view = loaded
        if revision is not None and revision.strip() != view.revision:
            raise ToolError(
                Code.STALE,
                f"You quoted revision {revision.strip()[:80]}, but the document has changed since "
                "you read it: your edits may no longer match what it says. Nothing was checked.",
                STALE_HINT,
            )
        own, caused = check_parts(view, batch, package=package, document=data)
        findings = sort_findings(own + caused)
        out: dict[str, Any] = {"path": self.sandbox.relative(real)}
        out.update(Checked(real.name, view.revision, findings).to_json())
        if batch is not None:
            mine = {id(f) for f in caused}
            for entry, finding in zip(out["findings"], findings, strict=True):
                entry["from_edits"] = id(finding) in mine
            out["reply"] = {
                "notes": batch.notes,
                "invalid": [i.model_dump(mode="json", exclude={"raw"}) for i in batch.invalid],
            }
        return out

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
            "outcome": CallOutcome.REFUSED if code else result.get("status", CallOutcome.OK),
            "error_code": code,
            "duration_ms": round(seconds * 1000, 1),
        }
        if trace is not None:  # a bug of ours: what the maintainers need to fix it
            entry["traceback"] = trace
        if tool == CHECK and isinstance(result.get("totals"), dict):
            entry["revision"] = result.get("revision")
            entry["findings"] = {k: n for k, n in result["totals"].items() if n}
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
            f"`edits` holds no usable list of edits: {show(edits)}.",
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
        "status": ToolStatus.STALE,
        "written": False,
        "error": {"code": Code.STALE, "message": message, "hint": STALE_HINT},
        "edits": [r.model_dump(mode="json") for r in results],
    }
