"""Clause moves: a ``move_after`` / ``move_before`` entry read as an :class:`~shared_schema.models.Edit`.

The entry quotes the first words of the clause to move (``anchor``) and names where it goes:
``target``, a clause as lawyers cite it, or ``target_anchor``, a quote from the destination
clause's paragraph -- exactly one of the two.  A ``replacement`` or ``text`` has no meaning for a
move: an empty one (or null, as strict structured output sends) is dropped, any other refuses the
entry (dropping it would apply a different edit); ``level`` and ``expected_matches`` are refused
too (a move names one clause, at the level it has).
"""

from __future__ import annotations

from typing import Any

from ..records import EditRecord
from ..rules import MAX_SECTION
from .extract import _kind, _show
from .fields import build_edit, section_and_id, texts_reason

_TAKES = "anchor, target or target_anchor, section, rationale, id"


def read_move(
    action: str,
    fields: dict[str, tuple[str, Any]],
    values: dict[str, Any],
    notes: list[str],
) -> EditRecord | str:
    """A ``move_after`` / ``move_before`` entry, or the reason it cannot be used."""
    shared = section_and_id(values, notes)  # first, so its notes come first
    for name in list(values):
        if name in ("anchor", "target", "target_anchor", "section", "rationale", "id", "action", "kind"):
            continue
        value = values[name]
        if value is None or (name in ("replacement", "text") and value == ""):
            del values[name]  # null (strict structured output) or the "" an edit needs
            continue
        return f"{action} takes {_TAKES}, not {_show(fields[name][0])}: the intent is unknown"
    anchor = values.get("anchor")
    if not isinstance(anchor, str) or not anchor.strip():
        return f"{action} needs an anchor: quote the first words of the clause to move"
    given = [n for n in ("target", "target_anchor") if values.get(n) is not None]
    if len(given) != 1:
        return (
            f"{action} needs exactly one of 'target' (the clause to move it {action[5:]}, as the "
            "document numbers it: '9', 'Clause 12.1') and 'target_anchor' (a quote from that "
            "clause's paragraph)"
        )
    target: str | None = None
    target_anchor: str | None = None
    if given == ["target"]:
        value = values["target"]
        if isinstance(value, int) and not isinstance(value, bool):
            notes.append("converted a numeric target to text")
            value = str(value)
        if not isinstance(value, str):
            return (
                f"the target is {_kind(value)}, not text; give the clause as displayed "
                "(a float cannot tell '4.10' from '4.1')"
            )
        if not value.strip() or len(value) > MAX_SECTION:
            return (
                f"the target is {'empty' if not value.strip() else f'{len(value)} characters long'}; "
                "name the clause by its number or heading ('9', 'Clause 12.1', 'Confidentiality')"
            )
        target = value
    else:
        value = values["target_anchor"]
        if not isinstance(value, str) or not value.strip():
            return "the target_anchor is not text; quote words of the destination clause's paragraph"
        target_anchor = value
    if isinstance(shared, str):
        return shared
    section, ident = shared
    texts = {"anchor": anchor, "target": target, "target_anchor": target_anchor,
             "rationale": values.get("rationale"), "section": section, "id": ident}  # fmt: skip
    reason = texts_reason(texts)
    if reason is not None:
        return reason
    return build_edit(
        anchor=anchor,
        replacement="",
        action=action,
        target=target,
        target_anchor=target_anchor,
        rationale=texts["rationale"],
        section=section,
        id=texts["id"],
    )
