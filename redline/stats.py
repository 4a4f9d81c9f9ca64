"""`redline stats REPORT...`: which mistakes do our models make?  Unapplied edits by error code.

Reads redline reports (``NAME.report.json``), folders of them (a review's output folder), and the
JSON-lines call log of ``redline mcp --log`` (each ``apply_edits`` line lists its edits' codes).

A file that is not such a report -- not a regular file, too large, binary, JSON nested too
deep, a line that is not JSON, fields of the wrong type -- is one entry of :attr:`Stats.errors`
(its code and a sentence), and the other files are still counted: a malformed report never
stops the count.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shared_schema import Code, EditStatus

from .errors import PackageError
from .opc.inputs import MAX_REPORT_BYTES, read_regular

EXAMPLES = 3


@dataclass
class Stats:
    reports: int = 0
    edits: int = 0
    unapplied: int = 0
    by_code: Counter[str] = field(default_factory=Counter)
    examples: defaultdict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    errors: list[dict[str, str]] = field(default_factory=list)
    """One per file that could not be read as reports: ``{"source", "code", "message"}``."""

    def add_edit(self, source: str, edit: dict[str, Any]) -> None:
        self.edits += 1
        status = _text(edit.get("status"))
        if status in (EditStatus.APPLIED, EditStatus.VERIFIED):
            return
        err = edit.get("error")
        err = err if isinstance(err, dict) else {}
        code = _text(err.get("code")) or _text(edit.get("code")) or status or "unknown"
        code = code[:64]
        self.unapplied += 1
        self.by_code[code] += 1
        if len(self.examples[code]) < EXAMPLES:
            index = edit.get("index")
            self.examples[code].append(
                {
                    "source": source,
                    "index": index if isinstance(index, int) and not isinstance(index, bool) else None,
                    "anchor": _text(edit.get("anchor"))[:160],
                    "message": (_text(err.get("message")) or _text(edit.get("message")) or None),
                }
            )

    def add_error(self, source: str, code: Code, message: str) -> None:
        self.errors.append({"source": source, "code": code.value, "message": message})

    def to_json(self) -> dict[str, Any]:
        return {
            "reports": self.reports,
            "edits": self.edits,
            "unapplied": self.unapplied,
            "by_code": dict(self.by_code.most_common()),
            "examples": {k: v for k, v in self.examples.items()},
            "errors": self.errors,
        }


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _files(paths: list[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(path.glob("*.report.json"))
        else:
            yield path


def collect(paths: list[str]) -> Stats:
    """Count every report in ``paths`` (files, folders of ``*.report.json``, call logs)."""
    stats = Stats()
    for path in _files(paths):
        try:
            docs = _documents(path)
        except PackageError as exc:
            stats.add_error(str(path), exc.code, exc.message)
            continue
        for doc in docs:
            _count(stats, path.name, doc)
    return stats


def _documents(path: Path) -> list[Any]:
    """The JSON values of a report file (one) or of a call log (one a line)."""
    data = read_regular(path, MAX_REPORT_BYTES, "report")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _malformed("it is not UTF-8 text (a binary file?)") from None
    try:
        return [json.loads(text)]
    except RecursionError:
        raise _malformed("its JSON is nested too deep") from None
    except ValueError:
        pass
    docs = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            docs.append(json.loads(line))
        except RecursionError:
            raise _malformed(f"line {number} is JSON nested too deep") from None
        except ValueError:
            raise _malformed(f"line {number} is not JSON (neither a report nor a call log)") from None
    return docs


def _malformed(why: str) -> PackageError:
    return PackageError(Code.MALFORMED_REPORT, f"The file is not a redline report: {why}.")


def _count(stats: Stats, source: str, doc: Any) -> None:
    if not isinstance(doc, dict):
        return
    edits = doc.get("edits")
    if isinstance(edits, list):
        stats.reports += 1
        for edit in edits:
            if isinstance(edit, dict):
                stats.add_edit(source, edit)
    elif isinstance(doc.get("error_code"), str) and doc["error_code"]:  # a failed tool call
        stats.reports += 1
        stats.add_edit(source, {"code": doc["error_code"]})
