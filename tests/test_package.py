"""The package loader is the trust boundary; the saver keeps every untouched byte.

Every hostile case is built in code (``testing/hostile_docs.py``) and must be refused with its
code, a sentence a person understands, and in under a second.
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import struct
import subprocess
import threading
import time
import tracemalloc
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import redline.opc.package as package_module
from redline.apply import Outcome
from redline.opc import parts as opc
from redline.opc import zipread, zipwrite
from redline.opc.namespaces import W_NS, w
from redline.opc.package import CODES, Limits, Package, PackageError, rels_part_for, write_atomic
from redline.opc.working import WorkingCopy
from redline.opc.xmlparse import XML_DECLARATION, find_doctype, make_parser, parse_xml, serialize
from shared_schema import MEANINGS, Code, parse_edit_reply
from testing import hostile_docs as h
from tests import support
from tests.hostile_catalogue import CATALOGUE, DOC, bomb_in_media

SAMPLES = Path(__file__).resolve().parent.parent / "sample_contracts"

MB = 1024 * 1024
RAW_WORDS = ("Traceback", "KeyError", "BadZipFile", "XMLSyntaxError", "zlib.error", "[Errno")


def assert_human(error: PackageError) -> None:
    """A refusal a person can read: one or more full sentences, no exception jargon."""
    message = error.message
    assert str(error) == message
    assert error.code in CODES, error.code
    assert message[:1].isupper(), message
    assert message.rstrip().endswith("."), message
    assert len(message.split()) >= 6, message
    for word in RAW_WORDS:
        assert word not in message, message
    # A deliberate refusal, not an unforeseen error translated at the boundary.
    assert error.__cause__ is None, repr(error.__cause__)


def run_stage(data: bytes, stage: str, limits: Limits | None = None) -> Package:
    pkg = Package.from_bytes(data, limits)
    if stage == "main":
        pkg.xml(pkg.main_part)
    elif stage.startswith("read:"):
        pkg.read(stage.removeprefix("read:"))
    return pkg


def refuse(data: bytes, stage: str = "load", limits: Limits | None = None) -> PackageError:
    # CPU time (every thread): a busy machine stretches the wall clock, not the work
    started = time.process_time()
    with pytest.raises(PackageError) as caught:
        run_stage(data, stage, limits)
    elapsed = time.process_time() - started
    assert elapsed < 1.0, f"took {elapsed:.2f} CPU seconds"
    return caught.value


@pytest.mark.parametrize(
    ("builder", "code", "stage"),
    [pytest.param(b, c, s, id=label) for label, b, c, s in CATALOGUE],
)
def test_hostile_document_is_refused_with_its_code(
    builder: Callable[[], bytes], code: str, stage: str
) -> None:
    error = refuse(builder(), stage)
    assert error.code == code, error
    assert_human(error)


@pytest.mark.parametrize("cut", [1, 2, 10, 31, 100, 0.25, 0.5, 0.9, -30, -22, -10, -1])
def test_a_zip_truncated_anywhere_is_refused_as_truncated(cut: float) -> None:
    valid = h.docx()
    at = int(len(valid) * cut) if isinstance(cut, float) else cut
    error = refuse(valid[:at])
    assert error.code == "truncated", error
    assert_human(error)


def test_the_catalogue_uses_only_documented_codes_and_every_code_is_in_the_docstring() -> None:
    assert {code for _, _, code, _ in CATALOGUE} <= set(CODES)
    doc = package_module.__doc__ or ""
    for code in CODES:
        assert f"``{code}``" in doc, code


def test_a_zip_bomb_is_refused_fast_and_in_little_memory() -> None:
    data = h.bomb(inflated=600 * MB)
    assert len(data) < 2 * MB
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        started = time.process_time()
        with pytest.raises(PackageError) as caught:
            Package.from_bytes(data)
        elapsed = time.process_time() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.code == "inflate_budget"
    assert elapsed < 1.0, f"took {elapsed:.2f} CPU seconds"
    assert peak < 256 * MB, f"peak {peak / MB:.0f} MB"
    assert peak < 32 * MB, f"peak {peak / MB:.0f} MB"  # what the design promises


def test_a_bomb_in_a_part_nobody_reads_is_copied_raw_without_inflating_it() -> None:
    data = bomb_in_media()
    pkg = Package.from_bytes(data)
    started = time.process_time()
    assert pkg.to_bytes({}) == data
    assert time.process_time() - started < 0.5


def test_the_total_declared_size_is_capped() -> None:
    data = h.plus_entries([h.Entry(f"word/media/m{i}.bin", os.urandom(6000)) for i in range(3)])
    error = refuse(data, limits=Limits(max_total_bytes=12_000, max_member_bytes=10_000))
    assert error.code == "too_large"
    assert_human(error)


def test_the_file_size_is_capped_before_anything_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.docx"
    path.write_bytes(h.docx())
    with pytest.raises(PackageError) as caught:
        Package.open(path, Limits(max_file_bytes=100))
    assert caught.value.code == "too_large"
    assert_human(caught.value)


def test_limits_refuse_nonsense_values() -> None:
    with pytest.raises(ValueError):
        Limits(max_members=0)
    with pytest.raises(ValueError):
        Limits(max_ratio=1)


def test_a_missing_file_is_an_io_error_and_a_folder_not_a_regular_file(tmp_path: Path) -> None:
    for path, code in ((tmp_path / "nope.docx", "io_error"), (tmp_path, "not_regular_file")):
        with pytest.raises(PackageError) as caught:
            Package.open(path)
        assert caught.value.code == code
        assert_human(caught.value)


def test_reading_a_part_that_does_not_exist_is_a_typed_refusal() -> None:
    pkg = Package.from_bytes(h.docx())
    for call in (pkg.read, pkg.xml):
        with pytest.raises(PackageError) as caught:
            call("word/nothing.xml")
        assert caught.value.code == "missing_part"
        assert_human(caught.value)


# --- what must load ---------------------------------------------------------------------------


def test_a_small_valid_docx_loads_and_answers_questions() -> None:
    data = h.docx()
    pkg = Package.from_bytes(data)
    assert pkg.names == (
        "[Content_Types].xml",
        "_rels/.rels",
        "word/document.xml",
        "word/_rels/document.xml.rels",
        "word/styles.xml",
    )
    assert pkg.main_part == "word/document.xml"
    assert pkg.read("word/document.xml") == DOC
    assert pkg.read("/WORD/Document.xml") == DOC  # OPC names ignore case; leading / optional
    assert pkg.xml("word/document.xml").tag == w("document")
    assert pkg.xml("word/document.xml") is pkg.xml("word/document.xml")  # cached
    assert pkg.fresh_xml("word/document.xml") is not pkg.xml("word/document.xml")
    assert pkg.content_type("word/document.xml") == h.W_MAIN_CT
    assert pkg.content_type("word/_rels/document.xml.rels") == (
        "application/vnd.openxmlformats-package.relationships+xml"
    )
    assert pkg.content_type("word/media/x.png") is None
    [rel] = pkg.rels("word/document.xml")
    assert (rel.id, rel.type, rel.target, rel.target_mode) == (
        "rId1",
        h.REL_STYLES,
        "word/styles.xml",
        "internal",
    )
    assert pkg.related("word/document.xml", h.REL_STYLES) == ["word/styles.xml"]
    assert pkg.related("word/styles.xml", h.REL_STYLES) == []
    assert pkg.rels("")[0].target == "word/document.xml"
    assert "word/styles.xml" in pkg and "word/nothing.xml" not in pkg
    assert pkg.revision.startswith("sha256:") and len(pkg.revision) == 7 + 64
    assert pkg.source_bytes == data


def test_the_revision_is_a_hash_of_the_bytes() -> None:
    one, two = h.docx(), h.docx({"word/document.xml": h.document("<w:p/>")})
    assert Package.from_bytes(one).revision == Package.from_bytes(one).revision
    assert Package.from_bytes(one).revision != Package.from_bytes(two).revision


def test_relationship_targets_resolve_relative_absolute_and_external() -> None:
    doc_rels = h.rels(
        ("rId1", h.REL_STYLES, "styles.xml"),
        ("rId2", "urn:t:header", "/word/header1.xml"),
        ("rId3", "urn:t:custom", "../customXml/item1.xml"),
        ("rId4", "urn:t:bookmark", "styles.xml#frag"),
        ("rId5", "urn:t:dangling", "media/missing.png"),
        ("rId6", "urn:t:escape", "../../../../etc/passwd"),
    ).replace(
        b"</Relationships>",
        b'<Relationship Id="rId7" Type="urn:t:hyperlink" Target="https://example.com/a?b=1"'
        b' TargetMode="External"/></Relationships>',
    )
    data = h.docx(
        {
            "word/_rels/document.xml.rels": doc_rels,
            "word/header1.xml": h.DECL + f'<w:hdr xmlns:w="{W_NS}"/>'.encode(),
            "customXml/item1.xml": b"<root/>",
        }
    )
    pkg = Package.from_bytes(data)
    targets = {r.id: (r.target, r.target_mode) for r in pkg.rels("word/document.xml")}
    assert targets == {
        "rId1": ("word/styles.xml", "internal"),
        "rId2": ("word/header1.xml", "internal"),
        "rId3": ("customXml/item1.xml", "internal"),
        "rId4": ("word/styles.xml", "internal"),
        "rId5": ("word/media/missing.png", "internal"),
        "rId6": ("../../../etc/passwd", "internal"),
        "rId7": ("https://example.com/a?b=1", "external"),
    }
    assert pkg.related("word/document.xml", "urn:t:dangling") == []
    assert pkg.related("word/document.xml", "urn:t:escape") == []
    assert pkg.related("word/document.xml", "urn:t:hyperlink") == []
    assert pkg.related("word/document.xml", "urn:t:header") == ["word/header1.xml"]


def test_alternate_content_and_unknown_namespace_wrappers_load_fine() -> None:
    data = h.docx({"word/document.xml": h.document(h.ALTERNATE_CONTENT_BODY)})
    pkg = Package.from_bytes(data)
    root = pkg.xml(pkg.main_part)
    texts = [t.text for t in root.iter(w("t"))]
    assert texts == ["choice", "fallback", "wrapped"]


def test_a_doctype_that_is_not_in_the_prolog_is_not_a_doctype() -> None:
    body = (
        "<w:p><w:r><w:t>x</w:t></w:r></w:p><!-- <!DOCTYPE in a comment> -->"
        "<w:customXml><![CDATA[<!DOCTYPE in cdata>]]></w:customXml>"
    )
    pkg = Package.from_bytes(h.docx({"word/document.xml": h.document(body)}))
    assert pkg.xml(pkg.main_part) is not None


def test_an_xhtml_alt_chunk_may_carry_its_doctype_because_we_never_parse_it() -> None:
    xhtml = (
        b'<?xml version="1.0"?><!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
        b'"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html/>'
    )
    ct = h.content_types({"/word/chunk.xhtml": "application/xhtml+xml"})
    pkg = Package.from_bytes(h.docx({"[Content_Types].xml": ct, "word/chunk.xhtml": xhtml}))
    assert pkg.read("word/chunk.xhtml") == xhtml
    with pytest.raises(PackageError) as caught:  # ...and if someone does, it is refused
        pkg.xml("word/chunk.xhtml")
    assert caught.value.code == "dtd_forbidden"


def test_a_template_docx_loads() -> None:
    ct = h.content_types(
        {
            "/word/document.xml": "application/vnd.openxmlformats-officedocument"
            ".wordprocessingml.template.main+xml"
        }
    )
    assert Package.from_bytes(h.docx({"[Content_Types].xml": ct})).main_part


def test_members_written_with_data_descriptors_load_and_round_trip() -> None:
    class Unseekable(io.RawIOBase):
        def __init__(self) -> None:
            self.buf = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, b: bytes) -> int:  # type: ignore[override]
            self.buf += b
            return len(b)

    sink = Unseekable()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in h.docx_parts():
            zf.writestr(name, data)
    data = bytes(sink.buf)
    assert all(i.flag_bits & 0x08 for i in zipfile.ZipFile(io.BytesIO(data)).infolist())
    pkg = Package.from_bytes(data)
    assert pkg.to_bytes({}) == data
    new_doc = h.document("<w:p><w:r><w:t>Changed.</w:t></w:r></w:p>")
    out = pkg.to_bytes({"word/document.xml": new_doc})
    with zipfile.ZipFile(io.BytesIO(out)) as zf:
        assert zf.testzip() is None
        assert zf.read("word/document.xml") == new_doc
        assert zf.namelist() == list(pkg.names)


# --- saving -----------------------------------------------------------------------------------


def _records(data: bytes) -> list[tuple[str, int, int, int, bytes]]:
    """(name, method, crc, size, compressed bytes) of every member, via zipfile."""
    out = []
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for info in zf.infolist():
            start = info.header_offset
            nlen, xlen = struct.unpack_from("<HH", data, start + 26)
            body = data[start + 30 + nlen + xlen : start + 30 + nlen + xlen + info.compress_size]
            out.append((info.filename, info.compress_type, info.CRC, info.file_size, body))
    return out


def test_a_read_back_takes_the_written_and_the_copied_parts_without_inflating_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the output of a write, loaded against its input (vouched) and the bytes it deflated
    # (written): the same package as a plain load, with nothing inflated
    pkg = Package.from_bytes(h.docx())
    new_doc = h.document("<w:p><w:r><w:t>Changed.</w:t></w:r></w:p>")
    out = pkg.to_bytes({"word/document.xml": new_doc})
    plain = Package.from_bytes(out)

    def no_inflate(self: zipread.Archive, m: zipread.Member) -> bytes:
        raise AssertionError(f"inflated {m.name}")

    monkeypatch.setattr(zipread.Archive, "inflate", no_inflate)
    back = Package.from_bytes(out, vouched=pkg, written={"word/document.xml": new_doc})
    assert back.markup == plain.markup
    assert all(back.read(n) == plain.read(n) for n in plain.names if plain.is_xml(n))
    assert back.read("word/document.xml") is new_doc
    assert back.read("word/styles.xml") is pkg.read("word/styles.xml")


def test_written_bytes_that_are_not_the_members_are_refused_as_damaged() -> None:
    pkg = Package.from_bytes(h.docx())
    new_doc = h.document("<w:p><w:r><w:t>Changed.</w:t></w:r></w:p>")
    out = pkg.to_bytes({"word/document.xml": new_doc})
    other = new_doc.replace(b"Changed", b"Chanted")  # the same size, another CRC
    with pytest.raises(PackageError) as err:
        Package.from_bytes(out, vouched=pkg, written={"word/document.xml": other})
    assert err.value.code == Code.CRC_MISMATCH
    with pytest.raises(PackageError) as err:
        Package.from_bytes(out, written={"word/document.xml": new_doc + b" "})
    assert err.value.code == Code.CRC_MISMATCH


def test_a_member_changed_since_the_vouched_package_is_inflated_and_checked_again() -> None:
    pkg = Package.from_bytes(h.docx())
    new_doc = h.document("<w:p><w:r><w:t>Changed.</w:t></w:r></w:p>")
    out = pkg.to_bytes({"word/document.xml": new_doc})  # the written bytes not given
    back = Package.from_bytes(out, vouched=pkg)
    assert back.read("word/document.xml") == new_doc
    assert back.markup == Package.from_bytes(out).markup


def test_saving_nothing_changed_gives_back_the_same_bytes() -> None:
    data = h.docx()
    assert Package.from_bytes(data).to_bytes({}) == data
    assert Package.from_bytes(data).to_bytes() == data


def test_a_changed_part_is_the_only_member_that_changes() -> None:
    data = h.docx()
    pkg = Package.from_bytes(data)
    new_doc = h.document("<w:p><w:r><w:t>The Tenant shall pay all rent.</w:t></w:r></w:p>")
    out = pkg.to_bytes({"word/document.xml": new_doc})
    before, after = _records(data), _records(out)
    assert [r[0] for r in before] == [r[0] for r in after]
    for old, new in zip(before, after, strict=True):
        if old[0] == "word/document.xml":
            assert new[1] == zipfile.ZIP_DEFLATED and new[2] == zlib.crc32(new_doc)
        else:
            assert old == new
    with zipfile.ZipFile(io.BytesIO(out)) as zf:
        assert zf.testzip() is None
        assert zf.read("word/document.xml") == new_doc
    assert Package.from_bytes(out).read("word/document.xml") == new_doc


def test_a_stored_part_stays_stored_when_changed() -> None:
    pkg = Package.from_bytes(h.docx(method=0))
    out = pkg.to_bytes({"word/styles.xml": h.styles() + b"\r\n"})
    with zipfile.ZipFile(io.BytesIO(out)) as zf:
        assert zf.getinfo("word/styles.xml").compress_type == zipfile.ZIP_STORED
        assert zf.read("word/styles.xml") == h.styles() + b"\r\n"


def _long_document(paragraphs: int, first: str = "", last: str = "") -> bytes:
    """A document.xml of ``paragraphs`` varied paragraphs (~170 bytes each), ``first`` and
    ``last`` as its first and last words."""
    rng = random.Random(paragraphs)
    words = ["rent", "Tenant", "Landlord", "shall", "pay", "the", "premises", "notice", "within"]
    texts = [f"{i}. " + " ".join(rng.choice(words) for _ in range(20)) for i in range(paragraphs)]
    texts[0], texts[-1] = f"{first} {texts[0]}", f"{texts[-1]} {last}"
    return h.document("".join(f"<w:p><w:r><w:t>{t}</w:t></w:r></w:p>" for t in texts))


def test_a_long_changed_part_is_deflated_in_chunks_into_one_valid_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    new_doc = _long_document(14_000)
    assert len(new_doc) > 4 * zipwrite.CHUNK  # several chunks for each thread
    pkg = Package.from_bytes(h.docx())
    out = pkg.to_bytes({"word/document.xml": new_doc})
    with zipfile.ZipFile(io.BytesIO(out)) as zf:
        assert zf.testzip() is None  # every CRC checked
        assert zf.read("word/document.xml") == new_doc
    assert Package.from_bytes(out).read("word/document.xml") == new_doc
    ((_, method, crc, size, body),) = [r for r in _records(out) if r[0] == "word/document.xml"]
    assert (method, crc, size) == (zipfile.ZIP_DEFLATED, zlib.crc32(new_doc), len(new_doc))
    inflater = zlib.decompressobj(-15)
    assert inflater.decompress(body) == new_doc
    assert inflater.eof and not inflater.unused_data  # one final block, at the very end
    docx = pytest.importorskip("docx")
    assert len(docx.Document(io.BytesIO(out)).paragraphs) == 14_000
    # The cuts do not depend on the threads: one thread writes the same bytes.
    monkeypatch.setattr(zipwrite, "_THREADS", 1)
    assert pkg.to_bytes({"word/document.xml": new_doc}) == out


@pytest.mark.parametrize("engine", ["libdeflate", "zlib"])
@pytest.mark.parametrize("chunks", [1.5, 2, 2.001, 3, 4.7])
def test_deflate_gives_the_payload_back_at_every_size(chunks: float, engine: str) -> None:
    size = int(chunks * zipwrite.CHUNK)
    rng = random.Random(size)
    # markup that compresses well, then random bytes that do not (stored blocks)
    payload = ((b"<w:r><w:t>the rent</w:t></w:r>" * size)[: size // 2] + rng.randbytes(size))[:size]
    body, crc = zipwrite.deflate(payload, engine)
    assert crc == zlib.crc32(payload)
    inflater = zlib.decompressobj(-15)
    assert inflater.decompress(body) == payload
    assert inflater.eof and not inflater.unused_data
    if engine == "zlib" and size >= 2 * zipwrite.CHUNK:  # chunked: all but the last end in a sync flush
        first = zipwrite.deflate_chunk(memoryview(payload), 0)
        assert first.endswith(b"\x00\x00\xff\xff") and body.startswith(first)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000), st.integers(0, 2))
def test_a_written_member_s_crc_is_zlib_s(payload: bytes, repeat: int) -> None:
    # libdeflate's CRC-32 (the writer's where it is installed) against zlib's, the long way
    data = payload * (1 + repeat * 700)
    assert zipwrite.crc32(data) == zlib.crc32(data)
    assert zipwrite.deflate(data, "zlib")[1] == zipwrite.deflate(data, "libdeflate")[1] == zlib.crc32(data)


def test_the_engine_is_libdeflate_where_it_is_installed() -> None:
    pytest.importorskip("deflate")  # a dependency: installed with the package
    assert zipwrite.ENGINE == "libdeflate"


def test_libdeflate_parts_are_no_larger_than_zlibs() -> None:
    """The re-written parts' size with libdeflate, against zlib at the same level (what every
    output was before): over generated leases', the samples' and the corpus's main parts
    together no more than 1% larger (measured: about 7% smaller), no part more than 2% larger."""
    pytest.importorskip("deflate")
    docs = [support.lease(seed) for seed in range(4)]
    docs += [p.read_bytes() for p in [*sorted(SAMPLES.glob("*.docx")), *support.corpus_paths()]]
    parts = [zipfile.ZipFile(io.BytesIO(d)).read("word/document.xml") for d in docs]
    ours = [len(zipwrite.deflate(p, "libdeflate")[0]) for p in parts]
    zlibs = [len(zipwrite.deflate(p, "zlib")[0]) for p in parts]
    assert sum(ours) <= 1.01 * sum(zlibs)
    assert all(o <= 1.02 * z for o, z in zip(ours, zlibs, strict=True))


def libreoffice_text(soffice: str, docx_path: Path, tmp_path: Path) -> str:
    """``docx_path`` as LibreOffice reads it, converted to plain text in ``tmp_path``."""
    result = subprocess.run(
        [soffice, "--headless", f"-env:UserInstallation=file://{tmp_path}/lo", "--convert-to",
         "txt:Text", "--outdir", str(tmp_path), str(docx_path)],
        capture_output=True, timeout=180, check=False,
    )  # fmt: skip
    text_file = tmp_path / f"{docx_path.stem}.txt"
    assert text_file.exists(), result.stderr.decode(errors="replace")
    return text_file.read_text(encoding="utf-8-sig", errors="replace")


@pytest.mark.slow
def test_pandoc_and_libreoffice_read_a_long_part_deflated_in_chunks(tmp_path: Path) -> None:
    new_doc = _long_document(8_000, first="REDLINE-FIRST-MARKER", last="REDLINE-LAST-MARKER")
    assert len(new_doc) > 2 * zipwrite.CHUNK
    out = tmp_path / "long.docx"
    write_atomic(out, Package.from_bytes(h.docx()).to_bytes({"word/document.xml": new_doc}))
    readers = 0
    pandoc = shutil.which("pandoc")
    if pandoc is not None:
        readers += 1
        text = subprocess.run(
            [pandoc, "-f", "docx", "-t", "plain", str(out)], capture_output=True, timeout=180, check=True
        ).stdout.decode()
        assert "REDLINE-FIRST-MARKER" in text and "REDLINE-LAST-MARKER" in text
    soffice = shutil.which("soffice")
    if soffice is not None:
        readers += 1
        text = libreoffice_text(soffice, out, tmp_path)
        assert "REDLINE-FIRST-MARKER" in text and "REDLINE-LAST-MARKER" in text
    if not readers:
        pytest.skip("neither pandoc nor LibreOffice is installed")


def test_added_parts_go_after_the_last_member_in_the_order_given() -> None:
    pkg = Package.from_bytes(h.docx())
    comments = h.DECL + f'<w:comments xmlns:w="{W_NS}"/>'.encode()
    out = pkg.to_bytes({}, [("word/comments.xml", comments), ("word/_rels/x.rels", b"<a/>")])
    with zipfile.ZipFile(io.BytesIO(out)) as zf:
        assert zf.namelist() == [*pkg.names, "word/comments.xml", "word/_rels/x.rels"]
        assert zf.read("word/comments.xml") == comments
        assert zf.testzip() is None
    reloaded = Package.from_bytes(out)
    assert reloaded.read("word/comments.xml") == comments


def test_saving_refuses_unknown_duplicate_and_unsafe_names() -> None:
    pkg = Package.from_bytes(h.docx())
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: pkg.to_bytes({"word/nothing.xml": b""}), "missing_part"),
        (lambda: pkg.to_bytes({}, [("WORD/styles.xml", b"")]), "duplicate_part"),
        (lambda: pkg.to_bytes({}, [("a.xml", b""), ("A.xml", b"")]), "duplicate_part"),
        (lambda: pkg.to_bytes({}, [("../a.xml", b"")]), "unsafe_part_name"),
    ]
    for call, code in cases:
        with pytest.raises(PackageError) as caught:
            call()
        assert caught.value.code == code
        assert_human(caught.value)


def test_python_docx_opens_the_saved_output() -> None:
    docx = pytest.importorskip("docx")
    pkg = Package.from_bytes(h.docx())
    new_doc = h.document("<w:p><w:r><w:t>Saved by redline.</w:t></w:r></w:p>")
    document = docx.Document(io.BytesIO(pkg.to_bytes({"word/document.xml": new_doc})))
    assert [p.text for p in document.paragraphs] == ["Saved by redline."]


def test_the_package_can_be_read_from_many_threads() -> None:
    pkg = Package.from_bytes(h.docx())
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(50):
                assert pkg.xml("word/styles.xml").tag == w("styles")
                assert pkg.read("word/document.xml") == DOC
                parse_xml(DOC, "word/document.xml")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# --- xmlparse ---------------------------------------------------------------------------------


def test_parse_xml_never_expands_entities_or_fetches_anything() -> None:
    # Even with the DOCTYPE check bypassed, the parser itself expands nothing.
    root = etree.fromstring(h.XXE, make_parser())
    assert "root:" not in etree.tostring(root).decode()
    for data in (h.XXE, h.BILLION_LAUGHS, b"<!DOCTYPE html><html/>"):
        with pytest.raises(PackageError) as caught:
            parse_xml(data, "word/document.xml")
        assert caught.value.code == "dtd_forbidden"
        assert caught.value.part == "word/document.xml"


def test_find_doctype_looks_only_at_the_prolog() -> None:
    assert find_doctype(b"<!DOCTYPE a><a/>")
    assert find_doctype(b"\xef\xbb\xbf<?xml version='1.0'?>\r\n<!-- c --><?p?> <!DOCTYPE a><a/>")
    assert find_doctype("<?xml version='1.0'?><!DOCTYPE a><a/>".encode("utf-16"))
    assert find_doctype("<!DOCTYPE a><a/>".encode("utf-16-be"))
    assert find_doctype("<!DOCTYPE a><a/>".encode("utf-32"))
    assert not find_doctype(b"<a><!-- <!DOCTYPE a> --></a>")
    assert not find_doctype(b"<?xml version='1.0'?><a><![CDATA[<!DOCTYPE a>]]></a>")
    assert not find_doctype(b"")


def test_parse_errors_name_the_part() -> None:
    with pytest.raises(PackageError) as caught:
        parse_xml(b"<a><b></a>", "word/footer1.xml")
    assert caught.value.code == "malformed_xml"
    assert caught.value.part == "word/footer1.xml"
    assert "word/footer1.xml" in caught.value.message
    assert_human(caught.value)


def test_serialize_writes_words_declaration_and_keeps_namespaces_and_siblings() -> None:
    source = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<?mso-contentType?>'
        b'<w:document xmlns:w="' + W_NS.encode() + b'" xmlns:unused="urn:unused" '
        b'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
        b'mc:Ignorable="unused"><w:body><w:p><w:r><w:t xml:space="preserve"> a </w:t></w:r>'
        b"</w:p></w:body></w:document>"
    )
    root = parse_xml(source, "word/document.xml")
    out = serialize(root)
    assert out.startswith(XML_DECLARATION)
    assert XML_DECLARATION == b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
    assert b"<?mso-contentType?>" in out
    assert b'xmlns:unused="urn:unused"' in out and b'mc:Ignorable="unused"' in out
    assert b'<w:t xml:space="preserve"> a </w:t>' in out
    assert serialize(parse_xml(out, "x")) == out  # stable
    body = root.find(w("body"))
    assert body is not None
    assert serialize(body).startswith(XML_DECLARATION + b"<w:body")


# --- atomic write -----------------------------------------------------------------------------


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_write_atomic_writes_the_bytes_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "out.docx"
    write_atomic(out, b"hello")
    assert out.read_bytes() == b"hello"
    write_atomic(out, b"again")
    assert out.read_bytes() == b"again"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("fail_in", ["write", "fsync", "replace"])
def test_a_failure_during_the_write_leaves_no_output_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_in: str
) -> None:
    out = tmp_path / "out.docx"

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    if fail_in == "write":
        real_fdopen = os.fdopen

        def fdopen(fd: int, mode: str) -> object:
            handle = real_fdopen(fd, mode)

            class Failing:
                def __enter__(self) -> Failing:
                    return self

                def __exit__(self, *exc: object) -> None:
                    handle.close()

                def write(self, data: bytes) -> int:
                    handle.write(data[:3])
                    raise OSError(28, "No space left on device")

            return Failing()

        monkeypatch.setattr(os, "fdopen", fdopen)
    else:
        monkeypatch.setattr(os, fail_in, boom)
    with pytest.raises(PackageError) as caught:
        write_atomic(out, b"x" * 10_000)
    assert caught.value.code == "io_error"
    assert "No space left on device" in caught.value.message
    assert not out.exists()
    assert _leftovers(tmp_path) == []


def test_a_failed_write_leaves_an_existing_output_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.docx"
    out.write_bytes(b"previous")

    def boom(*args: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(PackageError):
        write_atomic(out, b"new")
    assert out.read_bytes() == b"previous"
    assert _leftovers(tmp_path) == []


def test_an_interrupt_during_the_write_cleans_up_and_propagates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupt(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "out.docx", b"x")
    assert list(tmp_path.iterdir()) == []


def test_a_bug_of_ours_during_the_write_cleans_up_and_propagates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def bug(fd: int) -> None:
        raise TypeError("a bug of ours, not the disk's")

    monkeypatch.setattr(os, "fsync", bug)
    with pytest.raises(TypeError):
        write_atomic(tmp_path / "out.docx", b"x")
    assert list(tmp_path.iterdir()) == []

    def runtime_bug(fd: int) -> None:  # not one of the OURS kinds, still no failure of the disk
        raise RuntimeError("a bug of ours too")

    monkeypatch.setattr(os, "fsync", runtime_bug)
    with pytest.raises(RuntimeError):  # was io_error: anything but an OSError or a codec's was
        write_atomic(tmp_path / "out.docx", b"x")
    assert list(tmp_path.iterdir()) == []


def test_a_nul_in_the_output_name_is_an_io_error(tmp_path: Path) -> None:
    with pytest.raises(PackageError) as caught:
        write_atomic(tmp_path / "a\x00b.docx", b"x")
    assert caught.value.code == "io_error"
    assert "null byte" in caught.value.message
    assert_human(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_writing_into_a_missing_folder_is_an_io_error(tmp_path: Path) -> None:
    with pytest.raises(PackageError) as caught:
        write_atomic(tmp_path / "missing" / "out.docx", b"x")
    assert caught.value.code == "io_error"
    assert "does not exist" in caught.value.message
    assert_human(caught.value)


def test_rels_part_for_names_the_relationships_part() -> None:
    assert rels_part_for("word/document.xml") == "word/_rels/document.xml.rels"
    assert rels_part_for("/word/document.xml") == "word/_rels/document.xml.rels"
    assert rels_part_for("") == "_rels/.rels"


# --- the boundary: foreign exceptions are refusals, ours are bugs -----------------------------


def _raise(exc: BaseException) -> Callable[..., object]:
    def boom(*args: object, **kwargs: object) -> object:
        raise exc

    return boom


@pytest.mark.parametrize(
    ("target", "name", "stage"),
    [
        (zipread.Archive, "_locate_data", "load"),  # the zip reader
        (opc.ContentTypes, "from_xml", "load"),  # OPC
        (package_module, "find_doctype", "load"),  # the scan of every XML part
        (package_module, "parse_xml", "load"),  # the parse of a part
        (zipread.Archive, "inflate", "read"),  # inflating a part read later
    ],
)
@pytest.mark.parametrize("bug", [KeyError("x"), IndexError("x"), ValueError("x"), AttributeError("x")])
def test_a_bug_of_ours_in_the_loader_propagates_and_is_not_called_a_damaged_file(
    monkeypatch: pytest.MonkeyPatch, target: object, name: str, stage: str, bug: Exception
) -> None:
    data = h.docx({"word/media/image1.png": b"\x89PNG not read at load"})
    if stage == "read":
        pkg = Package.from_bytes(data)
        monkeypatch.setattr(target, name, _raise(bug))
        with pytest.raises(type(bug)) as caught:
            pkg.read("word/media/image1.png")
    else:
        monkeypatch.setattr(target, name, _raise(bug))
        with pytest.raises(type(bug)) as caught:
            Package.from_bytes(data)
    assert not isinstance(caught.value, PackageError)
    assert caught.value is bug


@pytest.mark.parametrize(
    ("foreign", "code"),
    [
        (struct.error("unpack requires a buffer"), "corrupt_zip"),
        (zlib.error("invalid stored block lengths"), "corrupt_member"),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "corrupt_zip"),
        (OSError(5, "Input/output error"), "io_error"),
        (EOFError(), "truncated"),
    ],
)
def test_a_foreign_exception_nobody_foresaw_is_a_refusal_with_its_code_and_cause(
    monkeypatch: pytest.MonkeyPatch, foreign: Exception, code: str
) -> None:
    monkeypatch.setattr(package_module, "find_doctype", _raise(foreign))
    with pytest.raises(PackageError) as caught:
        Package.from_bytes(h.docx())
    assert caught.value.code == code
    assert caught.value.code in CODES
    assert caught.value.__cause__ is foreign  # unforeseen: the original is chained for the log
    message = caught.value.message
    assert message[:1].isupper() and message.endswith("."), message


def test_the_package_codes_are_the_catalogues() -> None:
    assert all(isinstance(code, Code) for code in CODES)
    assert all(CODES[code] == MEANINGS[code] for code in CODES)
    assert isinstance(PackageError("io_error", "Cannot read it at all.").code, Code)
    with pytest.raises(ValueError):
        PackageError("no_such_code", "A code that is not in the catalogue.")


# --- the working copy: the only thing a write changes -----------------------------------------


def _write_twice(pkg: Package, reply: str) -> tuple[Outcome, Outcome]:
    from redline.apply import ApplyOptions, apply_batch
    from redline.read.build import build_view

    options = ApplyOptions(date="2026-01-01T00:00:00Z")
    outcomes = []
    for _ in range(2):
        batch = parse_edit_reply(reply)
        assert batch is not None
        outcomes.append(apply_batch(pkg, build_view(pkg), batch, options))
    return outcomes[0], outcomes[1]


@pytest.mark.parametrize("reader", ["scanned", "tree walk"])
def test_a_write_changes_only_its_working_copy_and_a_second_write_starts_from_the_original(
    monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    import redline.read.build as build_module

    if reader == "tree walk":
        monkeypatch.setattr(build_module, "scanned_view", lambda package, working=None, **_: None)
    data = h.docx()
    pkg = Package.from_bytes(data)
    parts = {name: pkg.read(name) for name in pkg.names}
    shared = {name: pkg.xml(name) for name in pkg.names if pkg.is_xml(name)}  # a reader's trees
    shared_bytes = {name: serialize(root) for name, root in shared.items()}
    edit = {"anchor": "pay rent", "replacement": "pay the rent", "rationale": "clearer"}
    reply = json.dumps({"edits": [edit]})

    first, second = _write_twice(pkg, reply)

    assert first.output is not None and first.report.all_applied
    assert b"comments" in first.output  # the comments part, its relationship, its content type
    assert second.output == first.output  # the second write started from the original
    assert pkg.source_bytes == data
    assert {name: pkg.read(name) for name in pkg.names} == parts
    for name, root in shared.items():
        assert pkg.xml(name) is root
        assert serialize(root) == shared_bytes[name], name
        assert serialize(pkg.fresh_xml(name)) == serialize(parse_xml(parts[name], name)), name
    assert Package.from_bytes(data).to_bytes({}) == pkg.to_bytes({}) == data


def test_the_view_writes_into_its_working_copy_not_into_the_package() -> None:
    from redline.apply import make_writer
    from redline.match.verify import Planned
    from redline.read.build import build_view
    from redline.write.writer import WriteOptions

    pkg = Package.from_bytes(h.docx())
    view = build_view(pkg)
    assert isinstance(view.working, WorkingCopy) and view.working.package is pkg
    view.check_tree()
    writer = make_writer(pkg, view, WriteOptions(date="2026-01-01T00:00:00Z"))
    assert writer.splice is not None and writer.splice.working is view.working
    writer.write([Planned(0, 0, 3, "A", True)])
    changed = serialize(view.working.xml(pkg.main_part))
    assert b"w:ins" in changed
    assert b"w:ins" not in serialize(pkg.xml(pkg.main_part))
    assert build_view(pkg).working is not view.working


# --- bounded fuzzing --------------------------------------------------------------------------


def _exercise(data: bytes) -> None:
    """Load, read every part, parse every XML part, save: only PackageError may come out."""
    try:
        pkg = Package.from_bytes(data)
        for name in pkg.names:
            pkg.read(name)
            if pkg.is_xml(name):
                pkg.xml(name)
        Package.from_bytes(pkg.to_bytes({pkg.main_part: pkg.read(pkg.main_part)}))
    except PackageError as exc:
        assert exc.code in CODES
        assert exc.__cause__ is None, repr(exc.__cause__)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits=st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, 255), st.sampled_from("xid")),
        min_size=1,
        max_size=6,
    )
)
def test_fuzz_byte_mutations_only_ever_raise_package_error(
    edits: list[tuple[int, int, str]],
) -> None:
    _exercise(h.mutate_bytes(h.docx(), edits))


_PART_NAMES = [n for n, _ in h.docx_parts()]


@settings(max_examples=100, deadline=None)
@given(
    ops=st.lists(
        st.tuples(
            st.sampled_from(["drop", "dup", "rename", "doctype", "mc", "swapct", "garble"]),
            st.sampled_from(_PART_NAMES),
            st.sampled_from([*_PART_NAMES, "Word/Document.xml", "x/../y.xml", "a\\b.xml"]),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_fuzz_structural_mutations_only_ever_raise_package_error(
    ops: list[tuple[str, str, str]],
) -> None:
    parts: list[tuple[str, bytes]] = h.docx_parts()
    for op, name, other in ops:
        at = next((i for i, (n, _) in enumerate(parts) if n == name), None)
        if at is None:
            continue
        data = parts[at][1]
        if op == "drop":
            del parts[at]
        elif op == "dup":
            parts.append((other, data))
        elif op == "rename":
            parts[at] = (other, data)
        elif op == "doctype":
            parts[at] = (name, b'<!DOCTYPE x [<!ENTITY a "b">]>' + data[len(h.DECL) :])
        elif op == "mc":
            parts[at] = (name, data.replace(b"<w:body>", b"<w:body><mc:AlternateContent/>"))
        elif op == "swapct":
            parts[at] = (name, data.replace(b"wordprocessingml", b"spreadsheetml"))
        elif op == "garble":
            parts[at] = (name, data[: len(data) // 2])
    data = h.raw_zip([h.Entry(n, d) for n, d in parts])
    _exercise(data)


# --- the real corpus --------------------------------------------------------------------------

# What each corpus document must do: load, or be refused for a reason that is right.
EXPECTED_REFUSALS = {"d2p-strict-ooxml.docx": "strict_ooxml"}


def _looks_like_xml(data: bytes) -> bool:
    """False for a part declared XML that is something else (oxpt-CA009's altChunk is a whole
    .docx zip under a WordprocessingML content type): parsing it is a typed refusal, but not a
    reason to refuse the document, which never asks for it to be parsed."""
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"<") or data[:2] in (b"\xff\xfe", b"\xfe\xff")


@pytest.mark.corpus
def test_every_corpus_document_loads_or_is_refused_for_the_right_reason(
    corpus_dir: Path, corpus_docs: list[Path]
) -> None:
    results: dict[str, str] = {}
    for path in corpus_docs:
        try:
            pkg = Package.open(path)
            for name in pkg.names:
                if pkg.is_xml(name) and _looks_like_xml(pkg.read(name)):
                    pkg.xml(name)
                pkg.read(name)
            results[path.name] = "loaded"
        except PackageError as exc:
            assert_human(exc)
            results[path.name] = exc.code
    manifest = corpus_dir / "MANIFEST.tsv"
    if manifest.exists():
        listed = {line.split("\t", 1)[0] for line in manifest.read_text().splitlines()[1:]}
        assert listed <= set(results)
    expected = {name: EXPECTED_REFUSALS.get(name, "loaded") for name in results}
    assert results == expected


@pytest.mark.corpus
def test_corpus_documents_round_trip_member_for_member(corpus_docs: list[Path]) -> None:
    for path in corpus_docs:
        if path.name in EXPECTED_REFUSALS:
            continue
        data = path.read_bytes()
        pkg = Package.from_bytes(data)
        assert pkg.to_bytes({}) == data, path.name
        assert _records(pkg.to_bytes({})) == _records(data), path.name


@pytest.mark.corpus
def test_changing_a_corpus_document_changes_only_its_main_part(corpus_docs: list[Path]) -> None:
    docx = pytest.importorskip("docx")
    for path in corpus_docs:
        if path.name in EXPECTED_REFUSALS:
            continue
        data = path.read_bytes()
        pkg = Package.from_bytes(data)
        root = pkg.fresh_xml(pkg.main_part)
        first_t = next(root.iter(w("t")), None)
        if first_t is not None:
            first_t.text = (first_t.text or "") + " [edited]"
        new_main = serialize(root)
        out = pkg.to_bytes({pkg.main_part: new_main})
        before, after = _records(data), _records(out)
        assert [r[0] for r in before] == [r[0] for r in after], path.name
        for old, new in zip(before, after, strict=True):
            if old[0] != pkg.main_part:
                assert old == new, (path.name, old[0])
        with zipfile.ZipFile(io.BytesIO(out)) as zf:
            assert zf.testzip() is None
        assert Package.from_bytes(out).read(pkg.main_part) == new_main
        try:
            docx.Document(io.BytesIO(data))
        except Exception:  # python-docx cannot read some real files at all: not our concern
            continue
        docx.Document(io.BytesIO(out))


@pytest.mark.corpus
def test_loading_the_largest_corpus_document_is_cheap(corpus_docs: list[Path]) -> None:
    largest = max(corpus_docs, key=lambda p: p.stat().st_size)
    data = largest.read_bytes()
    Package.from_bytes(data)  # warm up
    # CPU time, so that a machine busy with other work does not skew the ratio
    started = time.process_time()
    pkg = Package.from_bytes(data)
    load = time.process_time() - started
    document_xml = pkg.read(pkg.main_part)
    started = time.process_time()
    etree.fromstring(document_xml, make_parser())
    bare = time.process_time() - started
    # Loading (zip directory, checks, inflating + CRC + DOCTYPE scan of every XML part) costs
    # a fraction of one bare parse of document.xml.
    assert load < max(0.5 * bare, 0.05), (load, bare)


@pytest.mark.corpus
@pytest.mark.slow
def test_libreoffice_opens_a_saved_corpus_document(tmp_path: Path, corpus_dir: Path) -> None:
    soffice = shutil.which("soffice")
    if soffice is None:
        pytest.skip("LibreOffice is not installed")
    source = corpus_dir / "cp-mutual-nda.docx"
    pkg = Package.open(source)
    root = pkg.fresh_xml(pkg.main_part)
    marker = "REDLINE-ROUND-TRIP-MARKER"
    first_t = next(root.iter(w("t")))
    first_t.text = marker
    out = tmp_path / "saved.docx"
    write_atomic(out, pkg.to_bytes({pkg.main_part: serialize(root)}))
    assert marker in libreoffice_text(soffice, out, tmp_path)


def test_a_refusal_crosses_a_process_boundary_whole() -> None:
    import pickle

    from shared_schema import Code

    error = PackageError(Code.TOO_LARGE, "Too large.", "word/document.xml")
    again = pickle.loads(pickle.dumps(error))
    assert (again.code, again.message, again.part) == (Code.TOO_LARGE, "Too large.", "word/document.xml")
    assert str(again) == "Too large."
