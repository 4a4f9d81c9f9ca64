"""Builders for valid and hostile .docx packages, made in code (nothing binary is checked in).

``raw_zip`` writes a zip by hand so a test can make every field lie: declared sizes, CRCs,
flags, methods, names in the local header vs the central directory, duplicate names.
``docx`` builds a small valid WordprocessingML package on top of it; its keyword arguments
replace or add parts.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from redline.opc.namespaces import W_NS, W_STRICT_NS

W_MAIN_CT = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
MACRO_MAIN_CT = "application/vnd.ms-word.document.macroEnabled.main+xml"
XLSX_MAIN_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
STYLES_CT = "application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"
REL_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
REL_DOC_STRICT = "http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument"
REL_STYLES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles"

DECL = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'


@dataclass
class Entry:
    """One zip member as it will be written; every ``None`` means "the honest value"."""

    name: str | bytes
    data: bytes
    method: int = 8
    compressed: bytes | None = None
    crc: int | None = None
    usize: int | None = None
    csize: int | None = None
    flags: int = 0
    local_name: bytes | None = None
    descriptor: bool = False
    extra: bytes = b""
    points_into: str | None = None
    """Write no data: the central record points at the data of this earlier entry."""


@dataclass
class Zip:
    entries: list[Entry] = field(default_factory=list)
    comment: bytes = b""


def _compress(data: bytes, level: int = 6) -> bytes:
    packer = zlib.compressobj(level, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def mutate_bytes(data: bytes, edits: list[tuple[int, int, str]]) -> bytes:
    """``data`` with byte edits applied in order: (position, value, "x" overwrite / "i" insert /
    "d" delete); positions wrap around the current length (for fuzzing)."""
    out = bytearray(data)
    for pos, value, kind in edits:
        at = pos % (len(out) + 1)
        if kind == "x" and at < len(out):
            out[at] = value
        elif kind == "i":
            out[at:at] = bytes([value])
        elif kind == "d" and at < len(out):
            del out[at]
    return bytes(out)


def raw_zip(entries: list[Entry], comment: bytes = b"") -> bytes:
    """A zip archive written field by field, trusting nothing but the entries."""
    out = bytearray()
    central = bytearray()
    data_starts: dict[str | bytes, int] = {}
    for e in entries:
        name = e.name.encode("utf-8") if isinstance(e.name, str) else e.name
        if e.points_into is not None:
            central += struct.pack(
                "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, e.method, 0, 0x21,
                zlib.crc32(e.data), len(e.data), len(e.data), len(name), 0, 0, 0, 0, 0,
                data_starts[e.points_into],
            )  # fmt: skip
            central += name
            continue
        local_name = e.local_name if e.local_name is not None else name
        if e.compressed is not None:
            body = e.compressed
        elif e.method == 8:
            body = _compress(e.data)
        else:
            body = e.data
        crc = zlib.crc32(e.data) if e.crc is None else e.crc
        usize = len(e.data) if e.usize is None else e.usize
        csize = len(body) if e.csize is None else e.csize
        flags = e.flags | (0x08 if e.descriptor else 0)
        offset = len(out)
        lcrc, lcs, lus = (0, 0, 0) if e.descriptor else (crc, csize, usize)
        out += struct.pack(
            "<4sHHHHHIIIHH", b"PK\x03\x04", 20, flags, e.method, 0, 0x21, lcrc, lcs, lus,
            len(local_name), len(e.extra),
        )  # fmt: skip
        data_starts[e.name] = len(out) + len(local_name) + len(e.extra)
        out += local_name + e.extra + body
        if e.descriptor:
            out += struct.pack("<4sIII", b"PK\x07\x08", crc, csize, usize)
        central += struct.pack(
            "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, flags, e.method, 0, 0x21, crc, csize,
            usize, len(name), 0, 0, 0, 0, 0, offset,
        )  # fmt: skip
        central += name
    cd_offset = len(out)
    out += central
    out += struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(central), cd_offset,
        len(comment),
    )  # fmt: skip
    return bytes(out + comment)


def content_types(
    overrides: Mapping[str, str] | None = None, defaults: Mapping[str, str] | None = None
) -> bytes:
    d = {
        "rels": "application/vnd.openxmlformats-package.relationships+xml",
        "xml": "application/xml",
    }
    d.update(defaults or {})
    o = {"/word/document.xml": W_MAIN_CT, "/word/styles.xml": STYLES_CT}
    o.update(overrides or {})
    body = "".join(f'<Default Extension="{k}" ContentType="{v}"/>' for k, v in d.items())
    body += "".join(f'<Override PartName="{k}" ContentType="{v}"/>' for k, v in o.items())
    return (
        DECL
        + (
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            f"{body}</Types>"
        ).encode()
    )


def rels(*targets: tuple[str, str, str]) -> bytes:
    """A relationships part from ``(id, type, target)`` triples."""
    body = "".join(f'<Relationship Id="{i}" Type="{t}" Target="{g}"/>' for i, t, g in targets)
    return (
        DECL
        + (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f"{body}</Relationships>"
        ).encode()
    )


def document(body: str = "<w:p><w:r><w:t>The Tenant shall pay rent.</w:t></w:r></w:p>") -> bytes:
    return (
        DECL
        + (
            f'<w:document xmlns:w="{W_NS}" '
            'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
            'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
            f'mc:Ignorable="w14"><w:body>{body}</w:body></w:document>'
        ).encode()
    )


def styles() -> bytes:
    return DECL + f'<w:styles xmlns:w="{W_NS}"><w:docDefaults/></w:styles>'.encode()


def docx_parts(replace: Mapping[str, bytes | None] | None = None) -> list[tuple[str, bytes]]:
    """The parts of a small valid .docx, in Word's order. ``replace`` maps a zip name to new
    bytes (``None`` drops the part; unknown names are appended)."""
    parts: dict[str, bytes] = {
        "[Content_Types].xml": content_types(),
        "_rels/.rels": rels(("rId1", REL_DOC, "word/document.xml")),
        "word/document.xml": document(),
        "word/_rels/document.xml.rels": rels(("rId1", REL_STYLES, "styles.xml")),
        "word/styles.xml": styles(),
    }
    for name, data in (replace or {}).items():
        if data is None:
            parts.pop(name, None)
        else:
            parts[name] = data
    return list(parts.items())


def docx(replace: Mapping[str, bytes | None] | None = None, method: int = 8) -> bytes:
    """A small valid .docx (see :func:`docx_parts`)."""
    return raw_zip([Entry(n, d, method=method) for n, d in docx_parts(replace)])


# --- the hostile catalogue ----------------------------------------------------------------


def with_entry(change: Mapping[str, object], target: str = "word/document.xml") -> bytes:
    """A valid .docx whose ``target`` entry has the given :class:`Entry` fields overridden."""
    entries = [Entry(n, d) for n, d in docx_parts()]
    for e in entries:
        if e.name == target:
            for key, value in change.items():
                setattr(e, key, value)
    return raw_zip(entries)


def plus_entries(extra: list[Entry]) -> bytes:
    return raw_zip([Entry(n, d) for n, d in docx_parts()] + extra)


def deflate_repeated(head: bytes, block: bytes, copies: int, tail: bytes) -> bytes:
    """A raw deflate stream of ``head + block * copies + tail``, built in milliseconds: the
    block is compressed once, ended with a full flush (byte-aligned, no back-references),
    and its compressed bytes repeated."""

    def piece(data: bytes, final: bool) -> bytes:
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)
        return packer.compress(data) + packer.flush(zlib.Z_FINISH if final else zlib.Z_FULL_FLUSH)

    return piece(head, False) + piece(block, False) * copies + piece(tail, True)


def bomb(inflated: int = 512 * 1024 * 1024, declared: int = 40_000) -> bytes:
    """``word/document.xml`` declares ``declared`` bytes (and a CRC) but inflates to about
    ``inflated`` bytes of a repeated XML comment: well under a megabyte on disk."""
    closing = b"</w:body></w:document>"
    head = document()[: -len(closing)]
    unit = b"<!-- zip bomb -->"
    block = unit * (1024 * 1024 // len(unit))
    compressed = deflate_repeated(head, block, inflated // len(block), closing)
    return with_entry({"compressed": compressed, "usize": declared, "crc": 0})


def local_record(name: str, data: bytes) -> bytes:
    """A stored member's local header and data, as bytes to hide inside another member."""
    raw = name.encode()
    head = struct.pack(
        "<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0x21, zlib.crc32(data), len(data),
        len(data), len(raw), 0,
    )  # fmt: skip
    return head + raw + data


def overlapping_members() -> bytes:
    """Two members sharing bytes: ``word/media/inner.bin`` lies inside the stored data of
    ``word/media/outer.bin`` (David Fifield's overlap construction behind the "better zip
    bomb", where every entry re-uses one highly compressed kernel)."""
    inner = local_record("word/media/inner.bin", b"shared kernel")
    entries = [Entry(n, d) for n, d in docx_parts()]
    entries.append(Entry("word/media/outer.bin", inner, method=0))
    entries.append(
        Entry(
            "word/media/inner.bin", b"shared kernel", method=0, points_into="word/media/outer.bin"
        )
    )
    return raw_zip(entries)


def zip64_marked() -> bytes:
    """A valid .docx whose end record carries zip64 sentinels."""
    valid = docx()
    eocd = valid.rfind(b"PK\x05\x06")
    patched = bytearray(valid)
    struct.pack_into("<HH", patched, eocd + 8, 0xFFFF, 0xFFFF)
    return bytes(patched)


def deep(levels: int = 5_000) -> bytes:
    return document("<w:p>" + "<w:sdt>" * levels + "</w:sdt>" * levels + "</w:p>")


def huge_text_node(size: int = 30 * 1024 * 1024) -> bytes:
    """A document whose one text node is ``size`` characters of incompressible-ish hex."""
    import os

    text = os.urandom(size // 2).hex()
    return docx_stored_document(document(f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"))


def docx_stored_document(doc: bytes) -> bytes:
    entries = [Entry(n, d) for n, d in docx_parts({"word/document.xml": doc})]
    for e in entries:
        if e.name == "word/document.xml":
            e.method = 0
    return raw_zip(entries)


BILLION_LAUGHS = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    + b"".join(
        f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n'.encode()
        for i in range(1, 10)
    )
    + b"]>\n"
    + f'<w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p>'.encode()
    + b"</w:body></w:document>"
)

XXE = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
    + f'<w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>&xxe;</w:t></w:r></w:p>'.encode()
    + b"</w:body></w:document>"
)

STRICT_DOCUMENT = (
    DECL
    + (
        f'<w:document xmlns:w="{W_STRICT_NS}"><w:body><w:p><w:r><w:t>Strict</w:t></w:r></w:p>'
        "</w:body></w:document>"
    ).encode()
)

ALTERNATE_CONTENT_BODY = (
    '<w:p><w:r><mc:AlternateContent><mc:Choice Requires="w14"><w:t>choice</w:t></mc:Choice>'
    "<mc:Fallback><w:t>fallback</w:t></mc:Fallback></mc:AlternateContent></w:r></w:p>"
    '<x:wrapper xmlns:x="urn:example:unknown"><w:p><w:r><w:t>wrapped</w:t></w:r></w:p>'
    "</x:wrapper>"
)

OLE_HEADER = bytes.fromhex("D0CF11E0A1B11AE1") + b"\0" * 504
