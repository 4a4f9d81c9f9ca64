"""Zip members with fixed metadata, so a generated document is the same bytes on every build.

``ZipFile.writestr(name, ...)`` stamps the current time (at 2-second resolution): two builds of
one document differ whenever they straddle a tick, and a test comparing a file with a fresh
rebuild flakes. Every generator here writes through :func:`write_member` instead.
"""

from __future__ import annotations

import io
import zipfile

FIXED_DATE = (1980, 1, 1, 0, 0, 0)
"""The earliest date a zip can hold: every generated member's timestamp."""


def write_member(
    z: zipfile.ZipFile,
    name: str,
    data: str | bytes,
    *,
    compress_type: int = zipfile.ZIP_DEFLATED,
    compresslevel: int | None = None,
) -> None:
    """Write one member of *z* dated :data:`FIXED_DATE`, mode 0644, made on Unix."""
    info = zipfile.ZipInfo(name, date_time=FIXED_DATE)
    info.compress_type = compress_type
    info.external_attr = 0o644 << 16
    info.create_system = 3
    z.writestr(info, data, compresslevel=compresslevel)


def reproducible(data: bytes, *, compresslevel: int | None = 6) -> bytes:
    """*data*, a zip, rewritten member by member (same names, order and contents) with fixed metadata."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            write_member(dst, info.filename, src.read(info.filename), compresslevel=compresslevel)
    return out.getvalue()
