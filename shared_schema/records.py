"""The apply path's own records of a reply's entries and of their results, without pydantic.

Importing pydantic and creating the models costs more than python-docx's whole open and save
(issue 32: about 530 M instructions of a plain ``redline apply``'s 1,375 M).  A plain apply --
a reply's entries parsed, located, written and counted -- needs none of what pydantic adds: the
parser checks each entry with the very rules the models' validators run
(:mod:`shared_schema.rules`, :mod:`shared_schema.construct`), and our code makes the results of
values of the right types.  So the apply path carries these plain classes, and each turns into
its public model (:mod:`shared_schema.models`: same names, fields, schema) on demand --
:meth:`EditRecord.model`, :meth:`BatchRecord.model`, :meth:`ResultRecord.model` -- when a report,
a script or a tool asks for one; pydantic is imported then, not before.

Each record has the fields of its model, by the same names and types; a model converts to its
record (:meth:`BatchRecord.of`) when a caller hands the apply path a model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .codes import Code, EditStatus, MatchKind

if TYPE_CHECKING:
    from .models import Edit, EditBatch, EditResult, FormatSpec, InvalidEntry, Location, Refusal

# A record's fields are its model's, in the model's order (a model made of a record holds them
# in this order, as validation would).
_EDIT_FIELDS = (
    "anchor", "replacement", "rationale", "expected_matches", "section", "id", "action", "text",
    "level", "revision_id", "author", "comment_id", "format", "cells", "target", "target_anchor",
)  # fmt: skip


class EditRecord:
    """One entry of a reply as the parser read it: :class:`~shared_schema.models.Edit`'s fields
    (a field not given: its default, as the model's), and :attr:`index`, where it stood.

    The values given are the instance's ``__dict__`` (``index`` beside them): the model made of
    it has exactly those fields set."""

    anchor: str = ""
    replacement: str = ""
    rationale: str | None = None
    expected_matches: int | None = None
    section: str | None = None
    id: str | None = None
    action: str | None = None
    text: str | None = None
    level: int | None = None
    revision_id: str | None = None
    author: str | None = None
    comment_id: str | None = None
    format: FormatSpec | None = None
    cells: list[str] | None = None
    target: str | None = None
    target_anchor: str | None = None
    index: int | None = None

    @classmethod
    def of_values(cls, values: dict[str, Any], index: int | None = None) -> EditRecord:
        """The record of ``values`` (already checked: field names of the model, values of their
        types -- the parser's :func:`shared_schema.construct.edit` rules)."""
        made = cls.__new__(cls)
        made.__dict__.update(values)
        if index is not None:
            made.index = index
        return made

    @classmethod
    def of(cls, model: Edit) -> EditRecord:
        """The record of an :class:`~shared_schema.models.Edit` (its fields set, its index)."""
        fields = model.__dict__
        return cls.of_values({k: fields[k] for k in _EDIT_FIELDS if k in model.model_fields_set}, model.index)

    def given(self) -> dict[str, Any]:
        """The fields given (the model's ``model_fields_set``), with their values."""
        return {k: v for k, v in self.__dict__.items() if k != "index"}

    def model(self) -> Edit:
        """The public :class:`~shared_schema.models.Edit` (no validator built: the values passed
        its rules when the record was made)."""
        from .construct import construct
        from .models import Edit

        made = construct(Edit, self.given())
        return made if self.index is None else made.placed(self.index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EditRecord):
            return NotImplemented
        return self.given() == other.given()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EditRecord({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


class InvalidRecord:
    """An entry present in a reply that could not be used (:class:`~shared_schema.models.InvalidEntry`)."""

    __slots__ = ("index", "raw", "reason")

    def __init__(self, index: int, reason: str, raw: Any = None) -> None:
        self.index = index
        self.reason = reason
        self.raw = raw

    def model(self) -> InvalidEntry:
        from .construct import construct
        from .models import InvalidEntry

        values: dict[str, Any] = {"index": self.index, "reason": self.reason}
        if self.raw is not None:
            values["raw"] = self.raw
        return construct(InvalidEntry, values)

    @classmethod
    def of(cls, model: InvalidEntry) -> InvalidRecord:
        return cls(model.index, model.reason, model.raw)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, InvalidRecord):
            return NotImplemented
        return (self.index, self.reason, self.raw) == (other.index, other.reason, other.raw)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"InvalidRecord(index={self.index!r}, reason={self.reason!r}, raw={self.raw!r})"


class BatchRecord:
    """Every usable entry of one reply, what was unusable and what was coerced
    (:class:`~shared_schema.models.EditBatch`)."""

    __slots__ = ("edits", "invalid", "notes", "revision")

    def __init__(
        self,
        edits: list[EditRecord] | None = None,
        invalid: list[InvalidRecord] | None = None,
        notes: list[str] | None = None,
        revision: str | None = None,
    ) -> None:
        self.edits = [] if edits is None else edits
        self.invalid = [] if invalid is None else invalid
        self.notes = [] if notes is None else notes
        self.revision = revision

    @classmethod
    def of(cls, model: EditBatch) -> BatchRecord:
        """The record of an :class:`~shared_schema.models.EditBatch` a caller made."""
        return cls(
            [EditRecord.of(e) for e in model.edits],
            [InvalidRecord.of(i) for i in model.invalid],
            list(model.notes),
            model.revision,
        )

    def model(self) -> EditBatch:
        """The public :class:`~shared_schema.models.EditBatch` (what :func:`parse_edit_reply` returns)."""
        from .construct import construct
        from .models import EditBatch

        return construct(
            EditBatch,
            {
                "edits": [e.model() for e in self.edits],
                "invalid": [i.model() for i in self.invalid],
                "notes": list(self.notes),
                "revision": self.revision,
            },
        )


class _Valued:
    """A record equal to another of its class with the same :meth:`values` (its fields, in its
    model's order), shown by them, and unhashable: as its pydantic model is."""

    __slots__ = ()

    def values(self) -> dict[str, Any]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self.values() == other.values()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.values().items())})"


class LocationRecord(_Valued):
    """Where a passage lies in a document's view (:class:`~shared_schema.models.Location`)."""

    __slots__ = ("context", "end", "label", "paragraph", "part", "section", "start", "unique_quote")

    def __init__(
        self,
        part: str,
        paragraph: int,
        start: int,
        end: int,
        label: str | None = None,
        section: str | None = None,
        context: str | None = None,
        unique_quote: str | None = None,
    ) -> None:
        self.part = part
        self.paragraph = paragraph
        self.start = start
        self.end = end
        self.label = label
        self.section = section
        self.context = context
        self.unique_quote = unique_quote

    def values(self) -> dict[str, Any]:
        return {
            "part": self.part, "paragraph": self.paragraph, "start": self.start, "end": self.end,
            "label": self.label, "section": self.section, "context": self.context,
            "unique_quote": self.unique_quote,
        }  # fmt: skip

    def model(self) -> Location:
        from .construct import construct
        from .models import Location

        return construct(Location, self.values())

    @classmethod
    def of(cls, model: Location) -> LocationRecord:
        return cls(**{k: model.__dict__[k] for k in cls.__slots__})


class _CodedError:  # (what :meth:`RefusalRecord.from_error` reads; models.CodedError's shape)
    code: str
    message: str


class RefusalRecord(_Valued):
    """Why an edit was not applied (:class:`~shared_schema.models.Refusal`); ``code`` is made a
    :class:`~shared_schema.codes.Code` (a string outside the catalogue raises ValueError)."""

    __slots__ = (
        "actual_matches", "candidates", "code", "hint", "message", "nearest", "nearest_location",
        "related", "tolerances",
    )  # fmt: skip

    def __init__(
        self,
        code: Code | str,
        message: str,
        hint: str | None = None,
        candidates: list[LocationRecord] | None = None,
        nearest: str | None = None,
        nearest_location: LocationRecord | None = None,
        tolerances: list[str] | None = None,
        related: list[int] | None = None,
        actual_matches: int | None = None,
    ) -> None:
        self.code = Code(code)
        self.message = message
        self.hint = hint
        self.candidates = [] if candidates is None else candidates
        self.nearest = nearest
        self.nearest_location = nearest_location
        self.tolerances = [] if tolerances is None else tolerances
        self.related = [] if related is None else related
        self.actual_matches = actual_matches

    @classmethod
    def of_values(cls, values: dict[str, Any]) -> RefusalRecord:
        """``RefusalRecord(**values)`` (``Refusal.model_validate(values)`` of values of the
        fields' types)."""
        return cls(**values)

    @classmethod
    def from_error(cls, error: Any, hint: str | None = None) -> RefusalRecord:
        """The refusal an error stands for (``models.Refusal.from_error``): its code -- which must
        be in the catalogue -- and message, and ``hint`` if given."""
        return cls(Code(error.code), error.message, hint)

    def copy(self, **changes: Any) -> RefusalRecord:
        """A copy with ``changes`` (``model_copy(update=...)``)."""
        return RefusalRecord(**{**self.values(), **changes})

    def values(self) -> dict[str, Any]:
        return {
            "code": self.code, "message": self.message, "hint": self.hint,
            "candidates": self.candidates, "nearest": self.nearest,
            "nearest_location": self.nearest_location, "tolerances": self.tolerances,
            "related": self.related, "actual_matches": self.actual_matches,
        }  # fmt: skip

    def model(self) -> Refusal:
        from .construct import construct
        from .models import Refusal

        values = self.values()
        values["candidates"] = [c.model() for c in self.candidates]
        values["tolerances"] = list(self.tolerances)
        values["related"] = list(self.related)
        if self.nearest_location is not None:
            values["nearest_location"] = self.nearest_location.model()
        return construct(Refusal, values)

    @classmethod
    def of(cls, model: Refusal) -> RefusalRecord:
        near = model.nearest_location
        return cls(
            model.code, model.message, model.hint, [LocationRecord.of(c) for c in model.candidates],
            model.nearest, None if near is None else LocationRecord.of(near), list(model.tolerances),
            list(model.related), model.actual_matches,
        )  # fmt: skip


class ResultRecord(_Valued):
    """The outcome of one proposed edit (:class:`~shared_schema.models.EditResult`)."""

    __slots__ = (
        "anchor", "error", "id", "index", "locations", "match", "notes", "replacement", "status",
        "tolerances",
    )  # fmt: skip

    def __init__(
        self,
        index: int,
        id: str | None,
        anchor: str,
        replacement: str,
        status: EditStatus,
        match: MatchKind | None = None,
        tolerances: list[str] | None = None,
        locations: list[LocationRecord] | None = None,
        error: RefusalRecord | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self.index = index
        self.id = id
        self.anchor = anchor
        self.replacement = replacement
        self.status = status
        self.match = match
        self.tolerances = [] if tolerances is None else tolerances
        self.locations = [] if locations is None else locations
        self.error = error
        self.notes = [] if notes is None else notes

    def values(self) -> dict[str, Any]:
        return {
            "index": self.index, "id": self.id, "anchor": self.anchor,
            "replacement": self.replacement, "status": self.status, "match": self.match,
            "tolerances": self.tolerances, "locations": self.locations, "error": self.error,
            "notes": self.notes,
        }  # fmt: skip

    def model(self) -> EditResult:
        """The public :class:`~shared_schema.models.EditResult` (the report's entry)."""
        from .construct import construct
        from .models import EditResult

        values = self.values()
        values["tolerances"] = list(self.tolerances)
        values["locations"] = [loc.model() for loc in self.locations]
        values["error"] = None if self.error is None else self.error.model()
        values["notes"] = list(self.notes)
        return construct(EditResult, values)
