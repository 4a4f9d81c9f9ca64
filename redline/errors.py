"""The one family of refusals, and the one table of foreign exceptions and the codes they mean.

**Refusals.** Every refusal raised anywhere is a :class:`Refused`: a code of the catalogue
(:class:`shared_schema.Code`), a sentence a person understands, a hint (what to do instead) and
the zip member concerned, when one is; :attr:`Refused.refusal` is the same as the reports'
:class:`shared_schema.Refusal`.  Its kinds keep their names and constructors:
:class:`PackageError` (a document, or a target, refused: the package layer's own codes are
:data:`PACKAGE_CODES`), :class:`redline.tools.ToolError` (a tool call refused whole),
:class:`redline.tools.locks.LockError` (a lock not had), :class:`redline.write.arguments.ArgumentError`
(an author or date that cannot be written) and the command line's ``UsageError``.  The checks
raise them deliberately (``from None``), with the finest code they know.

**Foreign exceptions.** Below the checks sit libraries that raise what they like: lxml, zlib,
struct, the codecs, the operating system.  Those exceptions are *foreign*, and
:func:`foreign_table` says once, for each boundary (:class:`Where`), which code each one means;
:func:`map_foreign` words it.  The boundaries are :func:`boundary` (a stretch of reading a
package), ``redline_cli.common.run_command`` (a command), ``redline.tools.errors.call_error``
(a tool call), ``redline_review.job.run_document`` (a batch's job) and
``redline.opc.files.write_atomic`` (a file written): each only formats what :func:`map_foreign`
(or :func:`foreign_code`) gives.

**Bugs.** Our own exceptions (:data:`OURS`: ``KeyError``, ``IndexError``, ``ValueError``,
``AttributeError``, ``TypeError``, ``AssertionError``) and whatever the table does not name at a
boundary (``RuntimeError``, ``RecursionError``, ``MemoryError`` among them) are never
translated: they are bugs, which the boundaries report as bugs with the traceback --
``internal_error`` (exit 70 at the command line, in a tool's result), ``failed`` in a batch --
never as a code about the user's file; and a bug is never raised as a refusal.  An input the
layer must refuse is refused by an explicit check, never by catching one of ours.
(``UnicodeError`` is a ``ValueError`` but is raised by the codecs about their input: it is
foreign, and the table names it.)
"""

from __future__ import annotations

import contextlib
import functools
import struct
import zlib
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from shared_schema import Code

# lxml is imported when a foreign exception is mapped or a part refused, never at start-up:
# the command line's UsageError is a Refused, and `redline --help` imports no library
if TYPE_CHECKING:
    from lxml import etree

    from shared_schema import Refusal

__all__ = [
    "OURS",
    "PACKAGE_CODES",
    "PackageError",
    "Refused",
    "Where",
    "boundary",
    "foreign_code",
    "foreign_table",
    "lxml_refusal",
    "map_foreign",
    "quote_value",
    "refusal",
    "syntax_refusal",
    "too_deep",
]


class Refused(Exception):
    """A refusal: ``code`` is a catalogue code for programs, ``message`` a sentence a person
    understands, ``hint`` what to do instead (if said), ``part`` the zip member concerned (if
    one is). ``str(error) == error.message``; it pickles whole (a refusal that crosses a process
    pool or a cluster arrives with its code).

    ``code`` may be given as its string; a string the catalogue does not hold is a bug
    (``ValueError``)."""

    code: Code
    message: str
    hint: str | None
    part: str | None

    def __init__(
        self, code: Code | str, message: str, hint: str | None = None, part: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = Code(code)
        self.message = message
        self.hint = hint
        self.part = part

    def __str__(self) -> str:
        return self.message

    @property
    def refusal(self) -> Refusal:
        """The refusal as the reports carry it (code, message, hint)."""
        from shared_schema.models import Refusal

        return Refusal(code=self.code, message=self.message, hint=self.hint)

    def __reduce__(self) -> tuple[Any, ...]:
        # an exception pickles its args (here the message alone) and each kind has its own
        # constructor: rebuild it from its state, whatever the kind
        return (_rebuilt, (type(self), dict(self.__dict__)))


def _rebuilt(kind: type[Refused], state: dict[str, Any]) -> Refused:
    error = kind.__new__(kind)
    Exception.__init__(error, state.get("message", ""))
    error.__dict__.update(state)
    return error


class PackageError(Refused):
    """A document (or a target) was refused: ``code`` is a catalogue code (the package's own:
    :data:`redline.opc.package.CODES`), ``message`` a sentence a person understands, ``part``
    the zip member concerned (if one is). ``str(error) == error.message``."""

    def __init__(self, code: Code | str, message: str, part: str | None = None) -> None:
        super().__init__(code, message, None, part)

    def __reduce__(self) -> tuple[type[PackageError], tuple[Code, str, str | None]]:
        return (PackageError, (self.code, self.message, self.part))

    def __repr__(self) -> str:
        return f"PackageError(code={self.code.value!r}, message={self.message!r}, part={self.part!r})"


#: The codes the package layer refuses a document with (their meanings are the catalogue's,
#: :data:`shared_schema.MEANINGS`; :data:`redline.opc.package.CODES` pairs the two).
PACKAGE_CODES: Final[tuple[Code, ...]] = (
    Code.EMPTY_FILE,
    Code.NOT_A_ZIP,
    Code.TRUNCATED,
    Code.CORRUPT_ZIP,
    Code.UNSUPPORTED_ZIP,
    Code.OLE_FILE,
    Code.ENCRYPTED_MEMBER,
    Code.UNSUPPORTED_COMPRESSION,
    Code.MACRO_ENABLED,
    Code.MISSING_CONTENT_TYPES,
    Code.NO_MAIN_DOCUMENT,
    Code.STRICT_OOXML,
    Code.NOT_WORDPROCESSING,
    Code.DUPLICATE_PART,
    Code.UNSAFE_PART_NAME,
    Code.MISSING_PART,
    Code.TOO_LARGE,
    Code.COMPRESSION_RATIO,
    Code.TOO_MANY_MEMBERS,
    Code.CRC_MISMATCH,
    Code.CORRUPT_MEMBER,
    Code.INFLATE_BUDGET,
    Code.DTD_FORBIDDEN,
    Code.MALFORMED_XML,
    Code.TOO_DEEP,
    Code.XML_NODE_TOO_LARGE,
    Code.WRONG_PART_KIND,
    Code.TOO_COMPLEX,
    Code.IO_ERROR,
    Code.NOT_REGULAR_FILE,
    Code.MARKUP_IN_TEXT,
    Code.TOO_MUCH_TEXT,
    Code.TOO_MANY_NAMESPACES,
)

#: Exceptions only our own code raises: a bug, never translated into a code about the input.
OURS: Final = (KeyError, IndexError, ValueError, AttributeError, TypeError, AssertionError)


class Where(StrEnum):
    """The boundaries a foreign exception is met at (the table's columns)."""

    PACKAGE = "package"  # reading a document's package: errors.boundary()
    COMMAND = "command"  # a command of the command line: redline_cli.common.run_command
    TOOL = "tool"  # a tool call: redline.tools.errors.call_error
    JOB = "job"  # a batch's per-document job, on bytes: redline_review.job.run_document
    WRITE = "write"  # writing a file in place: redline.opc.files.write_atomic


@functools.cache
def foreign_table() -> tuple[tuple[type[BaseException], Mapping[Where, Code]], ...]:
    """What each foreign exception means at each boundary, first match wins.  A boundary a row
    does not name does not expect that exception: met there, it is a bug of ours.

    * lxml, zlib, struct and ``EOFError`` come from reading a package, and mean its damage only
      there (the package layer reads zips itself: ``zipfile`` is never called, so never met).
    * ``UnicodeError`` means what it was decoding: a zip member's name (``corrupt_zip``), the
      command line's files or terminal, or a file name being written (``io_error``), or a tool's
      argument -- text no file name can hold, such as a lone surrogate (``invalid_arguments``).
      A job is given bytes, so a codec failing there is ours.
    * ``OSError`` (``FileNotFoundError``, ``PermissionError``, ``IsADirectoryError``...) is the
      operating system's: ``io_error`` everywhere, its own words in the message.
    * ``MemoryError`` and ``RecursionError`` are absent on purpose: the package layer's limits
      (size, inflation, 256 levels of XML) refuse an input too large or too deep; reaching
      either means a limit is missing, a bug to fix from its traceback.
    """
    from lxml import etree

    package, command, tool, write = Where.PACKAGE, Where.COMMAND, Where.TOOL, Where.WRITE
    decoding = {
        package: Code.CORRUPT_ZIP,
        command: Code.IO_ERROR,
        tool: Code.INVALID_ARGUMENTS,
        write: Code.IO_ERROR,
    }
    return (
        # refined by syntax_refusal: too_deep, xml_node_too_large, else malformed_xml
        (etree.XMLSyntaxError, {package: Code.MALFORMED_XML}),
        (etree.LxmlError, {package: Code.MALFORMED_XML}),
        (zlib.error, {package: Code.CORRUPT_MEMBER}),
        (struct.error, {package: Code.CORRUPT_ZIP}),
        (UnicodeError, decoding),  # not met in a job, which is given bytes
        (EOFError, {package: Code.TRUNCATED}),
        (OSError, {where: Code.IO_ERROR for where in Where}),
    )


def foreign_code(exc: BaseException, where: Where = Where.PACKAGE) -> Code | None:
    """The code :func:`foreign_table` gives ``exc`` at ``where``, or None when it is not foreign there."""
    for kind, codes in foreign_table():
        if isinstance(exc, kind):
            return codes.get(where)
    return None


def map_foreign(exc: BaseException, where: Where, part: str | None = None) -> Refusal | None:
    """The refusal a foreign ``exc`` met at ``where`` means (``part``: the zip member being
    read, for :attr:`Where.PACKAGE`), worded for that boundary's reader; None for anything the
    table does not name there -- a bug of ours, which must propagate (or be reported
    ``internal_error``).  A :class:`Refused` is not foreign: it is its own refusal."""
    if isinstance(exc, Refused):
        return exc.refusal
    found = _foreign_refused(exc, where, part)
    return None if found is None else found.refusal


def _foreign_refused(exc: BaseException, where: Where, part: str | None) -> Refused | None:
    code = foreign_code(exc, where)
    if code is None:
        return None
    if where is Where.PACKAGE:
        return refusal(exc, part)
    if isinstance(exc, OSError):
        strerror = exc.strerror or exc
        if where is Where.TOOL:
            shown = f" on {quote_value(str(exc.filename))}" if exc.filename is not None else ""
            return Refused(
                code,
                f"A file could not be read or written{shown}: {strerror}.",
                "Check that the path and its folder exist and are accessible, then try again.",
            )
        shown = f" {exc.filename!r}" if exc.filename is not None else ""
        return Refused(code, f"Input or output failed{shown}: {strerror}.")
    if where is Where.TOOL:  # a codec's, on an argument
        return Refused(
            code,
            f"An argument holds text that cannot be used ({type(exc).__name__}: {exc}).",
            "Pass paths and texts as plain Unicode text, without lone surrogates.",
        )
    return Refused(code, f"Text could not be read or written in its encoding: {exc}.")


def quote_value(value: object, limit: int = 80) -> str:
    """A value as a refusal quotes it: its JSON, cut to ``limit`` characters."""
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# libxml2's XML_ERR_RESOURCE_LIMIT, and the messages of the size limits that huge_tree lifts.
_ERR_RESOURCE_LIMIT = 114
_TOO_BIG_MARKERS = ("XML_PARSE_HUGE", "too big", "too long", "Huge input")


def too_deep(part: str) -> PackageError:
    """The refusal for a part nested deeper than a tree parse allows (256 levels)."""
    return PackageError(
        Code.TOO_DEEP,
        f"The part {part} nests its XML elements deeper than the parser allows (256 levels); "
        "no real document does that, so the file is refused.",
        part,
    )


def syntax_refusal(exc: etree.XMLSyntaxError, part: str) -> PackageError:
    """The refusal for a part libxml2 rejected: ``too_deep``, ``xml_node_too_large`` or
    ``malformed_xml``, by what libxml2 says."""
    msg = str(exc.msg or exc).strip()
    if "Excessive depth" in msg:
        return too_deep(part)
    limit_hit = getattr(exc, "code", None) == _ERR_RESOURCE_LIMIT
    if limit_hit or any(marker in msg for marker in _TOO_BIG_MARKERS):
        return PackageError(
            Code.XML_NODE_TOO_LARGE,
            f"The part {part} contains a single text, attribute, comment or CDATA value larger "
            "than the parser's 10 MB limit; the file is refused.",
            part,
        )
    return PackageError(
        Code.MALFORMED_XML,
        f"The part {part} is not well-formed XML ({msg}).",
        part,
    )


def lxml_refusal(exc: etree.LxmlError, part: str | None) -> PackageError:
    """The refusal for a part lxml could not parse (:func:`syntax_refusal`, or ``malformed_xml``)."""
    from lxml import etree

    if isinstance(exc, etree.XMLSyntaxError):
        return syntax_refusal(exc, part or "(unknown)")
    where = f"The part {part}" if part else "The file"
    return PackageError(Code.MALFORMED_XML, f"{where} is not well-formed XML ({exc}).", part)


def refusal(exc: BaseException, part: str | None) -> PackageError | None:
    """The refusal a foreign ``exc`` met while reading ``part`` (None: the file) means, or None
    for any other exception (ours among them), which must propagate."""
    code = foreign_code(exc)
    if code is None:
        return None
    from lxml import etree

    if isinstance(exc, etree.LxmlError):
        return lxml_refusal(exc, part)
    where = f"the part {part}" if part else "the file"
    if code is Code.CORRUPT_MEMBER:
        return PackageError(code, f"The file is damaged: the data of {where} cannot be inflated.", part)
    if code is Code.TRUNCATED:
        return PackageError(code, f"The file is damaged or truncated: {where} ends too early.", part)
    if code is Code.IO_ERROR:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        return PackageError(code, f"The file could not be read: {detail}.", part)
    return PackageError(
        code,
        f"The file is damaged: {where} could not be read ({type(exc).__name__}).",
        part,
    )


@contextlib.contextmanager
def boundary(part: str | None) -> Iterator[None]:
    """Turn a foreign exception raised inside into its :func:`refusal` (the table's
    :attr:`Where.PACKAGE` column; chained: an input the checks did not foresee); a
    :class:`Refused` and every other exception pass."""
    try:
        yield
    except Refused:
        raise
    except Exception as exc:
        found = refusal(exc, part)
        if found is None:
            raise
        raise found from exc
