"""Safe .docx package I/O: the trust boundary, and the byte-faithful save.

A :class:`Package` is a loaded, checked .docx, and it is read-only: its bytes, its members and
what OPC says about them never change after the load.  It is the top of a stack of layers,
each one concept:

* :mod:`redline.errors` -- :class:`PackageError` and the one mapping of foreign exceptions
  (lxml, zlib, struct, the codecs, the OS) to codes; our own exceptions are never translated;
* :mod:`redline.opc.zipread` -- the zip's central directory read by our own reader, every declared
  size, name and flag checked against :class:`Limits` **before** anything is inflated, and
  inflation under a budget that counts the bytes actually produced (``zlib.decompressobj``
  with ``max_length``; declared sizes are never trusted), each CRC verified, or a stretch at
  a time (:meth:`Package.stream`);
* :mod:`redline.opc` -- part names, content types, relationships, the main part;
* :mod:`redline.opc.zipwrite` -- the byte-faithful save;
* :mod:`redline.opc.working` -- the :class:`~redline.opc.working.WorkingCopy` a write changes (never
  the package's own trees);
* :mod:`redline.opc.files` -- :func:`write_atomic`, the all-or-nothing write to disk.

Loading (:meth:`Package.from_bytes`, :meth:`Package.open`) reads and checks the zip, reads
``[Content_Types].xml`` and ``_rels/.rels``, finds the main part, then inflates every other
XML part and checks its prolog for a DOCTYPE and its tags against :attr:`Limits.max_markup`.
XML is parsed lazily (:meth:`Package.xml`, shared and never changed; :meth:`Package.fresh_xml`,
the caller's) with the one safe parser of :mod:`redline.opc.xmlparse`. Binary members (images,
embeddings) are inflated only when someone reads them, under the same budget.

Saving (:meth:`Package.to_bytes`) copies every member that did not change byte for byte — local
header, compressed data and data descriptor straight from the source, its central-directory
record with only the offset patched — in the original order; changed members are compressed
anew (same method: deflated stays deflated, stored stays stored) in their original position;
added members go after the last one. :func:`write_atomic` puts the result on disk through a
temporary file in the same folder, fsync and ``os.replace``.

Every refusal is a :class:`PackageError` with a catalogue ``code``, a ``message`` a person
understands and the ``part`` concerned. No ``BadZipFile``, ``XMLSyntaxError``, ``zlib.error``,
``OSError`` or ``UnicodeDecodeError`` escapes :meth:`Package.open`, :meth:`Package.from_bytes`,
:meth:`Package.read` or :meth:`Package.xml`; a ``KeyError``, ``IndexError``, ``ValueError``,
``TypeError``... from inside is a bug of ours and propagates as it is.

Refusal codes (also :data:`CODES`):

==========================  ================================================================
code                        when
==========================  ================================================================
``empty_file``              the file has no bytes
``not_a_zip``               not a zip archive at all (plain text, PDF, RTF, random bytes, ...)
``truncated``               a zip archive whose end (central directory) is missing or cut
``corrupt_zip``             the zip's own records disagree (bad signatures, local header vs
                            central directory, overlapping members, bad data descriptor)
``unsupported_zip``         zip64 or a multi-volume archive (no .docx needs them)
``ole_file``                an OLE compound file: an encrypted .docx or a legacy .doc
``encrypted_member``        a zip member is encrypted
``unsupported_compression`` a member uses a method other than stored (0) or deflate (8)
``macro_enabled``           a macro-enabled document: a .docm/.dotm main part, a member whose
                            content type (Override or Default) is macro content (a VBA
                            project, its signature or its data), a
                            relationship of such a type, or a ``vbaProject.bin`` member
``missing_content_types``   a zip without ``[Content_Types].xml``: not an Office package
``no_main_document``        no ``_rels/.rels``, no officeDocument relationship, or its target
                            is missing
``strict_ooxml``            an ISO 29500 Strict document (refused by name: the view and the
                            writer speak Transitional WordprocessingML only)
``not_wordprocessing``      an Office package whose main part is not a Word document
                            (.xlsx, .pptx, ...)
``duplicate_part``          two members with the same name, or names equal ignoring case
                            (OPC part names are case-insensitive)
``unsafe_part_name``        a member name that is empty, absolute, has a drive letter, a
                            backslash, a ``.``/``..`` segment or a control character
``missing_part``            :meth:`Package.read` / :meth:`Package.to_bytes` named a part the
                            package does not have
``too_large``               the file, a member's declared size, or the total declared size is
                            over :class:`Limits`
``compression_ratio``       a large member declares a compression ratio over the limit
``too_many_members``        more members than :attr:`Limits.max_members`
``crc_mismatch``            a member's inflated bytes disagree with its declared CRC or size
``corrupt_member``          a member's compressed data cannot be inflated (broken stream)
``inflate_budget``          inflating produced more bytes than the budget, whatever the sizes
                            declared
``dtd_forbidden``           an XML part declares a DOCTYPE (entities, XXE, billion laughs)
``malformed_xml``           an XML part is not well-formed
``too_deep``                an XML part nests elements deeper than libxml2 allows (256)
``xml_node_too_large``      a single text node / attribute / comment over libxml2's 10 MB
``wrong_part_kind``         a relationship points at a part of the wrong kind (a comments
                            relationship to the main document or to styles.xml)
``too_complex``             more XML tags (summed over the XML parts) than
                            :attr:`Limits.max_markup`, or more paragraphs than the view reads
``io_error``                the file cannot be read, or the output cannot be written
``not_regular_file``        the path is a folder, a FIFO, a device or a socket (decided by
                            ``fstat`` before anything is read)
``markup_in_text``          a text element (``w:t``...) holds a comment, a processing
                            instruction or an element: no reader could edit it faithfully
``too_much_text``           more text, over every story, than :attr:`Limits.max_text_chars`
``too_many_namespaces``     an XML part declares more namespaces than
                            :attr:`Limits.max_namespaces`
==========================  ================================================================
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from types import MappingProxyType
from typing import Final

from lxml import etree

from shared_schema import MEANINGS, Code

from ..errors import PACKAGE_CODES, PackageError, boundary
from .files import write_atomic
from .inputs import read_regular
from .namespaces import W_STRICT_NS
from .parts import (
    NameCheck,
    Opc,
    PartNames,
    Relationship,
    check_macro_members,
    check_macro_relationships,
    check_macro_types,
    name_key,
    parse_rels,
    read_opc,
    rels_part_for,
    unsafe_reason,
)
from .xmlparse import dtd_refusal, find_doctype, parse_xml, parser_limits
from .zipread import DEFAULT_LIMITS, Archive, Limits
from .zipwrite import rewrite

__all__ = [
    "CODES",
    "Limits",
    "Package",
    "PackageError",
    "Relationship",
    "rels_part_for",
    "write_atomic",
]

#: Every code a document can be refused with, and its meaning (from the one catalogue,
#: :class:`shared_schema.Code` and :data:`shared_schema.MEANINGS`).
CODES: Final[Mapping[Code, str]] = MappingProxyType({code: MEANINGS[code] for code in PACKAGE_CODES})


#: A namespace declaration: ``xmlns`` or ``xmlns:p`` as an attribute name (after whitespace,
#: before ``=``).
_XMLNS_DECL: Final = re.compile(rb"[ \t\r\n]xmlns(?::[^ \t\r\n=/>]*)?[ \t\r\n]*=")


#: The word ``xmlns``, for :func:`count_xmlns`.
_XMLNS_WORD: Final = re.compile(rb"xmlns")
#: How many matches :func:`count_xmlns` takes one at a time before ``bytes.count`` counts.
XMLNS_FEW: Final = 64


def count_xmlns(data: bytes) -> int:
    """``data.count(b"xmlns")``, sooner: the regular expression engine runs to each rare ``x``
    in a tight loop (a part's few ``xmlns``, 6 MB: 3.4 -> 2.2 ms), where ``bytes.count`` tries
    the word at every step.  Exact: ``xmlns`` cannot overlap itself, so its matches one after
    the other are its occurrences.  Past a few matches, ``bytes.count`` counts (a part full of
    them costs no Python step per match)."""
    found = 0
    for found, _ in enumerate(_XMLNS_WORD.finditer(data), 1):
        if found > XMLNS_FEW:
            return data.count(b"xmlns")
    return found


def _missing(name: str) -> PackageError:
    return PackageError(Code.MISSING_PART, f"The package has no part named {name}.", name.lstrip("/"))


def _namespace(tag: object) -> str | None:
    if isinstance(tag, str) and tag.startswith("{"):
        return tag[1:].split("}", 1)[0]
    return None


class Package:
    """A loaded, checked .docx. Construct with :meth:`from_bytes` or :meth:`open`.

    Read-only: nothing changes its bytes, members or OPC, and the trees :meth:`xml` shares are
    never changed (a write changes a :class:`redline.opc.working.WorkingCopy`).  Thread-safe for
    reading: inflation and the caches are guarded by a lock.
    """

    source_bytes: bytes
    """The file's bytes exactly as loaded."""
    limits: Limits
    names: tuple[str, ...]
    """Member names in zip (central directory) order."""
    main_part: str
    """The main document part (``word/document.xml`` usually), from ``_rels/.rels``."""
    markup: int = 0
    """The tags (``<``) of every XML part, as :attr:`Limits.max_markup` counts them (the main
    part left out when it is streamed)."""

    def __init__(
        self,
        data: bytes,
        limits: Limits | None = None,
        *,
        stream_main: bool = False,
        vouched: Package | None = None,
        written: Mapping[str, bytes] | None = None,
        counted: Mapping[str, tuple[int, int]] | None = None,
    ) -> None:
        self.source_bytes = bytes(data)
        # a package whose parts were checked already: a part of the same name and bytes is not
        # parsed again for the parser's limits (the read-back of an output written from it),
        # and a member stored exactly as its member (same method, CRC, sizes and deflated
        # bytes) is not inflated nor checked again: the same stored bytes inflate to the same
        # bytes, which passed every check of a part under the same limits
        self._vouched = vouched
        self._written = written or {}
        self._known: dict[str, tuple[bytes, bool]] = {}  # see _adopt
        self._same: set[str] = set()  # parts whose member is the vouched package's, exactly
        # per XML part, its tags and its "xmlns" (what the limits count; for a package vouching
        # later, and for a writer's count of what it changed: tags())
        self._tags: dict[str, int] = {}
        self._xmlns: dict[str, int] = {}
        self._counted = counted or {}
        self.limits = limits or DEFAULT_LIMITS
        # The main part is left in the zip at load, to be read with stream(): its DOCTYPE and
        # tag-count checks are then the reader's to make (see redline.read.scan.BodyStream).
        self._stream_main = stream_main
        self._lock = threading.RLock()
        self._bytes: dict[str, bytes] = {}
        self._xml: dict[str, etree._Element] = {}
        self._rels: dict[str, tuple[Relationship, ...]] = {}
        with boundary(None):
            self._load()
        self._vouched = None  # (needed by the load only: the input is not kept alive)
        self._written, self._known, self._same, self._counted = {}, {}, set(), {}

    # --- construction -------------------------------------------------------------------------

    @classmethod
    def from_bytes(
        cls,
        data: bytes,
        limits: Limits | None = None,
        *,
        stream_main: bool = False,
        vouched: Package | None = None,
        written: Mapping[str, bytes] | None = None,
        counted: Mapping[str, tuple[int, int]] | None = None,
    ) -> Package:
        """Load a package from its bytes, or raise :class:`PackageError`.  With
        ``stream_main`` the main part is not inflated at load (for :meth:`stream`).
        ``vouched``: a package loaded with the same limits whose parts need no second check
        where they are the same bytes (an output read back against its input): a member
        stored exactly as the vouched package's is not inflated again.  ``written``: the
        bytes a writer deflated into members of ``data`` (by exact name; an output's changed
        and added parts), taken as those members' bytes without inflating them when their
        size and CRC are the members' (else ``crc_mismatch``, as an inflate would say); every
        other check of a part is made of them as of any.  ``counted``: of written parts, the
        tags (``<``) and the ``xmlns`` their bytes hold, as the writer counted them (from the
        input's counts, :meth:`counts`, and what it took out and put in), for the checks that
        count them."""
        return cls(data, limits, stream_main=stream_main, vouched=vouched, written=written, counted=counted)

    @classmethod
    def open(cls, path: str | os.PathLike[str], limits: Limits | None = None) -> Package:
        """Load a package from a file, or raise :class:`PackageError` (``not_regular_file``
        for a folder, FIFO or device and ``too_large`` by its size, both before a byte is read;
        ``io_error`` when it cannot be read: :func:`redline.opc.inputs.read_regular`)."""
        lim = limits or DEFAULT_LIMITS
        data = read_regular(path, lim.max_file_bytes, "document")
        return cls(data, lim)

    def _load(self) -> None:
        self._archive = Archive(self.source_bytes, self.limits, NameCheck())
        self._adopt()
        check_macro_members(m.name for m in self._archive.members)
        self._parts = PartNames.of(m.name for m in self._archive.members)
        self.names = self._parts.names
        self._opc: Opc = read_opc(self._parts, self.fresh_xml)
        check_macro_types(self.names, self._opc.types)
        self._rels[""] = self._opc.package_rels
        self.main_part = self._opc.main_part
        self._scan_xml_parts()

    def _adopt(self) -> None:
        """The members whose bytes are known without inflating them (see :meth:`from_bytes`):
        ``written`` ones, and those stored exactly as a member of the vouched package whose
        bytes it holds (read and checked)."""
        vouched = self._vouched
        if vouched is not None and (vouched.limits != self.limits or vouched._stream_main):
            vouched = None
        if vouched is None and not self._written:
            return
        for m in self._archive.members:
            data = self._written.get(m.name)
            if data is not None:
                self._known[m.name] = (data, False)
                continue
            if vouched is None:
                continue
            theirs = vouched._archive.by_name.get(m.name)
            held = vouched._bytes.get(m.name)
            if theirs is None or held is None or not self._archive.same_member(m, vouched._archive, theirs):
                continue
            self._known[m.name] = (held, True)
            if m.name in vouched._tags:
                self._same.add(m.name)

    def _scan_xml_parts(self) -> None:
        """Inflate every XML part (budget, CRC), refuse any DOCTYPE, count the tags, and hold
        every part but the main one (its reader does) to the limits of a tree parse, which
        python-docx and the write path make of the parts they read: 256 levels, 10 MB a node
        (:func:`redline.opc.xmlparse.parser_limits`, no tree built)."""
        tags = 0
        for name in self.names:
            if not self.is_xml(name) or (self._stream_main and name == self.main_part):
                continue
            data = self.read(name)
            if name in self._same:  # the vouched package's part, checked there: its counts
                assert self._vouched is not None
                found = self._tags[name] = self._vouched._tags[name]
                self._xmlns[name] = self._vouched._xmlns[name]
            else:
                if find_doctype(data):
                    raise dtd_refusal(name)
                counted = self._counted.get(name) if name in self._written else None
                found, xmlns = counted if counted is not None else (data.count(b"<"), count_xmlns(data))
                self._tags[name], self._xmlns[name] = found, xmlns
                self._check_namespaces(data, name, xmlns)
                if name.lower().endswith(".rels"):
                    check_macro_relationships(data, name)
                if name != self.main_part and not self._vouched_for(name, data):
                    parser_limits(data, name)  # (the main part: by its reader, scanned or walked)
            tags += found
            if self._stream_main:  # read for a lean view: keep nothing not asked for again
                self._bytes.pop(name, None)
                self._archive.release(len(data))
            self.markup = tags
            if tags > self.limits.max_markup:
                raise PackageError(
                    Code.TOO_COMPLEX,
                    f"The document's XML holds more than {self.limits.max_markup:,} tags (at the part "
                    f"{name}); no real contract comes close, and a file like this is built to cost "
                    "time and memory, so it is refused.",
                    name,
                )

    def _vouched_for(self, name: str, data: bytes) -> bool:
        vouched = self._vouched
        if vouched is None or vouched.limits != self.limits or vouched._stream_main:
            return False
        found = vouched.find(name)
        return found is not None and vouched.read(found) == data

    def _check_namespaces(self, data: bytes, name: str, xmlns: int) -> None:
        """Refuse a part with more namespace declarations than :attr:`Limits.max_namespaces`
        (``xmlns``: the count of ``xmlns`` in its bytes; exact only when that first count is over)."""
        limit = self.limits.max_namespaces
        if xmlns <= limit or len(_XMLNS_DECL.findall(data)) <= limit:
            return
        raise PackageError(
            Code.TOO_MANY_NAMESPACES,
            f"The part {name} declares more than {limit:,} XML namespaces; no real document "
            "declares more than a hundred, and so many make every edit cost time in proportion "
            "to them, so the file is refused.",
            name,
        )

    # --- reading ------------------------------------------------------------------------------

    def counts(self, name: str) -> tuple[int, int] | None:
        """The tags (``<``) and the ``xmlns`` in XML part ``name``'s bytes, as the load
        counted them (None for a part not counted: not XML, or a streamed main part)."""
        found = self.find(name)
        if found is None or found not in self._tags:
            return None
        return self._tags[found], self._xmlns[found]

    def find(self, name: str) -> str | None:
        """The package's own spelling of part ``name`` (case-insensitive, percent-decoded,
        leading ``/`` optional), or None when there is no such part."""
        return self._parts.find(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def is_xml(self, name: str) -> bool:
        """True for parts whose bytes are XML (``.xml``/``.rels`` or an XML content type)."""
        return self._opc.types.is_xml(name)

    def read(self, name: str) -> bytes:
        """The inflated bytes of part ``name`` (CRC verified; cached), or raise
        :class:`PackageError` (``missing_part``, ``inflate_budget``, ``crc_mismatch``,
        ``corrupt_member``)."""
        found = self.find(name)
        if found is None:
            raise _missing(name)
        cached = self._bytes.get(found)
        if cached is not None:
            return cached
        with self._lock, boundary(found):
            cached = self._bytes.get(found)
            if cached is None:
                member = self._archive.by_name[found]
                known = self._known.pop(found, None)
                if known is not None:
                    cached = self._archive.adopt(member, *known)
                else:
                    cached = self._archive.inflate(member)
                self._bytes[found] = cached
            return cached

    def stream(self, name: str, chunk: int = 256 * 1024) -> Iterator[bytes]:
        """The inflated bytes of part ``name`` in pieces of about ``chunk`` bytes, never held
        whole (nor cached); the same budget, size and CRC checks as :meth:`read`, the last
        ones made when the part ends (raise :class:`PackageError` as :meth:`read` does)."""
        found = self.find(name)
        if found is None:
            raise _missing(name)
        cached = self._bytes.get(found)
        if cached is not None:
            yield cached
            return
        with boundary(found):
            yield from self._archive.stream(self._archive.by_name[found], chunk)

    def xml(self, name: str) -> etree._Element:
        """The parsed root of XML part ``name`` (safe parser; cached and shared by every
        reader, so nobody changes it: a write changes a :class:`redline.opc.working.WorkingCopy`,
        and :meth:`fresh_xml` gives a tree of one's own)."""
        found = self.find(name)
        if found is not None:
            cached = self._xml.get(found)
            if cached is not None:
                return cached
        root = self.fresh_xml(name)
        with self._lock:
            return self._xml.setdefault(found or name, root)

    def fresh_xml(self, name: str) -> etree._Element:
        """A newly parsed root of XML part ``name``, the caller's to modify."""
        data = self.read(name)
        found = self.find(name) or name
        with boundary(found):
            root = parse_xml(data, found)
        if found == getattr(self, "main_part", None) and _namespace(root.tag) == W_STRICT_NS:
            raise PackageError(
                Code.STRICT_OOXML,
                "The document is written in Strict Open XML (ISO 29500 Strict), which is not "
                "supported; save it from Word as a normal Word Document (.docx) first.",
                found,
            )
        return root

    def rels(self, part: str) -> list[Relationship]:
        """The relationships of ``part`` (``""`` for the package's own, ``_rels/.rels``), in
        document order; ``[]`` when the part has no relationships part."""
        source = part.lstrip("/")
        if source:
            source = self.find(source) or source
        cached = self._rels.get(source)
        if cached is None:
            rels_name = self.find(rels_part_for(source))
            with boundary(rels_name):
                cached = () if rels_name is None else parse_rels(self.fresh_xml(rels_name), source, self.find)
            with self._lock:
                cached = self._rels.setdefault(source, cached)
        return list(cached)

    def related(self, part: str, rel_type: str) -> list[str]:
        """The existing parts ``part`` points to with relationships of type ``rel_type``, in
        relationship order (external and dangling targets left out)."""
        out: list[str] = []
        for rel in self.rels(part):
            if rel.type == rel_type and not rel.external:
                found = self.find(rel.target)
                if found is not None and found not in out:
                    out.append(found)
        return out

    def content_type(self, part: str) -> str | None:
        """The content type ``[Content_Types].xml`` gives ``part``: its Override, else the
        Default for its extension, else None."""
        return self._opc.types.of(part)

    @cached_property
    def revision(self) -> str:
        """``"sha256:" + hex`` of the file's raw bytes: the same bytes, the same revision (a
        re-saved but textually identical file gets a new one, which only errs on the side of
        calling a view stale)."""
        return "sha256:" + hashlib.sha256(self.source_bytes).hexdigest()

    # --- saving -------------------------------------------------------------------------------

    def to_bytes(
        self,
        changed: Mapping[str, bytes] | None = None,
        added: Sequence[tuple[str, bytes]] = (),
    ) -> bytes:
        """A new .docx: ``changed`` parts replaced in place, ``added`` parts appended after the
        last member, every other member (local header, compressed data, data descriptor and
        central record) copied byte for byte in the original order (:mod:`redline.opc.zipwrite`).

        Changed parts keep their name, timestamps and compression method (stored stays stored;
        everything else is deflated). Raises :class:`PackageError` (``missing_part``,
        ``duplicate_part``, ``unsafe_part_name``, ``too_large``).
        """
        replace: dict[str, bytes] = {}
        for name, data in (changed or {}).items():
            found = self.find(name)
            if found is None:
                raise PackageError(
                    Code.MISSING_PART,
                    f"Cannot replace the part {name}: the package has no such part.",
                    name,
                )
            replace[found] = bytes(data)
        new_keys: set[str] = set()
        for name, _ in added:
            reason = unsafe_reason(name)
            if reason:
                raise PackageError(Code.UNSAFE_PART_NAME, f"Cannot add the part {name!r}: {reason}.", name)
            key = name_key(name)
            if key in self._parts.by_key or key in new_keys:
                raise PackageError(
                    Code.DUPLICATE_PART,
                    f"Cannot add the part {name}: the package already has a part of that name.",
                    name,
                )
            new_keys.add(key)
        return rewrite(self._archive, replace, added)
