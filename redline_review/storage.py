"""Where a batch's files live: a local folder, or any URL fsspec understands (optional extra).

The batch runner speaks only this small interface (list, read, write), so a shared file system
or an object store (``s3://…``, ``memory://…``) works exactly like a folder when ``fsspec`` is
installed (``pip install 'redline[dask]'``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Protocol

from redline.errors import PackageError
from redline.opc.files import write_atomic
from redline.opc.inputs import read_regular
from redline.opc.zipread import DEFAULT_LIMITS
from shared_schema import Code

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


class Storage(Protocol):
    def list(self) -> list[str]: ...
    def read(self, name: str, limit: int = ...) -> bytes: ...
    def write(self, name: str, data: bytes) -> None: ...
    def is_dir(self) -> bool: ...
    def makedirs(self) -> None: ...
    def join(self, name: str) -> str: ...
    def describe(self) -> str: ...


class LocalStorage:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def list(self) -> list[str]:
        """Every entry that is not a folder -- FIFOs, devices, sockets, broken links and
        unreadable files included: each is an input the batch reports, refused when read."""
        names = []
        with os.scandir(self.path) as entries:
            for entry in entries:
                try:  # (a folder named like a document is an input too: refused when read)
                    if entry.is_dir() and not entry.name.lower().endswith(".docx"):
                        continue
                except OSError:  # a link loop, a name too long: still an input to report
                    pass
                names.append(entry.name)
        return sorted(names)

    def read(self, name: str, limit: int = DEFAULT_LIMITS.max_file_bytes) -> bytes:
        """The file's bytes: a regular file of at most ``limit`` bytes, checked by ``fstat``
        before anything is read (:func:`redline.opc.inputs.read_regular`; raises PackageError)."""
        return read_regular(self.path / name, limit, "file")

    def write(self, name: str, data: bytes) -> None:
        write_atomic(self.path / name, data)

    def is_dir(self) -> bool:
        return self.path.is_dir()

    def makedirs(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)

    def join(self, name: str) -> str:
        return str(self.path / name)

    def describe(self) -> str:
        return str(self.path)


class FsspecStorage:
    """A folder on any file system fsspec knows; writes go to a temporary name, then move."""

    def __init__(self, url: str) -> None:
        import fsspec

        fs, root = fsspec.core.url_to_fs(url)
        self.fs: Any = fs
        self.root = root.rstrip("/")
        self.url = url.rstrip("/")

    def _p(self, name: str) -> str:
        return f"{self.root}/{name}"

    def list(self) -> list[str]:
        entries = self.fs.ls(self.root, detail=True)
        return sorted(e["name"].rsplit("/", 1)[-1] for e in entries if e.get("type") == "file")

    def read(self, name: str, limit: int = DEFAULT_LIMITS.max_file_bytes) -> bytes:
        """The file's bytes, its type and size asked of the file system first (a folder or
        an object over ``limit`` is refused before it is fetched)."""
        path = self._p(name)
        try:
            info = self.fs.info(path)
        except FileNotFoundError:
            raise PackageError(Code.IO_ERROR, f"Cannot read the file {name!r}: it does not exist.") from None
        if info.get("type") != "file":
            raise PackageError(Code.NOT_REGULAR_FILE, f"Cannot read the file {name!r}: it is not a file.")
        size = info.get("size")
        if isinstance(size, int) and size > limit:
            raise PackageError(
                Code.TOO_LARGE, f"The file {name!r} is {size:,} bytes, more than the limit of {limit:,}."
            )
        data: bytes = self.fs.cat_file(path)
        if len(data) > limit:
            raise PackageError(
                Code.TOO_LARGE, f"The file {name!r} is larger than the limit of {limit:,} bytes."
            )
        return data

    def write(self, name: str, data: bytes) -> None:
        tmp = self._p(f".{name}.partial")
        self.fs.pipe_file(tmp, data)
        self.fs.mv(tmp, self._p(name))

    def is_dir(self) -> bool:
        return bool(self.fs.isdir(self.root))

    def makedirs(self) -> None:
        self.fs.makedirs(self.root, exist_ok=True)

    def join(self, name: str) -> str:
        return f"{self.url}/{name}"

    def describe(self) -> str:
        return self.url


def open_storage(location: str) -> Storage:
    """A local folder for a path (or file:// URL), fsspec for any other URL."""
    if location.startswith("file://"):
        return LocalStorage(location[len("file://") :])
    if _URL.match(location):
        return FsspecStorage(location)
    return LocalStorage(location)
