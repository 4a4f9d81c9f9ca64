"""The rules on a request's text every reader of it applies -- the characters a Word document
cannot hold, the bidirectional controls refused, the actions an entry may name, the longest
section name -- as plain functions and constants: the pydantic models' validators
(:mod:`shared_schema.models`) call these, and so does code that must not wait for pydantic to be
imported (the command line's ``--author``, the view's section names).
"""

from __future__ import annotations

import re

#: The characters XML 1.0 cannot carry: the C0 controls but tab, line feed and carriage return;
#: the surrogates (a lone one is how invalid UTF-8 reads); U+FFFE and U+FFFF.  One regex, fast
#: on a 10 MB anchor; the reply parser's refusals and the models' validators both search with it.
XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_unsafe_character(text: str) -> str | None:
    """Return the first character of ``text`` that XML 1.0 cannot carry, or None."""
    found = XML_UNSAFE.search(text)
    return None if found is None else found.group()


#: The bidirectional embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069):
#: invisible, they make the text a reviewer is shown differ from the text stored ("Trojan
#: Source", CVE-2021-42574). The marks U+200E/U+200F, which only set a direction, are not
#: among them.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def bidi_control(text: str) -> str | None:
    """Return the first bidirectional control character of ``text``, or None."""
    if BIDI_CONTROLS.isdisjoint(text):
        return None
    return next(ch for ch in text if ch in BIDI_CONTROLS)


def check_no_bidi(value: str | None) -> str | None:
    """``value`` unchanged, or ValueError naming its bidirectional control (a validator's rule)."""
    if value is None:
        return value
    bad = bidi_control(value)
    if bad is not None:
        raise ValueError(
            f"contains the bidirectional control U+{ord(bad):04X}, which can make the text a "
            "reviewer sees differ from the text stored; remove it"
        )
    return value


def check_xml_safe(value: str | None) -> str | None:
    """``value`` unchanged, or ValueError naming a character XML cannot carry (a validator's rule)."""
    if value is None:
        return value
    bad = xml_unsafe_character(value)
    if bad is not None:
        raise ValueError(f"contains the character U+{ord(bad):04X}, which a Word document cannot hold")
    return value


ACTIONS = (
    "replace", "insert_after", "insert_before", "accept", "reject", "comment", "reply", "resolve",
    "format", "insert_row_after", "insert_row_before", "delete_row", "move_after", "move_before",
)  # fmt: skip
"""What an entry's `action` may be."""
ROW_ACTIONS = ("insert_row_after", "insert_row_before", "delete_row")
"""The actions on a table's rows (a tracked row inserted beside the anchor's, or the anchor's deleted)."""
COLUMN_ACTIONS = ("insert_column", "delete_column")
"""Column actions a reply may name: read, and refused ``unsupported`` with the reason (no
reader resolves tracked columns reliably); not offered to a model."""
MAX_SECTION = 200  # characters: a longer `section` names no section (it is refused)
DECISIONS = ("accept", "reject")  # on the other side's tracked changes: by revision_id or author
THREAD_ACTIONS = ("reply", "resolve")  # on an existing comment, by comment_id
NO_ANCHOR_ACTIONS = (*DECISIONS, *THREAD_ACTIONS)  # entries that quote no anchor
MOVE_ACTIONS = ("move_after", "move_before")  # a clause relocated: anchor + target / target_anchor

HIGHLIGHT_COLOURS: tuple[str, ...] = (
    "yellow", "green", "cyan", "magenta", "blue", "red", "darkBlue", "darkCyan", "darkGreen",
    "darkMagenta", "darkRed", "darkYellow", "darkGray", "lightGray", "black", "white", "none",
)  # fmt: skip
"""Word's highlight colours (ECMA-376 Part 1, §17.18.40 ST_HighlightColor); ``none``: no highlight."""
FORMAT_RUN_KEYS = ("bold", "italic", "underline", "strike", "caps", "small_caps", "highlight")
FORMAT_KEYS = (*FORMAT_RUN_KEYS, "style")


# An entry's plain fields in the model's order (models.Edit), each with the rules its validators
# hold it to, in the validators' order.
_TEXT_RULES: dict[str, tuple[str, ...]] = {
    "anchor": ("xml", "bidi", "blank"),
    "replacement": ("xml", "bidi"),
    "rationale": ("xml", "bidi"),
    "expected_matches": (),
    "section": ("xml",),
    "id": ("xml",),
    "action": (),
    "text": ("xml", "bidi"),
    "level": (),
    "revision_id": ("xml", "bidi"),
    "author": ("xml", "bidi"),
    "comment_id": ("xml", "bidi"),
}
_NUMBERS = ("expected_matches", "level")
_REQUIRED_TEXT = ("anchor", "replacement")  # text, never None, when given


def _blank(value: str) -> str:
    if value and not value.strip():
        raise ValueError("the anchor is only whitespace; quote the text to change")
    return value


_CHECKS = {"xml": check_xml_safe, "bidi": check_no_bidi, "blank": _blank}


def entry_failures(values: dict[str, object]) -> list[tuple[str, str]] | None:
    """What ``models.Edit(**values)`` refuses in ``values`` when the rules alone decide it:
    ``[]`` when it accepts them as they are (only fields of plain types, each of its type and
    passing the very rules the model's validators apply: no validation needed), else each
    refused field with the rule's message, in the model's field order (one per field, its
    first failing rule: as pydantic reports them).  None when the rules cannot tell (another
    field, another type, a number or an action out of range: pydantic's own checks, whose
    verdict and words only validation gives)."""
    if not _TEXT_RULES.keys() >= values.keys():
        return None
    for name in _REQUIRED_TEXT:
        if name in values and type(values[name]) is not str:  # (None too: the field is a str)
            return None
    for name in _NUMBERS:
        number = values.get(name)
        if number is not None and type(number) is not int:
            return None
    expected = values.get("expected_matches")
    if isinstance(expected, int) and expected < 1:
        return None
    if values.get("level") not in (None, -1, 0, 1):
        return None
    action = values.get("action")
    if action is not None and (type(action) is not str or action not in (*ACTIONS, *COLUMN_ACTIONS)):
        return None
    failures: list[tuple[str, str]] = []
    for name, rules in _TEXT_RULES.items():
        value = values.get(name)
        if value is None or not rules:
            continue
        if type(value) is not str:
            return None
        try:
            for rule in rules:
                _CHECKS[rule](value)
        except ValueError as exc:
            failures.append((name, str(exc)))
    return failures


def plain_entry(values: dict[str, object]) -> bool:
    """Whether ``models.Edit(**values)`` accepts ``values`` as they are, decided by the rules
    alone (:func:`entry_failures`): the entry needs no validation."""
    return entry_failures(values) == []
