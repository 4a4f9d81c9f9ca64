"""Table-row entries: ``insert_row_after`` / ``insert_row_before`` (a new row, ``cells`` one text
per cell, beside the row holding ``anchor``) and ``delete_row`` (the row holding ``anchor``);
and the column actions, read only to be refused ``unsupported`` with the reason.

:func:`read_row` is called by :mod:`shared_schema.parse.edits` with the helpers every entry
shares there (its section and id, ``expected_matches``, a validation error as a reason).
"""

from __future__ import annotations

from typing import Any

from ..records import EditRecord
from ..rules import COLUMN_ACTIONS
from .extract import _kind, _unsafe_reason
from .fields import build_edit, expected_matches, section_and_id, texts_reason

__all__ = ["MAX_CELLS", "read_row"]

MAX_CELLS = 1_000
"""The most cells one new row may have: Word's tables have at most 63 columns."""

_TAKES = {
    "insert_row_after": ("anchor", "cells", "section", "expected_matches"),
    "insert_row_before": ("anchor", "cells", "section", "expected_matches"),
    "delete_row": ("anchor", "section", "expected_matches"),
    "insert_row": ("anchor", "cells", "section", "expected_matches"),
    "insert_column": ("anchor", "cells", "text", "section", "expected_matches"),
    "delete_column": ("anchor", "section", "expected_matches"),
}


def read_row(
    action: str,
    values: dict[str, Any],
    notes: list[str],
) -> EditRecord | str:
    """A row entry as an :class:`Edit`, or the reason it cannot be used."""
    if action == "insert_row":
        return (
            "insert_row names no side: send 'insert_row_after' or 'insert_row_before' (the new "
            "row goes after / before the row holding the anchor)"
        )
    kept = {"rationale", "id", "action", "kind", *_TAKES[action]}
    for name in list(values):
        if name in kept:
            continue
        if values[name] is None or (name == "replacement" and values[name] == ""):
            del values[name]  # null (strict structured output) or the "" an edit needs
            continue
        if name == "replacement" and action == "delete_row":
            return "delete_row takes no replacement: it deletes the whole row holding the anchor"
        if name in ("replacement", "text") and action != "delete_row":
            return f"{action} takes the new row's text in 'cells' (one string per cell), not {name!r}"
        return f"{action} takes no {name!r}"
    anchor = values.get("anchor")
    if not isinstance(anchor, str) or not anchor.strip():
        return f"{action} needs an anchor: quote text from a cell of the row"
    cells: list[str] | None = None
    if action in ("insert_row_after", "insert_row_before"):
        raw = values.get("cells")
        if isinstance(raw, str):
            return (
                f"the cells are one string; give {action}'s new row as a list, one string per cell "
                '(["Gold", "99.9%"])'
            )
        if not isinstance(raw, list) or not raw:
            return f"{action} needs the new row's text in 'cells': a list, one string per cell"
        if len(raw) > MAX_CELLS:
            return f"the cells are {len(raw):,}; a row has at most {MAX_CELLS:,} cells"
        cells = []
        for n, cell in enumerate(raw):
            if isinstance(cell, int | float) and not isinstance(cell, bool):
                notes.append("converted a numeric cell to text")
                cell = str(cell)
            elif cell is None:
                notes.append("read a null cell as an empty cell")
                cell = ""
            if not isinstance(cell, str):
                return f"cell {n + 1} is {_kind(cell)}, not text"
            reason = _unsafe_reason(f"cell {n + 1}", cell)
            if reason is not None:
                return reason
            cells.append(cell)
    expected = expected_matches(values.get("expected_matches"), notes)
    if isinstance(expected, str):
        return expected
    shared = section_and_id(values, notes)
    if isinstance(shared, str):
        return shared
    section, ident = shared
    rationale = values.get("rationale")
    if not isinstance(rationale, str | None):
        notes.append("dropped a rationale that was not text")
        rationale = None
    texts = {"anchor": anchor, "rationale": rationale, "section": section, "id": ident}
    reason = texts_reason(texts)
    if reason is not None:
        return reason
    if action in COLUMN_ACTIONS:
        cells = None  # refused when verified, with the reason (nothing of it is written)
    return build_edit(
        anchor=anchor,
        replacement="",
        action=action,
        cells=cells,
        expected_matches=expected,
        rationale=rationale,
        section=section,
        id=ident,
    )
