"""Edit entries: a found JSON value read as an :class:`~shared_schema.models.EditBatch`.

The container (a list, ``{"edits": [...]}``, a single entry), each entry's fields through the
alias tables, the action it names, its section and id, and every refusal of an entry that
cannot be read safely.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from ..records import BatchRecord, EditRecord, InvalidRecord
from ..rules import xml_unsafe_character
from .aliases import (
    _ACTION_WORDS,
    _DELETE_ACTIONS,
    _EDIT_CONTAINERS,
    _EDIT_FIELDS,
    _FORMAT_ACTIONS,
    _INSERT_ACTIONS,
    _MEANING_CHANGING,
    _OTHER_ACTIONS,
    _REPLACE_ACTIONS,
    _REVISION_KEYS,
    _ROW_ACTIONS,
    _norm,
)
from .extract import (
    ParseLimits,
    _duplicates,
    _ignored,
    _kind,
    _raw,
    _Reading,
    _Refused,
    _show,
    _Tally,
)
from .fields import build_edit, expected_matches, section_and_id, texts_reason
from .formats import read_format_entry
from .moves import read_move
from .rows import read_row

T = TypeVar("T")


def _is_edit(value: Any) -> bool:
    return isinstance(value, dict) and (
        any(_EDIT_FIELDS.get(_norm(k)) in ("anchor", "replacement") for k in value)
        or _other_action(value) is not None
    )


def _other_action(entry: dict[str, Any]) -> str | None:
    """The action (accept, reject, comment, reply, resolve) an entry names, or None."""
    for key, value in entry.items():
        if _EDIT_FIELDS.get(_norm(key)) == "action" and isinstance(value, str):
            found = _OTHER_ACTIONS.get(value.strip().lower().replace("-", "_").replace(" ", "_"))
            if found is not None:
                return found
    return None


def _read_edits(value: Any) -> _Reading | None:
    if isinstance(value, list):
        if not value:
            return _Reading(1, [], ["read a bare empty list as no edits"])
        if any(_is_edit(item) for item in value):
            return _Reading(3, value, ["read a bare list of edits"])
        return None
    if not isinstance(value, dict):
        return None
    container = _edit_container(value)
    if container is not None:
        return container
    if _is_edit(value):
        notes = ["read a single edit object as a batch of one"]
        revision_keys = [k for k in value if _norm(k) in _REVISION_KEYS]
        if _other_action(value) is not None:  # its revision_id names a tracked change
            revision_keys = [k for k in revision_keys if _EDIT_FIELDS.get(_norm(k)) != "revision_id"]
        revision = _revision(value, revision_keys, notes)
        entry = value
        if revision_keys:
            entry = {k: v for k, v in value.items() if k not in revision_keys}
        return _Reading(2, [entry], notes, revision)
    for key, inner in value.items():
        reading = _edit_container(inner) if isinstance(inner, dict) else None
        if reading is None and isinstance(inner, list) and any(_is_edit(x) for x in inner):
            reading = _Reading(3, inner)
        if reading is not None:
            reading.notes.insert(0, f"took the edits from inside {_show(key)}")
            return reading
    return None


def _edit_container(obj: dict[str, Any]) -> _Reading | None:
    keys = [k for k in obj if _norm(k) in _EDIT_CONTAINERS]
    if not keys:
        return None
    if any(_norm(k) in _EDIT_CONTAINERS for k in _duplicates(obj)):
        raise _Refused("duplicated list of edits")
    lists = [k for k in keys if isinstance(obj[k], list | dict) or obj[k] is None]
    if not lists:
        return None
    filled = [k for k in lists if obj[k]]
    if len(filled) > 1:
        raise _Refused("two different lists of edits")
    key = (filled or lists)[0]
    notes: list[str] = []
    if key != "edits":
        notes.append(f"read the edits from {_show(key)}")
    held = obj[key]
    if held is None:
        entries: list[Any] = []
        notes.append(f"read {_show(key)}: null as no edits")
    elif isinstance(held, dict):
        entries = [held]
        notes.append(f"read a single edit object under {_show(key)} as a list of one")
    else:
        entries = held
    revision_keys = [k for k in obj if _norm(k) in _REVISION_KEYS]
    revision = _revision(obj, revision_keys, notes)
    ignored = [_show(k) for k in obj if k not in keys and k not in revision_keys]
    if ignored:
        notes.append(_ignored(ignored))
    return _Reading(3 if entries else 1, entries, notes, revision)


def _revision(obj: dict[str, Any], keys: list[str], notes: list[str]) -> str | None:
    if len(keys) != 1 or keys[0] in _duplicates(obj):
        if keys:
            notes.append("ignored the revision: the reply gives it more than once")
        return None
    value = obj[keys[0]]
    if isinstance(value, int) and not isinstance(value, bool):
        notes.append("converted the numeric revision to text")
        value = str(value)
    if isinstance(value, str) and xml_unsafe_character(value) is None:
        if keys[0] != "revision":
            notes.append(f"renamed field {_show(keys[0])} to 'revision'")
        return value
    if value is not None:
        notes.append(f"ignored the revision: it is {_kind(value)} that cannot be used")
    return None


def _entries(
    reading: _Reading,
    tally: _Tally,
    limit: int,
    beyond: Callable[[int], str],
    read: Callable[[Any, list[str]], T | str],
) -> tuple[list[tuple[int, T]], list[InvalidRecord]]:
    """Every entry of ``reading`` read with ``read`` (which returns the shape, or the reason
    it cannot), with its position in the reply; entries past ``limit`` and unusable ones
    become invalid entries, with why."""
    kept: list[tuple[int, T]] = []
    invalid: list[InvalidRecord] = []
    for index, entry in enumerate(reading.entries):
        if index >= limit:
            invalid.append(InvalidRecord(index, beyond(index)))
            continue
        notes: list[str] = []
        result = read(entry, notes)
        if isinstance(result, str):
            invalid.append(InvalidRecord(index, result, _raw(entry)))
        else:
            kept.append((index, result))
            tally.count(notes)
    return kept, invalid


def _edit_batch(reading: _Reading, tally: _Tally, limits: ParseLimits) -> BatchRecord:
    edits, invalid = _entries(
        reading,
        tally,
        limits.max_edits,
        lambda i: (
            f"edit {i} is beyond the limit of {limits.max_edits} edits per reply; send it in another batch"
        ),
        _read_edit,
    )
    for index, edit in edits:
        edit.index = index
    # (the entries are checked, one by one, above: their models are made as validation would)
    return BatchRecord([edit for _, edit in edits], invalid, tally.render(), reading.extra)


def _read_edit(entry: Any, notes: list[str]) -> EditRecord | str:
    """An Edit from one entry of the reply, or the reason it cannot be used."""
    if not isinstance(entry, dict):
        return f"the entry is {_kind(entry)}, not an object with 'anchor' and 'replacement'"
    if _duplicates(entry):
        return f"duplicate key {_show(_duplicates(entry)[0])}: the model's intent is unknown"
    fields: dict[str, tuple[str, Any]] = {}
    for key, value in entry.items():
        name = _EDIT_FIELDS.get(_norm(key))
        if name is None:
            if _norm(key) in _MEANING_CHANGING:
                return (
                    f"field {_show(key)} asks for something an edit cannot do (an edit "
                    "replaces its anchor); dropping it would apply a different edit"
                )
            notes.append(f"dropped unknown field {_show(key)}")
            continue
        if name in fields:
            other, seen = fields[name]
            if seen != value or type(seen) is not type(value):
                return f"{_show(other)} and {_show(key)} differ: the model's intent is unknown"
        else:
            fields[name] = (key, value)
        if key != name and name not in ("action", "kind"):
            notes.append(f"renamed field {_show(key)} to {name!r}")
    values = {name: value for name, (_, value) in fields.items()}

    action = _action(fields, notes)
    if action in ("insert_after", "insert_before"):
        return _read_insert(action, fields, values, notes)
    if action == "format":
        return read_format_entry(entry, values, notes)
    if action is not None and action in _ROW_ACTIONS.values():
        return read_row(action, values, notes)
    if action in ("move_after", "move_before"):
        return read_move(action, fields, values, notes)
    if action is not None and action in _OTHER_ACTIONS.values():
        return _read_other(action, fields, values, notes)
    if action is not None and action not in ("delete", "replace"):
        return action
    if isinstance(values.get("format"), dict) and any(v is not None for v in values["format"].values()):
        return (
            "a plain edit takes no 'format' (it would be dropped): send the text change and the "
            "formatting (action 'format') as two entries"
        )
    if values.pop("format", None) is not None:
        notes.append(f"dropped field {_show(fields['format'][0])} (only a format entry takes it)")
    for extra in ("text", "level", "revision_id", "author", "comment_id", "cells"):
        if extra in fields and values[extra] is None:
            del values[extra]  # null, as strict structured output sends every unused field
        elif extra in fields:
            takes = "an insert action" if extra in ("text", "level") else "another action"
            notes.append(f"dropped field {_show(fields[extra][0])} (only {takes} takes it)")
            del values[extra]
    if any(values.get(name) is not None for name in ("target", "target_anchor")):
        return "'target' belongs to a move ('move_after' / 'move_before'), not an edit: the intent is unknown"
    anchor = values.get("anchor")
    if "anchor" not in values:
        return "no anchor: quote the exact text to change in 'anchor'"
    if not isinstance(anchor, str):
        return f"the anchor is {_kind(anchor)}, not text"
    if not anchor:
        return "the anchor is empty; quote the text to change"
    replacement = values.get("replacement")
    if action == "delete":
        if isinstance(replacement, str) and replacement:
            return "the action is 'delete' but a replacement text is given: the intent is unknown"
        if replacement not in (None, ""):
            return f"the replacement is {_kind(replacement)}, not text"
        replacement = ""
    elif "replacement" not in values:
        return "no replacement: give the new text in 'replacement' (\"\" deletes the anchor)"
    elif replacement is None:
        return 'the replacement is null; send "" to delete the anchor'
    elif not isinstance(replacement, str):
        return f"the replacement is {_kind(replacement)}, not text"

    rationale = values.get("rationale")
    if not isinstance(rationale, str | None):
        notes.append("dropped a rationale that was not text")
        rationale = None
    expected = expected_matches(values.get("expected_matches"), notes)
    if isinstance(expected, str):
        return expected
    shared = section_and_id(values, notes)
    if isinstance(shared, str):
        return shared
    section, ident = shared
    if not isinstance(ident, str | None):
        return f"the id is {_kind(ident)}, not text"

    reason = texts_reason(
        dict(anchor=anchor, replacement=replacement, rationale=rationale, section=section, id=ident)
    )
    if reason is not None:
        return reason
    return build_edit(
        anchor=anchor,
        replacement=replacement,
        rationale=rationale,
        expected_matches=expected,
        section=section,
        id=ident,
    )


def _read_insert(
    action: str, fields: dict[str, tuple[str, Any]], values: dict[str, Any], notes: list[str]
) -> EditRecord | str:
    """An ``insert_after`` / ``insert_before`` entry: whole new paragraphs beside the one
    holding ``anchor``, whose text is never touched."""
    anchor = values.get("anchor")
    if not isinstance(anchor, str) or not anchor.strip():
        return f"{action} needs an anchor: quote text from the paragraph to insert {action[7:]}"
    text = values.get("text")
    if text is None and isinstance(values.get("replacement"), str):
        text = values["replacement"]
        notes.append(f"read the replacement of an {action} entry as its text")
    if not isinstance(text, str) or not text.strip():
        return f"{action} needs the new paragraphs' text in 'text'"
    level = values.get("level")
    levels = {None: 0, 0: 0, "0": 0, "": 0, "same": 0, 1: 1, "1": 1, "+1": 1, "down": 1, "sub": 1,
              -1: -1, "-1": -1, "up": -1, "parent": -1}  # fmt: skip
    if isinstance(level, bool) or level not in levels:
        return (
            f"the level is {json.dumps(level, default=str)[:40]}; give '+1' (a sub-clause), '-1' "
            "(the parent's level) or leave it out"
        )
    shared = section_and_id(values, notes)
    if isinstance(shared, str):
        return shared
    section, ident = shared
    texts = {"anchor": anchor, "text": text, "rationale": values.get("rationale"),
             "section": section, "id": ident}  # fmt: skip
    reason = texts_reason(texts)
    if reason is not None:
        return reason
    return build_edit(
        anchor=anchor,
        replacement="",
        action=action,
        text=text,
        level=levels[level],
        rationale=texts["rationale"],
        section=texts["section"],
        id=texts["id"],
    )


def _id_text(name: str, value: Any, notes: list[str]) -> str | None:
    """A revision or comment id as text (a whole number as its digits, with a note), or None
    when it cannot be one (the caller refuses)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        notes.append(f"converted a numeric {name} to text")
        return str(value)
    if isinstance(value, float):
        return None  # 12.0 or 1.20? not guessed
    if not isinstance(value, str) or not value.strip() or len(value) > 100:
        return None
    return value  # as written: the document's own id may be any text ("r12": see redline.match.decisions)


def _read_other(
    action: str, fields: dict[str, tuple[str, Any]], values: dict[str, Any], notes: list[str]
) -> EditRecord | str:
    """An accept / reject / comment / reply / resolve entry: a decision on the other side's
    tracked change (by ``revision_id``, or every one by ``author``), a comment on a quoted
    passage, a reply to a comment, a thread resolved."""
    wanted = {
        "accept": ("revision_id", "author", "expected_matches"),
        "reject": ("revision_id", "author", "expected_matches"),
        "comment": ("anchor", "text", "section", "expected_matches"),
        "reply": ("comment_id", "text"),
        "resolve": ("comment_id",),
    }[action]
    kept = {"rationale", "id", "action", "kind", *wanted}
    text = values.get("text")
    if action in ("comment", "reply") and text is None:
        for other in ("rationale",):  # a model's "comment": "..." (an alias of rationale)
            if isinstance(values.get(other), str) and values[other].strip():
                text = values.pop(other)
                notes.append(f"read the {other} of a {action} entry as its text")
                break
    for name in list(values):
        if name in kept or (name == "text" and action in ("comment", "reply")):
            continue
        if values[name] is None or (name == "replacement" and values[name] == ""):
            del values[name]  # null (strict structured output) or the "" an edit needs
            continue
        if name == "anchor" and action in ("accept", "reject", "reply", "resolve"):
            notes.append(f"dropped the anchor of an entry whose action is {action!r} (found by its id)")
            del values[name]
            continue
        return (
            f"{action} takes {', '.join(wanted)}, not {name!r}: the intent is unknown"
            if name in ("replacement", "text", "level", "revision_id", "author", "comment_id")
            else f"{action} takes no {name!r}"
        )
    revision_id = comment_id = author = None
    if action in ("accept", "reject"):
        given = [n for n in ("revision_id", "author") if values.get(n) is not None]
        if len(given) != 1:
            return (
                f"{action} needs exactly one of 'revision_id' (one tracked change, as [r12 Name] "
                "shows it) and 'author' (every change by that author)"
            )
        if given == ["revision_id"]:
            revision_id = _id_text("revision_id", values["revision_id"], notes)
            if revision_id is None:
                return (
                    f"the revision_id is {_kind(values['revision_id'])} that names no tracked "
                    "change; give it as the marked-up text shows it ('12' for [r12 Name])"
                )
        else:
            author = values["author"]
            if not isinstance(author, str) or not author.strip():
                return "the author is not a name; give it as the marked-up text shows it"
    if action in ("reply", "resolve"):
        if values.get("comment_id") is None:
            return f"{action} needs 'comment_id': the comment, as [c4 Name] shows it ('4')"
        comment_id = _id_text("comment_id", values["comment_id"], notes)
        if comment_id is None:
            return (
                f"the comment_id is {_kind(values['comment_id'])} that names no comment; give "
                "it as the marked-up text shows it ('4' for [c4 Name])"
            )
    anchor = values.get("anchor") if action == "comment" else None
    if action == "comment" and (not isinstance(anchor, str) or not anchor.strip()):
        return "comment needs an anchor: quote the passage the comment is on"
    if action in ("comment", "reply") and (not isinstance(text, str) or not text.strip()):
        return f"{action} needs the comment's words in 'text'"
    if action not in ("comment", "reply"):
        text = None
    expected = expected_matches(values.get("expected_matches"), notes)
    if isinstance(expected, str):
        return expected
    shared = section_and_id(values, notes)
    if isinstance(shared, str):
        return shared
    section, ident = shared
    texts = {"anchor": anchor, "text": text, "rationale": values.get("rationale"), "section": section,
             "id": ident, "revision_id": revision_id, "author": author, "comment_id": comment_id}  # fmt: skip
    reason = texts_reason(texts)
    if reason is not None:
        return reason
    return build_edit(
        anchor=anchor or "",
        replacement="",
        action=action,
        text=text,
        expected_matches=expected,
        rationale=texts["rationale"],
        section=texts["section"],
        id=texts["id"],
        revision_id=revision_id,
        author=author,
        comment_id=comment_id,
    )


def _action(fields: dict[str, tuple[str, Any]], notes: list[str]) -> str | None:
    """``"delete"``, ``"replace"``, ``None`` (no action given) or the reason to refuse."""
    found: list[tuple[str, str, str]] = []
    for name in ("action", "kind"):
        if name not in fields:
            continue
        key, value = fields[name]
        if value is None and name == "action":
            continue  # null: no action, as strict structured output sends an unused field
        if not isinstance(value, str):
            if name == "action":
                return f"the action is {_kind(value)}, not text"
            notes.append(f"dropped unknown field {_show(key)}")
            continue
        word = value.strip().lower().replace("-", "_").replace(" ", "_")
        if word in _DELETE_ACTIONS:
            found.append((key, value, "delete"))
        elif word in _INSERT_ACTIONS and name == "action":
            found.append((key, value, _INSERT_ACTIONS[word]))
        elif word in _OTHER_ACTIONS and name == "action":
            found.append((key, value, _OTHER_ACTIONS[word]))
        elif word in _FORMAT_ACTIONS and name == "action":
            found.append((key, value, _FORMAT_ACTIONS[word]))
        elif word in _REPLACE_ACTIONS:
            found.append((key, value, "replace"))
        elif name == "action" or _ACTION_WORDS.search(word):
            return f"unsupported action {_show(value)}: an edit can only replace or delete its anchor"
        else:
            notes.append(f"ignored {_show(key)} {_show(value)}")
    if not found:
        return None
    if len({action for _, _, action in found}) > 1:
        return f"{_show(found[0][0])} and {_show(found[1][0])} disagree: the intent is unknown"
    key, value, action = found[0]
    if action == "delete":
        notes.append(f"read {_show(key)} {_show(value)} as an empty replacement")
    elif action in ("insert_after", "insert_before", "format") or action in _OTHER_ACTIONS.values():
        if value != action:
            notes.append(f"read {_show(key)} {_show(value)} as {action!r}")
    else:
        notes.append(f"read {_show(key)} {_show(value)} as a plain edit")
    return action
