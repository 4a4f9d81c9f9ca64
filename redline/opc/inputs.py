"""Reading an input file: only a regular file, its size checked before a byte is read.

Every input the project reads from a path -- a document, a reply, a report for ``redline
stats``, a batch's files -- goes through :func:`read_regular`:

1. opened with ``O_NONBLOCK`` (opening a FIFO for reading would otherwise wait for a writer
   forever) and ``O_NOCTTY``, never creating anything;
2. ``fstat`` on the open descriptor (not the name: no race between the check and the read);
   anything but a regular file -- a folder, a FIFO, a character device such as ``/dev/zero``,
   a socket -- is refused ``not_regular_file`` at once;
3. a regular file larger than the limit is refused ``too_large`` from its ``st_size`` alone
   (a sparse 3 GB file costs nothing);
4. read with at most ``limit + 1`` bytes asked for, so a file that grows while it is read is
   refused too, and memory is bounded by the limit.

:func:`read_stream` is step 4 for a stream that has no size (standard input).  Refusals are
:class:`~redline.errors.PackageError`\\ s with a sentence naming the input.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO, Final

from shared_schema import Code

from ..errors import PackageError

__all__ = ["CONVERTIBLE", "MAX_REPLY_BYTES", "MAX_REPORT_BYTES", "kind_of", "read_regular", "read_stream"]

_MB: Final = 1024 * 1024

MAX_REPLY_BYTES: Final = 64 * _MB
"""A reply file (or standard input): more than any model sends (a 5,000-edit reply is about
2 MB); the reply parser's own bound is 50 million characters."""
MAX_REPORT_BYTES: Final = 64 * _MB
"""A report or call log read by ``redline stats``."""

_CHUNK: Final = 1 * _MB

CONVERTIBLE: Final[frozenset[str]] = frozenset({".doc", ".rtf", ".odt"})
"""The suffixes (lower case) of the inputs :func:`redline.opc.convert.to_docx` converts
through LibreOffice (here, so that telling an input apart costs no import of the converter
and the subprocess machinery it brings: issue 32)."""


def kind_of(mode: int) -> str:
    """What a non-regular file is, for a person: ``a folder``, ``a FIFO (named pipe)``..."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _human(n: int) -> str:
    return f"{n / _MB:.0f} MB" if n >= _MB else f"{n:,} bytes"


def _too_large(what: str, size: int | None, limit: int) -> PackageError:
    told = f"is {_human(size)}" if size is not None else "is larger"
    return PackageError(Code.TOO_LARGE, f"The {what} {told}, more than the limit of {_human(limit)}.")


def read_regular(path: str | os.PathLike[str], limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them, or a refusal:
    ``not_regular_file`` (a folder, FIFO, device or socket: decided before anything is read),
    ``too_large`` (by ``fstat``, before reading; or when the file grew past the limit while it
    was read), ``io_error`` (missing, unreadable). ``what`` names the input in the message
    (``"document"``, ``"reply"``)."""
    shown = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise PackageError(Code.IO_ERROR, f"Cannot read the {what} {shown!r}: it does not exist.") from None
    except IsADirectoryError:
        raise PackageError(
            Code.NOT_REGULAR_FILE, f"Cannot read the {what} {shown!r}: it is a folder, not a file."
        ) from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO with no writer on some systems
            raise PackageError(
                Code.NOT_REGULAR_FILE, f"Cannot read the {what} {shown!r}: it is not a regular file."
            ) from None
        raise PackageError(
            Code.IO_ERROR, f"Cannot read the {what} {shown!r}: {exc.strerror or exc}."
        ) from None
    except ValueError:  # an embedded NUL: no such file can exist
        raise PackageError(
            Code.IO_ERROR, f"Cannot read the {what} {shown!r}: the name holds a NUL character."
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PackageError(
                Code.NOT_REGULAR_FILE,
                f"Cannot read the {what} {shown!r}: it is {kind_of(info.st_mode)}, not a regular file.",
            )
        if info.st_size > limit:
            raise _too_large(what, info.st_size, limit)
        os.set_blocking(fd, True)
        return _read_fd(fd, limit, what, info.st_size)
    except PackageError:
        raise
    except OSError as exc:
        raise PackageError(
            Code.IO_ERROR, f"Cannot read the {what} {shown!r}: {exc.strerror or exc}."
        ) from None
    finally:
        os.close(fd)


def _read_fd(fd: int, limit: int, what: str, size: int) -> bytes:
    # the whole file in one read as a rule (its size is known): no second copy to join
    pieces: list[bytes] = []
    total = 0
    want = size + 1
    while True:
        piece = os.read(fd, max(1, min(want, limit + 1 - total)))
        want = _CHUNK
        if not piece:
            return b"".join(pieces)
        pieces.append(piece)
        total += len(piece)
        if total > limit:  # it grew while it was read
            del pieces
            raise _too_large(what, None, limit)


def read_stream(stream: BinaryIO, limit: int, what: str = "input") -> bytes:
    """At most ``limit`` bytes of ``stream`` (read to its end), or ``too_large`` as soon as
    byte ``limit + 1`` arrives: ``/dev/zero`` on standard input costs ``limit`` bytes, once."""
    pieces: list[bytes] = []
    total = 0
    while True:
        piece = stream.read(min(_CHUNK, limit + 1 - total))
        if not piece:
            break
        pieces.append(piece)
        total += len(piece)
        if total > limit:
            del pieces
            raise _too_large(what, None, limit)
    return b"".join(pieces)
