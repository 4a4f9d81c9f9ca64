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
