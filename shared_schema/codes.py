"""The one catalogue of codes a user, a script or a model can see, and the statuses built on it.

:class:`Code` lists every code -- a document refused, an edit not applied, a tool call refused,
a command line used wrongly, a bug of ours -- with its one-line meaning in :data:`MEANINGS`
(pydantic-core's single ``ErrorType`` list is the model).  :class:`EditStatus` and
:class:`QuoteStatus` are the outcomes of one edit or quote; every refusal among them is a code
of the catalogue too (the report's ``error.code`` is the status, or a finer code).

These strings are public: reports, tool results and ``redline stats`` group by them.
Add new codes freely (with a meaning); never rename or remove one.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Final


class Code(StrEnum):
    """Every refusal and error code, in one list (meanings: :data:`MEANINGS`)."""

    # -- a document refused (nothing written, exit 3) ------------------------------------------
    EMPTY_FILE = "empty_file"
    NOT_A_ZIP = "not_a_zip"
    TRUNCATED = "truncated"
    CORRUPT_ZIP = "corrupt_zip"
    UNSUPPORTED_ZIP = "unsupported_zip"
    OLE_FILE = "ole_file"
    ENCRYPTED_MEMBER = "encrypted_member"
    UNSUPPORTED_COMPRESSION = "unsupported_compression"
    MACRO_ENABLED = "macro_enabled"
    MISSING_CONTENT_TYPES = "missing_content_types"
    NO_MAIN_DOCUMENT = "no_main_document"
    STRICT_OOXML = "strict_ooxml"
    NOT_WORDPROCESSING = "not_wordprocessing"
    DUPLICATE_PART = "duplicate_part"
    UNSAFE_PART_NAME = "unsafe_part_name"
    MISSING_PART = "missing_part"
    TOO_LARGE = "too_large"
    COMPRESSION_RATIO = "compression_ratio"
    TOO_MANY_MEMBERS = "too_many_members"
    CRC_MISMATCH = "crc_mismatch"
    CORRUPT_MEMBER = "corrupt_member"
    INFLATE_BUDGET = "inflate_budget"
    DTD_FORBIDDEN = "dtd_forbidden"
    MALFORMED_XML = "malformed_xml"
    TOO_DEEP = "too_deep"
    XML_NODE_TOO_LARGE = "xml_node_too_large"
    WRONG_PART_KIND = "wrong_part_kind"
    TOO_COMPLEX = "too_complex"
    IO_ERROR = "io_error"
    OUTPUT_IS_INPUT = "output_is_input"
    UNPARSEABLE_REPLY = "unparseable_reply"
    NOT_REGULAR_FILE = "not_regular_file"
    MARKUP_IN_TEXT = "markup_in_text"
    TOO_MUCH_TEXT = "too_much_text"
    TOO_MANY_NAMESPACES = "too_many_namespaces"
    UNLOADABLE_OUTPUT = "unloadable_output"
    CONVERSION_FAILED = "conversion_failed"
    # -- a warning: the work went on, the result says what it could not see -------------------
    LOSSY_CONVERSION = "lossy_conversion"
    # -- one edit or quote not applied / verified ----------------------------------------------
    NOT_FOUND = "not_found"
    AMBIGUOUS = "ambiguous"
    COUNT_MISMATCH = "count_mismatch"
    OUT_OF_SCOPE = "out_of_scope"
    OVERLAP = "overlap"
    NO_CHANGE = "no_change"
    STALE = "stale"
    INVALID = "invalid"
    UNSUPPORTED = "unsupported"
    DELETED_TEXT = "deleted_text"  # (status not_found) the anchor is in someone's tracked deletion
    # -- a tool call refused (redline mcp, redline.tools) --------------------------------------
    UNKNOWN_TOOL = "unknown_tool"
    INVALID_ARGUMENTS = "invalid_arguments"
    INVALID_RANGE = "invalid_range"
    INVALID_EDITS = "invalid_edits"
    MISSING_REVISION = "missing_revision"
    OUTSIDE_ROOT = "outside_root"
    NOT_FOUND_FILE = "not_found_file"
    NOT_FOUND_FOLDER = "not_found_folder"
    NOT_A_FILE = "not_a_file"
    REGION_TOO_LARGE = "region_too_large"
    SECTION_NOT_FOUND = "section_not_found"
    AMBIGUOUS_SECTION = "ambiguous_section"
    LOCK_FAILED = "lock_failed"
    BUSY = "busy"
    OUTPUT_NOT_DOCUMENT = "output_not_document"
    # -- the command line and batches ----------------------------------------------------------
    USAGE = "usage"
    FAILED = "failed"
    MISSING_REPLY = "missing_reply"
    MISSING_DOCUMENT = "missing_document"
    INVALID_FILE_NAME = "invalid_file_name"
    DUPLICATE_NAME = "duplicate_name"
    AMBIGUOUS_REPLY = "ambiguous_reply"
    AMBIGUOUS_VERSION = "ambiguous_version"
    MISSING_RETURNED = "missing_returned"
    MISSING_SENT = "missing_sent"
    AMBIGUOUS_RETURNED = "ambiguous_returned"
    MALFORMED_REPORT = "malformed_report"
    # -- ours ----------------------------------------------------------------------------------
    INTERNAL_ERROR = "internal_error"


MEANINGS: Final[Mapping[Code, str]] = MappingProxyType(
    {
        Code.EMPTY_FILE: "the file has no bytes",
        Code.NOT_A_ZIP: "not a zip archive at all",
        Code.TRUNCATED: "a zip archive whose end (central directory) is missing or cut",
        Code.CORRUPT_ZIP: "the zip's own records disagree with each other",
        Code.UNSUPPORTED_ZIP: "zip64 or a multi-volume archive",
        Code.OLE_FILE: "an OLE compound file: an encrypted .docx or a legacy .doc",
        Code.ENCRYPTED_MEMBER: "a zip member is encrypted",
        Code.UNSUPPORTED_COMPRESSION: "a member uses a method other than stored or deflate",
        Code.MACRO_ENABLED: "a macro-enabled document: a macro content type (Default or Override), "
        "a macro relationship type, or a vbaProject.bin member",
        Code.MISSING_CONTENT_TYPES: "a zip without [Content_Types].xml",
        Code.NO_MAIN_DOCUMENT: "no package relationships, no officeDocument relationship, "
        "or its target is missing",
        Code.STRICT_OOXML: "an ISO 29500 Strict document (refused by name)",
        Code.NOT_WORDPROCESSING: "an Office package whose main part is not a Word document",
        Code.DUPLICATE_PART: "two members with the same name, or names equal ignoring case",
        Code.UNSAFE_PART_NAME: "an empty, absolute, drive-letter, backslash, dot-segment or "
        "control-character member name",
        Code.MISSING_PART: "a part named by the caller is not in the package",
        Code.TOO_LARGE: "the file, a declared member size or the total declared size is over the limits",
        Code.COMPRESSION_RATIO: "a large member declares a compression ratio over the limit",
        Code.TOO_MANY_MEMBERS: "more members than the limit",
        Code.CRC_MISMATCH: "a member's inflated bytes disagree with its declared CRC or size",
        Code.CORRUPT_MEMBER: "a member's compressed data cannot be inflated",
        Code.INFLATE_BUDGET: "inflating produced more bytes than the budget",
        Code.DTD_FORBIDDEN: "an XML part declares a DOCTYPE",
        Code.MALFORMED_XML: "an XML part is not well-formed",
        Code.TOO_DEEP: "an XML part nests elements deeper than the parser allows",
        Code.XML_NODE_TOO_LARGE: "a single XML text node, attribute or comment over 10 MB",
        Code.WRONG_PART_KIND: "a relationship points at a part of the wrong kind",
        Code.TOO_COMPLEX: "more XML tags or paragraphs than any real document has",
        Code.IO_ERROR: "the file cannot be read, or the output cannot be written",
        Code.OUTPUT_IS_INPUT: "an output path is an input (the document, the reply) or another output",
        Code.UNPARSEABLE_REPLY: "the reply holds no usable JSON list of edits (or summary)",
        Code.NOT_REGULAR_FILE: "an input is not a regular file (a folder, a FIFO, a device, a socket)",
        Code.MARKUP_IN_TEXT: "a text element (w:t, w:delText, ...) holds a comment, a processing "
        "instruction or an element, which no reader could edit faithfully",
        Code.TOO_MUCH_TEXT: "the document's text (every story, summed) is over Limits.max_text_chars",
        Code.TOO_MANY_NAMESPACES: "an XML part declares more namespaces than Limits.max_namespaces",
        Code.UNLOADABLE_OUTPUT: "the edited document would be refused by the loader itself, so it "
        "is not written",
        Code.CONVERSION_FAILED: "a .doc, .rtf or .odt input could not be converted to .docx "
        "(LibreOffice missing, failed, or over its time limit)",
        Code.LOSSY_CONVERSION: "a converted input lost tracked changes, moves or comments on the "
        "way to .docx (the warning says what)",
        Code.NOT_FOUND: "the anchor or quote is not in the document, even tolerantly",
        Code.DELETED_TEXT: "the anchor is text another author deleted (a tracked deletion or move)",
        Code.AMBIGUOUS: "the anchor occurs more than once and no expected count was given",
        Code.COUNT_MISMATCH: "the anchor occurs a number of times other than expected_matches",
        Code.OUT_OF_SCOPE: "the anchor occurs, but not in the section the edit names",
        Code.OVERLAP: "the edit's place overlaps another edit of the same reply",
        Code.NO_CHANGE: "the replacement equals the text it would replace",
        Code.STALE: "the reply was made for another revision of the document",
        Code.INVALID: "the reply entry is not a usable edit (missing or wrong fields)",
        Code.UNSUPPORTED: "the edit touches what cannot be edited safely (a field's result, a tracked move)",
        Code.UNKNOWN_TOOL: "no tool has that name",
        Code.INVALID_ARGUMENTS: "a tool's arguments are missing, unknown or of the wrong type",
        Code.INVALID_RANGE: "a paragraph range that is malformed or outside the document",
        Code.INVALID_EDITS: "the edits argument is not a list of edits",
        Code.MISSING_REVISION: "apply_edits was called without the revision read_region gave",
        Code.OUTSIDE_ROOT: "a path outside the folder the tools may open",
        Code.NOT_FOUND_FILE: "no document at that path",
        Code.NOT_FOUND_FOLDER: "the output's folder does not exist",
        Code.NOT_A_FILE: "the path is a folder or another non-regular file",
        Code.REGION_TOO_LARGE: "the region asked for is over the tool's size limit",
        Code.SECTION_NOT_FOUND: "no section has that label or heading",
        Code.AMBIGUOUS_SECTION: "several sections have that label or heading (a tool's `section`, or an "
        "edit's: status out_of_scope, the hint naming each by a citation of its own)",
        Code.LOCK_FAILED: "the document's lock file could not be taken",
        Code.BUSY: "the document's lock was not obtained in time: another call is using it",
        Code.OUTPUT_NOT_DOCUMENT: "the output names a file that is not a .docx the tools would open",
        Code.USAGE: "the command line was used wrongly (exit 2)",
        Code.FAILED: "a batch job failed (a bug, or a worker lost twice)",
        Code.MISSING_REPLY: "a batch holds a document without its reply file (NAME.reply.json)",
        Code.MISSING_DOCUMENT: "a batch holds a reply file without its document (NAME.docx)",
        Code.INVALID_FILE_NAME: "a batch file name that is not valid UTF-8 (reported escaped, not read)",
        Code.DUPLICATE_NAME: "batch documents whose names differ only by case (their outputs would collide)",
        Code.AMBIGUOUS_REPLY: "a batch document with two reply files (NAME.reply.json and .txt/.md)",
        Code.AMBIGUOUS_VERSION: "a batch document with both a reply file and a new version to compare "
        "(NAME.new.docx): redline it or compare it, not both",
        Code.MISSING_RETURNED: "a batch holds the redline we sent (NAME.sent.docx) without what came "
        "back (NAME.returned.docx, .doc, .rtf or .odt) to reconcile it with",
        Code.MISSING_SENT: "a batch holds what came back (NAME.returned.*) without the redline we sent "
        "(NAME.sent.docx)",
        Code.AMBIGUOUS_RETURNED: "a batch round with two returned files (NAME.returned.docx and .doc, "
        ".rtf or .odt): keep one",
        Code.MALFORMED_REPORT: "a report given to redline stats is not a JSON report (binary, too "
        "deep, not an object)",
        Code.INTERNAL_ERROR: "a bug in redline, not in the input: the traceback is in the log",
    }
)


class EditStatus(StrEnum):
    """What happened to one proposed edit (the report's ``status``); every status but the two
    successes is a :class:`Code` of the same name."""

    APPLIED = "applied"
    VERIFIED = "verified"  # --dry-run: located and would apply
    NOT_FOUND = "not_found"
    AMBIGUOUS = "ambiguous"
    COUNT_MISMATCH = "count_mismatch"
    OUT_OF_SCOPE = "out_of_scope"
    OVERLAP = "overlap"
    NO_CHANGE = "no_change"
    STALE = "stale"
    INVALID = "invalid"
    UNSUPPORTED = "unsupported"

    @property
    def ok(self) -> bool:
        return self in (EditStatus.APPLIED, EditStatus.VERIFIED)

    @property
    def code(self) -> Code | None:
        """The catalogue's code of this status: the refusal's ``error.code`` (None for the two
        successes)."""
        return _CODE_OF_STATUS.get(self)


_CODE_OF_STATUS: Final[Mapping[EditStatus, Code]] = MappingProxyType(
    {status: Code(status.value) for status in EditStatus if not status.ok}
)


class QuoteStatus(StrEnum):
    """What happened to one quote of a summary (``not_found`` is :attr:`Code.NOT_FOUND`)."""

    VERIFIED = "verified"
    NOT_FOUND = "not_found"


class ChangeStatus(StrEnum):
    """What happened to one difference ``redline compare`` found (a change's ``status``)."""

    WRITTEN = "written"  # written as a tracked change
    UNSUPPORTED = "unsupported"  # not written: its ``code`` says why


class OurOutcome(StrEnum):
    """What the other side did with one change of ours (``redline reconcile``: a change's
    ``outcome`` in ``ours``)."""

    ACCEPTED = "accepted"  # gone from the tracked changes, its text kept
    REJECTED = "rejected"  # gone, the text as it was before our change
    PENDING = "pending"  # still tracked, as we sent it
    MODIFIED = "modified"  # they changed it: ``tracked`` says whether as tracked changes


class ToolStatus(StrEnum):
    """What an ``apply_edits`` call did (its result's ``status``)."""

    APPLIED = "applied"  # every edit
    PARTIAL = "partial"  # some edits
    UNAPPLIED = "unapplied"  # none (the result is flagged isError)
    STALE = "stale"  # the whole call refused: the document changed since it was read


class CallOutcome(StrEnum):
    """A tool call in the call log (its ``outcome``, with its ``error_code`` when refused): a
    :class:`ToolStatus` when the call returned one, else one of these."""

    OK = "ok"  # it ran (read_region)
    REFUSED = "refused"  # refused whole: error_code says why


class BatchOutcome(StrEnum):
    """What happened to one document of a batch (summary.json's ``outcome``; when the document
    was refused or failed, its ``code`` stands beside it)."""

    APPLIED = "applied"  # every edit applied
    COMPARED = "compared"  # compared with its new version, every change written
    RECONCILED = "reconciled"  # a round (NAME.sent.docx, NAME.returned.*) reconciled; its exit says if clean
    UNAPPLIED = "unapplied"  # the run completed; some edits (or changes) were not
    REFUSED = "refused"  # the document, its reply or its pairing was refused as a whole
    FAILED = "failed"  # the job itself failed: a bug, or a worker lost twice


class PointStatus(StrEnum):
    """What the check found for one point of a summary.  ``UNQUOTED`` -- a point that quotes
    nothing -- is spelled ``"unsupported"`` in the JSON (a summary point supported by no quote),
    which is not :attr:`Code.UNSUPPORTED`."""

    VERIFIED = "verified"  # every quote found
    UNVERIFIED = "unverified"  # a quote was not found
    UNQUOTED = "unsupported"  # the point cites no quote at all


class MatchKind(StrEnum):
    """How an anchor or quote was found."""

    EXACT = "exact"
    NORMALIZED = "normalized"


class Tolerance(StrEnum):
    """The only differences the tolerant match forgives (see ARCHITECTURE.md)."""

    WHITESPACE = "whitespace"
    QUOTES = "quotes"
    DASHES = "dashes"
    INVISIBLE = "invisible"  # soft hyphens, zero-width characters
    ELLIPSIS = "ellipsis"
    # Not a normalisation: the quote began with the displayed clause label of the paragraph it
    # matches ("2.2 Standard of Care..."), which is not the document's text and was left out.
    LABEL = "label"
