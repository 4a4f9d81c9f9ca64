"""What a write is told: its options (the author and date every revision mark carries, checked
once), the comments it anchors and what it reports.

``--author``, ``--date`` (the command line), ``author`` (the tools),
:class:`redline.apply.ApplyOptions`, :class:`redline.compare.diff.CompareOptions` and
:class:`WriteOptions` itself reach the XML of the output as ``w:author`` / ``w:date`` and the
comments' initials; :func:`check_author` and :func:`check_date` decide what may, and raise
:class:`ArgumentError` (a ``ValueError``: the caller's mistake) with a sentence that says why.
:class:`WriteOptions` runs both when it is made, so no author or date reaches a revision mark
unchecked, whoever built the options.  The command line turns the error into a usage error
(exit 2), the tools into ``invalid_arguments``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

from shared_schema import Code, bidi_control, xml_unsafe_character

from ..errors import Refused

__all__ = [
    "MAX_AUTHOR_CHARS",
    "ArgumentError",
    "Comment",
    "WriteOptions",
    "WriteResult",
    "check_author",
    "check_date",
]

MAX_AUTHOR_CHARS: Final = 255
"""Word's own limit for a user name."""

# xsd:dateTime (XML Schema 1.0, §3.2.7), the year four digits as Word writes it.
_DATE_TIME: Final = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})(?:T(?P<time>\d{2}:\d{2}:\d{2}(?:\.\d+)?)(?P<zone>Z|[+-]\d{2}:\d{2})?)?"
)


class ArgumentError(Refused, ValueError):
    """An argument that cannot reach the document (``invalid_arguments``): ``message`` says
    why, for a person; ``field`` names the argument (``"author"``, ``"date"``).  Still a
    ``ValueError``, what a bad argument to a Python function is."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(Code.INVALID_ARGUMENTS, message)
        self.field = field


def check_author(value: object) -> str:
    """The author as it will be written (surrounding whitespace removed), or
    :class:`ArgumentError`: not a string, empty, longer than :data:`MAX_AUTHOR_CHARS`, or
    holding a character XML cannot carry or a bidirectional control."""
    if not isinstance(value, str):
        raise ArgumentError(f"the author must be text, not {type(value).__name__}", "author")
    author = value.strip()
    if not author:
        raise ArgumentError("the author must not be empty", "author")
    if len(author) > MAX_AUTHOR_CHARS:
        raise ArgumentError(
            f"the author is {len(author)} characters long, more than {MAX_AUTHOR_CHARS}", "author"
        )
    bad = xml_unsafe_character(author) or bidi_control(author)
    if bad is not None:
        raise ArgumentError(
            f"the author holds the character U+{ord(bad):04X}, which may not be written", "author"
        )
    return author


def check_date(value: object) -> str:
    """The revision date as ``w:date`` will hold it, or :class:`ArgumentError`.

    An ``xsd:dateTime`` (``2026-01-31T09:30:00Z``, a fraction and a ``+01:00`` zone allowed);
    a bare date (``2026-01-31``) means its midnight, UTC (``2026-01-31T00:00:00Z``). Every
    field must be in range (no 2026-02-30, no hour 24)."""
    if not isinstance(value, str):
        raise ArgumentError(f"the date must be text, not {type(value).__name__}", "date")
    text = value.strip()
    found = _DATE_TIME.fullmatch(text)
    if found is None:
        raise ArgumentError(
            f"the date {text[:60]!r} is not an xsd:dateTime such as 2026-01-31T09:30:00Z", "date"
        )
    if found["time"] is None:
        text = f"{found['date']}T00:00:00Z"
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ArgumentError(
            f"the date {text!r} names no real moment (a field is out of range)", "date"
        ) from None
    return text


@dataclass(frozen=True)
class WriteOptions:
    author: str = "redline"
    date: str | None = None  # ISO 8601; default: now, UTC, to the second
    track: bool = True  # False: write the edits as plain (accepted) text
    comments: bool = True  # attach each edit's rationale as a comment
    # The replacement is written character for character (redline compare: another
    # document's text): no quote convention applied, tokens compared exactly.
    literal: bool = False

    def __post_init__(self) -> None:
        # what reaches w:author / w:date: checked (raises ArgumentError) and kept as written
        object.__setattr__(self, "author", check_author(self.author))
        if self.date is not None:
            object.__setattr__(self, "date", check_date(self.date))

    def stamp(self) -> str:
        if self.date:
            return self.date
        return datetime.now(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Comment:
    id: int
    text: str


@dataclass
class WriteResult:
    touched_parts: set[str] = field(default_factory=set)
    comments: list[Comment] = field(default_factory=list)
    # edit index -> the paragraphs its ranges touched, as indexes of the written document's
    # view (its paragraphs, the ones it split off, a paragraph its new text went into; not one
    # its edits removed), ascending
    touched_paragraphs: dict[int, list[int]] = field(default_factory=dict)
