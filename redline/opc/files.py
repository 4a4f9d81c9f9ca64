"""The file system: the atomic write every output goes through.

:func:`write_atomic` puts bytes on disk all or nothing: a temporary file in the same folder,
fsync, ``os.replace``, fsync of the folder.  A failure of the file system -- what
:func:`redline.errors.foreign_table` names for :attr:`~redline.errors.Where.WRITE`: an
``OSError``, a file name the codec cannot encode -- is a :class:`~redline.errors.PackageError`
``io_error``; anything else (a bug of ours) propagates as it is.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from shared_schema import Code

from ..errors import PackageError, Refused, Where, foreign_code

__all__ = ["write_atomic"]


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` all or nothing: a temporary ``.NAME.XXXX.tmp`` in the same
    folder, flushed and fsynced, then ``os.replace``d into place.

    On any failure the temporary file is removed, nothing exists at ``path`` that was not there
    before (an existing file is left untouched), and :class:`PackageError` ``io_error`` is
    raised (``KeyboardInterrupt`` and the like, and our own bugs, are re-raised as they are,
    after cleaning up).
    """
    target = Path(path)
    folder = target.parent
    if not folder.is_dir():
        raise PackageError(
            Code.IO_ERROR,
            f"Cannot write {target}: the folder {folder} does not exist.",
        )
    if "\x00" in target.name:  # os.open would raise ValueError, which is no bug of ours
        raise PackageError(Code.IO_ERROR, f"Cannot write {target}: embedded null byte.")
    tmp: Path | None = None
    try:
        fd = -1
        for _ in range(100):
            candidate = folder / f".{target.name}.{os.urandom(4).hex()}.tmp"
            try:
                fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:
                continue
            tmp = candidate
            break
        if tmp is None:
            raise FileExistsError(f"no free temporary name next to {target}")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
        _fsync_folder(folder)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()
        if not isinstance(exc, Refused) and foreign_code(exc, Where.WRITE) is not None:
            detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            message = f"Cannot write {target}: {detail or type(exc).__name__}."
            raise PackageError(Code.IO_ERROR, message) from exc
        raise


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable (best effort: not every platform can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
