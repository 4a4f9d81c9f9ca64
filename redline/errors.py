"""The trust boundary's one error, and the one mapping of foreign exceptions to codes.

Every document the package layer refuses is refused with a :class:`PackageError`: a code of
the catalogue (:class:`shared_schema.Code`; the package's own are :data:`PACKAGE_CODES`), a
sentence a person understands and the zip member concerned.  The layer's own checks raise it
deliberately (``from None``), with the finest code they know.

Below them sit libraries that raise what they like: lxml, zlib, struct, the codecs, the
operating system.  Those exceptions are *foreign*, and :data:`FOREIGN` says once which code
each one means; :func:`refusal` words it and :func:`boundary` applies it around a stretch of
reading (the original chained: reaching it means an input the checks did not foresee).

Our own exceptions (:data:`OURS`: ``KeyError``, ``IndexError``, ``ValueError``,
``AttributeError``, ``TypeError``, ``AssertionError``) are never translated: they are bugs,
which the callers above report as ``internal_error`` with the traceback, never as a code about
the user's file.  An input the layer must refuse is refused by an explicit check, never by
catching one of ours.  (``UnicodeError`` is a ``ValueError`` but is raised by the codecs about
their input: it is foreign, and :data:`FOREIGN` names it first.)
"""

from __future__ import annotations

import contextlib
import struct
import zlib
from collections.abc import Iterator
from typing import Final

from lxml import etree

from shared_schema import Code

__all__ = [
    "FOREIGN",
    "OURS",
    "PACKAGE_CODES",
    "PackageError",
    "boundary",
    "foreign_code",
    "is_ours",
    "lxml_refusal",
    "refusal",
    "syntax_refusal",
]


class PackageError(Exception):
    """A document was refused: ``code`` is a catalogue code for programs (the package's own:
    :data:`redline.opc.package.CODES`), ``message`` a sentence a person understands, ``part`` the
    zip member concerned (if one is). ``str(error) == error.message``.

    ``code`` may be given as its string; a string the catalogue does not hold is a bug
    (``ValueError``)."""

    code: Code
    message: str
    part: str | None

    def __init__(self, code: Code | str, message: str, part: str | None = None) -> None:
        super().__init__(message)
        self.code = Code(code)
        self.message = message
        self.part = part

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[type[PackageError], tuple[Code, str, str | None]]:
        # an exception pickles its args (here the message alone): a refusal that crosses a
        # process pool or a cluster must arrive with its code and part
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

#: What each foreign exception means about the input, first match wins.  (``zipfile`` is
#: absent: the package layer reads zips itself and never calls it.)
FOREIGN: Final[tuple[tuple[type[Exception], Code], ...]] = (
    # refined by syntax_refusal: too_deep, xml_node_too_large, else malformed_xml
    (etree.XMLSyntaxError, Code.MALFORMED_XML),
    (etree.LxmlError, Code.MALFORMED_XML),
    (zlib.error, Code.CORRUPT_MEMBER),
    (struct.error, Code.CORRUPT_ZIP),
    (UnicodeError, Code.CORRUPT_ZIP),
    (EOFError, Code.TRUNCATED),
    (OSError, Code.IO_ERROR),
)


def foreign_code(exc: BaseException) -> Code | None:
    """The code :data:`FOREIGN` gives ``exc``, or None when it names no such exception."""
    for kind, code in FOREIGN:
        if isinstance(exc, kind):
            return code
    return None


def is_ours(exc: BaseException) -> bool:
    """True for an exception of ours (:data:`OURS`, and not one :data:`FOREIGN` names)."""
    return isinstance(exc, OURS) and foreign_code(exc) is None


# libxml2's XML_ERR_RESOURCE_LIMIT, and the messages of the size limits that huge_tree lifts.
_ERR_RESOURCE_LIMIT = 114
_TOO_BIG_MARKERS = ("XML_PARSE_HUGE", "too big", "too long", "Huge input")


def syntax_refusal(exc: etree.XMLSyntaxError, part: str) -> PackageError:
    """The refusal for a part libxml2 rejected: ``too_deep``, ``xml_node_too_large`` or
    ``malformed_xml``, by what libxml2 says."""
    msg = str(exc.msg or exc).strip()
    if "Excessive depth" in msg:
        return PackageError(
            Code.TOO_DEEP,
            f"The part {part} nests its XML elements deeper than the parser allows (256 levels); "
            "no real document does that, so the file is refused.",
            part,
        )
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
    """Turn a foreign exception raised inside into its :func:`refusal` (chained: an input the
    checks did not foresee); a :class:`PackageError` and every other exception pass."""
    try:
        yield
    except PackageError:
        raise
    except Exception as exc:
        found = refusal(exc, part)
        if found is None:
            raise
        raise found from exc
