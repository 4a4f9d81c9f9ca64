"""The one authoritative definition of the shapes both flows ask a model for and report with.

Request shapes (what a model is asked to send, and all it is asked for): :class:`EditRequest`
(one reply entry), :class:`EditsRequest`, :class:`SummaryPoint`, :class:`SummaryRequest` --
:mod:`shared_schema.json_schema` exports them for each model API.  Parsed shapes (what the
tolerant parser made of a reply, with what it could not use and what it coerced): :class:`Edit`,
:class:`EditBatch`, :class:`SummaryReply`.  Result shapes (what we report back):
:class:`Location`, :class:`Refusal`, :class:`EditResult`, :class:`QuoteCheck`.  ``redline`` and
``summarize`` import these very classes; neither defines its own copy.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from .codes import Code, EditStatus, MatchKind, QuoteStatus

# the rules live in plain code (shared_schema.rules); re-exported here, where they always were
from .rules import ACTIONS as ACTIONS
from .rules import BIDI_CONTROLS as BIDI_CONTROLS
from .rules import COLUMN_ACTIONS as COLUMN_ACTIONS
from .rules import DECISIONS as DECISIONS
from .rules import FORMAT_KEYS as FORMAT_KEYS
from .rules import FORMAT_RUN_KEYS as FORMAT_RUN_KEYS
from .rules import HIGHLIGHT_COLOURS as HIGHLIGHT_COLOURS
from .rules import MAX_SECTION as MAX_SECTION
from .rules import MOVE_ACTIONS as MOVE_ACTIONS
from .rules import NO_ANCHOR_ACTIONS as NO_ANCHOR_ACTIONS
from .rules import ROW_ACTIONS as ROW_ACTIONS
from .rules import THREAD_ACTIONS as THREAD_ACTIONS
from .rules import bidi_control as bidi_control
from .rules import check_no_bidi as _no_bidi
from .rules import check_xml_safe as _xml_safe
from .rules import xml_unsafe_character as xml_unsafe_character


class _Shape(BaseModel):
    # defer_build: a model's validator is built on its first use, not at import (a command that
    # applies edits never builds the request or summary shapes)
    model_config = ConfigDict(extra="forbid", frozen=False, str_strip_whitespace=False, defer_build=True)


HighlightColour = Literal[
    "yellow", "green", "cyan", "magenta", "blue", "red", "darkBlue", "darkCyan", "darkGreen",
    "darkMagenta", "darkRed", "darkYellow", "darkGray", "lightGray", "black", "white", "none",
]  # fmt: skip


class FormatSpec(_Shape):
    """The formatting to set: give only the keys to change."""

    # (The docstring is the schema's description a model reads.)  Run keys apply to the quoted
    # characters only; ``style`` to the paragraph(s) holding them.  OpenAI's strict dialect
    # sends every key: there ``null`` means "leave as is", and ``"none"`` removes a highlight.

    bold: bool | None = Field(default=None, description="true: bold; false: not bold.")
    italic: bool | None = Field(default=None, description="true: italic; false: not italic.")
    underline: str | None = Field(
        default=None,
        description=(
            "'single' (or true): underlined; 'double': double underlined; 'none' (or false): not underlined."
        ),
    )
    strike: bool | None = Field(default=None, description="true: struck through; false: not.")
    caps: bool | None = Field(default=None, description="true: shown in capitals; false: not.")
    small_caps: bool | None = Field(default=None, description="true: small capitals; false: not.")
    highlight: str | None = Field(
        default=None,
        description=(
            "A Word highlight colour (" + ", ".join(HIGHLIGHT_COLOURS[:-1]) + "), or 'none' to "
            "remove the highlight."
        ),
    )
    style: str | None = Field(
        default=None,
        description=(
            "The paragraph style (its name as Word shows it, e.g. 'Heading 1', or its id) for "
            "the whole paragraph(s) holding the anchor."
        ),
    )

    def run_keys(self) -> dict[str, object]:
        """The run keys set (not None), in :data:`FORMAT_RUN_KEYS` order."""
        return {k: getattr(self, k) for k in FORMAT_RUN_KEYS if getattr(self, k) is not None}


class EditRequest(_Shape):
    """One proposed change: replace the verbatim `anchor` with `replacement`."""

    # (The docstring is the schema's description a model reads.)  THE ONE PLACE for the fields
    # a reply entry may carry: every schema dialect, the prompt kit and the parsed :class:`Edit`
    # derive from these fields.  The reply actions (``action`` = insert_after / insert_before
    # / accept / reject / comment / reply / resolve, with ``text``, ``level``, ``revision_id``,
    # ``author``, ``comment_id``) are optional fields of plain types, checked by validators,
    # so every dialect keeps them.  ``anchor`` and ``replacement`` are optional in the request
    # (accept / reject / reply / resolve quote no text); the parser refuses an edit without
    # them, and the parsed :class:`Edit` holds "" for an action that takes none.

    anchor: str | None = Field(
        default=None,
        min_length=1,
        description=(
            "The exact text to change, copied character for character from the document "
            "(not paraphrased, not re-typed from memory). Quote enough words to be unique; "
            "one edit per location. Required except for accept, reject, reply and resolve."
        ),
    )
    replacement: str | None = Field(
        default=None,
        description=(
            "The text that replaces the anchor. An empty string deletes the anchor. Required "
            "for a plain edit; leave out for the other actions."
        ),
    )
    rationale: str | None = Field(
        default=None, description="Why the change is proposed; shown to the reviewer as a comment."
    )
    expected_matches: int | None = Field(
        default=None,
        ge=1,
        description=(
            "Only for a deliberate replace-all: the number of places the anchor occurs. "
            "The edit applies to all of them only when the document has exactly that many."
        ),
    )
    section: str | None = Field(
        default=None,
        description=(
            "The clause the edit must land in, as the document numbers it ('4.2', 'Clause 4.2(b)', "
            "'Article IV', 'Schedule 2, paragraph 1') or a heading's text. Name it when the task "
            "names a clause."
        ),
    )
    id: str | None = Field(default=None, description="Your identifier for this edit, echoed back.")
    action: str | None = Field(
        default=None,
        description=(
            "Leave out (or 'replace') for a plain edit. 'insert_after' or 'insert_before': new "
            "paragraphs (`text`) after / before the whole paragraph holding `anchor`, with its "
            'numbering and style; the anchor\'s text is not changed (send replacement ""). '
            "'accept' or 'reject': decide the other side's tracked change `revision_id` (the "
            "number of [r12 Name] in the marked-up text), or every change by `author`. "
            "'comment': a comment (`text`) on the passage `anchor`, the text unchanged. 'reply': "
            "answer comment `comment_id` (the number of [c4 Name]) with `text`. 'resolve': mark "
            "comment `comment_id`'s thread resolved. "
            "'format': a tracked formatting change (`format`) of the quoted characters, or of the "
            "style of the paragraph(s) holding them; the text is not changed. "
            "'insert_row_after' / 'insert_row_before': a new table row (`cells`, one text per "
            "cell) after / before the row holding `anchor`; 'delete_row': the row holding "
            "`anchor` deleted. 'move_after' or 'move_before': move the clause whose first words "
            "are `anchor`, with its sub-clauses, after / before the "
            "clause `target` (cited as the document numbers it) or the one `target_anchor` quotes."
        ),
    )
    text: str | None = Field(
        default=None,
        description=(
            "insert_after / insert_before: the new paragraphs, one per line. comment / reply: "
            "the comment's text."
        ),
    )
    level: int | None = Field(
        default=None,
        description=(
            "insert_after / insert_before only: 1 makes a sub-clause, -1 a clause of the parent's "
            "level, 0 (or none) the same level."
        ),
    )

    revision_id: str | None = Field(
        default=None,
        description=(
            "accept / reject only: the id of one tracked change, as the marked-up text shows it "
            "([r12 Name] is revision_id '12'). Leave out to decide by `author`."
        ),
    )
    author: str | None = Field(
        default=None,
        description=(
            "accept / reject only, instead of revision_id: every tracked change by this author "
            "(as the marked-up text names them); state expected_matches to check the count."
        ),
    )
    comment_id: str | None = Field(
        default=None,
        description=(
            "reply / resolve only: the id of the comment, as the marked-up text shows it "
            "([c4 Name] is comment_id '4'). Reply to a thread's first comment."
        ),
    )
    format: FormatSpec | None = Field(
        default=None,
        description=(
            'format only: the formatting to set, e.g. {"bold": true} or {"style": "Heading 2"}; '
            "give only the keys to change."
        ),
    )
    cells: list[str] | None = Field(
        default=None,
        description=(
            "insert_row_after / insert_row_before only: the new row's text, one string per cell "
            "of the anchor's row, left to right (a merged cell spanning columns takes one); a "
            "line break starts a new paragraph in the cell."
        ),
    )
    target: str | None = Field(
        default=None,
        description=(
            "move_after / move_before only: the clause to move the anchor's clause after / "
            "before, as the document numbers it ('9', 'Clause 12.1', 'Article IV') or a "
            "heading's text. Or give target_anchor instead."
        ),
    )
    target_anchor: str | None = Field(
        default=None,
        description=(
            "move_after / move_before only, instead of target: text copied exactly from the "
            "paragraph of the clause to move the anchor's clause after / before."
        ),
    )

    @field_validator("action")
    @classmethod
    def _known_action(cls, value: str | None) -> str | None:
        if value not in (None, *ACTIONS, *COLUMN_ACTIONS):
            raise ValueError(f"the action must be one of {', '.join(ACTIONS)}")
        return value

    @field_validator("level")
    @classmethod
    def _level_step(cls, value: int | None) -> int | None:
        if value not in (None, -1, 0, 1):
            raise ValueError("the level must be -1, 0 or 1")
        return value

    @field_validator(
        "anchor", "replacement", "rationale", "section", "text", "id", "revision_id", "author", "comment_id"
    )
    @classmethod
    def _no_xml_unsafe(cls, value: str | None) -> str | None:
        return _xml_safe(value)

    @field_validator("anchor", "replacement", "rationale", "text", "revision_id", "author", "comment_id")
    @classmethod
    def _no_bidi_control(cls, value: str | None) -> str | None:
        return _no_bidi(value)

    @field_validator("cells")
    @classmethod
    def _cells_safe(cls, value: list[str] | None) -> list[str] | None:
        for cell in value or ():
            _xml_safe(cell)
            _no_bidi(cell)
        return value

    @field_validator("target", "target_anchor")
    @classmethod
    def _move_target_safe(cls, value: str | None) -> str | None:
        return _no_bidi(_xml_safe(value))

    @field_validator("anchor")
    @classmethod
    def _anchor_not_blank(cls, value: str | None) -> str | None:
        if value and not value.strip():
            raise ValueError("the anchor is only whitespace; quote the text to change")
        return value


class Edit(EditRequest):
    """One proposed change: replace the verbatim ``anchor`` with ``replacement``."""

    # An entry of a reply as the tolerant parser read it: the fields of :class:`EditRequest`,
    # and :attr:`index`, where the entry stood in the reply's list, which the parser knows and
    # every report states: not a field (a model neither sends nor sees it), and two edits that
    # say the same are equal wherever they stood.

    # An action that quotes no text (accept, reject, reply, resolve) holds "" here.
    anchor: str = ""
    replacement: str = ""

    _index: int | None = PrivateAttr(default=None)

    @property
    def index(self) -> int | None:
        """The entry's position in the reply's list (invalid entries count too), as the parser
        found it; None for an edit made in code, which reports its position in the batch."""
        private = self.__pydantic_private__  # (``self._index`` goes through __getattr__: slow)
        if private is None:
            return None
        index: int | None = private.get("_index")
        return index

    def placed(self, index: int) -> Edit:
        """Record the entry's position in the reply (the parser's step); returns the edit."""
        self._index = index
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Edit):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__  # the fields alone


class InvalidEntry(_Shape):
    """An entry that was present in a reply but could not be used."""

    index: int = Field(description="Position of the entry in the reply's list.")
    reason: str
    raw: Any = None


EDITS_RULES = (
    "Propose changes to the contract as a list of edits. Rules: copy each anchor character for "
    "character from the document text you were shown; never paraphrase or re-type it. One edit "
    "per location: quote enough surrounding words that the anchor occurs exactly once. For a "
    "deliberate replace-all, state expected_matches with the number of occurrences. Name the "
    "section when the task names a clause. An empty list means no change is needed."
)
SUMMARY_RULES = (
    "Summarise the contract as points. Every point cites one or more quotes copied verbatim "
    "from the document; a point without a quote is reported as unsupported."
)


class EditsRequest(_Shape):
    """What a model is asked to reply with: its edits, and nothing else (no parser fields)."""

    model_config = ConfigDict(json_schema_extra={"description": EDITS_RULES})

    edits: list[EditRequest] = Field(description="The proposed edits; may be empty.")


class EditBatch(_Shape):
    """Every usable edit of one reply, plus what was unusable and what was coerced (the parsed
    result; what a model is asked for is :class:`EditsRequest`)."""

    edits: list[Edit] = Field(default_factory=list)
    invalid: list[InvalidEntry] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    revision: str | None = Field(
        default=None, description="The document revision the model read, when it states one."
    )


class SummaryPoint(_Shape):
    """One point of a summary, with the verbatim quotes that support it."""

    title: str = Field(default="", description="A few words naming the point, such as 'Rent'.")
    text: str = Field(default="", description="The point itself, in a sentence or two.")
    quotes: list[str] = Field(
        default_factory=list,
        description="Passages copied verbatim from the document that support this point.",
    )


class SummaryRequest(_Shape):
    """What a model is asked to reply with for a summary."""

    model_config = ConfigDict(json_schema_extra={"description": SUMMARY_RULES})

    summary: str = Field(description="A short overall summary.")
    points: list[SummaryPoint]


class SummaryReply(_Shape):
    """A summary reply as the tolerant parser read it (what a model is asked for is
    :class:`SummaryRequest`)."""

    summary: str = ""
    points: list[SummaryPoint] = Field(default_factory=list)
    invalid: list[InvalidEntry] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Result shapes


class Location(_Shape):
    """Where a passage lies in a document's view."""

    part: str = Field(description="The zip member the paragraph lives in.")
    paragraph: int = Field(description="Index into the view's paragraphs.")
    start: int = Field(description="View offset of the first character.")
    end: int = Field(description="View offset just past the last character.")
    label: str | None = None
    section: str | None = None
    context: str | None = Field(default=None, description="A short excerpt around the passage.")
    unique_quote: str | None = Field(
        default=None,
        description="For an ambiguous anchor: the shortest extension of it that occurs only here.",
    )


class CodedError(Protocol):
    """An exception that carries a code of the catalogue and a sentence (``PackageError``,
    ``ToolError``, ``UsageError``): what :meth:`Refusal.from_error` reads."""

    @property
    def code(self) -> str: ...

    @property
    def message(self) -> str: ...


class Refusal(_Shape):
    """Why an edit was not applied (or a quote not verified), written for the model's retry.

    ``code`` is a :class:`~shared_schema.codes.Code` (a string of the catalogue is validated
    into one; the JSON holds the string)."""

    code: Code
    message: str
    hint: str | None = None
    candidates: list[Location] = Field(default_factory=list)
    nearest: str | None = Field(default=None, description="The closest passage in the document.")
    nearest_location: Location | None = None
    tolerances: list[str] = Field(default_factory=list)
    related: list[int] = Field(
        default_factory=list, description="Indexes of the other edits this refusal concerns."
    )
    actual_matches: int | None = None

    @classmethod
    def from_error(cls, error: CodedError, hint: str | None = None) -> Refusal:
        """The refusal an error stands for (the one way a raised refusal becomes a value): its
        code -- which must be in the catalogue -- and message, and ``hint`` if given."""
        return cls(code=Code(error.code), message=error.message, hint=hint)


class EditResult(_Shape):
    """The outcome of one proposed edit (one entry of the report's ``edits``)."""

    index: int
    id: str | None = None
    anchor: str
    replacement: str
    status: EditStatus
    match: MatchKind | None = None
    tolerances: list[str] = Field(default_factory=list)
    locations: list[Location] = Field(default_factory=list)
    error: Refusal | None = None
    # What was done otherwise than asked, for an applied edit: a rationale Word cannot hold
    # as a comment (headers, footers), a field replaced by its new text.
    notes: list[str] = Field(default_factory=list)


class QuoteCheck(_Shape):
    """The outcome of one quote of a summary."""

    quote: str
    status: QuoteStatus
    match: MatchKind | None = None
    tolerances: list[str] = Field(default_factory=list)
    locations: list[Location] = Field(default_factory=list)
    error: Refusal | None = None
