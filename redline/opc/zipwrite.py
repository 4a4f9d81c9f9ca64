"""Zip writing that keeps every untouched byte: the byte-faithful copy, and the threaded deflate.

:func:`rewrite` makes a new archive from one :class:`~redline.opc.zipread.Archive` read: every
member that did not change is copied byte for byte -- local header, compressed data and data
descriptor straight from the source, its central-directory record with only the offset patched
-- in the original order; changed members are compressed anew (same method: deflated stays
deflated, stored stays stored) in their original position; added members go after the last
one.  Changed members are deflated by libdeflate (the ``deflate`` package) where it is
installed, else by zlib, a long one in chunks on two threads (:func:`deflate`); either way to the
same bytes whatever the thread count.

Names are not checked here: which parts exist and which names are safe is OPC's business
(:meth:`redline.opc.package.Package.to_bytes` checks them before calling).
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from shared_schema import Code

from ..errors import PackageError
from .zipread import (
    CENTRAL,
    CENTRAL_SIG,
    DEFLATED,
    EOCD,
    EOCD_SIG,
    FLAG_UTF8,
    LOCAL,
    LOCAL_SIG,
    STORED,
    Archive,
    Member,
    crc32,
)

__all__ = ["crc32", "deflate", "rewrite"]

_libdeflate: Callable[[bytes, int], bytearray] | None
try:  # libdeflate: a dependency (abi3 wheels for every supported platform); zlib where it fails
    from deflate import deflate_compress as _libdeflate
except ImportError:  # pragma: no cover - only where the wheel cannot install
    _libdeflate = None

LEVEL: Final = 3  # deflate level for re-written parts, either engine (see deflate)
ENGINE: Final = "zlib" if _libdeflate is None else "libdeflate"  # what deflates them
CHUNK: Final = 512 * 1024  # a long changed part is deflated in chunks this long, in parallel
_WINDOW: Final = 32 * 1024  # deflate's window: what a chunk is primed with
_THREADS: Final = min(2, os.cpu_count() or 1)
_DOS_DATE_1980: Final = (0 << 9) | (1 << 5) | 1  # 1980-01-01, what Word writes
_MAX_U32: Final = 0xFFFFFFFF


def _zip64_refusal() -> PackageError:
    return PackageError(
        Code.TOO_LARGE,
        "The document would need a zip64 archive (over 4 GB or 65,535 parts), which is not supported.",
    )


def rewrite(
    archive: Archive,
    replace: Mapping[str, bytes],
    added: Sequence[tuple[str, bytes]] = (),
) -> bytes:
    """``archive`` with the members named in ``replace`` (by their exact names) given new
    bytes, and ``added`` members appended; every other byte copied.  Raises
    :class:`PackageError` ``too_large`` when the result would need zip64."""
    source = archive.data
    out = bytearray()
    central: list[bytes] = []
    for m in archive.members:
        offset = len(out)
        new = replace.get(m.name)
        if new is None:
            out += source[m.offset : m.span_end]
            central.append(m.central[:42] + struct.pack("<I", offset) + m.central[46:])
        else:
            local, record = _encode_member(m, new, offset)
            out += local
            central.append(record)
    for name, payload in added:
        local, record = _encode_member(None, bytes(payload), len(out), name)
        out += local
        central.append(record)
    count = len(central)
    cd_offset = len(out)
    for record in central:
        out += record
    cd_size = len(out) - cd_offset
    if count > 0xFFFF or len(out) > _MAX_U32:
        raise _zip64_refusal()
    comment = archive.comment
    out += EOCD.pack(EOCD_SIG, 0, 0, count, count, cd_size, cd_offset, len(comment))
    out += comment
    return bytes(out)


def _encode_member(
    m: Member | None, payload: bytes, offset: int, new_name: str | None = None
) -> tuple[bytes, bytes]:
    """A fresh local header + data, and its central record, for a changed or added member."""
    if m is not None:
        name_bytes = m.name_bytes
        flags = m.flags & FLAG_UTF8
        method = STORED if m.method == STORED else DEFLATED
        (_, made, _need, _f, _meth, mtime, mdate, _crc, _cs, _us, _nl, _xl, _cl,
         _disk, iattr, eattr, _off) = m.central_fields  # fmt: skip
        comment_start = CENTRAL.size + len(m.name_bytes) + m.central_fields[11]
        comment = m.central[comment_start:]
    else:
        assert new_name is not None
        name_bytes = new_name.encode("utf-8")
        flags = 0 if new_name.isascii() else FLAG_UTF8
        method = DEFLATED
        made, mtime, mdate, iattr, eattr, comment = 20, 0, _DOS_DATE_1980, 0, 0, b""
    if method == DEFLATED:
        body, crc = deflate(payload)
    else:
        body, crc = payload, crc32(payload)
    # the sizes go into 32-bit fields: over them is zip64, refused here rather than by struct
    if len(payload) > _MAX_U32 or len(body) > _MAX_U32 or offset > _MAX_U32:
        raise _zip64_refusal()
    need = 20
    local = LOCAL.pack(
        LOCAL_SIG, need, flags, method, mtime, mdate, crc, len(body), len(payload),
        len(name_bytes), 0,
    )  # fmt: skip
    record = CENTRAL.pack(
        CENTRAL_SIG, made, need, flags, method, mtime, mdate, crc, len(body), len(payload),
        len(name_bytes), 0, len(comment), 0, iattr, eattr, offset,
    )  # fmt: skip
    return local + name_bytes + body, record + name_bytes + comment


def deflate(payload: bytes, engine: str = ENGINE) -> tuple[bytes, int]:
    """The raw deflate stream of ``payload`` (level :data:`LEVEL`) and its CRC-32.

    With libdeflate (:data:`ENGINE`), one stream on one thread: at level 3 it is about 7% faster
    than zlib's level 3 (CPU time over the corpus's main parts) and about 7% smaller, and on a
    13 MB main part one thread of it is as fast as zlib's two (benchmarks/compression.py).

    With zlib, level 3: about 2.5x faster than zlib's default on a long document.xml, ~15% larger.  A
    part of two :data:`CHUNK` or more is cut into chunks deflated on :data:`_THREADS`
    threads, as pigz does (zlib releases the GIL): each chunk is primed with the 32 KiB before
    it (so back-references cross the cut), every chunk but the last ends with a sync flush
    (byte-aligned, not final) and the last with the final block, so the chunks' streams
    joined are one valid deflate stream.  The cuts do not depend on the thread count: the
    same payload always gives the same bytes.  The CRC is computed meanwhile.
    """
    if engine == "libdeflate" and _libdeflate is not None:
        return bytes(_libdeflate(payload, LEVEL)), crc32(payload)
    size = len(payload)
    if size < 2 * CHUNK:
        packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
        return packer.compress(payload) + packer.flush(), crc32(payload)
    view = memoryview(payload)
    starts = range(0, size, CHUNK)
    if _THREADS < 2:
        chunks = [deflate_chunk(view, start) for start in starts]
        return b"".join(chunks), crc32(payload)
    from concurrent.futures import ThreadPoolExecutor  # (a part this long: imported when met)

    with ThreadPoolExecutor(_THREADS, thread_name_prefix="redline-deflate") as pool:
        futures = [pool.submit(deflate_chunk, view, start) for start in starts]
        crc = crc32(payload)
        return b"".join([f.result() for f in futures]), crc


def deflate_chunk(view: memoryview, start: int) -> bytes:
    """``view[start:start + CHUNK]`` as zlib deflate blocks that continue the stream of the
    bytes before it (see :func:`deflate`: the zlib engine's chunks)."""
    if start:
        zdict = view[max(0, start - _WINDOW) : start]
        packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS, zdict=zdict)
    else:
        packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    end = start + CHUNK
    body = packer.compress(view[start:end])
    return body + packer.flush(zlib.Z_FINISH if end >= len(view) else zlib.Z_SYNC_FLUSH)
