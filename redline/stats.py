"""`redline stats REPORT...`: which mistakes do our models make?  Unapplied edits by error code.

Reads redline reports (``NAME.report.json``), folders of them (a review's output folder), and the
JSON-lines call log of ``redline mcp --log`` (each ``apply_edits`` line lists its edits' codes).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXAMPLES = 3


@dataclass
class Stats:
    reports: int = 0
    edits: int = 0
    unapplied: int = 0
    by_code: Counter[str] = field(default_factory=Counter)
    examples: defaultdict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))

    def add_edit(self, source: str, edit: dict[str, Any]) -> None:
        self.edits += 1
        status = edit.get("status")
        if status in ("applied", "verified"):
            return
        err = edit.get("error") or {}
        code = str(err.get("code") or edit.get("code") or status or "unknown")
        self.unapplied += 1
        self.by_code[code] += 1
        if len(self.examples[code]) < EXAMPLES:
            self.examples[code].append(
                {
                    "source": source,
                    "index": edit.get("index"),
                    "anchor": (edit.get("anchor") or "")[:160],
                    "message": err.get("message") or edit.get("message"),
                }
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "reports": self.reports,
            "edits": self.edits,
            "unapplied": self.unapplied,
            "by_code": dict(self.by_code.most_common()),
            "examples": {k: v for k, v in self.examples.items()},
        }


def _files(paths: list[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(path.glob("*.report.json"))
        else:
            yield path


def collect(paths: list[str]) -> Stats:
    stats = Stats()
    for path in _files(paths):
        text = path.read_text(encoding="utf-8")
        try:
            docs: list[Any] = [json.loads(text)]
        except json.JSONDecodeError:
            docs = [json.loads(line) for line in text.splitlines() if line.strip()]
        for doc in docs:
            if not isinstance(doc, dict):
                continue
            edits = doc.get("edits")
            if isinstance(edits, list):
                stats.reports += 1
                for edit in edits:
                    if isinstance(edit, dict):
                        stats.add_edit(path.name, edit)
            elif doc.get("error_code"):  # a failed tool call with no per-edit results
                stats.reports += 1
                stats.add_edit(path.name, {"status": "refused", "code": doc["error_code"]})
    return stats
