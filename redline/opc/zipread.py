"""Zip reading under budgets: the central directory, every member checked, inflation bounded.

:class:`Archive` reads a zip's central directory with our own reader (APPNOTE.TXT 4.3) and
checks every declared size, name and flag against :class:`Limits` **before** inflating
anything; then each member's bytes are inflated only when asked for (:meth:`Archive.inflate`,
or a stretch at a time with :meth:`Archive.stream`), under one budget that counts the bytes
inflation actually produces (``zlib.decompressobj`` with ``max_length``; declared sizes are
never trusted), and checked against the declared CRC and size.

What the members' names mean is not this module's business: the caller's ``check_name`` (the
OPC part-name rules, :class:`redline.opc.NameCheck`) is asked about each member, in directory
order, before the member's own checks.  Every refusal is a :class:`~redline.errors.PackageError`.
"""

from __future__ import annotations

import itertools
import struct
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from shared_schema import Code

from ..errors import PackageError

libinflate: Callable[[memoryview, int], bytearray] | None
"""libdeflate's whole-buffer inflate, or None where it is not installed (then zlib alone)."""


class _CRC32(Protocol):
    def __call__(self, data: bytes, value: int = 0, /) -> int: ...


crc32: _CRC32
"""zlib's CRC-32 (``crc32(data, start)``), the same numbers ~7x faster where libdeflate is: the
reader's and the writer's (:mod:`redline.opc.zipwrite`)."""
try:  # libdeflate (a dependency, as for the writer): inflates a whole member ~4x faster than zlib
    from deflate import crc32 as crc32
    from deflate import deflate_decompress as libinflate
except ImportError:  # pragma: no cover - only where the wheel cannot install
    from zlib import crc32 as crc32

    libinflate = None

__all__ = ["DEFAULT_LIMITS", "Archive", "Limits", "Member", "crc32", "file_too_large", "human"]

_MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """What a package may declare and inflate. Checked before anything is decompressed, except
    ``max_total_bytes``, which is also enforced on the bytes inflation actually produces.

    The defaults leave room for any real contract (the largest corpus document is a 475 KB
    file whose ``document.xml`` inflates to 12.6 MB, ratio 38) while a hostile file costs at
    most a few hundred MB of inflation and well under a second.

    Not a field: libxml2 (``huge_tree=False``) refuses any single text node, attribute value,
    comment or CDATA section over 10 MB and nesting deeper than 256 elements; those become
    ``xml_node_too_large`` / ``too_deep`` when a part is parsed.
    """

    max_file_bytes: int = 200 * _MB
    """The file itself."""
    max_members: int = 10_000
    """Zip members."""
    max_member_bytes: int = 200 * _MB
    """One member's declared uncompressed size."""
    max_total_bytes: int = 256 * _MB
    """The sum of declared uncompressed sizes, and the inflate budget: the bytes actually
    produced by inflating members, summed over the package's life."""
    max_ratio: float = 200.0
    """Declared uncompressed / compressed size, for members of more than ``ratio_min_bytes``."""
    ratio_min_bytes: int = 1 * _MB
    """Members this small are never refused for their ratio (a 1 MB run of zeros is harmless)."""
    max_markup: int = 1_000_000
    """Tags (``<`` characters) summed over the XML parts. Parsed, each element costs a few
    hundred bytes and the view a few microseconds, whatever its size in the file: 6 MB of
    ``<w:p/>`` (40 KB zipped, inside every other limit) cost 11 s and 600 MB. The largest real
    contract we have has 506 thousand."""
    max_text_chars: int = 10_000_000
    """Characters of text the view reads, summed over every story (Apache POI's
    ``ZipSecureFile.setMaxTextSize`` is the model, its default the same order). Checked as the
    readers go, text node by text node, so a refused document never holds more than this much
    text: within every other limit a file could hold 180 MB of text (1.2 GB resident to read
    it). The largest real contract we have reads 288 thousand."""
    max_namespaces: int = 1_000
    """Namespace declarations (``xmlns`` attributes) in one XML part, counted in its bytes
    before it is parsed. Serialising a changed paragraph costs lxml time in proportion to the
    declarations in scope, so 100,000 on a root made the writer quadratic (a 500 KB file hung
    it). The most any real part we have declares is 98."""

    def __post_init__(self) -> None:
        for name in (
            "max_file_bytes",
            "max_members",
            "max_member_bytes",
            "max_total_bytes",
            "max_markup",
            "max_text_chars",
            "max_namespaces",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"Limits.{name} must be positive")
        if self.max_ratio <= 1:
            raise ValueError("Limits.max_ratio must be greater than 1")


DEFAULT_LIMITS: Final = Limits()

# --- zip records (APPNOTE.TXT 4.3) -------------------------------------------------------------

LOCAL_SIG: Final = b"PK\x03\x04"
CENTRAL_SIG: Final = b"PK\x01\x02"
EOCD_SIG: Final = b"PK\x05\x06"
_ZIP64_LOCATOR_SIG: Final = b"PK\x06\x07"
_DESCRIPTOR_SIG: Final = b"PK\x07\x08"
_OLE_MAGIC: Final = bytes.fromhex("D0CF11E0A1B11AE1")

LOCAL: Final = struct.Struct("<4sHHHHHIIIHH")  # 30 bytes
CENTRAL: Final = struct.Struct("<4sHHHHHHIIIHHHHHII")  # 46 bytes
EOCD: Final = struct.Struct("<4sHHHHIIH")  # 22 bytes
_DESCRIPTOR: Final = struct.Struct("<III")  # crc, compressed size, uncompressed size

_FLAG_ENCRYPTED: Final = 0x0001
_FLAG_DESCRIPTOR: Final = 0x0008
_FLAG_STRONG_ENCRYPTION: Final = 0x0040
FLAG_UTF8: Final = 0x0800
_FLAG_MASKED_HEADERS: Final = 0x2000

STORED: Final = 0
DEFLATED: Final = 8
_METHOD_NAMES: Final = {
    1: "shrink",
    6: "implode",
    9: "deflate64",
    12: "bzip2",
    14: "lzma",
    93: "zstandard",
    95: "xz",
    98: "ppmd",
}
_AES_METHOD: Final = 99

_INFLATE_CHUNK: Final = 1 * _MB


@dataclass(frozen=True, slots=True)
class Member:
    """One zip member as its central-directory record declares it, and where its bytes lie."""

    name: str
    name_bytes: bytes
    flags: int
    method: int
    crc: int
    csize: int
    usize: int
    offset: int  # local header
    data_start: int
    span_end: int  # end of data, plus the data descriptor if any
    central: bytes  # the raw central-directory record, name, extra and comment included
    central_fields: tuple[int, ...]


def _u16(data: bytes, at: int) -> int:
    value: int = struct.unpack_from("<H", data, at)[0]
    return value


def human(n: int) -> str:
    """A byte count as a person reads it (``12 MB``, ``40 KB``, ``7 bytes``)."""
    if n >= _MB:
        return f"{n / _MB:.0f} MB"
    if n >= 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n} bytes"


def file_too_large(size: int, lim: Limits) -> PackageError:
    """The refusal for a file of ``size`` bytes over ``lim.max_file_bytes``."""
    return PackageError(
        Code.TOO_LARGE,
        f"The file is {human(size)}, more than the limit of {human(lim.max_file_bytes)}.",
    )


def _describe_non_zip(data: bytes) -> str:
    """What a file that is not a zip archive looks like, for the refusal message."""
    head = data[:64].lstrip()
    if head.startswith(b"%PDF"):
        return "it is a PDF, not a zip archive"
    if head.startswith(b"{\\rtf"):
        return "it is an RTF document, not a zip archive"
    if head.startswith((b"<?xml", b"<", b"\xef\xbb\xbf<")):
        return (
            "it is a bare XML or HTML file (perhaps a Word 2003 XML or flat .xml document), not a zip archive"
        )
    sample = data[:4096]
    try:
        text = sample.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if text and sum(ch.isprintable() or ch in "\r\n\t" for ch in text) >= 0.95 * len(text):
        return "it looks like plain text, not a zip archive"
    return "it is not a zip archive (no zip directory anywhere in its bytes)"


def _ole_refusal(data: bytes) -> PackageError:
    if "EncryptionInfo".encode("utf-16-le") in data:
        message = (
            "The file is a password-protected (encrypted) Word document, stored as an OLE "
            "compound file rather than a .docx; remove the password in Word and save it again."
        )
    elif "WordDocument".encode("utf-16-le") in data:
        message = (
            "The file is a legacy Word 97-2003 .doc (an OLE compound file), not a .docx; "
            "open it in Word and save it as a Word Document (.docx)."
        )
    else:
        message = "The file is encrypted or is a legacy .doc (OLE compound file), not a .docx."
    return PackageError(Code.OLE_FILE, message)


def _decode_name(raw: bytes, flags: int) -> str:
    if flags & FLAG_UTF8:
        return raw.decode("utf-8")  # a UnicodeDecodeError is turned into unsafe_part_name
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp437")


class Archive:
    """A zip archive whose directory and members passed every check, and the one inflate
    budget its members' bytes are produced under.

    Construct it with the file's bytes (raises :class:`PackageError`); it keeps them without
    copying.  Not thread-safe for inflation: the owner serialises :meth:`inflate` calls.
    """

    data: bytes
    """The file's bytes."""
    limits: Limits
    members: tuple[Member, ...]
    """In central-directory order, each checked against its local header."""
    by_name: Mapping[str, Member]
    cd_offset: int
    """Where the central directory starts: the end of the members' bytes."""
    comment: bytes
    """The archive comment (after the end-of-central-directory record)."""
    inflated: int
    """Bytes inflation has produced and counted against the budget so far."""

    def __init__(self, data: bytes, limits: Limits, check_name: Callable[[str], None]) -> None:
        self.data = data
        self.limits = limits
        self.inflated = 0
        self.comment = b""
        self.cd_offset = 0
        if not data:
            raise PackageError(Code.EMPTY_FILE, "The file is empty (0 bytes), so it is not a .docx.")
        if len(data) > limits.max_file_bytes:
            raise file_too_large(len(data), limits)
        if data.startswith(_OLE_MAGIC):
            raise _ole_refusal(data)
        self.members = self._check_members(self._read_directory(data), check_name)
        self.by_name = {m.name: m for m in self.members}

    # --- the directory ------------------------------------------------------------------------

    def _read_directory(self, data: bytes) -> list[Member]:
        lim = self.limits
        eocd = self._find_eocd(data)
        _sig, disk, cd_disk, on_disk, count, cd_size, cd_offset, comment_len = EOCD.unpack_from(data, eocd)
        self.comment = data[eocd + EOCD.size : eocd + EOCD.size + comment_len]
        zip64 = eocd >= 20 and data[eocd - 20 : eocd - 16] == _ZIP64_LOCATOR_SIG
        if zip64 or 0xFFFF in (count, on_disk) or 0xFFFFFFFF in (cd_size, cd_offset):
            raise PackageError(
                Code.UNSUPPORTED_ZIP,
                "The file is a zip64 archive; a .docx of this size never needs zip64, so it is refused.",
            )
        if disk != 0 or cd_disk != 0 or on_disk != count:
            raise PackageError(
                Code.UNSUPPORTED_ZIP,
                "The file is one volume of a split (multi-part) zip archive, not a .docx.",
            )
        if count > lim.max_members:
            raise PackageError(
                Code.TOO_MANY_MEMBERS,
                f"The file has {count} zip members, more than the limit of {lim.max_members}; "
                "no real document needs that many.",
            )
        if cd_offset + cd_size > eocd:
            raise PackageError(
                Code.TRUNCATED,
                "The file is damaged or truncated: its zip directory points past its end.",
            )
        if cd_offset + cd_size != eocd:
            raise PackageError(
                Code.CORRUPT_ZIP,
                "The file is damaged: its zip directory is not where its end record says "
                "(extra bytes were inserted or removed).",
            )
        pos = cd_offset
        order: list[Member] = []
        for _ in range(count):
            if pos + CENTRAL.size > eocd or data[pos : pos + 4] != CENTRAL_SIG:
                raise PackageError(
                    Code.CORRUPT_ZIP,
                    "The file is damaged: an entry of its zip directory is unreadable.",
                )
            fields = CENTRAL.unpack_from(data, pos)
            (_, _made, _need, flags, method, _t, _d, crc, csize, usize, nlen, xlen, clen,
             _disk, _iattr, _eattr, offset) = fields  # fmt: skip
            end = pos + CENTRAL.size + nlen + xlen + clen
            if end > eocd:
                raise PackageError(
                    Code.CORRUPT_ZIP,
                    "The file is damaged: an entry of its zip directory runs past the directory.",
                )
            raw_name = data[pos + CENTRAL.size : pos + CENTRAL.size + nlen]
            try:
                name = _decode_name(raw_name, flags)
            except UnicodeDecodeError:
                raise PackageError(
                    Code.UNSAFE_PART_NAME,
                    f"The zip member name {raw_name!r} is not valid UTF-8 although the zip says "
                    "it is; the file is refused.",
                ) from None
            if 0xFFFFFFFF in (csize, usize, offset):
                raise PackageError(
                    Code.UNSUPPORTED_ZIP,
                    f"The member {name} uses zip64 sizes; a .docx never needs zip64, so the file is refused.",
                    name,
                )
            order.append(
                Member(
                    name=name,
                    name_bytes=raw_name,
                    flags=flags,
                    method=method,
                    crc=crc,
                    csize=csize,
                    usize=usize,
                    offset=offset,
                    data_start=0,
                    span_end=0,
                    central=data[pos:end],
                    central_fields=fields,
                )
            )
            pos = end
        if pos != eocd:
            raise PackageError(
                Code.CORRUPT_ZIP,
                "The file is damaged: its zip directory does not end where it should.",
            )
        self.cd_offset = cd_offset
        return order

    @staticmethod
    def _find_eocd(data: bytes) -> int:
        floor = max(0, len(data) - EOCD.size - 0xFFFF)
        pos = data.rfind(EOCD_SIG, floor)
        while pos >= 0:
            if pos + EOCD.size <= len(data):
                comment_len = _u16(data, pos + 20)
                if pos + EOCD.size + comment_len <= len(data):
                    return pos
            pos = data.rfind(EOCD_SIG, floor, pos)
        if data.startswith(LOCAL_SIG) or (len(data) < 4 and LOCAL_SIG.startswith(data)):
            raise PackageError(
                Code.TRUNCATED,
                "The file is a truncated zip archive: it starts like a .docx but its end "
                "(the zip directory) is missing, probably an incomplete download or copy.",
            )
        raise PackageError(
            Code.NOT_A_ZIP,
            f"The file is not a .docx: {_describe_non_zip(data)}.",
        )

    # --- the members --------------------------------------------------------------------------

    def _check_members(self, order: list[Member], check_name: Callable[[str], None]) -> tuple[Member, ...]:
        data = self.data
        lim = self.limits
        total_declared = 0
        members: list[Member] = []
        for m in order:
            name = m.name
            check_name(name)
            if m.flags & (_FLAG_ENCRYPTED | _FLAG_STRONG_ENCRYPTION | _FLAG_MASKED_HEADERS) or (
                m.method == _AES_METHOD
            ):
                raise PackageError(
                    Code.ENCRYPTED_MEMBER,
                    f"The part {name} is encrypted inside the zip; a .docx never is, so the file is refused.",
                    name,
                )
            if m.method not in (STORED, DEFLATED):
                label = _METHOD_NAMES.get(m.method, f"method {m.method}")
                raise PackageError(
                    Code.UNSUPPORTED_COMPRESSION,
                    f"The part {name} is compressed with {label}, which Word never uses "
                    "(only stored and deflate are supported).",
                    name,
                )
            if m.usize > lim.max_member_bytes:
                raise PackageError(
                    Code.TOO_LARGE,
                    f"The part {name} declares {human(m.usize)} uncompressed, more than the "
                    f"limit of {human(lim.max_member_bytes)} for one part.",
                    name,
                )
            total_declared += m.usize
            if total_declared > lim.max_total_bytes:
                raise PackageError(
                    Code.TOO_LARGE,
                    "The package declares more than "
                    f"{human(lim.max_total_bytes)} of uncompressed content in total, over the "
                    "limit.",
                    name,
                )
            if m.method == STORED and m.usize != m.csize:
                raise PackageError(
                    Code.CORRUPT_ZIP,
                    f"The file is damaged: the stored part {name} declares two different sizes.",
                    name,
                )
            if m.usize > lim.ratio_min_bytes and m.usize > m.csize * lim.max_ratio:
                raise PackageError(
                    Code.COMPRESSION_RATIO,
                    f"The part {name} declares a compression ratio of "
                    f"{m.usize / max(m.csize, 1):.0f} to 1, over the limit of "
                    f"{lim.max_ratio:.0f}; this is how zip bombs look, so the file is refused.",
                    name,
                )
            members.append(self._locate_data(data, m))
        # Members may not share bytes (overlapping entries are the classic "zip bomb" trick).
        by_offset = sorted(members, key=lambda mm: mm.offset)
        for before, after in itertools.pairwise(by_offset):
            if before.span_end > after.offset:
                raise PackageError(
                    Code.CORRUPT_ZIP,
                    f"The file is damaged or hostile: the zip members {before.name} and "
                    f"{after.name} overlap.",
                    after.name,
                )
        return tuple(members)

    def _locate_data(self, data: bytes, m: Member) -> Member:
        """The member with its data's position, checked against its local header."""
        name = m.name
        at = m.offset
        if at + LOCAL.size > self.cd_offset or data[at : at + 4] != LOCAL_SIG:
            raise PackageError(
                Code.CORRUPT_ZIP,
                f"The file is damaged: the zip entry of {name} does not point at a member.",
                name,
            )
        (_, _need, flags, method, _t, _d, crc, csize, usize, nlen, xlen) = LOCAL.unpack_from(data, at)
        if flags & (_FLAG_ENCRYPTED | _FLAG_STRONG_ENCRYPTION):
            raise PackageError(
                Code.ENCRYPTED_MEMBER,
                f"The part {name} is encrypted inside the zip; a .docx never is, so the file is refused.",
                name,
            )
        local_name = data[at + LOCAL.size : at + LOCAL.size + nlen]
        if local_name != m.name_bytes or method != m.method:
            raise PackageError(
                Code.CORRUPT_ZIP,
                f"The file is damaged: the member {name} has a different name or compression "
                "in its own header than in the zip directory.",
                name,
            )
        if not flags & _FLAG_DESCRIPTOR and (crc, csize, usize) != (m.crc, m.csize, m.usize):
            raise PackageError(
                Code.CORRUPT_ZIP,
                f"The file is damaged or hostile: the member {name} declares different sizes "
                "or checksums in its own header than in the zip directory.",
                name,
            )
        data_start = at + LOCAL.size + nlen + xlen
        data_end = data_start + m.csize
        if data_end > self.cd_offset:
            raise PackageError(
                Code.TRUNCATED,
                f"The file is damaged or truncated: the data of {name} runs past the end of the members.",
                name,
            )
        span_end = data_end
        if flags & _FLAG_DESCRIPTOR:
            span_end = self._descriptor_end(data, m, data_end)
        return Member(
            name=m.name,
            name_bytes=m.name_bytes,
            flags=m.flags,
            method=m.method,
            crc=m.crc,
            csize=m.csize,
            usize=m.usize,
            offset=m.offset,
            data_start=data_start,
            span_end=span_end,
            central=m.central,
            central_fields=m.central_fields,
        )

    def _descriptor_end(self, data: bytes, m: Member, at: int) -> int:
        expected = (m.crc, m.csize, m.usize)
        limit = self.cd_offset
        if (
            data[at : at + 4] == _DESCRIPTOR_SIG
            and at + 16 <= limit
            and _DESCRIPTOR.unpack_from(data, at + 4) == expected
        ):
            return at + 16
        if at + 12 <= limit and _DESCRIPTOR.unpack_from(data, at) == expected:
            return at + 12
        raise PackageError(
            Code.CORRUPT_ZIP,
            f"The file is damaged: the data descriptor after {m.name} is missing or disagrees "
            "with the zip directory.",
            m.name,
        )

    # --- inflating ----------------------------------------------------------------------------

    def inflate(self, m: Member) -> bytes:
        """``m``'s bytes, inflated under the budget and checked against its CRC and size (raises
        ``inflate_budget``, ``crc_mismatch``, ``corrupt_member``)."""
        budget = self.limits.max_total_bytes - self.inflated
        raw = memoryview(self.data)[m.data_start : m.data_start + m.csize]
        if m.method == STORED:
            if m.usize > budget:
                raise _budget_refusal(m.name, self.limits)
            out = bytes(raw)
        else:
            out = self._inflate_deflate(m, raw, budget)
        if len(out) != m.usize or crc32(out) != m.crc:
            raise _damaged(m.name)
        self.inflated += len(out)
        return out

    def adopt(self, m: Member, data: bytes, crc_known: bool = False) -> bytes:
        """``data`` as ``m``'s inflated bytes without inflating ``m``: bytes known to be what
        its data inflates to (the bytes a writer deflated into it, or an identical member's
        bytes inflated and checked before).  The checks :meth:`inflate` makes of what it
        produces are made of them -- the budget, the declared size, the CRC (``crc_known``:
        checked already against this same CRC) -- with the same refusals."""
        if len(data) > self.limits.max_total_bytes - self.inflated:
            raise _budget_refusal(m.name, self.limits)
        if len(data) != m.usize or (not crc_known and crc32(data) != m.crc):
            raise _damaged(m.name)
        self.inflated += len(data)
        return data

    def same_member(self, m: Member, other: Archive, o: Member) -> bool:
        """Are ``m``'s stored bytes (method, CRC, sizes, data) exactly ``o``'s in ``other``?"""
        if (m.method, m.crc, m.csize, m.usize) != (o.method, o.crc, o.csize, o.usize):
            return False
        theirs = memoryview(other.data)[o.data_start : o.data_start + o.csize]
        return self.data.startswith(theirs, m.data_start)  # (a memcmp: "==" of views is not)

    def _inflate_deflate(self, m: Member, raw: memoryview, budget: int) -> bytes:
        # Never trust the declared size: produce at most one byte more than it (and never more
        # than the budget), so memory is bounded by sizes that passed the limits.
        cap = min(m.usize, budget)
        if libinflate is not None and cap > 0:
            # libdeflate into a buffer of cap + 1 bytes: a complete stream of at most cap bytes
            # is inflated whole at once; any other -- longer than declared or than the budget,
            # cut short, damaged -- goes to zlib below, which says which refusal it is.
            try:
                whole = libinflate(raw, cap + 1)
            except Exception:
                whole = None
            if whole is not None and len(whole) <= cap:
                return bytes(whole)
        d = zlib.decompressobj(-zlib.MAX_WBITS)
        try:
            out = d.decompress(raw, cap + 1)
            if len(out) <= cap:
                if not d.eof:
                    raise _corrupt(m.name, "ends too early")
                return out
            # More than declared (a lie) or than the budget. Keep inflating, discarding the
            # output, only to say which: the budget bounds the work.
            produced = len(out)
            del out
            while produced <= budget and not d.eof:
                chunk = d.decompress(d.unconsumed_tail, _INFLATE_CHUNK)
                if not chunk and not d.unconsumed_tail:
                    break
                produced += len(chunk)
        except zlib.error:
            raise _corrupt(m.name, "cannot be inflated") from None
        if produced > budget:
            raise _budget_refusal(m.name, self.limits)
        raise PackageError(
            Code.CRC_MISMATCH,
            f"The part {m.name} is damaged or tampered with: it declares {m.usize} bytes but "
            f"inflates to {produced}.",
            m.name,
        )

    def stream(self, m: Member, chunk: int) -> Iterator[bytes]:
        """``m``'s bytes in pieces of about ``chunk`` bytes, never held whole; the budget, size
        and CRC checks of :meth:`inflate`, the last ones made when the member ends."""
        budget = min(m.usize, self.limits.max_total_bytes - self.inflated)
        raw = memoryview(self.data)[m.data_start : m.data_start + m.csize]
        crc, produced = 0, 0
        if m.method == STORED:
            pieces: Iterator[bytes] = (bytes(raw[i : i + chunk]) for i in range(0, len(raw), chunk))
        else:
            pieces = _inflate_pieces(raw, chunk, m.name)
        for piece in pieces:
            produced += len(piece)
            if produced > budget:
                if produced > self.limits.max_total_bytes - self.inflated:
                    raise _budget_refusal(m.name, self.limits)
                break
            crc = crc32(piece, crc)
            yield piece
        if produced != m.usize or crc != m.crc:
            raise _damaged(m.name)
        self.inflated += produced

    def release(self, size: int) -> None:
        """Give ``size`` bytes back to the budget: inflated earlier, no longer held by anyone."""
        self.inflated -= size


def _inflate_pieces(raw: memoryview, chunk: int, name: str) -> Iterator[bytes]:
    d = zlib.decompressobj(-zlib.MAX_WBITS)
    data: memoryview | bytes = raw
    try:
        while not d.eof:
            piece = d.decompress(data, chunk)
            data = d.unconsumed_tail
            if piece:
                yield piece
            elif not data:
                break
    except zlib.error:
        raise _corrupt(name, "cannot be inflated") from None
    if not d.eof:
        raise _corrupt(name, "ends too early")


def _damaged(name: str) -> PackageError:
    return PackageError(
        Code.CRC_MISMATCH,
        f"The part {name} is damaged or tampered with: its content does not match the checksum and "
        "size the zip declares for it.",
        name,
    )


def _corrupt(name: str, why: str) -> PackageError:
    return PackageError(Code.CORRUPT_MEMBER, f"The part {name} is damaged: its compressed data {why}.", name)


def _budget_refusal(name: str, lim: Limits) -> PackageError:
    return PackageError(
        Code.INFLATE_BUDGET,
        f"Inflating the part {name} produced more than the budget of "
        f"{human(lim.max_total_bytes)} for the whole document, whatever its zip headers "
        "declare; this is how zip bombs look, so the file is refused.",
        name,
    )
