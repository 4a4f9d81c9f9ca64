"""The reader's two inflaters give the same answer: libdeflate (whole member at once) and zlib
(bounded, streaming) -- the same bytes for a sound member, the same refusal (code and message)
for a member that lies about its size, is cut short, damaged, or exceeds the budget.

The oracle is the zlib-only reader (``zipread.libinflate`` set to None), which every earlier
round's refusal tests were written against."""

from __future__ import annotations

import io
import zipfile
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redline.errors import PackageError
from redline.opc import zipread
from redline.opc.zipread import Archive, Limits

pytestmark = pytest.mark.skipif(zipread.libinflate is None, reason="libdeflate is not installed")


def _zip(payload: bytes) -> bytearray:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", payload)
    return bytearray(buf.getvalue())


def _read(data: bytes | bytearray, limits: Limits, engine: bool) -> object:
    """The member's bytes, or (code, message, part) of the refusal, reading ``data``."""
    with pytest.MonkeyPatch.context() as patch:
        if not engine:
            patch.setattr(zipread, "libinflate", None)
        try:
            archive = Archive(bytes(data), limits, lambda name: None)
            return archive.inflate(archive.by_name["word/document.xml"])
        except PackageError as exc:
            return (exc.code, str(exc), getattr(exc, "part", None))


def _compressed_span(data: bytearray) -> tuple[int, int]:
    """Where the member's deflated bytes lie in ``data``."""
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        info = z.getinfo("word/document.xml")
    at = info.header_offset
    n = int.from_bytes(data[at + 26 : at + 28], "little")
    e = int.from_bytes(data[at + 28 : at + 30], "little")
    start = at + 30 + n + e
    return start, start + info.compress_size


def _set_declared_size(data: bytearray, size: int) -> None:
    """Make both the local header and the central record declare ``size`` inflated bytes."""
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        info = z.getinfo("word/document.xml")
    data[info.header_offset + 22 : info.header_offset + 26] = size.to_bytes(4, "little")
    cd = bytes(data).rfind(b"PK\x01\x02")
    data[cd + 24 : cd + 28] = size.to_bytes(4, "little")


payloads = st.one_of(
    st.binary(min_size=0, max_size=3000),
    st.text(alphabet="<w:p>abc \u201c\u00a0", min_size=0, max_size=4000).map(str.encode),
)


@settings(max_examples=300, deadline=None)
@given(
    payload=payloads,
    size_delta=st.integers(-3, 3),
    cut=st.integers(0, 40),
    flip=st.none() | st.tuples(st.integers(0, 10_000), st.integers(0, 7)),
    budget=st.none() | st.integers(1, 5000),
)
def test_libdeflate_and_zlib_read_every_member_alike(
    payload: bytes,
    size_delta: int,
    cut: int,
    flip: tuple[int, int] | None,
    budget: int | None,
) -> None:
    data = _zip(payload)
    if size_delta:
        _set_declared_size(data, max(0, len(payload) + size_delta))
    start, end = _compressed_span(data)
    if flip is not None and end > start:
        at = start + flip[0] % (end - start)
        data[at] ^= 1 << flip[1]
    if cut and end - start > 1:
        # cut the deflated bytes short, keeping the archive's layout (zeros in their place)
        keep = max(1, (end - start) - cut)
        data[start + keep : end] = bytes(end - start - keep)
    limits = Limits() if budget is None else Limits(max_total_bytes=budget)
    theirs = _read(data, limits, engine=False)
    ours = _read(data, limits, engine=True)
    assert ours == theirs


def test_a_long_member_is_inflated_by_libdeflate_to_zlibs_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = b"".join(b"<w:p><w:r><w:t>clause %d</w:t></w:r></w:p>" % i for i in range(40_000))
    data = _zip(payload)
    calls: list[int] = []
    real = zipread.libinflate
    assert real is not None

    def counting(raw: memoryview, size: int) -> bytearray:
        calls.append(size)
        return real(raw, size)

    monkeypatch.setattr(zipread, "libinflate", counting)
    archive = Archive(bytes(data), Limits(), lambda name: None)
    assert archive.inflate(archive.by_name["word/document.xml"]) == payload
    assert calls == [len(payload) + 1]  # one call, a buffer one byte longer than declared
    assert zlib.crc32(payload) == archive.by_name["word/document.xml"].crc
